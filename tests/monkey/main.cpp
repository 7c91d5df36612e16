// SPDX-License-Identifier: GPL-3.0-or-later
// gguf-monkey: seeded random walks of user actions on the explorer window (issue #21, Monkey).
//   gguf-monkey --seed N --actions K       one walk of K actions (replays a reported failure)
//   gguf-monkey --seconds S [--seed N]     walks of --actions each, seed after seed, until S seconds passed
//   gguf-monkey --seeds-file FILE          every "SEED ACTIONS" line of FILE (the regression list)
// Exits 0 when every invariant held, 1 with the seed, the action and the last actions otherwise.
#include "tests/monkey/monkey.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QRandomGenerator>
#include <QSettings>
#include <QTemporaryDir>
#include <QTextStream>

#include <cstdio>

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

struct Walk {
    quint64 seed = 0;
    int actions = 0;
};

void say(const QString &text)
{
    QTextStream(stdout) << text << Qt::endl;
}

/// The walks of a regression list: "SEED ACTIONS" per line, '#' starts a comment.
bool readSeeds(const QString &path, QList<Walk> &walks)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
        return false;
    while (!file.atEnd()) {
        const QString line = QString::fromUtf8(file.readLine()).section(u'#', 0, 0).trimmed();
        if (line.isEmpty())
            continue;
        const QStringList fields = line.split(u' ', Qt::SkipEmptyParts);
        bool seedOk = false, actionsOk = false;
        const Walk walk{fields.value(0).toULongLong(&seedOk), fields.value(1).toInt(&actionsOk)};
        if (fields.size() != 2 || !seedOk || !actionsOk)
            return false;
        walks << walk;
    }
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setQuitOnLastWindowClosed(false);
    QCoreApplication::setOrganizationName(QStringLiteral("gguf-explorer-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("gguf-monkey"));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Seeded random walks of user actions on the GGUF Explorer window."));
    parser.addHelpOption();
    const QCommandLineOption seed(QStringLiteral("seed"), QStringLiteral("The (first) seed."), QStringLiteral("N"));
    const QCommandLineOption actions(QStringLiteral("actions"), QStringLiteral("Actions per walk (default 400)."),
                                     QStringLiteral("K"), QStringLiteral("400"));
    const QCommandLineOption seconds(QStringLiteral("seconds"),
                                     QStringLiteral("Walk seed after seed until S seconds have passed."),
                                     QStringLiteral("S"));
    const QCommandLineOption seedsFile(QStringLiteral("seeds-file"),
                                       QStringLiteral("Replay every \"SEED ACTIONS\" line of FILE."),
                                       QStringLiteral("FILE"));
    const QCommandLineOption maxStall(
        QStringLiteral("max-stall-ms"),
        QStringLiteral("Longest time the window may take to answer (default 2000, 10000 with ASan)."),
        QStringLiteral("MS"), QString::number(kSanitized ? 10000 : 2000));
    const QCommandLineOption verbose(QStringLiteral("verbose"), QStringLiteral("Print every action."));
    parser.addOptions({seed, actions, seconds, seedsFile, maxStall, verbose});
    parser.process(app);

    // the window's settings (recent files, geometry, colour scheme) in a folder of the run's own
    QTemporaryDir settingsDir;
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());

    Monkey::Options options;
    options.actions = parser.value(actions).toInt();
    options.maxStallMs = parser.value(maxStall).toInt();
    options.hangMs = options.maxStallMs * 15;
    options.verbose = parser.isSet(verbose);
    QList<Walk> walks;
    if (parser.isSet(seedsFile) && !readSeeds(parser.value(seedsFile), walks)) {
        say(QStringLiteral("monkey: cannot read the seeds in %1").arg(parser.value(seedsFile)));
        return 2;
    }
    const quint64 firstSeed =
        parser.isSet(seed) ? parser.value(seed).toULongLong() : QRandomGenerator::system()->bounded(1000000000u);
    const qint64 limitMs = parser.isSet(seconds) ? parser.value(seconds).toLongLong() * 1000 : -1;
    if (!parser.isSet(seedsFile) && limitMs < 0)
        walks << Walk{firstSeed, options.actions};

    QElapsedTimer clock;
    clock.start();
    options.clock = &clock;
    int totalActions = 0;
    qint64 longestStall = 0;
    for (qsizetype i = 0; limitMs >= 0 ? clock.elapsed() < limitMs : i < walks.size(); ++i) {
        const Walk walk = limitMs >= 0 ? Walk{firstSeed + static_cast<quint64>(i), options.actions} : walks[i];
        options.seed = walk.seed;
        options.actions = walk.actions;
        options.deadlineMs = limitMs;
        say(QStringLiteral("monkey: seed %1").arg(walk.seed));
        QElapsedTimer took;
        took.start();
        Monkey monkey(options);
        const bool ok = monkey.run();
        totalActions += monkey.actionsDone();
        longestStall = std::max(longestStall, monkey.longestStallMs());
        if (!ok) {
            std::fputs(monkey.report().toLocal8Bit().constData(), stdout);
            std::fflush(stdout);
            return 1;
        }
        say(QStringLiteral("monkey: seed %1: %2 actions (%3 window checks) in %4 s, the longest wait %5 ms")
                .arg(walk.seed)
                .arg(monkey.actionsDone())
                .arg(monkey.checks())
                .arg(double(took.elapsed()) / 1000, 0, 'f', 1)
                .arg(monkey.longestStallMs()));
    }
    say(QStringLiteral("monkey: all invariants held: %1 actions in %2 s, the longest wait %3 ms")
            .arg(totalActions)
            .arg(double(clock.elapsed()) / 1000, 0, 'f', 1)
            .arg(longestStall));
    return 0;
}
