// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

class MainWindow;

/// What must hold of a window whose pages all show its document's model (after MainWindow::
/// modelShown for that model): every page, and every result a job delivered to a page, belongs to
/// that model — the overview, the metadata tree, the tensor table, the Weights page's tensor and the
/// statistics on show (their element count is the tensor's), the value grid's tensor, the tokenizer's
/// file and vocabulary, the Bytes page's file and byte map, the Compare page's A (and B, the
/// window's other document) and the Importance page.
namespace WindowInvariants {

/// Empty when everything holds, else what does not (one line per finding).
QString check(const MainWindow &window);

} // namespace WindowInvariants
