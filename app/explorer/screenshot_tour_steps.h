// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The screenshot tour's steps shared by its files: screenshot_tour.cpp (a GGUF's pages and the
// walk), screenshot_tour_checkpoint.cpp (the Compare page's comparison and a checkpoint's pages).

#include <QString>

#include <functional>

class MainWindow;
class QTabWidget;
class QWidget;
class StallMonitor;
class TokenizeView;

namespace tour {

/// The pages lay themselves out in the next turns of the event loop; a grab waits that long.
inline constexpr int kSettleMs = 200;

/// Grabs `widget` into `file` (PNG), the encoding left out of `monitor`'s stalls; false when it
/// could not be written.
bool grabTo(QWidget &widget, const QString &file, StallMonitor *monitor);
/// grabTo, and the file's path on stdout (the tour's list of what it wrote) when written.
void grabAndList(QWidget &widget, const QString &file, StallMonitor *monitor);
/// A tab's text as a file name part: "&Tensors" → "tensors", "Compare With" → "compare-with".
QString tabSlug(const QTabWidget &tabs, int index);
/// Runs `then` once `busy` says false (asked every kSettleMs).
void whenIdle(MainWindow &window, const std::function<bool()> &busy, const std::function<void()> &then);
/// The text the tour tokenizes: words, contractions, digits, a fraction, umlauts, CJK, Arabic, an
/// emoji, a special-looking token and code.
QString sampleText();
/// Shows `view` (a tab of `tabs`) with sampleText(), and once it is tokenized (or says why it cannot
/// be) grabs the window as `file`; then puts `tabs` back on its first tab and calls `done`.
void grabTokenizeTab(MainWindow &window, QTabWidget &tabs, TokenizeView &view, const QString &file,
                     StallMonitor *monitor, const std::function<void()> &done);

/// When the window compares (gguf-explorer --compare A B): waits for the comparison and its
/// values, then grabs the Compare page's sections as `<prefix>-compare-<section>.png` and the
/// detail views of the first changed pair as `<prefix>-compare-pair-<view>.png`; then `done`.
void grabCompare(MainWindow &window, const QString &prefix, StallMonitor *monitor, const std::function<void()> &done);
/// A Hugging Face checkpoint (#43): each of its pages as `<prefix>-checkpoint-<page>.png`, from
/// page `index` on, the Weights page once its statistics are on it, the Tokenizer page's Tokenize
/// tab too; then `done`.
void grabCheckpointPages(MainWindow &window, const QString &prefix, StallMonitor *monitor, int index,
                         const std::function<void()> &done);

} // namespace tour
