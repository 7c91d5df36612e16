// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/format/byte_source.h"
#include "ui/hex/hex_colors.h"
#include "ui/hex/hex_layout.h"

#include <QAbstractScrollArea>

#include <memory>
#include <span>

class HexAnnotator;

namespace gguf {
class GgufFile;
}

/// A read-only hex view of a whole file. It paints only the visible rows, straight from the
/// memory map (nothing is copied), so opening, scrolling and jumping cost the same anywhere in a
/// 100 GB file. Bytes are coloured by what they are once an annotator is set; hovering a byte
/// explains it; the field under the cursor is outlined. Geometry lives in HexLayout.
class HexView : public QAbstractScrollArea {
    Q_OBJECT
public:
    explicit HexView(QWidget *parent = nullptr);
    ~HexView() override;

    /// Shows `file` from its first byte (null: nothing). Clears the annotator.
    void setFile(std::shared_ptr<const gguf::GgufFile> file);
    const gguf::GgufFile *file() const { return m_file.get(); }
    /// Colours, tooltips and field outlines for the file shown (built on a worker; may come later).
    void setAnnotator(std::shared_ptr<const HexAnnotator> annotator);
    const HexAnnotator *annotator() const { return m_annotator.get(); }

    void setBytesPerRow(int bytes);
    int bytesPerRow() const { return m_layout.bytesPerRow(); }
    /// Shows the annotation column (short names of the fields starting in each row).
    void setNotesVisible(bool visible);
    bool notesVisible() const { return m_notesVisible; }

    /// Moves the cursor to `offset` (clamped to the file) and scrolls to it; clears the selection.
    void setCursorOffset(uint64_t offset);
    uint64_t cursorOffset() const { return m_cursor; }
    /// Selects bytes [begin, end), puts the cursor on `begin` and scrolls to it.
    void select(uint64_t begin, uint64_t end);
    /// The selection [begin, end); empty (begin == end) when nothing is selected.
    std::pair<uint64_t, uint64_t> selection() const { return {m_selBegin, m_selEnd}; }
    /// The field outlined around the cursor [begin, end).
    std::pair<uint64_t, uint64_t> cursorField() const { return {m_fieldBegin, m_fieldEnd}; }
    /// The first row shown.
    uint64_t topRow() const { return m_topRow; }
    /// Keeps `bytes` (fetched for bytesWanted) readable while they may be shown, and repaints.
    void holdBytes(gguf::ByteLease bytes);
    const HexLayout &layout() const { return m_layout; }

signals:
    /// The cursor moved (by mouse, keyboard or a call).
    void cursorMoved(quint64 offset);
    /// The user clicked byte `offset` (a plain left click, not a drag or shift-click).
    void byteClicked(quint64 offset);
    void byteDoubleClicked(quint64 offset);
    /// The selection changed to [begin, end) (empty when begin == end).
    void selectionChanged(quint64 begin, quint64 end);
    /// Rows [begin, end) are on screen but a remote file's bytes there have not arrived: fetch them
    /// (then holdBytes). Said once per range until the screen shows other rows.
    void bytesWanted(quint64 begin, quint64 end);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void changeEvent(QEvent *event) override;
    bool viewportEvent(QEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;

private:
    void updateMetrics();
    void updateScrollBars();
    void setTopRow(uint64_t row);
    void moveCursor(uint64_t offset, bool extend);
    void updateCursorField();
    void paintRows(QPainter &painter, int xShift);
    void paintRowText(QPainter &painter, int baseline, std::span<const HexAnnotator::Shade> shades,
                      std::span<const uint8_t> bytes);
    void paintCursor(QPainter &painter, int height);
    void paintHeader(QPainter &painter);
    QPoint contentPoint(QPoint viewportPoint) const;
    QString toolTipAt(QPoint viewportPoint) const;

    std::shared_ptr<const gguf::GgufFile> m_file;
    gguf::ByteLease m_held;                       ///< a remote file's bytes around the screen
    std::pair<uint64_t, uint64_t> m_wanted{0, 0}; ///< the last range asked for
    std::shared_ptr<const HexAnnotator> m_annotator;
    HexLayout m_layout;
    HexColors m_colors;
    QWidget *m_header;
    uint64_t m_topRow = 0;
    uint64_t m_cursor = 0;
    uint64_t m_anchor = 0;
    uint64_t m_selBegin = 0, m_selEnd = 0;
    uint64_t m_fieldBegin = 0, m_fieldEnd = 0;
    bool m_notesVisible = true;
    bool m_dragging = false;
    bool m_settingScrollBar = false;
    int m_wheelRemainder = 0;
};
