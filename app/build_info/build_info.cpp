// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/build_info/build_info.h"

const char *gguf::build::version()
{
    return GGUF_EXPLORER_VERSION;
}

std::string gguf::build::versionLine()
{
    return std::string(version()) + " (git " + revision() + ")";
}
