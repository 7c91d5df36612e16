// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace bench {

/// The `stall` section: runs gguf-explorer's screenshot tour (every page and Weights view, the
/// Bytes page at the last byte) with GGUF_STALL_REPORT=1 on the bundled sample and on the generated
/// 30 GB model of the `open` section, three times each, and prints the longest time the window did
/// not answer (`max-stall-ms`) and the event it was in, beside a floor measured in the same run: the
/// tour of a window whose file does not exist. `explorer` is the gguf-explorer to run.
void benchStall(const std::string &dir, const std::string &explorer);

} // namespace bench
