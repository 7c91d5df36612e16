// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/common/page.h"
#include "ui/common/page_state.h"
#include "ui/common/tensor_ref.h"

#include <QWidget>

#include <memory>

class MessageBar;
class QCheckBox;
class QLabel;
class QLineEdit;
class QTreeView;
class TensorSortFilterProxy;
class TensorTableModel;

namespace gguf {
class SplitModel;
}

/// The tensor table: sortable on every column, filtered by name or type (substring or regular
/// expression), optionally grouped by layer, with the totals of the visible rows underneath.
/// Selecting a tensor announces it.
class TensorsPage : public Page {
    Q_OBJECT
public:
    explicit TensorsPage(QWidget *parent = nullptr);

    /// Shows the tensors of `model` (null: empty).
    void setModel(std::shared_ptr<const gguf::SplitModel> model) override;
    void setFilter(const QString &pattern, bool regularExpression);
    void setGroupedByLayer(bool grouped);

    /// Puts the keyboard focus into the filter box.
    void focusFilter();
    bool focusFind() override;
    /// Selects and shows tensor `index` of shard `shard` (clearing a filter that hides it).
    void selectTensor(TensorRef tensor);
    /// A tensor link: selects the tensor.
    bool follow(const Link &link) override;

    QByteArray saveState() const override;
    void restoreState(const QByteArray &state) override;

    TensorTableModel *model() const { return m_model; }
    TensorSortFilterProxy *proxy() const { return m_proxy; }
    QTreeView *view() const { return m_view; }
    QString totalsText() const;

    // Links: a selected tensor (in the background), the damage bar's "Show in Bytes".

private:
    void applyFilter();
    void updateTotals();
    /// Names the tensor info being read when a damaged file's reading stopped (hidden otherwise).
    void showDamage();

    TensorTableModel *m_model;
    TensorSortFilterProxy *m_proxy;
    QLineEdit *m_filter;
    MessageBar *m_damage;
    QCheckBox *m_regex;
    QCheckBox *m_grouped;
    QTreeView *m_view;
    QLabel *m_totals;
    bool m_columnsFitted = false;
    PageState m_state{0}; ///< saveState()/restoreState()
};
