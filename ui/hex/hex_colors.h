// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/hex/hex_annotator.h"

#include <QColor>
#include <QPalette>

#include <array>

/// The hex view's colour table: one hue per kind of byte, blended into the palette's base colour
/// so the text stays readable in light and dark palettes. Tensor-data block fields get hues of
/// their own; odd units (array elements, blocks) are a shade stronger than even ones. Text keeps
/// a contrast of at least 4.5:1 on all of them.
class HexColors {
public:
    explicit HexColors(const QPalette &palette = QPalette());

    /// Background of a byte of this shade.
    QColor background(const HexAnnotator::Shade &shade) const;
    /// Text colour of a byte of this category (padding is dimmed).
    QColor text(HexAnnotator::Category category) const;
    /// The swatch of a category in the legend (its even-unit background).
    QColor swatch(HexAnnotator::Category category) const;
    /// Background of block field `field` of tensor data, for the legend.
    QColor fieldSwatch(int field) const;

    QColor selection() const { return m_selection; }
    QColor cursor() const { return m_cursor; }
    QColor base() const { return m_base; }
    QColor textColor() const { return m_text; }
    QColor dimText() const { return m_dim; }
    QColor notesText() const { return m_dim; }
    bool dark() const { return m_dark; }

    static constexpr int kFieldHues = 8;

private:
    QColor tint(QColor hue, double amount) const;
    /// The palette's text moved toward the base as far as keeps a contrast of 4.5:1 on every
    /// background the view paints, selected or not (tst_hex_colors).
    QColor dimmed(const QPalette &palette) const;

    bool m_dark = false;
    QColor m_base, m_text, m_dim, m_selection, m_cursor;
    std::array<std::array<QColor, 2>, HexAnnotator::kCategoryCount> m_categories;
    std::array<std::array<QColor, 2>, kFieldHues> m_fields;
};
