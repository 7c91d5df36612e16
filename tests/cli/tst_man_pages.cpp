// SPDX-License-Identifier: GPL-3.0-or-later
// The man pages (resources/man): each renders without a groff warning (as lintian checks it), and
// documents what its program says it has: every command, option and exit status in its --help, and
// the top-level keys of the JSON gguf-inspect prints. The lists come from the programs, so a command,
// option or key added without its documentation fails here.
#include "tests/support/inspect_run.h"
#include "tests/support/test_paths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTest>

#include <algorithm>

namespace {

const QString kSample = gguf::test::sampleModel();

QString pagePath(const QString &program)
{
    return gguf::test::resourcesDir() + QStringLiteral("/man/") + program + QStringLiteral(".1");
}

gguf::test::InspectRun run(const QString &program, const QStringList &args,
                           const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    QProcess process;
    process.setProcessEnvironment(env);
    process.start(program, args);
    gguf::test::InspectRun result;
    if (!process.waitForFinished(60000) || process.exitStatus() != QProcess::NormalExit)
        return result;
    result.exitCode = process.exitCode();
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    return result;
}

// The page as plain text, each paragraph on one line (so no name is broken or hyphenated), with
// the hyphens and minus signs some groff versions print for '-' and '\-' made '-' again.
QString rendered(const QString &program)
{
    const auto r =
        run(QStringLiteral("groff"), {QStringLiteral("-man"), QStringLiteral("-Tutf8"), QStringLiteral("-rLL=30000n"),
                                      QStringLiteral("-P-cbou"), pagePath(program)});
    QString text = QString::fromUtf8(r.out);
    for (const char16_t dash : {u'\u2010', u'\u2011', u'\u2212'})
        text.replace(QChar(dash), QLatin1Char('-'));
    return text;
}

// The text under the heading `name` (headings stand alone at the left margin), up to the next one.
QString section(const QString &page, const QString &name)
{
    static const QRegularExpression heading(QStringLiteral("^[A-Z][A-Z ]*$"));
    QString text;
    bool inside = false;
    for (const QString &line : page.split(QLatin1Char('\n'))) {
        if (heading.match(line).hasMatch())
            inside = line == name;
        else if (inside)
            text += line + QLatin1Char('\n');
    }
    return text;
}

// `words` (a name, or a name and its argument: "--range LO HI") as a whole in `text`; with
// `heading`, only where it heads an entry ("-o, --output OUT" at the start of a line).
bool mentions(const QString &text, const QString &words, bool heading = false)
{
    QStringList parts = words.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    for (QString &part : parts)
        part = QRegularExpression::escape(part);
    const QRegularExpression re(
        QStringLiteral("%1(?<![\\w-])%2(?![\\w-])")
            .arg(heading ? QStringLiteral("^\\s+(?:\\S+,\\s+)*") : QString(), parts.join(QStringLiteral("\\s+"))),
        QRegularExpression::MultilineOption);
    return re.match(text).hasMatch();
}

// One line of the options a --help text lists: "  -o, --output <OUT>  description".
struct HelpOption {
    QStringList names; ///< "-o", "--output"
    QString value;     ///< "OUT", or empty
};

QList<HelpOption> helpOptions(const QString &help)
{
    static const QRegularExpression line(QStringLiteral("^  (-\\S.*?)(?:\\s{2,}|$)"),
                                         QRegularExpression::MultilineOption);
    static const QRegularExpression name(QStringLiteral("(?<![\\w-])--?[A-Za-z][\\w-]*"));
    static const QRegularExpression argument(QStringLiteral("<([^>]+)>"));
    QList<HelpOption> out;
    for (auto lines = line.globalMatch(help); lines.hasNext();) {
        const QString column = lines.next().captured(1);
        HelpOption option{{}, argument.match(column).captured(1)};
        for (auto names = name.globalMatch(column); names.hasNext();)
            option.names << names.next().captured(0);
        out << option;
    }
    return out;
}

QString inspectHelp()
{
    const auto r = gguf::test::inspect({QStringLiteral("--help")});
    return r.exitCode == 0 ? QString::fromLocal8Bit(r.out) : QString();
}

// The first word after "gguf-inspect" of each command line of --help: "FILE" (the overview), "info", …
QStringList helpCommands(const QString &help)
{
    static const QRegularExpression line(QStringLiteral("^  gguf-inspect (\\S+)"), QRegularExpression::MultilineOption);
    QStringList out;
    for (auto it = line.globalMatch(help); it.hasNext();)
        out << it.next().captured(1);
    return out;
}

QStringList missing(const QString &text, const QStringList &words, bool heading = false)
{
    QStringList out;
    for (const QString &w : words)
        if (!mentions(text, w, heading))
            out << w;
    return out;
}

} // namespace

