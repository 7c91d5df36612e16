// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "jinja_ast.h"

#include <string>

namespace gguf::jinja {

/// Bounds that keep a hostile template from running away.
struct RenderLimits {
    size_t maxOutput = 8u << 20;   ///< bytes of output
    uint64_t maxSteps = 2'000'000; ///< statements, expressions and loop turns evaluated
    int maxDepth = 64;             ///< nested macro calls
};

/// What went wrong while rendering, and where in the template.
struct RenderError {
    std::string message;
    size_t offset = 0;
};

/// Runs a parsed template with `variables`; throws RenderError.
std::string render(const Body &body, const Dict &variables, const RenderLimits &limits = {});

} // namespace gguf::jinja
