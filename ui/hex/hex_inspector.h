// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QPair>
#include <QWidget>

#include <cstdint>
#include <span>

class HexAnnotator;
class QGridLayout;
class QLabel;
class QTableWidget;

namespace gguf {
class GgufFile;
}

/// The side panel of the hex page: what the byte at the cursor belongs to (label and
/// explanation), the bytes there read as every integer and float type in the file's byte order,
/// and a legend of the colours.
class HexInspector : public QWidget {
    Q_OBJECT
public:
    explicit HexInspector(QWidget *parent = nullptr);

    /// Shows the byte at `offset` of `file` (null: empty); `annotator` may be null while the byte
    /// map is still being built.
    void inspect(const gguf::GgufFile *file, const HexAnnotator *annotator, uint64_t offset);

    /// "u8" … "f64" and the value of `bytes` read as each, in little-endian or (swapped) big-endian
    /// order; "—" where there are too few bytes.
    static QList<QPair<QString, QString>> decode(std::span<const uint8_t> bytes, bool swapped);

    QString labelText() const;
    QString explanationText() const;
    /// The value shown for `type` ("u32", "f16", …).
    QString valueText(const QString &type) const;

protected:
    void changeEvent(QEvent *event) override;

private:
    void createLegend();
    void updateLegend();

    QLabel *m_label;
    QLabel *m_explanation;
    QLabel *m_position;
    QLabel *m_byteOrder;
    QTableWidget *m_values;
    QGridLayout *m_legend;
    QList<QLabel *> m_swatches; ///< the categories in order, then the block fields
};
