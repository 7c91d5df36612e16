// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace bench {

/// The other kinds of GGUF (#18): a LoRA pair's ΔW statistics and heatmap beside the bare
/// multiply-adds of ΔW on every core, and an importance matrix's statistics beside a read of its
/// bytes; files written to `dir`, in the page cache, timed in this process.
void benchKinds(const std::string &dir, bool quick);

} // namespace bench
