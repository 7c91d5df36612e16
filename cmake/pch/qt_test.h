// SPDX-License-Identifier: GPL-3.0-or-later
// Precompiled for the window's tests (cmake/build_speed.cmake): Qt Test on top of qt_widgets.h.
#pragma once

#include "qt_widgets.h"

#include <QtTest>
