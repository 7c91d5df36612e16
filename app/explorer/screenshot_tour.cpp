// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/explorer/screenshot_tour.h"
#include "app/explorer/main_window.h"
#include "app/explorer/stall_monitor.h"
#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "screenshot_tour_steps.h"
#include "ui/hex/hex_page.h"
#include "ui/importance/importance_model.h"
#include "ui/importance/importance_page.h"
#include "ui/metadata/metadata_editor.h"
#include "ui/metadata/metadata_filter_proxy.h"
#include "ui/metadata/metadata_page.h"
#include "ui/metadata/metadata_tree_model.h"
#include "ui/overview/gpu_panel.h"
#include "ui/overview/kind_panel.h"
#include "ui/overview/memory_panel.h"
#include "ui/overview/overview_page.h"
#include "ui/shell/document.h"
#include "ui/tensors/tensors_page.h"
#include "ui/tokenizer/chat_template_view.h"
#include "ui/tokenizer/tokenize_view.h"
#include "ui/tokenizer/tokenizer_page.h"
#include "ui/weights/weights_page.h"

#include <QApplication>
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QTabWidget>
#include <QTextStream>
#include <QTimer>
#include <QTreeView>
#include <QUndoStack>

#include <algorithm>
#include <cmath>
#include <functional>

namespace tour {

bool grabTo(QWidget &widget, const QString &file, StallMonitor *monitor)
{
    const QPixmap picture = widget.grab();
    const StallMonitor::Excluded encoding(monitor);
    return picture.save(file);
}

void grabAndList(QWidget &widget, const QString &file, StallMonitor *monitor)
{
    if (grabTo(widget, file, monitor))
        QTextStream(stdout) << file << '\n';
}

QString tabSlug(const QTabWidget &tabs, int index)
{
    return tabs.tabText(index).remove(u'&').toLower().replace(u' ', u'-');
}

void whenIdle(MainWindow &window, const std::function<bool()> &busy, const std::function<void()> &then)
{
    QTimer::singleShot(kSettleMs, &window, [&window, busy, then] {
        if (busy())
            whenIdle(window, busy, then);
        else
            then();
    });
}

QString sampleText()
{
    return QStringLiteral("The quick brown fox doesn't tokenize itself: 1234567 tokens, \u00bd price!\n"
                          "Gr\u00f6\u00dfe \u6570\u5b66 \u0645\u0631\u062d\u0628\u0627 \U0001F999 <s> "
                          "    def f(x): return x**2");
}

void grabTokenizeTab(MainWindow &window, QTabWidget &tabs, TokenizeView &view, const QString &file,
                     StallMonitor *monitor, const std::function<void()> &done)
{
    tabs.setCurrentWidget(&view);
    view.setText(sampleText());
    const QPointer<QTabWidget> guarded(&tabs);
    // once tokenized, or once the tokenizer is built when it cannot tokenize
    whenIdle(
        window, [&view] { return view.isBusy(); },
        [&window, guarded, file, monitor, done] {
            QTimer::singleShot(kSettleMs, &window, [&window, guarded, file, monitor, done] {
                grabAndList(window, file, monitor);
                if (guarded)
                    guarded->setCurrentIndex(0);
                done();
            });
        });
}

} // namespace tour

