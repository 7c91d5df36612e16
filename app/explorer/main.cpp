// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/explorer/main_window.h"
#include "app/explorer/screenshot_tour.h"
#include "app/explorer/stall_monitor.h"
#include "core/util/parallel_chunks.h"
#include "ui/drop_paths.h"
#include "ui/open_url_dialog.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTextStream>

namespace {

// The bundled sample, looked up where it is installed: share/gguf-explorer/sample beside the
// program's bin/ (a build directory has the same layout: CMake links the sample into
// <build>/share), then the system's data folders (/usr/share, /usr/local/share, ~/.local/share).
QString sampleModelPath()
{
    const QString relative = QStringLiteral("gguf-explorer/sample/tiny-llama-tied-q4_k_m.gguf");
    const QString besideProgram = QCoreApplication::applicationDirPath() + QStringLiteral("/../share/") + relative;
    if (QFileInfo(besideProgram).isFile())
        return QFileInfo(besideProgram).canonicalFilePath();
    return QStandardPaths::locate(QStandardPaths::GenericDataLocation, relative);
}

} // namespace

int main(int argc, char *argv[])
{
    MonitoredApplication app(argc, argv);
    // background work (jobs and the core's workers) gives way to this thread: the window answers
    // at once even when every core is computing statistics
    gguf::setBackgroundThreadsYield(true);
    QApplication::setApplicationName(QStringLiteral("gguf-explorer"));
    QApplication::setApplicationDisplayName(QStringLiteral("GGUF Explorer"));
    QApplication::setOrganizationName(QStringLiteral("gguf-explorer"));
    QApplication::setApplicationVersion(QStringLiteral(GGUF_EXPLORER_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("gguf-explorer"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QApplication::translate("main", "Look inside GGUF model files."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        QStringLiteral("files"),
        QApplication::translate(
            "main",
            "GGUF files or URLs (http, https, hf:OWNER/REPO/FILE.gguf) to open (the bundled sample when none)."),
        QStringLiteral("[files...]"));
    const QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QApplication::translate("main", "Open the file, save each page as <prefix>-<page>.png, then quit."),
        QStringLiteral("prefix"));
    parser.addOption(screenshot);
    const QCommandLineOption compare(
        QStringLiteral("compare"),
        QApplication::translate("main",
                                "Open the first file and compare it with the second (gguf-explorer --compare A B)."));
    parser.addOption(compare);
    parser.process(app);

    // FILE may be an http(s) URL or an hf: name (docs/REMOTE.md)
    OpenUrlDialog::applySettings();
    QStringList files = parser.positionalArguments();
    // two models: two shards of one split set are one model
    if (parser.isSet(compare) && DropPaths::distinctModels(files).size() != 2) {
        QTextStream(stderr) << QApplication::translate("main",
                                                       "gguf-explorer: --compare needs two models: --compare A B")
                            << '\n';
        return 2;
    }
    if (files.isEmpty()) {
        const QString sample = sampleModelPath();
        if (!sample.isEmpty())
            files << sample;
    }

    // GGUF_STALL_REPORT=1 (and every screenshot tour): on exit, the longest time the window did
    // not answer, as "max-stall-ms N (the event it was in)" on stderr
    const bool reportStalls = qEnvironmentVariableIntValue("GGUF_STALL_REPORT") == 1 || parser.isSet(screenshot);
    StallMonitor monitor;

    MainWindow window;
    window.show();
    if (reportStalls)
        monitor.start();
    if (parser.isSet(screenshot))
        startScreenshotTour(window, parser.value(screenshot), files.isEmpty(), reportStalls ? &monitor : nullptr);
    if (parser.isSet(compare)) {
        const QStringList models = DropPaths::distinctModels(files);
        window.openFile(models[0]);
        window.compareWith(models[1]);
    } else {
        window.openFiles(files);
    }
    const int status = QApplication::exec();
    if (reportStalls)
        QTextStream(stderr) << monitor.report() << '\n';
    return status;
}
