// SPDX-License-Identifier: GPL-3.0-or-later
// The shell completions (resources/completions/) run by real shells against the built programs. bash: the completion
// function called with COMP_WORDS set as bash splits the line, with and without bash-completion's helpers loaded.
// zsh: an interactive `zsh -f` on a pseudo-terminal (zsh/zpty) with compinit types the line and Tab, and every match
// the completion adds is recorded. The completion runs `gguf-inspect` from PATH (the build folder first here), or the
// command word when that is a path.
#include "tests/support/gguf_builder.h"
#include "tests/support/inspect_run.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <string_view>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using gguf::test::inspect;

namespace {

const QString kCompletions = gguf::test::resourcesDir() + QStringLiteral("/completions");
const QString kSample = gguf::test::sampleModel();
const QString kInspect = gguf::test::inspectPath();
const QString kBashCompletion = QStringLiteral("/usr/share/bash-completion/bash_completion");
const QStringList kCommands{"info",    "dump",  "tensors",  "vocab",      "validate", "layout",
                            "dequant", "stats", "tokenize", "detokenize", "diff",     "set",
                            "memory",  "fit",   "hash",     "split",      "merge",    "report"};
const QStringList kCacheTypes{"f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1"};
// names with characters a shell would take apart
const QString kSpaced = QStringLiteral("odd name $HOME.weight");
const QString kQuoted = QStringLiteral("odd'quote\"and\\back.weight");
// bash offers them escaped as `printf %q` does (zsh quotes what it inserts itself)
const QString kSpacedEscaped = QStringLiteral("odd\\ name\\ \\$HOME.weight");
const QString kQuotedEscaped = QStringLiteral("odd\\'quote\\\"and\\\\back.weight");

// $1 'helpers' (bash-completion loaded) or 'plain', $2 the line typed, then the words as bash splits that line; the
// completion file is $GGUF_COMP_DIR/PROGRAM.bash, its function _PROGRAM (gguf_inspect, gguf_explorer).
const char kBashDriver[] = R"(
[[ $1 == helpers ]] && { source /usr/share/bash-completion/bash_completion || exit 3; }
program=$(basename "$3")
source "$GGUF_COMP_DIR/$program.bash" || exit 3
COMP_LINE=$2 COMP_POINT=${#2}
shift 2
COMP_WORDS=("$@") COMP_CWORD=$(($# - 1)) COMPREPLY=()
"_${program/-/_}" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
((${#COMPREPLY[@]} == 0)) || printf '%s\n' "${COMPREPLY[@]}"
)";

// Run by the interactive zsh: compinit with the completions folder first, a compadd that appends every match it adds
// to $GGUF_COMP_OUT, and Tab bound to a completion widget that lists and inserts nothing and ends by printing <E>.
// The driver prints what the terminal showed after the Tab (error messages would be there).
const char kZshSetup[] = R"(
PS1='<P>'
fpath=("$GGUF_COMP_DIR" $fpath)
autoload -U compinit && compinit -u -d "$HOME/.zcompdump"
compadd() {
  [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]] && { builtin compadd "$@"; return }
  local -a m; builtin compadd -O m "$@"; (( $#m )) && print -rl -- $m >>$GGUF_COMP_OUT
  builtin compadd "$@"
}
_rec_complete() { _main_complete; compstate[list]=; compstate[insert]=; print -n '<E>' }
zle -C rec-complete complete-word _rec_complete
bindkey '^I' rec-complete
)";
const char kZshDriver[] = R"(
zmodload zsh/zpty || exit 3
zpty z zsh -f -i
zpty -w z 'eval "$GGUF_COMP_SETUP"'
zpty -r z out '*<P>*' || exit 4
zpty -w -n z "$1"$'\t'
zpty -r z out '*<E>*' || exit 4
print -r -- "$out"
zpty -d z
)";

QProcessEnvironment environment(const QString &pathFirst)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("BASH_ENV")); // read by every non-interactive bash
    env.insert(QStringLiteral("PATH"), pathFirst + QLatin1Char(':') + env.value(QStringLiteral("PATH")));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    return env;
}

// The options `PROGRAM --help` lists (-h, --help, --output …).
QStringList helpOptions(const QString &program)
{
    QProcess process;
    process.setProcessEnvironment(environment(QString()));
    process.start(program, {QStringLiteral("--help")});
    process.waitForFinished(60000);
    QStringList options;
    static const QRegularExpression option(QStringLiteral("^  (-\\w)?(?:, )?(--[\\w-]+)?"));
    for (const QString &line : QString::fromUtf8(process.readAllStandardOutput()).split(QLatin1Char('\n')))
        if (const auto m = option.match(line); m.hasMatch())
            options << m.captured(1) << m.captured(2);
    options.removeAll(QString());
    return options;
}

// The line typed: the words with blanks between, except around ':' and '=' pieces (bash's COMP_WORDBREAKS).
QString lineOf(const QStringList &words)
{
    QString line = words.value(0);
    for (qsizetype i = 1; i < words.size(); ++i) {
        const auto isBreak = [](const QString &w) { return w == QLatin1String(":") || w == QLatin1String("="); };
        line += (isBreak(words[i]) || isBreak(words[i - 1]) ? QString() : QStringLiteral(" ")) + words[i];
    }
    return line;
}

// Why `shell` (bash, bash-plain, zsh) cannot run here, or nullptr.
const char *missing(const QString &shell)
{
    if (shell == QLatin1String("bash") && !QFileInfo::exists(kBashCompletion))
        return "the bash-completion package is not installed (scripts/test.sh installs it)";
    if (QStandardPaths::findExecutable(shell.left(shell.indexOf(QLatin1Char('-')))).isEmpty())
        return "the shell is not installed (scripts/test.sh installs zsh)";
    return nullptr;
}

QStringList sorted(QStringList list)
{
    list.sort();
    return list;
}

// A TCP port on 127.0.0.1 that listens and never answers: a completion that connected would hang there.
class SilentPort {
public:
    SilentPort() : m_fd(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0))
    {
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t size = sizeof address;
        auto *raw = reinterpret_cast<sockaddr *>(&address); // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
        if (m_fd >= 0 && ::bind(m_fd, raw, size) == 0 && ::listen(m_fd, 16) == 0 &&
            ::getsockname(m_fd, raw, &size) == 0)
            m_port = ntohs(address.sin_port);
    }
    ~SilentPort() { ::close(m_fd); }
    SilentPort(const SilentPort &) = delete;
    SilentPort &operator=(const SilentPort &) = delete;
    int port() const { return m_port; }
    /// Connections made since the last call.
    int takeConnections() const
    {
        int count = 0;
        for (int c = 0; (c = ::accept(m_fd, nullptr, nullptr)) >= 0; ++count)
            ::close(c);
        return count;
    }

private:
    int m_fd;
    int m_port = 0;
};

} // namespace

class TestCompletions : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void complete_data();
    void complete();
    void optionsBelong_data();
    void optionsBelong();

private:
    struct Completion {
        QStringList offered;
        QByteArray noise; ///< bash's stderr; zsh's terminal when a program's message reached it
        qint64 ms = 0;
    };
    /// Completes `words` (the last one is the word under the cursor) in `shell`: bash, bash-plain or zsh.
    std::optional<Completion> run(const QString &shell, const QStringList &words, const QString &cwd,
                                  const QString &pathFirst) const;
    QString dir(const char *name) const { return m_tmp.filePath(QLatin1String(name)); }