namespace {

using namespace tour;

// Selects the tensor the Weights page shows in the tensor table, then grabs each Weights view as
// `<prefix>-weights-<view>.png` once its computation has finished; then calls `done`.
void grabWeightViews(MainWindow &window, const QString &prefix, int mode, StallMonitor *monitor,
                     const std::function<void()> &done)
{
    WeightsPage *page = window.page<WeightsPage>();
    if (mode == 0 && page->tensor().isValid())
        window.page<TensorsPage>()->selectTensor(page->tensor().ref());
    if (mode >= static_cast<int>(WeightsPage::Mode::Count)) {
        page->setMode(WeightsPage::Mode::Histogram);
        done();
        return;
    }
    if (!page->isModeAvailable(static_cast<WeightsPage::Mode>(mode))) {
        grabWeightViews(window, prefix, mode + 1, monitor, done);
        return;
    }
    window.pages()->setCurrentWidget(page);
    page->setMode(static_cast<WeightsPage::Mode>(mode));
    const auto grab = [&window, prefix, mode, monitor, done] {
        QTimer::singleShot(kSettleMs, &window, [&window, prefix, mode, monitor, done] {
            const QString file = QStringLiteral("%1-weights-%2.png")
                                     .arg(prefix, WeightsPage::modeName(static_cast<WeightsPage::Mode>(mode)));
            grabAndList(window, file, monitor);
            grabWeightViews(window, prefix, mode + 1, monitor, done);
        });
    };
    if (page->isBusy())
        QObject::connect(page, &WeightsPage::jobsFinished, &window, grab, Qt::SingleShotConnection);
    else
        grab();
}

// Shows the Tokenizer page's Tokenize section with a sample text and grabs it as
// `<prefix>-tokenize.png` once the text is tokenized (when the file has a tokenizer), or once the
// section says why it cannot be; then `done`.
void grabTokenize(MainWindow &window, const QString &prefix, StallMonitor *monitor, const std::function<void()> &done)
{
    TokenizerPage *page = window.page<TokenizerPage>();
    QTabWidget *sections = page ? page->sections() : nullptr;
    if (!sections || !sections->isTabEnabled(sections->indexOf(page->tokenizeView()))) {
        done();
        return;
    }
    window.pages()->setCurrentWidget(page);
    grabTokenizeTab(window, *sections, *page->tokenizeView(), QStringLiteral("%1-tokenize.png").arg(prefix), monitor,
                    done);
}

// Renders the file's chat template with the example messages and grabs it as
// `<prefix>-chat-template.png` (when the file has one); then `done`.
void grabChatTemplate(MainWindow &window, const QString &prefix, StallMonitor *monitor,
                      const std::function<void()> &done)
{
    TokenizerPage *page = window.page<TokenizerPage>();
    ChatTemplateView *view = page ? page->chatTemplateView() : nullptr;
    if (!view || !view->renderButton()->isEnabled()) {
        done();
        return;
    }
    window.pages()->setCurrentWidget(page);
    page->sections()->setCurrentWidget(view);
    QObject::connect(
        view, &ChatTemplateView::rendered, &window,
        [&window, prefix, monitor, done] {
            QTimer::singleShot(kSettleMs, &window, [&window, prefix, monitor, done] {
                const QString file = QStringLiteral("%1-chat-template.png").arg(prefix);
                grabAndList(window, file, monitor);
                done();
            });
        },
        Qt::SingleShotConnection);
    view->renderButton()->click();
}

// The Metadata page while editing, as `<prefix>-metadata-edit.png`: a changed name, an added
// chat template in the detail pane with its check. Pending changes only: they are discarded after
// the picture and nothing is written. Then `done`.
void grabMetadataEdit(MainWindow &window, const QString &prefix, StallMonitor *monitor,
                      const std::function<void()> &done)
{
    MetadataPage *page = window.page<MetadataPage>();
    MetadataEditor *editor = page->editor();
    if (!editor->file()) {
        done();
        return;
    }
    window.pages()->setCurrentWidget(page);
    page->setEditing(true);
    editor->setValue(QStringLiteral("general.name"), gguf::OwnedValue::string("renamed in the editor"));
    const QString templateKey = QStringLiteral("tokenizer.chat_template");
    if (!editor->file()->findMetadata(templateKey.toStdString()))
        page->addKey(templateKey, QStringLiteral("STRING"),
                     QStringLiteral("{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}"));
    const QModelIndex source = page->model()->indexOfKey(templateKey);
    page->view()->setCurrentIndex(page->proxy()->mapFromSource(source));
    page->view()->scrollTo(page->proxy()->mapFromSource(source));
    page->detailEditor()->appendPlainText(QStringLiteral("{% if add_generation_prompt %}<|assistant|>"));
    QTimer::singleShot(kSettleMs * 4, &window, [&window, page, editor, prefix, monitor, done] {
        const QString file = QStringLiteral("%1-metadata-edit.png").arg(prefix);
        grabAndList(window, file, monitor);
        editor->discard();
        editor->undoStack()->clear();
        page->setEditing(false);
        done();
    });
}

// The Overview's Memory section, scrolled into view with a budget of a little more than the GPU
// needs (so the budget line and the largest context show), as `<prefix>-memory.png`; the budget is
// cleared afterwards. Then `done`.
void grabMemory(MainWindow &window, const QString &prefix, StallMonitor *monitor, const std::function<void()> &done)
{
    OverviewPage *page = window.page<OverviewPage>();
    MemoryPanel *panel = page->memoryPanel();
    auto *budget = panel->findChild<QDoubleSpinBox *>(QStringLiteral("memoryBudget"));
    auto *scroll = page->findChild<QScrollArea *>();
    if (!budget || !scroll || panel->estimate().kv.nCtx == 0) {
        done();
        return;
    }
    window.pages()->setCurrentWidget(page);
    const double gpuGiB = double(panel->estimate().gpu().total()) / (1024.0 * 1024.0 * 1024.0);
    budget->setValue(std::max(0.1, std::ceil(gpuGiB * 1.3 * 10) / 10));
    QTimer::singleShot(kSettleMs, &window, [&window, scroll, panel, budget, prefix, monitor, done] {
        scroll->ensureWidgetVisible(panel, 0, 0);
        QTimer::singleShot(kSettleMs, &window, [&window, budget, scroll, prefix, monitor, done] {
            const QString file = QStringLiteral("%1-memory.png").arg(prefix);
            grabAndList(window, file, monitor);
            budget->setValue(0);
            scroll->ensureVisible(0, 0);
            done();
        });
    });
}

// The Memory section with two GPUs (#44), fitted: free memory of 60 % and 30 % of what the single
// GPU needs with every layer offloaded (so not everything fits), Fit run on its worker, then the
// section scrolled into view as `<prefix>-memory-gpus.png`; the GPUs are removed afterwards.
void grabGpus(MainWindow &window, const QString &prefix, StallMonitor *monitor, const std::function<void()> &done)
{
    OverviewPage *page = window.page<OverviewPage>();
    MemoryPanel *panel = page ? page->memoryPanel() : nullptr;
    auto *scroll = page ? page->findChild<QScrollArea *>() : nullptr;
    if (!panel || !scroll || panel->estimate().kv.nCtx == 0) {
        done();
        return;
    }
    window.pages()->setCurrentWidget(page);
    // with flash attention and at most 8192 tokens, as one would run a large model on small GPUs
    auto *flash = panel->findChild<QCheckBox *>(QStringLiteral("memoryFlashAttention"));
    auto *context = panel->findChild<QSpinBox *>(QStringLiteral("memoryContext"));
    const int contextBefore = context->value();
    flash->setChecked(true);
    context->setValue(std::min(contextBefore, 8192));
    const double gpuGiB = double(panel->estimate().gpu().total()) / (1024.0 * 1024.0 * 1024.0);
    GpuPanel *gpus = panel->gpuPanel();
    gpus->setDevices({{QStringLiteral("CUDA0"), gpuGiB * 0.6}, {QStringLiteral("CUDA1"), gpuGiB * 0.3}});
    gpus->findChild<QSpinBox *>(QStringLiteral("gpuMargin"))->setValue(0);
    gpus->findChild<QPushButton *>(QStringLiteral("gpuFit"))->click();
    whenIdle(
        window, [panel] { return panel->fitting(); },
        [&window, scroll, gpus, flash, context, contextBefore, prefix, monitor, done] {
            scroll->ensureWidgetVisible(gpus->findChild<QWidget *>(QStringLiteral("gpuPlacementMap")), 0, 0);
            QTimer::singleShot(kSettleMs, &window,
                               [&window, scroll, gpus, flash, context, contextBefore, prefix, monitor, done] {
                                   const QString file = QStringLiteral("%1-memory-gpus.png").arg(prefix);
                                   grabAndList(window, file, monitor);
                                   flash->setChecked(false);
                                   context->setValue(contextBefore);
                                   gpus->setDevices({});
                                   gpus->setCpuMoe(0);
                                   gpus->findChild<QSpinBox *>(QStringLiteral("gpuMargin"))->setValue(1024);
                                   scroll->ensureVisible(0, 0);
                                   done();
                               });
        });
}

// For an importance matrix: each view of the Importance page (its first weight chosen) as
// `<prefix>-importance-<view>.png`, once computed. Then `done`.
void grabImportance(MainWindow &window, const QString &prefix, StallMonitor *monitor, int view,
                    const std::function<void()> &done)
{
    ImportancePage *page = window.page<ImportancePage>();
    static const char *const names[] = {"channels", "experts", "layers"};
    if (!page || !page->isApplicable() || view >= 3) {
        done();
        return;
    }
    window.pages()->setCurrentWidget(page);
    page->setView(static_cast<ImportancePage::View>(view));
    const auto busy = [page] { return page->isBusy(); };
    whenIdle(window, busy, [&window, page, prefix, monitor, view, done, busy] {
        if (view == 0) // a weight with experts shows the most
            for (int row = 0; row < page->tableModel()->rowCount(); ++row)
                if (const auto &s = page->tableModel()->report().tensors[size_t(row)]; s.matrices > 1) {
                    page->selectWeight(QString::fromStdString(s.weight));
                    break;
                }
        whenIdle(window, busy, [&window, prefix, monitor, view, done] {
            const QString file = QStringLiteral("%1-importance-%2.png").arg(prefix, QLatin1String(names[view]));
            grabAndList(window, file, monitor);
            grabImportance(window, prefix, monitor, view + 1, done);
        });
    });
}

// For a file that is not a model: the Overview scrolled to the kind's own section, once its
// computation (a control vector's norms) is done, as `<prefix>-kind.png`. Then `done`.
void grabKind(MainWindow &window, const QString &prefix, StallMonitor *monitor, const std::function<void()> &done)
{
    OverviewPage *page = window.page<OverviewPage>();
    KindPanel *panel = page->kindPanel();
    auto *scroll = page->findChild<QScrollArea *>();
    if (!scroll || panel->isHidden()) {
        done();
        return;
    }
    window.pages()->setCurrentWidget(page);
    whenIdle(
        window, [panel] { return panel->isBusy(); },
        [&window, panel, scroll, prefix, monitor, done] {
            scroll->ensureWidgetVisible(panel, 0, 0);
            QTimer::singleShot(kSettleMs, &window, [&window, scroll, prefix, monitor, done] {
                const QString file = QStringLiteral("%1-kind.png").arg(prefix);
                grabAndList(window, file, monitor);
                scroll->ensureVisible(0, 0);
                done();
            });
        });
}

// The tour's own walk through the pages: one page per turn of the event loop, as a user clicks
// one tab at a time (so a stall figure is what one switch costs, not the whole walk); then `done`.
void grabPagesInTurn(MainWindow &window, const QString &prefix, StallMonitor *monitor, int index,
                     const std::function<void()> &done)
{
    QTabWidget *tabs = window.pages();
    if (index >= tabs->count()) {
        done();
        return;
    }
    if (!tabs->isTabVisible(index)) { // a page for another kind of file
        grabPagesInTurn(window, prefix, monitor, index + 1, done);
        return;
    }
    QTimer::singleShot(kSettleMs, &window, [&window, prefix, monitor, index, done] {
        QTabWidget *pages = window.pages();
        pages->setCurrentIndex(index);
        const QString name = tabSlug(*pages, index);
        const QString file = QStringLiteral("%1-%2.png").arg(prefix, name);
        grabAndList(window, file, monitor);
        grabPagesInTurn(window, prefix, monitor, index + 1, done);
    });
}

} // namespace

