// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/hex/hex_text.h"
#include "ui/common/text_format.h"

#include <QCoreApplication>
#include <QRegularExpression>

namespace {

struct HexTextWords {
    Q_DECLARE_TR_FUNCTIONS(HexText)
};

int digitValue(QChar c)
{
    if (c >= u'0' && c <= u'9')
        return c.unicode() - u'0';
    const QChar l = c.toLower();
    if (l >= u'a' && l <= u'f')
        return l.unicode() - u'a' + 10;
    return -1;
}

} // namespace

namespace HexText {

std::optional<QByteArray> parseHexBytes(const QString &text, QString *error)
{
    static const QRegularExpression separators(QStringLiteral("[\\s,:;-]+"));
    QByteArray bytes;
    // each run between separators is whole bytes: "47", "4747" or "0x47"
    for (QString token : text.split(separators, Qt::SkipEmptyParts)) {
        if (token.startsWith(QLatin1String("0x"), Qt::CaseInsensitive))
            token = token.mid(2);
        for (const QChar c : token) {
            if (digitValue(c) < 0) {
                if (error)
                    *error = HexTextWords::tr("'%1' is not a hex digit").arg(c);
                return std::nullopt;
            }
        }
        if (token.isEmpty() || token.size() % 2 != 0) {
            if (error)
                *error = HexTextWords::tr("'%1' has an odd number of hex digits: each byte needs two").arg(token);
            return std::nullopt;
        }
        for (qsizetype i = 0; i < token.size(); i += 2)
            bytes.append(char(digitValue(token[i]) * 16 + digitValue(token[i + 1])));
    }
    if (bytes.isEmpty()) {
        if (error)
            *error = HexTextWords::tr("Type the bytes to find in hex, e.g. 47 47 55 46");
        return std::nullopt;
    }
    return bytes;
}

QString toHex(std::span<const uint8_t> bytes)
{
    return QString::fromLatin1(
        QByteArray(reinterpret_cast<const char *>(bytes.data()), qsizetype(bytes.size())).toHex(' '));
}

QString toCArray(std::span<const uint8_t> bytes, uint64_t offset)
{
    QString out =
        QStringLiteral("const unsigned char bytes_0x%1[%2] = {").arg(QString::number(offset, 16)).arg(bytes.size());
    for (size_t i = 0; i < bytes.size(); ++i) {
        out += i % 12 == 0 ? QStringLiteral("\n    ") : QStringLiteral(" ");
        out += QStringLiteral("0x%1,").arg(bytes[i], 2, 16, QLatin1Char('0'));
    }
    out += QStringLiteral("\n};\n");
    return out;
}

OffsetResult parseOffset(const QString &text, uint64_t dataOffset, uint64_t cursor, uint64_t fileSize)
{
    static const QRegularExpression grammar(
        QStringLiteral("^\\s*(data|end)?\\s*(?:([+-])?\\s*(0[xX][0-9a-fA-F]+|[0-9]+))?\\s*$"),
        QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch m = grammar.match(text);
    const QString base = m.captured(1).toLower();
    const QString sign = m.captured(2);
    const QString number = m.captured(3);
    if (!m.hasMatch() || (base.isEmpty() && number.isEmpty()) ||
        (!base.isEmpty() && !number.isEmpty() && sign.isEmpty()))
        return {std::nullopt, HexTextWords::tr("Not an offset: type 1234, 0x4d2, data+0x100, end-16 or +32")};
    bool ok = true;
    uint64_t value = 0;
    if (!number.isEmpty()) {
        value = number.startsWith(QLatin1String("0x"), Qt::CaseInsensitive) ? number.mid(2).toULongLong(&ok, 16)
                                                                            : number.toULongLong(&ok, 10);
        if (!ok)
            return {std::nullopt, HexTextWords::tr("%1 is too large for a 64-bit offset").arg(number)};
    }
    // a leading sign without a base is relative to the cursor
    const uint64_t origin = base == QLatin1String("data")  ? dataOffset
                            : base == QLatin1String("end") ? fileSize
                            : sign.isEmpty()               ? 0
                                                           : cursor;
    uint64_t offset = origin;
    if (sign == QLatin1String("-")) {
        if (value > origin)
            return {std::nullopt,
                    HexTextWords::tr("That is %1 bytes before the start of the file").arg(value - origin)};
        offset = origin - value;
    } else {
        if (value > UINT64_MAX - origin)
            return {std::nullopt, HexTextWords::tr("%1 is past the end of the file").arg(text.trimmed())};
        offset = origin + value;
    }
    if (offset >= fileSize)
        return {std::nullopt, HexTextWords::tr("%1 is past the end of the file (the last byte is %2)")
                                  .arg(TextFormat::offset(offset),
                                       fileSize > 0 ? TextFormat::offset(fileSize - 1) : HexTextWords::tr("none"))};
    return {offset, {}};
}

} // namespace HexText
