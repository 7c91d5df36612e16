// SPDX-License-Identifier: GPL-3.0-or-later
// Precompiled for the core and CLI tests (cmake/build_speed.cmake): Qt Core and Test, and the
// standard headers most sources include.
#pragma once

#include <QtCore>
#include <QtTest>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>
