// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/explorer/screenshot_tour.h"
#include "app/explorer/main_window.h"
#include "core/format/gguf_file.h"
#include "ui/document.h"
#include "ui/tensors/tensors_page.h"
#include "ui/weights/weights_page.h"

#include <QApplication>
#include <QTabWidget>
#include <QTextStream>
#include <QTimer>

#include <functional>

namespace {

// The pages lay themselves out in the next turns of the event loop; a grab waits that long.
constexpr int kSettleMs = 200;

// Selects the tensor the Weights page shows in the tensor table, then grabs each Weights view as
// `<prefix>-weights-<view>.png` once its computation has finished; then calls `done`.
void grabWeightViews(MainWindow &window, const QString &prefix, int mode, const std::function<void()> &done)
{
    WeightsPage *page = window.weightsPage();
    if (mode == 0 && page->tensor().isValid())
        window.tensorsPage()->selectTensor(page->tensor().ref());
    if (mode >= static_cast<int>(WeightsPage::Mode::Count)) {
        page->setMode(WeightsPage::Mode::Histogram);
        done();
        return;
    }
    window.pages()->setCurrentWidget(page);
    page->setMode(static_cast<WeightsPage::Mode>(mode));
    const auto grab = [&window, prefix, mode, done] {
        QTimer::singleShot(kSettleMs, &window, [&window, prefix, mode, done] {
            const QString file = QStringLiteral("%1-weights-%2.png")
                                     .arg(prefix, WeightsPage::modeName(static_cast<WeightsPage::Mode>(mode)));
            if (window.grab().save(file))
                QTextStream(stdout) << file << '\n';
            grabWeightViews(window, prefix, mode + 1, done);
        });
    };
    if (page->isBusy())
        QObject::connect(page, &WeightsPage::jobsFinished, &window, grab, Qt::SingleShotConnection);
    else
        grab();
}

} // namespace

QStringList grabPages(MainWindow &window, const QString &prefix)
{
    QTabWidget *tabs = window.pages();
    QStringList files;
    const int current = tabs->currentIndex();
    for (int i = 0; i < tabs->count(); ++i) {
        tabs->setCurrentIndex(i);
        const QString name = tabs->tabText(i).remove(u'&').toLower().replace(u' ', u'-');
        const QString file = QStringLiteral("%1-%2.png").arg(prefix, name);
        if (window.grab().save(file))
            files << file;
    }
    tabs->setCurrentIndex(current);
    return files;
}

void startScreenshotTour(MainWindow &window, const QString &prefix, bool nothingToOpen)
{
    const auto grabAndQuit = [&window, prefix] {
        QTimer::singleShot(kSettleMs, &window, [&window, prefix] {
            for (const QString &file : grabPages(window, prefix))
                QTextStream(stdout) << file << '\n';
            QApplication::quit();
        });
    };
    QObject::connect(window.document(), &Document::loaded, &window,
                     [&window, prefix, grabAndQuit] { grabWeightViews(window, prefix, 0, grabAndQuit); });
    QObject::connect(window.document(), &Document::loadFailed, &window, grabAndQuit);
    if (nothingToOpen)
        grabAndQuit();
}
