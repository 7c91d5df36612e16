// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace bench {

/// `edit`: saving a metadata change — in place on the generated 30 GB sparse model (beside the
/// floor of writing and syncing its header twice, as the backup and the header are), and by a copy
/// of a model of real bytes (beside `cp` of the same file, with and without `sync`).
void benchEdit(const std::string &dir, bool quick);

} // namespace bench