class TestManPages : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void rendersWithoutWarnings_data();
    void rendersWithoutWarnings();
    void documentsEveryCommand();
    void documentsEveryOption_data();
    void documentsEveryOption();
    void documentsExitStatus();
    void documentsJsonKeys_data();
    void documentsJsonKeys();
};

void TestManPages::initTestCase()
{
    if (QStandardPaths::findExecutable(QStringLiteral("groff")).isEmpty())
        QFAIL("groff is not installed (Debian: groff-base, which scripts/test.sh installs)");
    QVERIFY(!inspectHelp().isEmpty());
}

void TestManPages::rendersWithoutWarnings_data()
{
    QTest::addColumn<QString>("program");
    QTest::addColumn<QString>("width"); // empty: groff itself, else lintian's `man` at MANWIDTH
    for (const char *program : {"gguf-inspect", "gguf-explorer"})
        for (const char *width : {"", "80", "120"})
            QTest::addRow("%s %s", program, *width ? width : "groff")
                << QString::fromLatin1(program) << QString::fromLatin1(width);
}

void TestManPages::rendersWithoutWarnings()
{
    QFETCH(QString, program);
    QFETCH(QString, width);
    QFile file(pagePath(program));
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.fileName()));
    const QByteArray source = file.readAll();
    // plain ASCII, so every formatter reads it the same without a preprocessor
    QVERIFY(std::all_of(source.begin(), source.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; }));
    QVERIFY(source.startsWith(".\\\" SPDX-License-Identifier: GPL-3.0-or-later\n"));
    QVERIFY(source.contains("\n.TH " + program.toUpper().replace(QLatin1Char('-'), QStringLiteral("\\-")).toLatin1() +
                            " 1 2026-11-26 \"GGUF Explorer 0.1.0\"\n"));

    // groff itself, or lintian's command (its check documentation/manual), the output thrown away
    QStringList args{QStringLiteral("-Tutf8")};
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (width.isEmpty()) {
        args << QStringLiteral("-man") << QStringLiteral("-ww") << QStringLiteral("-z");
    } else {
        if (QStandardPaths::findExecutable(QStringLiteral("man")).isEmpty())
            QFAIL("man (man-db) is not installed; scripts/test.sh installs it");
        args << QStringLiteral("--warnings") << QStringLiteral("-E") << QStringLiteral("UTF-8") << QStringLiteral("-l")
             << QStringLiteral("-Z");
        env.insert(QStringLiteral("LC_ALL"), QStringLiteral("C.UTF-8"));
        env.insert(QStringLiteral("MANROFFSEQ"), QString());
        env.insert(QStringLiteral("MANWIDTH"), width);
    }
    const auto r = run(width.isEmpty() ? QStringLiteral("groff") : QStringLiteral("man"), args << file.fileName(), env);
    QVERIFY2(r.err.isEmpty(), r.err.constData());
    QCOMPARE(r.exitCode, 0);
    QVERIFY(width.isEmpty() || !r.out.isEmpty()); // groff -z prints nothing
}

void TestManPages::documentsEveryCommand()
{
    const QStringList commands = helpCommands(inspectHelp());
    QVERIFY2(commands.size() >= 14 && commands.contains(QStringLiteral("FILE")), qPrintable(commands.join(u' ')));
    const QString page = rendered(QStringLiteral("gguf-inspect"));
    const QString synopsis = section(page, QStringLiteral("SYNOPSIS"));
    const QString entries = section(page, QStringLiteral("COMMANDS"));
    QStringList absent;
    for (const QString &command : commands) {
        // a line of the synopsis, and an entry of COMMANDS headed by the command
        const bool described =
            mentions(entries, command, true) || mentions(entries, QStringLiteral("gguf-inspect ") + command, true);
        if (!mentions(synopsis, QStringLiteral("gguf-inspect ") + command) || !described)
            absent << command;
    }
    QVERIFY2(absent.isEmpty(), qPrintable(QStringLiteral("not in SYNOPSIS and COMMANDS: ") + absent.join(u' ')));
}

