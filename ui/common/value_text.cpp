// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/common/value_text.h"

#include "core/vocab/vocabulary.h"
#include "core/vocab/well_known_keys.h"

#include <QLocale>
#include <QStringBuilder>

namespace ValueText {

namespace {

// Array previews stop after this many elements; they exist to recognise an array at a glance.
constexpr uint64_t kPreviewElements = 4;

QString escaped(const QString &text, int maxChars)
{
    QString out;
    out.reserve(std::min<qsizetype>(text.size(), maxChars) + 8);
    int chars = 0;
    for (const QChar c : text) {
        if (chars >= maxChars) {
            out += QChar(0x2026);
            break;
        }
        if (c == u'\n')
            out += QLatin1String("\\n");
        else if (c == u'\t')
            out += QLatin1String("\\t");
        else if (c == u'\r')
            out += QLatin1String("\\r");
        else if (c.unicode() < 0x20 || c.unicode() == 0x7f)
            out += QStringLiteral("\\x%1").arg(c.unicode(), 2, 16, QLatin1Char('0'));
        else
            out += c;
        ++chars;
    }
    return out;
}

QString quoted(std::string_view bytes, int maxChars)
{
    return u'"' % oneLine(bytes, maxChars) % u'"';
}

QString plainNumber(const gguf::Value &value)
{
    return QString::fromStdString(value.toDisplayString());
}

QString arrayPreview(const gguf::Value &value, int maxChars)
{
    const gguf::ArrayRef array = value.array();
    QString out = QString::fromStdString(value.toDisplayString());
    if (array.empty() || array.elementType() == gguf::ValueType::Array)
        return out;
    out += u' ';
    const uint64_t shown = std::min(array.size(), kPreviewElements);
    for (uint64_t i = 0; i < shown; ++i) {
        const gguf::Value element = array.at(i);
        out += (i ? QLatin1String(", ") : QLatin1String()) %
               (element.type() == gguf::ValueType::String ? quoted(element.toStringView(), 24) : plainNumber(element));
    }
    if (array.size() > shown)
        out += QStringLiteral(", …");
    return out.left(maxChars);
}

} // namespace

QString oneLine(std::string_view bytes, int maxChars)
{
    // Convert only what can be shown: a chat template can be tens of kilobytes.
    const size_t budget = static_cast<size_t>(maxChars) * 4 + 4;
    const std::string_view head = bytes.substr(0, std::min(bytes.size(), budget));
    QString text = QString::fromUtf8(head.data(), static_cast<qsizetype>(head.size()));
    if (head.size() < bytes.size())
        text += QChar(0x2026);
    return escaped(text, maxChars);
}

QString fullText(std::string_view bytes)
{
    return QString::fromUtf8(bytes.data(), static_cast<qsizetype>(bytes.size()));
}

QString display(const gguf::Value &value, std::string_view key, bool element, const gguf::Vocabulary *vocab,
                int maxChars)
{
    if (!value.isValid())
        return {};
    switch (value.type()) {
    case gguf::ValueType::String: return quoted(value.toStringView(), maxChars);
    case gguf::ValueType::Array: return arrayPreview(value, maxChars);
    default: break;
    }
    QString text = plainNumber(value);
    if (!value.isInteger())
        return text;
    const std::optional<int64_t> number = value.toInt();
    if (!number)
        return text;
    const bool enumKey = element ? key == "tokenizer.ggml.token_type" : key != "tokenizer.ggml.token_type";
    if (enumKey) {
        if (const auto name = gguf::enumValueName(key, *number))
            return text % QLatin1String(" (") % QString::fromStdString(*name) % u')';
    }
    if (!element && gguf::isTokenIdKey(key) && vocab && vocab->isValid() && *number >= 0 &&
        static_cast<uint64_t>(*number) < vocab->size())
        return text % u' ' % quoted(vocab->token(static_cast<uint64_t>(*number)), 40);
    return text;
}

QString display(const gguf::OwnedValue &value, std::string_view key, bool element, const gguf::Vocabulary *vocab,
                int maxChars)
{
    switch (value.type) {
    case gguf::ValueType::String: return quoted(value.text, maxChars);
    case gguf::ValueType::Array: return QString::fromStdString(value.toDisplayString());
    case gguf::ValueType::Float32:
    case gguf::ValueType::Float64:
    case gguf::ValueType::Bool: return QString::fromStdString(value.toEditText());
    default: break;
    }
    const QString text = QString::fromStdString(value.toEditText());
    const int64_t number = value.asInt();
    const bool enumKey = element ? key == "tokenizer.ggml.token_type" : key != "tokenizer.ggml.token_type";
    if (enumKey) {
        if (const auto name = gguf::enumValueName(key, number))
            return text % QLatin1String(" (") % QString::fromStdString(*name) % u')';
    }
    if (!element && gguf::isTokenIdKey(key) && vocab && vocab->isValid() && number >= 0 &&
        static_cast<uint64_t>(number) < vocab->size())
        return text % u' ' % quoted(vocab->token(static_cast<uint64_t>(number)), 40);
    return text;
}

QString typeName(const gguf::OwnedValue &value)
{
    return QString::fromStdString(gguf::typeDisplayName(value.type, value.elementType));
}

QString typeName(const gguf::Value &value)
{
    if (value.type() == gguf::ValueType::Array)
        return QLatin1String("ARRAY[") % QString::fromStdString(gguf::valueTypeName(value.array().elementType())) %
               u']';
    return QString::fromStdString(gguf::valueTypeName(value.type()));
}

} // namespace ValueText
