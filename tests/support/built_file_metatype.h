// SPDX-License-Identifier: GPL-3.0-or-later
// BuiltFile as a QTest data column: declared once here, for every header and test that uses it
// (a second declaration in one translation unit is a redefinition).
#pragma once

#include "tests/support/gguf_builder.h"

#include <QMetaType>

Q_DECLARE_METATYPE(gguf::test::BuiltFile)
