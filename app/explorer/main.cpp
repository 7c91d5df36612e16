// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/build_info/build_info.h"
#include "app/explorer/main_window.h"
#include "app/explorer/screenshot_tour.h"
#include "app/explorer/stall_monitor.h"
#include "core/util/parallel_chunks.h"
#include "ui/shell/appearance.h"
#include "ui/shell/drop_paths.h"
#include "ui/shell/open_url_dialog.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QLibraryInfo>
#include <QLocale>
#include <QStandardPaths>
#include <QTextStream>
#include <QTranslator>

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

// Translations for the user's language, when there are any: Qt's own (dialog buttons and the
// like) and the explorer's, gguf-explorer_<lang>.qm in share/gguf-explorer/translations beside the
// program's bin/ or in the data folders (docs/TRANSLATING.md).
void installTranslations(QCoreApplication &app)
{
    const QLocale locale;
    auto *qt = new QTranslator(&app);
    if (qt->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"),
                 QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QCoreApplication::installTranslator(qt);
    QStringList folders{QCoreApplication::applicationDirPath() +
                        QStringLiteral("/../share/gguf-explorer/translations")};
    folders << QStandardPaths::locateAll(QStandardPaths::GenericDataLocation,
                                         QStringLiteral("gguf-explorer/translations"), QStandardPaths::LocateDirectory);
    auto *own = new QTranslator(&app);
    for (const QString &folder : folders)
        if (own->load(locale, QStringLiteral("gguf-explorer"), QStringLiteral("_"), folder)) {
            QCoreApplication::installTranslator(own);
            break;
        }
}

// The command line: the same options whether or not a display is opened.
struct CommandLine {
    QCommandLineParser parser;
    QCommandLineOption screenshot{
        QStringLiteral("screenshot"),
        QCoreApplication::translate("main", "Open the file, save each page as <prefix>-<page>.png, then quit."),
        QStringLiteral("prefix")};
    QCommandLineOption compare{
        QStringLiteral("compare"),
        QCoreApplication::translate(
            "main", "Open the first file and compare it with the second (gguf-explorer --compare A B).")};
    QCommandLineOption colorScheme{
        QStringLiteral("color-scheme"),
        QCoreApplication::translate("main", "Colours for this run: system (the desktop's palette), light or dark. "
                                            "View > Colour Scheme chooses them for good."),
        QStringLiteral("scheme")};

    CommandLine()
    {
        parser.setApplicationDescription(QCoreApplication::translate("main", "Look inside GGUF model files."));
        parser.addHelpOption();
        parser.addVersionOption();
        parser.addPositionalArgument(
            QStringLiteral("files"),
            QCoreApplication::translate(
                "main",
                "GGUF files, Hugging Face checkpoints (.safetensors, their index, a folder) or URLs (http, https, "
                "hf:OWNER/REPO/FILE.gguf) to open (the bundled sample when none)."),
            QStringLiteral("[files...]"));
        parser.addOption(screenshot);
        parser.addOption(compare);
        parser.addOption(colorScheme);
    }
};

void setIdentity()
{
    QCoreApplication::setApplicationName(QStringLiteral("gguf-explorer"));
    QCoreApplication::setOrganizationName(QStringLiteral("gguf-explorer"));
    QCoreApplication::setApplicationVersion(QString::fromStdString(gguf::build::versionLine()));
}

// --help and --version are answered without a display (over ssh, in a script, in a package check)
bool asksHelpOrVersion(int argc, char *argv[])
{
    for (int i = 1; i < argc; ++i) {
        const QByteArray a(argv[i]);
        if (a == "--")
            return false;
        if (a == "-h" || a == "--help" || a == "-?" || a == "--help-all" || a == "-v" || a == "--version")
            return true;
    }
    return false;
}

} // namespace

int main(int argc, char *argv[])
{
    if (asksHelpOrVersion(argc, argv)) {
        QCoreApplication app(argc, argv);
        setIdentity();
        installTranslations(app);
        CommandLine commandLine;
        commandLine.parser.process(app); // prints and exits
        return 0;
    }
    MonitoredApplication app(argc, argv);
    // background work (jobs and the core's workers) gives way to this thread: the window answers
    // at once even when every core is computing statistics
    gguf::setBackgroundThreadsYield(true);
    setIdentity();
    installTranslations(app);
    QApplication::setApplicationDisplayName(QStringLiteral("GGUF Explorer"));
    QApplication::setDesktopFileName(QStringLiteral(GGUF_APP_ID));

    CommandLine commandLine;
    QCommandLineParser &parser = commandLine.parser;
    const QCommandLineOption &screenshot = commandLine.screenshot;
    const QCommandLineOption &compare = commandLine.compare;
    parser.process(app);

    // the colour scheme: --color-scheme for this run, else the one chosen in View ▸ Colour Scheme
    if (parser.isSet(commandLine.colorScheme)) {
        const auto scheme = Appearance::fromName(parser.value(commandLine.colorScheme));
        if (!scheme) {
            QTextStream(stderr) << QApplication::translate("main",
                                                           "gguf-explorer: --color-scheme takes system, light or dark")
                                << '\n';
            return 2;
        }
        Appearance::apply(*scheme, false);
    } else if (Appearance::saved() != Appearance::Scheme::System) {
        Appearance::apply(Appearance::saved(), false);
    }

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