QStringList grabPages(MainWindow &window, const QString &prefix, StallMonitor *monitor)
{
    QTabWidget *tabs = window.pages();
    QStringList files;
    const int current = tabs->currentIndex();
    for (int i = 0; i < tabs->count(); ++i) {
        if (!tabs->isTabVisible(i))
            continue;
        tabs->setCurrentIndex(i);
        const QString name = tabSlug(*tabs, i);
        const QString file = QStringLiteral("%1-%2.png").arg(prefix, name);
        if (grabTo(window, file, monitor))
            files << file;
    }
    tabs->setCurrentIndex(current);
    return files;
}

void startScreenshotTour(MainWindow &window, const QString &prefix, bool nothingToOpen, StallMonitor *monitor)
{
    const auto grabAndQuit = [&window, prefix, monitor] {
        const int current = window.pages()->currentIndex();
        grabPagesInTurn(window, prefix, monitor, 0, [&window, current] {
            window.pages()->setCurrentIndex(current);
            QTimer::singleShot(kSettleMs, &window, [] { QApplication::quit(); });
        });
    };
    // the Bytes page is shown at the file's last byte (the far end of a huge file must paint at once)
    const auto toLastByte = [&window, prefix, monitor, grabAndQuit] {
        grabCompare(window, prefix, monitor, [&window, prefix, monitor, grabAndQuit] {
            grabMetadataEdit(window, prefix, monitor, [&window, prefix, monitor, grabAndQuit] {
                grabMemory(window, prefix, monitor, [&window, prefix, monitor, grabAndQuit] {
                    grabGpus(window, prefix, monitor, [&window, prefix, monitor, grabAndQuit] {
                        grabImportance(window, prefix, monitor, 0, [&window, prefix, monitor, grabAndQuit] {
                            grabKind(window, prefix, monitor, [&window, grabAndQuit] {
                                // (a damaged file's Bytes page stays at its break)
                                const auto model = window.document()->model();
                                if (window.page<HexPage>() && !(model && model->firstBreak()))
                                    window.page<HexPage>()->goTo(QStringLiteral("end-1"));
                                grabAndQuit();
                            });
                        });
                    });
                });
            });
        });
    };
    const auto tokenize = [&window, prefix, monitor, toLastByte] {
        grabChatTemplate(window, prefix, monitor,
                         [&window, prefix, monitor, toLastByte] { grabTokenize(window, prefix, monitor, toLastByte); });
    };
    QObject::connect(&window, &MainWindow::modelShown, &window,
                     [&window, prefix, monitor, tokenize] { grabWeightViews(window, prefix, 0, monitor, tokenize); });
    QObject::connect(window.document(), &Document::loadFailed, &window, grabAndQuit);
    QObject::connect(&window, &MainWindow::checkpointShown, &window, [&window, prefix, monitor] {
        grabCheckpointPages(window, prefix, monitor, 0,
                            [&window] { QTimer::singleShot(kSettleMs, &window, [] { QApplication::quit(); }); });
    });
    if (nothingToOpen)
        grabAndQuit();
}
