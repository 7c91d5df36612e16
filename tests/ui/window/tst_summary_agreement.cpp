// SPDX-License-Identifier: GPL-3.0-or-later
// The Overview page and `gguf-inspect info --json` describe every file alike (#39): layers,
// parameters and tensor count agree on every fixture file, on split sets opened from either shard
// (whole, a shard missing, a shard cut short), and on every file of the corruption matrix. Where
// the CLI refuses a file, the window refuses it too. Both read the file through the core's
// ModelSummary; this test reads what each shows, the page's text and the program's JSON.
#include "core/format/split_model.h"
#include "tests/support/corruption_cases.h"
#include "tests/support/exact_json.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/inspect_run.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"
#include "ui/overview/overview_page.h"

#include <QDirIterator>
#include <QLocale>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

using namespace corruption_cases;

namespace {

// The number a field shows: "8.91 M (8,912,896)" → 8912896, "38" → 38, "16 read of 38 declared"
// → 16, "—" → 0 (no layers known: info says 0).
quint64 numberIn(QString text)
{
    if (const qsizetype open = text.indexOf(QLatin1Char('(')); open >= 0)
        text = text.mid(open + 1);
    text.remove(QLocale().groupSeparator());
    const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("\\d+")).match(text);
    return m.hasMatch() ? m.captured().toULongLong() : 0;
}

struct Shown {
    quint64 layers = 0, parameters = 0, tensors = 0;
};

// What the Overview shows for `path` opened as the window opens it; nullopt when it is refused.
std::optional<Shown> overviewOf(const QString &path)
{
    gguf::Error error;
    const auto model = gguf::SplitModel::open(path.toStdString(), error);
    if (gguf::SplitModel::outcome(model.get(), error) == gguf::SplitModel::Outcome::Refused)
        return std::nullopt;
    OverviewPage page;
    page.setModel(model);
    return Shown{numberIn(page.fieldText(OverviewPage::Field::Layers)),
                 numberIn(page.fieldText(OverviewPage::Field::Parameters)),
                 numberIn(page.fieldText(OverviewPage::Field::TensorCount))};
}

// What `gguf-inspect info --json` prints for `path`; nullopt when it prints nothing (refused).
std::optional<Shown> infoOf(const QString &path, int &exitCode)
{
    const gguf::test::InspectRun run = gguf::test::inspect({QStringLiteral("info"), path, QStringLiteral("--json")});
    exitCode = run.exitCode;
    if (run.out.isEmpty())
        return std::nullopt;
    const auto json = gguf::test::ExactJson::parse(run.out.toStdString());
    if (!json)
        return Shown{UINT64_MAX, UINT64_MAX, UINT64_MAX};
    return Shown{(*json)["layers"].toUInt64().value_or(UINT64_MAX),
                 (*json)["parameter_count"].toUInt64().value_or(UINT64_MAX),
                 (*json)["tensor_count"].toUInt64().value_or(UINT64_MAX)};
}

void compare(const QString &path)
{
    int exitCode = -1;
    const std::optional<Shown> info = infoOf(path, exitCode);
    const std::optional<Shown> overview = overviewOf(path);
    QVERIFY2(exitCode == 0 || exitCode == 1, qPrintable(path));
    QVERIFY2(info.has_value() == overview.has_value(),
             qPrintable(QStringLiteral("%1: info %2, the window %3")
                            .arg(path, info ? QStringLiteral("describes it") : QStringLiteral("refuses it"),
                                 overview ? QStringLiteral("opens it") : QStringLiteral("refuses it"))));
    if (!info)
        return;
    const auto say = [&path](const char *what, quint64 cli, quint64 window) {
        return qPrintable(
            QStringLiteral("%1: %2: info %3, Overview %4").arg(path, QLatin1String(what)).arg(cli).arg(window));
    };
    QVERIFY2(info->layers == overview->layers, say("layers", info->layers, overview->layers));
    QVERIFY2(info->parameters == overview->parameters, say("parameters", info->parameters, overview->parameters));
    QVERIFY2(info->tensors == overview->tensors, say("tensors", info->tensors, overview->tensors));
}