void TestManPages::documentsEveryOption_data()
{
    QTest::addColumn<QString>("program");
    QTest::addColumn<QString>("help");
    QTest::addColumn<int>("minimum"); // options --help lists at least, so that a broken parse cannot pass
    QTest::newRow("gguf-inspect") << QStringLiteral("gguf-inspect") << inspectHelp() << 28;
#ifdef GGUF_HAS_EXPLORER
    // answered without a display
    const auto explorer = run(gguf::test::explorerPath(), {QStringLiteral("--help")});
    QCOMPARE(explorer.exitCode, 0);
    QTest::newRow("gguf-explorer") << QStringLiteral("gguf-explorer") << QString::fromLocal8Bit(explorer.out) << 5;
#endif
}

void TestManPages::documentsEveryOption()
{
    QFETCH(QString, program);
    QFETCH(QString, help);
    QFETCH(int, minimum);
    const QList<HelpOption> options = helpOptions(help);
    QVERIFY2(options.size() >= minimum, qPrintable(help));
    const QString page = rendered(program);
    const QString described = section(page, QStringLiteral("OPTIONS"));
    const QString synopsis = section(page, QStringLiteral("SYNOPSIS"));
    QStringList absent, unlisted;
    for (const HelpOption &option : options) {
        // every name heads an entry of OPTIONS, a long one with its argument ("--bins N"); one of
        // them is in the synopsis
        for (const QString &name : option.names) {
            const bool withValue = name.startsWith(QStringLiteral("--")) && !option.value.isEmpty();
            absent << missing(described, {withValue ? name + QLatin1Char(' ') + option.value : name}, true);
        }
        if (missing(synopsis, option.names).size() == option.names.size())
            unlisted << option.names.join(QStringLiteral(", "));
    }
    QVERIFY2(absent.isEmpty(), qPrintable(QStringLiteral("not in OPTIONS: ") + absent.join(QStringLiteral("; "))));
    QVERIFY2(unlisted.isEmpty(), qPrintable(QStringLiteral("not in SYNOPSIS: ") + unlisted.join(QStringLiteral("; "))));
}

void TestManPages::documentsExitStatus()
{
    // "Exit status: 0 success, 1 … (validate: …; diff: …), 2 …, 3 diff: …" in --help
    const QString help = inspectHelp();
    const qsizetype at = help.indexOf(QStringLiteral("Exit status:"));
    QVERIFY(at >= 0);
    const QString said = help.mid(at, help.indexOf(QStringLiteral("\n\n"), at) - at);
    QStringList words;
    static const QRegularExpression status(QStringLiteral("\\b\\d\\b"));
    for (auto it = status.globalMatch(said); it.hasNext();)
        words << it.next().captured(0);
    for (const QString &command : helpCommands(help))
        if (mentions(said, command))
            words << command;
    words.removeDuplicates();
    QVERIFY2(words.contains(QStringLiteral("3")) && words.contains(QStringLiteral("diff")), qPrintable(said));
    const QString page = rendered(QStringLiteral("gguf-inspect"));
    const QStringList absent = missing(section(page, QStringLiteral("EXIT STATUS")), words);
    QVERIFY2(absent.isEmpty(), qPrintable(QStringLiteral("not in EXIT STATUS: ") + absent.join(u' ')));
}

void TestManPages::documentsJsonKeys_data()
{
    QTest::addColumn<QStringList>("args");
    // each command with what follows FILE (B: the sample again)
    for (const char *command :
         {"info", "dump", "tensors", "vocab", "layout", "stats output_norm.weight", "tokenize Hello", "diff B --values",
          "memory --budget 1", "memory --device CUDA0=1 --device CUDA1=1", "fit --device CUDA0=1"}) {
        QStringList args = QString::fromLatin1(command).split(QLatin1Char(' '));
        args.insert(1, kSample);
        args.replaceInStrings(QRegularExpression(QStringLiteral("^B$")), kSample);
        QTest::newRow(command) << (args << QStringLiteral("--json"));
    }
}

void TestManPages::documentsJsonKeys()
{
    QFETCH(QStringList, args);
    const auto r = gguf::test::inspect(args);
    QCOMPARE(r.exitCode, 0);
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(r.out, &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    // the top-level keys: of the object, or of an array's first element
    QVERIFY(!document.isArray() || !document.array().isEmpty());
    const QJsonObject object = document.isArray() ? document.array().first().toObject() : document.object();
    QVERIFY(!object.isEmpty());
    const QString page = rendered(QStringLiteral("gguf-inspect"));
    const QStringList absent = missing(section(page, QStringLiteral("JSON OUTPUT")), object.keys());
    QVERIFY2(absent.isEmpty(), qPrintable(QStringLiteral("not in JSON OUTPUT: ") + absent.join(u' ')));
}

QTEST_GUILESS_MAIN(TestManPages)
#include "tst_man_pages.moc"
