// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/hex/hex_colors.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace {

using Category = HexAnnotator::Category;

// Hue (HSV degrees) and saturation of each category; -1 hue is grey.
struct Hue {
    int hue;
    int saturation;
};
constexpr Hue kCategoryHues[HexAnnotator::kCategoryCount] = {
    {0, 220},   // magic
    {28, 220},  // version
    {48, 230},  // counts
    {195, 200}, // key length
    {222, 210}, // key text
    {275, 190}, // value type
    {118, 190}, // value
    {168, 210}, // array header
    {140, 150}, // array elements
    {318, 190}, // tensor name
    {58, 230},  // tensor dims
    {18, 200},  // tensor type
    {88, 200},  // tensor offset
    {-1, 0},    // padding
    {210, 120}, // tensor data (plain elements; block fields use kFieldPalette)
    {30, 70},   // unused
    {350, 160}, // unparsed
    {0, 255},   // broken (a stronger tint than the others, see below)
};
// Block fields in order: often d, dmin/m, scales, qs, …; the last is the I2_S trailer.
constexpr Hue kFieldPalette[HexColors::kFieldHues] = {
    {40, 230}, {12, 210}, {285, 170}, {210, 110}, {180, 160}, {130, 160}, {330, 170}, {355, 110},
};

} // namespace

HexColors::HexColors(const QPalette &palette)
    : m_base(palette.color(QPalette::Base)), m_text(palette.color(QPalette::Text))
{
    m_dark = m_base.lightnessF() < 0.5;
    m_selection = palette.color(QPalette::Highlight);
    // light enough that the colours of the fields stay visible under a large selection, and that
    // light text on a dark palette keeps 4.5:1 on a selected field
    m_selection.setAlpha(80);
    m_cursor = palette.color(QPalette::Highlight);
    // odd units are a little stronger than even ones; dark palettes need more colour to show it
    const double even = m_dark ? 0.30 : 0.20, odd = m_dark ? 0.42 : 0.32;
    // on a dark base the hues are darker too, so that light text keeps its contrast on them
    const int value = m_dark ? 190 : 235;
    for (int c = 0; c < HexAnnotator::kCategoryCount; ++c) {
        const Hue h = kCategoryHues[c];
        const QColor hue = h.hue < 0 ? QColor(128, 128, 128) : QColor::fromHsv(h.hue, h.saturation, value);
        // the field where reading stopped stands out from everything else
        const double strength = c == int(Category::Broken) ? 2.0 : h.hue < 0 ? 0.6 : 1.0;
        m_categories[size_t(c)] = {tint(hue, even * strength), tint(hue, odd * strength)};
    }
    for (int f = 0; f < kFieldHues; ++f) {
        const QColor hue = QColor::fromHsv(kFieldPalette[f].hue, kFieldPalette[f].saturation, value);
        m_fields[size_t(f)] = {tint(hue, even), tint(hue, odd)};
    }
    m_dim = dimmed(palette);
}

namespace {

// WCAG 2 relative luminance and contrast ratio
double luminance(const QColor &c)
{
    auto channel = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}

double contrast(const QColor &a, const QColor &b)
{
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QColor mixed(const QColor &from, const QColor &to, double amount)
{
    const auto mix = [amount](double a, double b) { return float(a + (b - a) * amount); };
    return QColor::fromRgbF(mix(from.redF(), to.redF()), mix(from.greenF(), to.greenF()),
                            mix(from.blueF(), to.blueF()));
}

} // namespace

QColor HexColors::dimmed(const QPalette &palette) const
{
    // every background dimmed text can sit on (padding, bytes not yet fetched), also selected
    std::vector<QColor> backgrounds;
    auto add = [&](const QColor &background) {
        backgrounds.push_back(background);
        backgrounds.push_back(mixed(background, m_selection, m_selection.alphaF()));
    };
    add(m_base); // bytes without an annotation (a file still being read)
    for (const auto &pair : m_categories)
        for (const QColor &c : pair)
            add(c);
    for (const auto &pair : m_fields)
        for (const QColor &c : pair)
            add(c);
    // as far toward the base as keeps 4.5:1 (WCAG AA for text) on all of them, at most halfway
    const QColor text = palette.color(QPalette::Text);
    for (double amount = 0.5; amount > 0; amount -= 0.025) {
        const QColor dim = mixed(text, m_base, amount);
        if (std::all_of(backgrounds.begin(), backgrounds.end(),
                        [&](const QColor &b) { return contrast(dim, b) >= 4.6; }))
            return dim;
    }
    return text;
}

QColor HexColors::tint(QColor hue, double amount) const
{
    const auto mix = [amount](double a, double b) { return float(a + (b - a) * amount); };
    return QColor::fromRgbF(mix(m_base.redF(), hue.redF()), mix(m_base.greenF(), hue.greenF()),
                            mix(m_base.blueF(), hue.blueF()));
}

QColor HexColors::background(const HexAnnotator::Shade &shade) const
{
    const size_t parity = shade.odd ? 1 : 0;
    // field 0 is a plain element (the category's colour); block field k is field k - 1
    if (shade.category == Category::TensorData && shade.field > 0)
        return m_fields[size_t(shade.field - 1) % kFieldHues][parity];
    return m_categories[size_t(shade.category)][parity];
}

QColor HexColors::text(HexAnnotator::Category category) const
{
    return category == Category::Padding ? m_dim : m_text;
}

QColor HexColors::swatch(HexAnnotator::Category category) const
{
    return m_categories[size_t(category)][1];
}

QColor HexColors::fieldSwatch(int field) const
{
    return m_fields[size_t(field % kFieldHues)][1];
}