using gguf::test::GgufBuilder;
using gguf::test::V;

// Shard `number` (1 or 2) of a four-layer model split after layer 1: shard 1 holds the metadata
// (block_count 4) and layers 0–1, shard 2 layers 2–3. Each layer has two F32 tensors.
std::vector<uint8_t> fourLayerShard(uint16_t number)
{
    GgufBuilder builder;
    if (number == 1)
        builder.kv("general.architecture", V::str("llama")).kv("llama.block_count", V::u32(4));
    builder.kv("split.no", V::u16(static_cast<uint16_t>(number - 1)))
        .kv("split.count", V::u16(2))
        .kv("split.tensors.count", V::i32(8));
    for (int layer = number == 1 ? 0 : 2; layer < (number == 1 ? 2 : 4); ++layer) {
        builder.tensor("blk." + std::to_string(layer) + ".attn_q.weight", {32, 4}, 0);
        builder.tensor("blk." + std::to_string(layer) + ".ffn_up.weight", {32, 8}, 0);
    }
    return builder.build().bytes();
}

} // namespace

class TestSummaryAgreement : public QObject {
    Q_OBJECT

private slots:
    void fixtureFiles()
    {
        int files = 0;
        QDirIterator it(gguf::test::dataPath(u""), {QStringLiteral("*.gguf")}, QDir::Files,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            compare(it.next());
            if (QTest::currentTestFailed())
                return;
            ++files;
        }
        QVERIFY(files >= 20);
    }

    void splitSets()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto shardPath = [&dir](const char *prefix, int number) {
            return dir.filePath(
                QStringLiteral("%1-%2-of-00002.gguf").arg(QLatin1String(prefix)).arg(number, 5, 10, QLatin1Char('0')));
        };
        for (uint16_t n : {1, 2}) {
            QVERIFY(gguf::test::writeBytes(shardPath("four", n), fourLayerShard(n)));
            QVERIFY(gguf::test::writeBytes(shardPath("two", n), gguf::test::twoFileSplitShard(n)));
        }
        // shard 2 missing; shard 2 cut inside its tensor infos
        QVERIFY(gguf::test::writeBytes(shardPath("lonely", 1), fourLayerShard(1)));
        std::vector<uint8_t> cut = fourLayerShard(2);
        cut.resize(cut.size() / 3);
        QVERIFY(gguf::test::writeBytes(shardPath("cut", 1), fourLayerShard(1)));
        QVERIFY(gguf::test::writeBytes(shardPath("cut", 2), cut));
        for (const char *set : {"four", "two", "cut"})
            for (int n : {1, 2}) {
                compare(shardPath(set, n));
                if (QTest::currentTestFailed())
                    return;
            }
        compare(shardPath("lonely", 1));
        // the whole set counts, from either shard: block_count's 4 layers, 8 tensors of 4·32 + 8·32
        int exitCode = -1;
        const std::optional<Shown> whole = infoOf(shardPath("four", 2), exitCode);
        QCOMPARE(exitCode, 0);
        QVERIFY(whole);
        QCOMPARE(whole->layers, quint64(4));
        QCOMPARE(whole->tensors, quint64(8));
        QCOMPARE(whole->parameters, quint64(4 * (32 * 4 + 32 * 8)));
        // a set that cannot be read whole is described as far as it was read, and exits 1
        const std::optional<Shown> lonely = infoOf(shardPath("lonely", 1), exitCode);
        QCOMPARE(exitCode, 1);
        QVERIFY(lonely);
        QCOMPARE(lonely->tensors, quint64(4));
    }

    void damagedFiles_data()
    {
        addLlamaCppRows();
        addFindingRows();
    }

    void damagedFiles()
    {
        QFETCH(Case, testCase);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("damaged.gguf"));
        QVERIFY(gguf::test::writeBytes(path, testCase.bytes));
        compare(path);
    }
};

QTEST_MAIN(TestSummaryAgreement)
#include "tst_summary_agreement.moc"
