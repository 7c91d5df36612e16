// SPDX-License-Identifier: GPL-3.0-or-later
#include "tests/support/json_compare.h"

#include <cmath>

namespace gguf::test {
namespace {

// Python's json writes NaN / Infinity / -Infinity as bare tokens, which ExactJson (strict JSON)
// rejects: outside strings they become marker strings, the same in both documents.
QByteArray quoteNonFinite(const QByteArray &text)
{
    QByteArray out;
    out.reserve(text.size());
    bool inString = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            out += c;
            if (c == '\\' && i + 1 < text.size())
                out += text[++i];
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"')
            inString = true;
        bool replaced = false;
        for (const char *token : {"-Infinity", "Infinity", "NaN"}) {
            const QByteArray t(token);
            if (text.mid(i, t.size()) == t) {
                out += "\"\\u0000" + t + "\"";
                i += t.size() - 1;
                replaced = true;
                break;
            }
        }
        if (!replaced)
            out += c;
    }
    return out;
}

bool isIntegerLiteral(const std::string &literal)
{
    return literal.find_first_of(".eE") == std::string::npos;
}

} // namespace

std::optional<ExactJson> parsePythonJson(const QByteArray &text)
{
    const QByteArray quoted = quoteNonFinite(text);
    return ExactJson::parse(std::string_view(quoted.constData(), static_cast<size_t>(quoted.size())));
}

// The first difference between two documents ("" when equal): objects must have the same keys in
// the same order; integers must be equal exactly, floats as doubles (including the sign of zero).
QString jsonDifference(const ExactJson &a, const ExactJson &b, const QString &path)
{
    if (a.kind() != b.kind())
        return path + QStringLiteral(": different kinds of value");
    switch (a.kind()) {
    case ExactJson::Kind::Null: return {};
    case ExactJson::Kind::Bool:
        return a.toBool() == b.toBool() ? QString() : path + QStringLiteral(": different booleans");
    case ExactJson::Kind::String:
        return a.text() == b.text()
                   ? QString()
                   : path + QStringLiteral(": \"%1\" vs \"%2\"")
                                .arg(QString::fromStdString(a.text()), QString::fromStdString(b.text()));
    case ExactJson::Kind::Number: {
        const bool ints = isIntegerLiteral(a.text()) && isIntegerLiteral(b.text());
        const auto x = a.toDouble(), y = b.toDouble();
        const bool same = ints ? a.text() == b.text() : x && y && *x == *y && std::signbit(*x) == std::signbit(*y);
        return same ? QString()
                    : path + QStringLiteral(": %1 vs %2")
                                 .arg(QString::fromStdString(a.text()), QString::fromStdString(b.text()));
    }
    case ExactJson::Kind::Array:
        if (a.items().size() != b.items().size())
            return path + QStringLiteral(": %1 vs %2 elements").arg(a.items().size()).arg(b.items().size());
        for (size_t i = 0; i < a.items().size(); ++i)
            if (QString d = jsonDifference(a.items()[i], b.items()[i], path + QStringLiteral("[%1]").arg(i));
                !d.isEmpty())
                return d;
        return {};
    case ExactJson::Kind::Object:
        if (a.members().size() != b.members().size())
            return path + QStringLiteral(": %1 vs %2 members").arg(a.members().size()).arg(b.members().size());
        for (size_t i = 0; i < a.members().size(); ++i) {
            const QString key = QString::fromStdString(a.members()[i].first);
            if (a.members()[i].first != b.members()[i].first)
                return path +
                       QStringLiteral(": key '%1' vs '%2'").arg(key, QString::fromStdString(b.members()[i].first));
            if (QString d = jsonDifference(a.members()[i].second, b.members()[i].second, path + "." + key);
                !d.isEmpty())
                return d;
        }
        return {};
    }
    return {};
}

QStringList jsonKeys(const ExactJson &object)
{
    QStringList keys;
    for (const auto &member : object.members())
        keys << QString::fromStdString(member.first);
    return keys;
}

} // namespace gguf::test
