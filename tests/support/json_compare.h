// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "tests/support/exact_json.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <optional>

namespace gguf::test {

/// Parses JSON as Python's json module writes it: the bare tokens NaN, Infinity and -Infinity are
/// accepted (they become marker strings, so equal tokens compare equal).
std::optional<ExactJson> parsePythonJson(const QByteArray &text);

/// The first difference between two documents, "" when they are equal. Objects must have the same
/// keys in the same order; integers must be equal exactly (64-bit values included), floats as
/// doubles, including the sign of zero. `path` names the root in the message.
QString jsonDifference(const ExactJson &a, const ExactJson &b, const QString &path = QStringLiteral("$"));

/// The keys of an object, in order.
QStringList jsonKeys(const ExactJson &object);

} // namespace gguf::test
