// SPDX-License-Identifier: GPL-3.0-or-later
// Precompiled for the window's libraries (cmake/build_speed.cmake): Qt Widgets on top of qt_gui.h.
#pragma once

#include "qt_gui.h"

#include <QtWidgets>
