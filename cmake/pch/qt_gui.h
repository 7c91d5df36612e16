// SPDX-License-Identifier: GPL-3.0-or-later
// Precompiled for the item models (cmake/build_speed.cmake): Qt Core and Gui, and the standard
// headers most sources include. Sources still include what they use: clang-tidy reads them
// without this header (scripts/tidy.sh).
#pragma once

#include <QtCore>
#include <QtGui>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>