    QTemporaryDir m_tmp;
    QStringList m_sampleTensors; ///< from `tensors --json`, not from --names
    SilentPort m_port;
};

std::optional<TestCompletions::Completion> TestCompletions::run(const QString &shell, const QStringList &words,
                                                                const QString &cwd, const QString &pathFirst) const
{
    const bool zsh = shell == QLatin1String("zsh");
    const QString matchesFile = dir("zsh-matches");
    QProcessEnvironment env = environment(pathFirst);
    env.insert(QStringLiteral("GGUF_COMP_DIR"), kCompletions);
    const char *mode = shell == QLatin1String("bash") ? "helpers" : "plain";
    QStringList args = QStringList{"--norc", "--noprofile", "-c", kBashDriver, "bash", mode, lineOf(words)} + words;
    if (zsh) {
        QFile::remove(matchesFile);
        env.insert(QStringLiteral("HOME"), dir("home")); // compinit's dump, made by the first run
        env.insert(QStringLiteral("GGUF_COMP_OUT"), matchesFile);
        env.insert(QStringLiteral("GGUF_COMP_SETUP"), QString::fromLatin1(kZshSetup));
        args = QStringList{"-f", "-c", kZshDriver, "zsh", lineOf(words)};
    }
    QProcess process;
    process.setWorkingDirectory(cwd);
    process.setProcessEnvironment(env);
    QElapsedTimer timer;
    timer.start();
    process.start(zsh ? QStringLiteral("zsh") : QStringLiteral("bash"), args);
    if (!process.waitForFinished(60000) || process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        qWarning("%s: %s", qPrintable(shell), process.readAllStandardError().constData());
        return std::nullopt;
    }
    Completion c;
    c.ms = timer.elapsed();
    const QByteArray out = process.readAllStandardOutput();
    c.noise = process.readAllStandardError();
    QFile matches(matchesFile);
    const QByteArray offered = !zsh ? out : matches.open(QIODevice::ReadOnly) ? matches.readAll() : QByteArray();
    c.offered = QString::fromUtf8(offered).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    if (zsh && out.contains("gguf-inspect:"))
        c.noise += out;
    return c;
}

