// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/common/token_text.h"

#include <QChar>

namespace TokenText {

namespace {

// Length of the well-formed UTF-8 sequence at the start of `s` (with its code point), or 0.
int utf8Sequence(std::string_view s, char32_t &cp)
{
    const auto c = static_cast<uint8_t>(s[0]);
    const int len = c < 0x80                   ? 1
                    : (c >= 0xC2 && c <= 0xDF) ? 2
                    : (c >> 4) == 0xE          ? 3
                    : (c >= 0xF0 && c <= 0xF4) ? 4
                                               : 0;
    if (len == 0 || s.size() < static_cast<size_t>(len))
        return 0;
    cp = len == 1 ? c : c & (0x7F >> len);
    for (int k = 1; k < len; ++k) {
        const auto cc = static_cast<uint8_t>(s[static_cast<size_t>(k)]);
        if ((cc & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (cc & 0x3F);
    }
    // overlong forms, surrogates and values past U+10FFFF are not UTF-8
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

bool invisible(char32_t cp)
{
    switch (QChar::category(cp)) {
    case QChar::Separator_Space:
    case QChar::Separator_Line:
    case QChar::Separator_Paragraph:
    case QChar::Other_Control:
    case QChar::Other_Format: return true;
    default: return false;
    }
}

} // namespace

QString visible(std::string_view bytes, int maxChars)
{
    QString out;
    out.reserve(static_cast<qsizetype>(std::min<size_t>(bytes.size(), static_cast<size_t>(maxChars)) + 1));
    int chars = 0;
    for (size_t i = 0; i < bytes.size(); ++chars) {
        if (chars == maxChars) {
            out += QChar(0x2026);
            break;
        }
        char32_t cp = 0;
        const int len = utf8Sequence(bytes.substr(i), cp);
        if (len == 0) {
            out += QStringLiteral("\\x%1").arg(static_cast<uint8_t>(bytes[i]), 2, 16, QLatin1Char('0'));
            ++i;
            continue;
        }
        i += static_cast<size_t>(len);
        if (cp == ' ')
            out += QChar(0x00B7);
        else if (cp == '\n')
            out += QChar(0x21B5);
        else if (cp == '\t')
            out += QChar(0x2192);
        else if (cp == '\r')
            out += QLatin1String("\\r");
        else if (cp < 0x20 || cp == 0x7F) // control pictures (U+2400…) are missing from common fonts
            out += QStringLiteral("\\x%1").arg(static_cast<uint>(cp), 2, 16, QLatin1Char('0'));
        else if (invisible(cp))
            out += QStringLiteral("\u2039U+%1\u203A").arg(static_cast<uint>(cp), 4, 16, QLatin1Char('0')).toUpper();
        else
            out += QString::fromUcs4(&cp, 1);
    }
    return out;
}

QString hex(std::string_view bytes, int maxBytes)
{
    static constexpr char kDigits[] = "0123456789abcdef";
    const size_t shown = std::min(bytes.size(), static_cast<size_t>(maxBytes));
    QString out;
    out.reserve(static_cast<qsizetype>(shown * 3 + 2));
    for (size_t i = 0; i < shown; ++i) {
        if (i)
            out += u' ';
        const auto b = static_cast<uint8_t>(bytes[i]);
        out += QLatin1Char(kDigits[b >> 4]);
        out += QLatin1Char(kDigits[b & 0xF]);
    }
    if (shown < bytes.size())
        out += QStringLiteral(" \u2026");
    return out;
}

} // namespace TokenText
