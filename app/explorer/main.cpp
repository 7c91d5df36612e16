// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/explorer/main_window.h"
#include "core/format/gguf_file.h"
#include "ui/document.h"
#include "ui/tensors/tensors_page.h"
#include "ui/weights/weights_page.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QTabWidget>
#include <QTextStream>
#include <QTimer>

#include <functional>

namespace {

const QString kSampleName = QStringLiteral("tiny-llama-tied-q4_k_m.gguf");

// The bundled sample: installed next to the program (share/gguf-explorer/sample), or in the
// source tree when running from a build directory.
QString sampleModelPath()
{
    const QString appDir = QCoreApplication::applicationDirPath();
    const QStringList candidates = {
        appDir + QStringLiteral("/../share/gguf-explorer/sample/") + kSampleName,
        QStringLiteral(GGUF_SOURCE_DIR "/resources/sample/") + kSampleName,
    };
    for (const QString &candidate : candidates)
        if (QFileInfo(candidate).isFile())
            return QDir::cleanPath(candidate);
    return {};
}

// Screenshot mode: selects the tensor the Weights page shows in the tensor table, then grabs
// each Weights view as `<prefix>-weights-<view>.png` once its computation has finished.
void grabWeightViews(MainWindow &window, const QString &prefix, int mode, const std::function<void()> &done)
{
    WeightsPage *page = window.weightsPage();
    if (mode == 0 && page->tensor().isValid())
        window.tensorsPage()->selectTensor(page->tensor().shard(), static_cast<int>(page->tensor().info().index));
    if (mode >= static_cast<int>(WeightsPage::Mode::Count)) {
        page->setMode(WeightsPage::Mode::Histogram);
        done();
        return;
    }
    window.pages()->setCurrentWidget(page);
    page->setMode(static_cast<WeightsPage::Mode>(mode));
    const auto grab = [&window, prefix, mode, done] {
        QTimer::singleShot(200, &window, [&window, prefix, mode, done] {
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

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("gguf-explorer"));
    QApplication::setApplicationDisplayName(QStringLiteral("GGUF Explorer"));
    QApplication::setOrganizationName(QStringLiteral("gguf-explorer"));
    QApplication::setApplicationVersion(QStringLiteral(GGUF_EXPLORER_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("gguf-explorer"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QApplication::translate("main", "Look inside GGUF model files."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("files"),
                                 QApplication::translate("main", "GGUF files to open (the bundled sample when none)."),
                                 QStringLiteral("[files...]"));
    const QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QApplication::translate("main", "Open the file, save each page as <prefix>-<page>.png, then quit."),
        QStringLiteral("prefix"));
    parser.addOption(screenshot);
    parser.process(app);

    QStringList files = parser.positionalArguments();
    if (files.isEmpty()) {
        const QString sample = sampleModelPath();
        if (!sample.isEmpty())
            files << sample;
    }

    MainWindow window;
    window.show();
    if (parser.isSet(screenshot)) {
        const QString prefix = parser.value(screenshot);
        const auto grabAndQuit = [&window, prefix] {
            // Let the pages lay themselves out before grabbing.
            QTimer::singleShot(200, &window, [&window, prefix] {
                for (const QString &file : window.saveScreenshots(prefix))
                    QTextStream(stdout) << file << '\n';
                QApplication::quit();
            });
        };
        QObject::connect(window.document(), &Document::loaded, &window,
                         [&window, prefix, grabAndQuit] { grabWeightViews(window, prefix, 0, grabAndQuit); });
        QObject::connect(window.document(), &Document::loadFailed, &window, grabAndQuit);
        if (files.isEmpty())
            grabAndQuit();
    }
    window.openFiles(files);
    return QApplication::exec();
}