void TestCompletions::initTestCase()
{
    QVERIFY(m_tmp.isValid());
    QVERIFY(m_port.port() > 0);
    const QDir root(m_tmp.path());
    for (const char *name : {"empty", "files/sub", "fake", "colon", "home"})
        QVERIFY(root.mkpath(QLatin1String(name)));
    gguf::test::GgufBuilder odd;
    odd.tensor(kSpaced.toStdString(), {4}, 0).tensor(kQuoted.toStdString(), {4}, 0).tensor("plain.weight", {4}, 0);
    QVERIFY(gguf::test::writeBytes(dir("files/a.gguf"), odd.build().bytes()));
    QVERIFY(gguf::test::writeBytes(dir("files/b.txt"), {'G', 'G', 'U', 'X', '\n'}));
    QVERIFY(gguf::test::writeBytes(dir("colon/x:1.gguf"), QByteArray()));
    // a gguf-inspect earlier on PATH than the real one, to tell which of the two the completion ran
    const std::string_view script = "#!/bin/sh\necho fake.from.path\n";
    QVERIFY(gguf::test::writeBytes(dir("fake/gguf-inspect"), {script.begin(), script.end()}));
    QVERIFY(QFile::setPermissions(dir("fake/gguf-inspect"), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));

    const gguf::test::InspectRun run = inspect({QStringLiteral("tensors"), kSample, QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 0);
    for (const QJsonValue &tensor : QJsonDocument::fromJson(run.out).array())
        m_sampleTensors << tensor[QLatin1String("name")].toString();
    QVERIFY(m_sampleTensors.size() > 10);
}

void TestCompletions::complete_data()
{
    QTest::addColumn<QString>("shell");
    QTest::addColumn<QStringList>("words");
    QTest::addColumn<QString>("cwd");
    QTest::addColumn<QString>("pathFirst");
    QTest::addColumn<QStringList>("expected");
    const QString build = QFileInfo(kInspect).absolutePath();
    const QString empty = dir("empty");
    const QString files = dir("files");
    const QString a = dir("files/a.gguf");
    const QString url = QStringLiteral("%1/m.gguf").arg(m_port.port());
    const auto tensorsWithPrefix = [this](const QString &prefix) {
        return m_sampleTensors.filter(QRegularExpression(QLatin1Char('^') + QRegularExpression::escape(prefix)));
    };
    enum Shells { Bash = 1, Zsh = 2, Both = 3 };
    auto row = [&](int shells, const char *name, const QStringList &words, const QString &cwd,
                   const QStringList &expected, const QString &pathFirst = {}, const QString &program = {}) {
        for (const char *shell : {"bash", "bash-plain", "zsh"})
            if (shells & (shell[0] == 'z' ? Zsh : Bash))
                QTest::addRow("%s: %s", shell, name)
                    << QString::fromLatin1(shell)
                    << QStringList{program.isEmpty() ? QStringLiteral("gguf-inspect") : program} + words << cwd
                    << (pathFirst.isEmpty() ? build : pathFirst) << expected;
    };
    row(Both, "commands", {""}, empty, kCommands);
    row(Both, "command prefix", {"de"}, empty, {"dequant", "detokenize"});
    row(Both, "commands and files", {""}, files, kCommands + QStringList{"a.gguf", "sub"});
    row(Both, "FILE: gguf files and folders", {"info", ""}, files, {"a.gguf", "sub"});
    row(Both, "diff B", {"diff", "a.gguf", ""}, files, {"a.gguf", "sub"});
    row(Both, "diff B after a URL", {"diff", "http", ":", "//127.0.0.1", ":", url, ""}, files, {"a.gguf", "sub"});
    row(Bash, "colon in a file name", {"info", "x", ":", "1"}, dir("colon"), {"1.gguf"});
    row(Both, "-o: every file", {"dequant", "a.gguf", "-o", ""}, files, {"a.gguf", "b.txt", "sub"});
    row(Both, "dequant tensors", {"dequant", kSample, "blk.0.attn_"}, empty, tensorsWithPrefix("blk.0.attn_"));
    row(Both, "dequant takes one", {"dequant", kSample, "blk.1.ffn_up.weight", ""}, empty, {"-o", "--output"});
    row(Both, "stats second tensor", {"stats", kSample, "output_norm.weight", "blk.2.ffn_"}, empty,
        tensorsWithPrefix("blk.2.ffn_"));
    row(Both, "stats all tensors", {"stats", kSample, ""}, empty, m_sampleTensors);
    row(Both, "option before FILE", {"stats", "--bins", "8", kSample, "tok"}, empty, {"token_embd.weight"});
    row(Both, "diff --tensor", {"diff", kSample, a, "--tensor", "blk.3.attn_"}, empty,
        tensorsWithPrefix("blk.3.attn_"));
    row(Bash, "diff --tensor: both files", {"diff", kSample, a, "--tensor", ""}, empty,
        m_sampleTensors + QStringList{"plain.weight", kSpacedEscaped, kQuotedEscaped});
    row(Zsh, "diff --tensor: both files", {"diff", kSample, a, "--tensor", ""}, empty,
        m_sampleTensors + QStringList{"plain.weight", kSpaced, kQuoted});
    row(Both, "diff --tensor=", {"diff", kSample, a, "--tensor", "=", "p"}, empty, {"plain.weight"});
    row(Both, "diff without --tensor", {"diff", kSample, kSample, ""}, empty, {"--values", "--tensor", "--json"});
    row(Both, "bare FILE: options", {kSample, ""}, empty, {"-h", "--help", "--help-all", "-v", "--version", "--json"});
    row(Both, "--cache-type-k", {"memory", kSample, "--cache-type-k", ""}, empty, kCacheTypes);
    row(Both, "--cache-type-v=q4", {"memory", kSample, "--cache-type-v", "=", "q4"}, empty, {"q4_0", "q4_1"});
    row(Both, "--bins takes a number", {"stats", kSample, "--bins", ""}, empty, {});
    row(Both, "--range takes two", {"stats", kSample, "--range", "-1", ""}, empty, {});
    row(Both, "not GGUF", {"stats", "b.txt", ""}, files, {});
    row(Both, "missing file", {"dequant", "nothing.gguf", ""}, files, {});
    row(Both, "URL", {"dequant", "http", ":", "//127.0.0.1", ":", url, ""}, empty, {});
    row(Bash, "URL with --tensor", {"diff", "a.gguf", "http", ":", "//127.0.0.1", ":", url, "--tensor", ""}, files,
        {"plain.weight", kSpacedEscaped, kQuotedEscaped});
    row(Zsh, "URL with --tensor", {"diff", "a.gguf", "http", ":", "//127.0.0.1", ":", url, "--tensor", ""}, files,
        {"plain.weight", kSpaced, kQuoted});
    row(Bash, "escaped space", {"stats", "a.gguf", "odd\\ n"}, files, {kSpacedEscaped});
    row(Zsh, "escaped space", {"stats", "a.gguf", "odd\\ n"}, files, {kSpaced});
    row(Both, "open quote", {"stats", "a.gguf", "'odd"}, files, {kSpaced, kQuoted});
    row(Both, "double quotes", {"stats", "\"a.gguf\"", "\"odd'q"}, files, {kQuoted});
    row(Bash, "quote opened mid-word", {"stats", "a.gguf", "odd' n"}, files, {" name $HOME.weight"});
    row(Both, "gguf-inspect from PATH", {"stats", kSample, "f"}, empty, {"fake.from.path"}, dir("fake"));
    row(Both, "command word is a path", {"stats", kSample, "output_"}, empty, {"output_norm.weight"}, dir("fake"),
        kInspect);
#ifdef GGUF_HAS_EXPLORER
    const QString explorer = QStringLiteral("gguf-explorer");
    row(Both, "explorer: options", {"--"}, empty,
        {"--help", "--help-all", "--version", "--screenshot", "--compare", "--color-scheme"}, {}, explorer);
    row(Both, "explorer: colour schemes", {"--color-scheme", ""}, empty, {"system", "light", "dark"}, {}, explorer);
    row(Both, "explorer: files", {"--compare", "a.gguf", ""}, files, {"a.gguf", "sub"}, {}, explorer);
    row(Both, "explorer: --screenshot prefix", {"--screenshot", ""}, files, {"a.gguf", "b.txt", "sub"}, {}, explorer);
#endif
}

void TestCompletions::complete()
{
    QFETCH(QString, shell);
    QFETCH(QStringList, words);
    QFETCH(QString, cwd);
    QFETCH(QString, pathFirst);
    QFETCH(QStringList, expected);
    if (const char *reason = missing(shell))
        QFAIL(reason);
    m_port.takeConnections();
    const auto c = run(shell, words, cwd, pathFirst);
    QVERIFY(c);
    QVERIFY2(c->noise.isEmpty(), c->noise.constData());
    QStringList offered = c->offered;
    if (shell == QLatin1String("zsh"))
        offered.removeDuplicates(); // bash offers each once: its COMPREPLY is checked as it is
    QCOMPARE(sorted(offered), sorted(expected));
    // never the network: no connection to the URL on the line, and no wait for one
    QCOMPARE(m_port.takeConnections(), 0);
    QVERIFY2(c->ms < 20000, qPrintable(QStringLiteral("took %1 ms").arg(c->ms)));
#ifdef GGUF_HAS_EXPLORER
    if (words.constFirst() == QLatin1String("gguf-explorer"))
        for (const QString &option : c->offered.filter(QRegularExpression(QStringLiteral("^-"))))
            QVERIFY2(helpOptions(gguf::test::explorerPath()).contains(option), qPrintable(option));
#endif
}

void TestCompletions::optionsBelong_data()
{
    QTest::addColumn<QString>("command");
    QTest::addColumn<QStringList>("options");
    auto row = [](const char *command, const char *options) {
        QTest::newRow(*command ? command : "before a command")
            << QString::fromLatin1(command) << QString::fromLatin1(options).split(' ', Qt::SkipEmptyParts);
    };
    row("", "-h --help --help-all -v --version --json");
    for (const char *command : {"info", "vocab", "validate", "layout"})
        row(command, "--json");
    row("dump", "--json --json-array");
    row("tensors", "--json --names");
    row("dequant", "-o --output");
    row("stats", "--bins --range --fast --sample --json");
    row("tokenize", "--file --add-special --parse-special --json");
    row("detokenize", "");
    row("diff", "--values --tensor --json");
    row("set", "--type --remove --chat-template-file --force -o --output --in-place --reserve --json");
    row("memory", "--ctx --parallel --ubatch --cache-type-k --cache-type-v --flash-attn --gpu-layers --no-mmap "
                  "--budget --device --tensor-split --split-mode --main-gpu --override-tensor --n-cpu-moe --cpu-moe "
                  "--json");
    row("split", "-o --output --split-max-tensors --split-max-size --dry-run");
    row("merge", "-o --output --dry-run");
    row("report", "-o --output");
    row("hash", "--xxh64 --sha1 --sha256 --uuid --all --no-layer --check");
    row("fit", "--device --ctx --max-ctx --margin --parallel --ubatch --cache-type-k --cache-type-v --flash-attn "
               "--no-mmap --tensor-split --split-mode --main-gpu --override-tensor --cpu-moe --json");
}

// `[COMMAND FILE] -<Tab>` offers exactly the command's options in every shell, each one `gguf-inspect --help` lists,
// and each one the program takes with that command (cheap commands only: no writing, no standard input).
void TestCompletions::optionsBelong()
{
    QFETCH(QString, command);
    QFETCH(QStringList, options);
    QStringList words{QStringLiteral("gguf-inspect")};
    if (!command.isEmpty())
        words << command << kSample;
    for (const char *shell : {"bash", "bash-plain", "zsh"}) {
        const char *reason = missing(QLatin1String(shell));
        QVERIFY2(!reason, reason);
        const auto c = run(QLatin1String(shell), words + QStringList{"-"}, dir("empty"), QFileInfo(kInspect).path());
        QVERIFY2(c && c->noise.isEmpty(), shell);
        QCOMPARE(sorted(c->offered), sorted(options));
    }

    const QStringList help = helpOptions(kInspect);
    const QStringList runnable{"info", "dump", "tensors", "vocab", "validate", "layout", "stats", "memory", "diff"};
    const QStringList values = QStringLiteral("--bins 8|--range -1 1|--sample 1|--ctx 512|--parallel 2|--ubatch 64|"
                                              "--gpu-layers 0|--budget 1|--cache-type-k q8_0|--cache-type-v q8_0|"
                                              "--tensor output_norm.weight|--device CUDA0=1|--tensor-split 1|"
                                              "--split-mode layer|--main-gpu 0|--override-tensor exps=CPU|"
                                              "--n-cpu-moe 1")
                                   .split(QLatin1Char('|'));
    for (const QString &option : options) {
        QVERIFY2(help.contains(option), qPrintable(option + QStringLiteral(" is not in gguf-inspect --help")));
        if (command.isEmpty()) { // the bare form: --help, --help-all, --version alone; FILE --json
            const QStringList argv =
                option == QLatin1String("--json") ? QStringList{kSample, option} : QStringList{option};
            const gguf::test::InspectRun taken = inspect(argv);
            QVERIFY2(taken.exitCode == 0 && !taken.out.isEmpty(),
                     qPrintable(argv.join(' ') + QStringLiteral(": ") + taken.err));
            continue;
        }
        if (!runnable.contains(command))
            continue;
        QStringList argv{command, kSample};
        if (command == QLatin1String("stats") || command == QLatin1String("diff"))
            argv << (command == QLatin1String("stats") ? QStringLiteral("output_norm.weight") : kSample);
        const QStringList value = values.filter(QRegularExpression(QStringLiteral("^%1 ").arg(option)));
        argv << (value.isEmpty() ? QStringList{option} : value.constFirst().split(QLatin1Char(' ')));
        const gguf::test::InspectRun taken = inspect(argv);
        QVERIFY2(taken.exitCode == 0, qPrintable(argv.join(' ') + QStringLiteral(": ") + taken.err));
    }
}

QTEST_GUILESS_MAIN(TestCompletions)
#include "tst_completions.moc"
