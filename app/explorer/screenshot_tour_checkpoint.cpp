// SPDX-License-Identifier: GPL-3.0-or-later
// The screenshot tour's Compare page and a Hugging Face checkpoint's pages (screenshot_tour_steps.h).
#include "app/explorer/main_window.h"
#include "app/explorer/stall_monitor.h"
#include "screenshot_tour_steps.h"
#include "ui/checkpoint/checkpoint_tokenizer.h"
#include "ui/checkpoint/checkpoint_view.h"
#include "ui/checkpoint/checkpoint_weights.h"
#include "ui/common/job_tracker.h"
#include "ui/compare/compare_page.h"
#include "ui/compare/tensor_diff_model.h"
#include "ui/compare/tensor_pair_panel.h"
#include "ui/pairing/checkpoint_compare_panel.h"
#include "ui/plots/heatmap_plot.h"
#include "ui/shell/document.h"
#include "ui/tokenizer/tokenize_view.h"

#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>

namespace tour {

void grabCompare(MainWindow &window, const QString &prefix, StallMonitor *monitor, const std::function<void()> &done)
{
    ComparePage *page = window.page<ComparePage>();
    const auto again = [&window, prefix, monitor, done] { grabCompare(window, prefix, monitor, done); };
    if (window.otherDocument()->isLoading()) {
        // B opens (then the overview runs), or fails: either way the tour goes on
        auto *context = new QObject(&window);
        const auto once = [context, again] {
            context->deleteLater();
            QTimer::singleShot(0, context->parent(), again);
        };
        QObject::connect(page, &ComparePage::comparisonShown, context, once);
        QObject::connect(window.otherDocument(), &Document::loadFailed, context, once);
        QObject::connect(window.otherDocument(), &Document::loadCancelled, context, once);
        return;
    }
    if (page->otherCheckpoint()) { // B a Hugging Face checkpoint (#43): its pairs, once compared
        CheckpointComparePanel *panel = page->checkpointPanel();
        if (panel->tracker()->isRunning()) {
            QObject::connect(panel, &CheckpointComparePanel::compared, &window, again,
                             Qt::ConnectionType(Qt::QueuedConnection | Qt::SingleShotConnection));
            return;
        }
        window.pages()->setCurrentWidget(page);
        // the first pair in a layer whose values differ, in detail
        if (panel->detailIndex() < 0)
            for (int row = 0; row < panel->table()->rowCount(); ++row) {
                const QTableWidgetItem *status = panel->table()->item(row, CheckpointComparePanel::Status);
                const QTableWidgetItem *name = panel->table()->item(row, CheckpointComparePanel::NameA);
                if (status && name && status->text() == u"changed" && name->text().startsWith(u"blk.")) {
                    panel->table()->setCurrentCell(row, CheckpointComparePanel::Status);
                    break;
                }
            }
        if (panel->detailTracker()->isRunning()) {
            QObject::connect(panel->detailTracker(), &JobTracker::finished, &window, again,
                             Qt::ConnectionType(Qt::QueuedConnection | Qt::SingleShotConnection));
            return;
        }
        QTimer::singleShot(kSettleMs, &window, [&window, panel, prefix, monitor, done] {
            const QString file = QStringLiteral("%1-compare-checkpoint.png").arg(prefix);
            grabAndList(window, file, monitor);
            panel->detailViews()->setCurrentWidget(panel->heatmapPlot());
            QTimer::singleShot(kSettleMs, &window, [&window, prefix, monitor, done] {
                const QString heatmap = QStringLiteral("%1-compare-checkpoint-heatmap.png").arg(prefix);
                grabAndList(window, heatmap, monitor);
                done();
            });
        });
        return;
    }
    if (!page->other()) {
        done();
        return;
    }
    if (page->isBusy()) {
        // the overview, then (below the automatic limit) the values
        QObject::connect(
            page, page->valueTracker()->isRunning() ? &ComparePage::valuesCompared : &ComparePage::comparisonShown,
            &window, again, Qt::ConnectionType(Qt::QueuedConnection | Qt::SingleShotConnection));
        return;
    }
    window.pages()->setCurrentWidget(page);
    const auto grab = [&window, prefix, monitor](const QString &name) {
        const QString file = QStringLiteral("%1-compare-%2.png").arg(prefix, name);
        grabAndList(window, file, monitor);
    };
    // the first pair whose values differ, in a layer when there is one
    const TensorDiffModel *model = page->tensorModel();
    QString chosen;
    for (const gguf::TensorPair &p : model->pairs())
        if (p.valuesCompared && !p.values.sameValues() && (chosen.isEmpty() || p.a->layer >= 0)) {
            chosen = QString::fromUtf8(p.name.data(), static_cast<qsizetype>(p.name.size()));
            if (p.a->layer >= 0)
                break;
        }
    page->setMetadataFilter(1);
    page->sections()->setCurrentIndex(0);
    QTimer::singleShot(kSettleMs, &window, [&window, page, grab, chosen, done] {
        grab(QStringLiteral("metadata"));
        page->sections()->setCurrentIndex(1);
        QTimer::singleShot(kSettleMs, &window, [&window, page, grab, chosen, done] {
            grab(QStringLiteral("tokenizer"));
            page->selectTensor(chosen);
            TensorPairPanel *pair = page->pairPanel();
            const auto views = [&window, pair, grab, done] {
                QTimer::singleShot(kSettleMs, &window, [&window, pair, grab, done] {
                    grab(QStringLiteral("tensors"));
                    pair->views()->setCurrentIndex(1);
                    QTimer::singleShot(kSettleMs, &window, [&window, pair, grab, done] {
                        grab(QStringLiteral("pair-heatmap"));
                        pair->views()->setCurrentIndex(2);
                        QTimer::singleShot(kSettleMs, &window, [pair, grab, done] {
                            grab(QStringLiteral("pair-layers"));
                            pair->views()->setCurrentIndex(0);
                            done();
                        });
                    });
                });
            };
            if (pair->tracker()->isRunning())
                QObject::connect(pair->tracker(), &JobTracker::finished, &window, views, Qt::SingleShotConnection);
            else
                views();
        });
    });
}

void grabCheckpointPages(MainWindow &window, const QString &prefix, StallMonitor *monitor, int index,
                         const std::function<void()> &done)
{
    CheckpointView *tabs = window.checkpointView();
    if (index >= tabs->count()) {
        done();
        return;
    }
    QTimer::singleShot(kSettleMs, &window, [&window, prefix, monitor, index, done] {
        CheckpointView *view = window.checkpointView();
        view->setCurrentIndex(index);
        const auto grab = [&window, prefix, monitor, index, done] {
            QTimer::singleShot(kSettleMs, &window, [&window, prefix, monitor, index, done] {
                CheckpointView *shown = window.checkpointView();
                const QString name = tabSlug(*shown, index);
                const QString file = QStringLiteral("%1-checkpoint-%2.png").arg(prefix, name);
                grabAndList(window, file, monitor);
                if (shown->currentWidget() == shown->weights()) { // and its heatmap
                    shown->weights()->views()->setCurrentIndex(1);
                    const QString heatmap = QStringLiteral("%1-checkpoint-weights-heatmap.png").arg(prefix);
                    grabAndList(window, heatmap, monitor);
                    shown->weights()->views()->setCurrentIndex(0);
                }
                const auto next = [&window, prefix, monitor, index, done] {
                    grabCheckpointPages(window, prefix, monitor, index + 1, done);
                };
                if (shown->currentWidget() == shown->tokenizer())
                    grabTokenizeTab(window, *shown->tokenizer()->tabs(), *shown->tokenizer()->tokenizeView(),
                                    QStringLiteral("%1-checkpoint-tokenize.png").arg(prefix), monitor, next);
                else
                    next();
            });
        };
        if (view->currentWidget() == view->weights() && view->weights()->tracker()->isRunning())
            QObject::connect(view->weights(), &CheckpointWeights::statisticsShown, &window, grab,
                             Qt::SingleShotConnection);
        else
            grab();
    });
}

} // namespace tour
