// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace bench {

/// `diff`: the value comparison of two generated tensors of the same values (Q4_K, and the same
/// values as F16), beside the floor of dequantizing both once, in fresh processes.
void benchDiff(const std::string &dir, bool quick);

} // namespace bench
