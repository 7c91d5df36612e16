// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QHeaderView>
#include <QTableView>

/// Rows one line of the view's own font high (with a little room), all alike: the tables of the
/// GGUF pages and of a checkpoint's look the same, and a view of a vocabulary's hundreds of
/// thousands of rows never asks each row for its height. Call it after the view's font is set.
inline void setCompactRows(QTableView *view)
{
    view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
}
