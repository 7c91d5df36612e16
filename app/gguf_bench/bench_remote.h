// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace bench {

/// The `remote` section: the generated 30 GB model served by the loopback test server
/// (tests/support/range_server): bytes fetched and requests made to open it and to compute one
/// tensor's statistics, beside the header's size and the local file's times in the same run.
void benchRemote(const std::string &dir);

} // namespace bench
