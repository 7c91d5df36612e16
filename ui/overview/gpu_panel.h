// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/memory/offload_plan.h"

#include <QWidget>

class JobProgress;
class PlacementMap;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

/// The GPUs part of the Overview's Memory section (#44): the devices (name and free GiB each,
/// added and removed), the tensor split, split mode and main GPU, the override rules (-ot) and the
/// experts kept on the CPU (--n-cpu-moe, --cpu-moe); Fit and Copy command line; the placement map of
/// the plan the Memory section computes. With no device the section is the single-device estimate.
class GpuPanel : public QWidget {
    Q_OBJECT
public:
    explicit GpuPanel(QWidget *parent = nullptr);

    /// The model's layer count and whether it has experts (the ranges of the controls).
    void setModel(uint64_t layers, bool experts);
    /// True when at least one device is listed: the section shows a plan over the devices.
    bool active() const;
    /// The placement options as typed; `error` says what does not parse ("" when all do).
    gguf::OffloadInputs inputs(QString &error) const;
    /// Replaces the devices (name, free GiB).
    void setDevices(const QVector<QPair<QString, double>> &devices);
    void setCpuMoe(uint32_t layers);
    uint64_t marginBytes() const;
    bool fitLargestContext() const;
    /// Shows `plan` on the placement map (an empty map for a plan with an error).
    void showPlan(const gguf::OffloadPlan &plan);
    /// What the last Fit found, or why the plan could not be made (rich text).
    void setStatus(const QString &html);
    PlacementMap *map() const { return m_map; }
    JobProgress *progress() const { return m_progress; }

signals:
    void changed();
    void fitRequested();
    void copyRequested();

private:
    void addDevice();
    void removeDevice();
    QWidget *makeDeviceBox();

    QTableWidget *m_devices;
    QPushButton *m_add, *m_remove;
    QLineEdit *m_split;
    QComboBox *m_mode;
    QSpinBox *m_mainGpu;
    QLineEdit *m_overrides;
    QSpinBox *m_nCpuMoe;
    QCheckBox *m_cpuMoe;
    QSpinBox *m_margin;
    QCheckBox *m_largestContext;
    QPushButton *m_fit, *m_copy;
    QLabel *m_status;
    JobProgress *m_progress;
    PlacementMap *m_map;
    QWidget *m_planBox; ///< what shows only with devices
};
