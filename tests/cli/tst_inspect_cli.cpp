// SPDX-License-Identifier: GPL-3.0-or-later
// Runs the built gguf-inspect: `dump --json` must print llama.cpp's gguf_dump.py documents
// (tests/data/gguf-dump/), the other commands their contract keys (README.md, `gguf-inspect`), and bad input must
// give one line on stderr with exit status 1, wrong usage exit status 2.
#include "tests/support/gguf_builder.h"
#include "tests/support/inspect_run.h"
#include "tests/support/json_compare.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

using gguf::test::ExactJson;
using gguf::test::jsonDifference;
using gguf::test::jsonKeys;
using gguf::test::parsePythonJson;
using gguf::test::readFile;

namespace {

const QString kDataDir = gguf::test::dataDir();

using Run = gguf::test::InspectRun;
using gguf::test::inspect;

QString fixture(const QString &name)
{
    for (const char *dir : {"ggml-reference", "real", "gguf-dump"}) {
        const QString path = kDataDir + QLatin1Char('/') + QLatin1String(dir) + QLatin1Char('/') + name;
        if (QFileInfo::exists(path))
            return path;
    }
    return {};
}

// A run that failed cleanly: status 1, nothing on stdout, one line on stderr.
void verifyOneLineFailure(const Run &run)
{
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.out.isEmpty(), run.out.left(200).constData());
    QVERIFY(run.err.startsWith("gguf-inspect: "));
    QVERIFY(run.err.endsWith('\n'));
    QCOMPARE(run.err.count('\n'), 1);
}

} // namespace

class TestInspectCli : public QObject {
    Q_OBJECT

private slots:
    void dumpMatchesGgufDumpPy_data();
    void dumpMatchesGgufDumpPy();
    void infoJson();
    void infoKinds();
    void tensorsJson();
    void vocabJson_data();
    void vocabJson();
    void validateJson_data();
    void validateJson();
    void layoutCoversEveryByte_data();
    void layoutCoversEveryByte();
    void textOutput_data();
    void textOutput();
    void badInput_data();
    void badInput();
    void truncatedFile_data();
    void truncatedFile();
    void usage_data();
    void usage();
    void usageNamesTheOption();
    void dequantMatchesReference_data();
    void dequantMatchesReference();
    void statsJson_data();
    void statsJson();
    void splitSetMissingShard();
    void splitSetDamagedDownload();
    void splitSetEveryCommand();

private:
    QTemporaryDir m_tmp;
};

void TestInspectCli::dumpMatchesGgufDumpPy_data()
{
    QTest::addColumn<QString>("gguf");
    QTest::addColumn<bool>("jsonArray");
    QTest::addColumn<QString>("golden");
    const QDir goldens(kDataDir + QStringLiteral("/gguf-dump"));
    const QStringList names = goldens.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    QVERIFY(names.size() >= 40);
    for (const QString &name : names) {
        const bool array = name.endsWith(QStringLiteral(".array.json"));
        const QString base = name.left(name.size() - (array ? 11 : 5));
        QTest::newRow(qPrintable(name)) << fixture(base + QStringLiteral(".gguf")) << array << goldens.filePath(name);
    }
}

void TestInspectCli::dumpMatchesGgufDumpPy()
{
    QFETCH(QString, gguf);
    QFETCH(bool, jsonArray);
    QFETCH(QString, golden);
    QVERIFY2(!gguf.isEmpty(), "the .gguf of this golden is missing");
    // gguf_dump.py ran in the file's directory on the bare name, which it echoes as "filename"
    const QFileInfo info(gguf);
    QStringList args{QStringLiteral("dump"), info.fileName(), QStringLiteral("--json")};
    if (jsonArray)
        args << QStringLiteral("--json-array");
    const Run run = inspect(args, info.absolutePath());
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.err.isEmpty());
    const auto ours = parsePythonJson(run.out);
    const auto expected = parsePythonJson(readFile(golden));
    QVERIFY2(ours, "gguf-inspect printed invalid JSON");
    QVERIFY2(expected, "the golden file is not JSON");
    const QString diff = jsonDifference(*ours, *expected);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

void TestInspectCli::infoJson()
{
    const auto manifest =
        ExactJson::parse(readFile(kDataDir + QStringLiteral("/ggml-reference/manifest.json")).toStdString());
    QVERIFY(manifest);
    const QStringList keys{"path",           "file_size",    "version",         "byte_order",
                           "header",         "alignment",    "data_offset",     "tensor_count",
                           "metadata_count", "architecture", "parameter_count", "layers",
                           "tensor_types",   "kind",         "kind_findings",   "shards"};
    for (const ExactJson &file : (*manifest)["files"].items()) {
        const QString name = QString::fromStdString(file["file"].text());
        const Run run = inspect({QStringLiteral("info"), fixture(name), QStringLiteral("--json")});
        QCOMPARE(run.exitCode, 0);
        const auto info = parsePythonJson(run.out);
        QVERIFY(info);
        QCOMPARE(jsonKeys(*info), keys);
        QCOMPARE((*info)["path"].text(), fixture(name).toStdString());
        QCOMPARE((*info)["file_size"].toUInt64(), file["size"].toUInt64());
        QCOMPARE((*info)["version"].toUInt64(), file["gguf_version"].toUInt64());
        QCOMPARE((*info)["byte_order"].text(), std::string("little"));
        QCOMPARE((*info)["header"].text(), std::string("plain"));
        QCOMPARE((*info)["alignment"].toUInt64(), file["alignment"].toUInt64());
        QCOMPARE((*info)["data_offset"].toUInt64(), file["data_section_offset"].toUInt64());
        QCOMPARE((*info)["tensor_count"].toUInt64(), file["n_tensors"].toUInt64());
        QCOMPARE((*info)["metadata_count"].toUInt64(), file["n_kv"].toUInt64());
        QCOMPARE((*info)["architecture"].text(), std::string("oracle"));
        QCOMPARE((*info)["layers"].toUInt64(), uint64_t(0));
        QCOMPARE((*info)["tensor_types"].size(), size_t(1));
        QCOMPARE((*info)["kind"].text(), std::string("model"));
        // one file, read whole
        QCOMPARE((*info)["shards"].size(), size_t(1));
        QCOMPARE((*info)["shards"].items()[0]["path"].text(), fixture(name).toStdString());
        QCOMPARE((*info)["shards"].items()[0]["size"].toUInt64(), file["size"].toUInt64());
        QVERIFY((*info)["shards"].items()[0]["error"].isNull());
    }
    // a vocabulary without tensors
    const Run run = inspect({QStringLiteral("info"), fixture(QStringLiteral("ggml-vocab-llama-spm.gguf")), "--json"});
    QCOMPARE(run.exitCode, 0);
    const auto info = parsePythonJson(run.out);
    QVERIFY(info);
    QCOMPARE((*info)["architecture"].text(), std::string("llama"));
    QCOMPARE((*info)["tensor_count"].toUInt64(), uint64_t(0));
    QCOMPARE((*info)["parameter_count"].toUInt64(), uint64_t(0));
    QVERIFY((*info)["tensor_types"].isObject());
    QCOMPARE((*info)["tensor_types"].size(), size_t(0));
    QCOMPARE((*info)["kind"].text(), std::string("vocabulary"));
}

void TestInspectCli::infoKinds()
{
    // an adapter with alpha 32 and ranks 16, and an importance matrix whose second expert was
    // never used (docs/KINDS.md); the figures are the ones written here; and a model whose layer
    // count llama.cpp refuses
    using gguf::test::BuildValue;
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    gguf::test::GgufBuilder adapter;
    adapter.kv("general.architecture", BuildValue::str("llama"))
        .kv("general.type", BuildValue::str("adapter"))
        .kv("adapter.type", BuildValue::str("lora"))
        .kv("adapter.lora.alpha", BuildValue::f32(32))
        .tensor("blk.3.ffn_up.weight.lora_a", {64, 16}, 0)
        .tensor("blk.3.ffn_up.weight.lora_b", {16, 128}, 0);
    const QString adapterPath = dir.filePath(QStringLiteral("adapter.gguf"));
    QVERIFY(gguf::test::writeBytes(adapterPath, adapter.build().bytes()));
    Run run = inspect({QStringLiteral("info"), adapterPath, QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 0);
    auto info = parsePythonJson(run.out);
    QVERIFY(info);
    QCOMPARE((*info)["kind"].text(), std::string("adapter"));
    QCOMPARE((*info)["lora"]["rank"].toUInt64(), uint64_t(16));
    QCOMPARE((*info)["lora"]["scale"].toDouble().value_or(0), 2.0);
    QCOMPARE((*info)["lora"]["targets"].size(), size_t(1));
    QCOMPARE((*info)["lora"]["targets"].items().at(0).text(), std::string("blk.3.ffn_up.weight"));
    QCOMPARE((*info)["kind_findings"].size(), size_t(0));

    const float counts[2] = {12, 0};
    std::vector<uint8_t> countBytes(8);
    std::memcpy(countBytes.data(), counts, 8);
    gguf::test::GgufBuilder imatrix;
    imatrix.kv("general.type", BuildValue::str("imatrix"))
        .kv("imatrix.datasets", BuildValue::stringArray({"a.txt", "b.txt"}))
        .kv("imatrix.chunk_count", BuildValue::u32(7))
        .kv("imatrix.chunk_size", BuildValue::u32(512))
        .tensor("blk.0.ffn_down_exps.weight.in_sum2", {8, 2}, 0)
        .tensor("blk.0.ffn_down_exps.weight.counts", {1, 2}, 0, countBytes);
    const QString imatrixPath = dir.filePath(QStringLiteral("imatrix.gguf"));
    QVERIFY(gguf::test::writeBytes(imatrixPath, imatrix.build().bytes()));
    run = inspect({QStringLiteral("info"), imatrixPath, QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 0);
    info = parsePythonJson(run.out);
    QVERIFY(info);
    QCOMPARE((*info)["kind"].text(), std::string("imatrix"));
    QCOMPARE((*info)["imatrix"]["datasets"].size(), size_t(2));
    QCOMPARE((*info)["imatrix"]["chunk_count"].toUInt64(), uint64_t(7));
    QCOMPARE((*info)["imatrix"]["entries"].toUInt64(), uint64_t(1));
    QCOMPARE((*info)["imatrix"]["unused_experts"].size(), size_t(1));
    QCOMPARE((*info)["imatrix"]["unused_experts"].items().at(0)["expert"].toUInt64(), uint64_t(1));
    // the text overview names the kind
    run = inspect({QStringLiteral("info"), imatrixPath});
    QVERIFY(run.out.contains("importance matrix (general.type = imatrix)"));

    // a model llama.cpp's reader accepts but its model loader refuses (601 blocks, more than
    // LLAMA_MAX_LAYERS = 512 of src/llama-hparams.h): the overview says both; validate keeps the
    // reader's verdict (exit 0), as its contract says
    gguf::test::GgufBuilder deep;
    deep.kv("general.architecture", BuildValue::str("llama"))
        .kv("llama.block_count", BuildValue::u32(601))
        .tensor("token_embd.weight", {64, 16}, 0);
    const QString deepPath = dir.filePath(QStringLiteral("deep.gguf"));
    QVERIFY(gguf::test::writeBytes(deepPath, deep.build().bytes()));
    run = inspect({deepPath});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.contains("llama.cpp's reader would accept this file, but: block_count 601 is more than "
                              "llama.cpp's limit of 512 layers"),
             run.out.constData());
    QCOMPARE(inspect({QStringLiteral("validate"), deepPath}).exitCode, 0);
}

void TestInspectCli::tensorsJson()
{
    const auto manifest =
        ExactJson::parse(readFile(kDataDir + QStringLiteral("/ggml-reference/manifest.json")).toStdString());
    QVERIFY(manifest);
    // `offset` kept for scripts; `data_offset` says what it counts from (#40)
    const QStringList keys{"index",    "name",  "type",   "type_id",     "dims",
                           "elements", "bytes", "offset", "data_offset", "file_offset"};
    for (const ExactJson &t : (*manifest)["tensors"].items()) {
        const QString name = QString::fromStdString(t["file"].text());
        const Run run = inspect({QStringLiteral("tensors"), fixture(name), QStringLiteral("--json")});
        QCOMPARE(run.exitCode, 0);
        const auto list = parsePythonJson(run.out);
        QVERIFY(list && list->isArray());
        QCOMPARE(list->items().size(), size_t(1));
        const ExactJson &ours = list->items()[0];
        QCOMPARE(jsonKeys(ours), keys);
        QCOMPARE(ours["index"].toUInt64(), t["tensor_index"].toUInt64());
        QCOMPARE(ours["name"].text(), t["tensor"].text());
        QCOMPARE(QString::fromStdString(ours["type"].text()).toLower(),
                 QString::fromStdString(t["ggml_type_name"].text()).toLower());
        QCOMPARE(ours["type_id"].toUInt64(), t["ggml_type"].toUInt64());
        QCOMPARE(ours["dims"].size(), t["dims"].size());
        for (size_t d = 0; d < t["dims"].size(); ++d)
            QCOMPARE(ours["dims"].items()[d].toUInt64(), t["dims"].items()[d].toUInt64());
        QCOMPARE(ours["elements"].toUInt64(), t["n_elements"].toUInt64());
        QCOMPARE(ours["bytes"].toUInt64(), t["n_bytes"].toUInt64());
        QCOMPARE(ours["offset"].toUInt64(), t["data_offset_relative"].toUInt64());
        QCOMPARE(ours["data_offset"].toUInt64(), t["data_offset_relative"].toUInt64());
        QCOMPARE(ours["file_offset"].toUInt64(), t["data_offset"].toUInt64());
    }
}

void TestInspectCli::vocabJson_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<quint64>("count");
    QTest::addColumn<quint64>("id");
    QTest::addColumn<QString>("token");
    QTest::addColumn<QString>("decoded");
    QTest::addColumn<QString>("type");
    QTest::newRow("sentencepiece byte token")
        << "ggml-vocab-llama-spm.gguf" << quint64(32000) << quint64(13) << "<0x0A>"
        << "\n"
        << "byte";
    QTest::newRow("sentencepiece word") << "ggml-vocab-llama-spm.gguf" << quint64(32000) << quint64(278)
                                        << QString::fromUtf8("\u2581the") << " the"
                                        << "normal";
    QTest::newRow("gpt-2 byte level") << "ggml-vocab-gpt-2.gguf" << quint64(50257) << quint64(262)
                                      << QString::fromUtf8("\u0120the") << " the"
                                      << "normal";
    QTest::newRow("gpt-2 control") << "ggml-vocab-gpt-2.gguf" << quint64(50257) << quint64(50256) << "<|endoftext|>"
                                   << "<|endoftext|>"
                                   << "control";
    // llama.cpp's converter stores WordPiece continuations without their "##"
    QTest::newRow("wordpiece continuation") << "ggml-vocab-bert-bge.gguf" << quint64(30522) << quint64(2075) << "ing"
                                            << "ing"
                                            << "normal";
}

void TestInspectCli::vocabJson()
{
    QFETCH(QString, file);
    QFETCH(quint64, count);
    QFETCH(quint64, id);
    QFETCH(QString, token);
    QFETCH(QString, decoded);
    QFETCH(QString, type);
    const Run run = inspect({QStringLiteral("vocab"), fixture(file), QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 0);
    const auto vocab = parsePythonJson(run.out);
    QVERIFY(vocab && vocab->isArray());
    QCOMPARE(vocab->items().size(), size_t(count));
    const ExactJson &entry = vocab->items()[id];
    QCOMPARE(jsonKeys(entry), QStringList({"id", "token", "decoded", "type", "score"}));
    QCOMPARE(entry["id"].toUInt64(), id);
    QCOMPARE(QString::fromStdString(entry["token"].text()), token);
    QCOMPARE(QString::fromStdString(entry["decoded"].text()), decoded);
    QCOMPARE(QString::fromStdString(entry["type"].text()), type);

    // token text and score must be what gguf_dump.py's reader sees in the arrays
    const Run dump = inspect({QStringLiteral("dump"), fixture(file), QStringLiteral("--json-array")});
    QCOMPARE(dump.exitCode, 0);
    const auto doc = parsePythonJson(dump.out);
    QVERIFY(doc);
    const ExactJson &metadata = (*doc)["metadata"];
    const ExactJson &tokens = metadata["tokenizer.ggml.tokens"]["value"];
    const ExactJson &scores = metadata["tokenizer.ggml.scores"]["value"];
    QCOMPARE(tokens.size(), size_t(count));
    for (size_t i = 0; i < tokens.size(); ++i) {
        QCOMPARE(vocab->items()[i]["token"].text(), tokens.items()[i].text());
        if (scores.isArray())
            QCOMPARE(vocab->items()[i]["score"].toDouble(), scores.items()[i].toDouble());
        else
            QVERIFY(vocab->items()[i]["score"].isNull());
    }
}

void TestInspectCli::validateJson_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("code");
    QTest::addColumn<quint64>("offset");
    QTest::newRow("clean file") << "q4_K.gguf" << 0 << QString() << quint64(0);
    QTest::newRow("vocabulary") << "ggml-vocab-gpt-2.gguf" << 0 << QString() << quint64(0);
    // the element type field of test.arr.nested (the pair starts at 1728)
    QTest::newRow("nested array") << "metadata_all_types.gguf" << 1 << "nested_array" << quint64(1755);
}

void TestInspectCli::validateJson()
{
    QFETCH(QString, file);
    QFETCH(int, exitCode);
    QFETCH(QString, code);
    QFETCH(quint64, offset);
    const Run run = inspect({QStringLiteral("validate"), fixture(file), QStringLiteral("--json")});
    QCOMPARE(run.exitCode, exitCode);
    const auto findings = parsePythonJson(run.out);
    QVERIFY(findings && findings->isArray());
    bool found = code.isEmpty();
    for (const ExactJson &f : findings->items()) {
        QCOMPARE(jsonKeys(f), QStringList({"severity", "code", "offset", "message"}));
        if (QString::fromStdString(f["code"].text()) == code) {
            found = true;
            QCOMPARE(f["severity"].text(), std::string("error"));
            QCOMPARE(f["offset"].toUInt64(), offset);
        }
    }
    QVERIFY(found);
    if (code.isEmpty())
        QCOMPARE(findings->items().size(), size_t(0));
}

void TestInspectCli::layoutCoversEveryByte_data()
{
    QTest::addColumn<QString>("file");
    QTest::newRow("one tensor") << "q6_K.gguf";
    QTest::newRow("no tensors") << "metadata_ggml_types.gguf";
    QTest::newRow("vocabulary") << "ggml-vocab-bert-bge.gguf";
}

void TestInspectCli::layoutCoversEveryByte()
{
    QFETCH(QString, file);
    const Run run = inspect({QStringLiteral("layout"), fixture(file), QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 0);
    const auto regions = parsePythonJson(run.out);
    QVERIFY(regions && regions->isArray() && regions->size() > 4);
    uint64_t next = 0;
    for (const ExactJson &r : regions->items()) {
        QCOMPARE(jsonKeys(r), QStringList({"offset", "size", "kind", "label"}));
        QCOMPARE(r["offset"].toUInt64(), next);
        QVERIFY(r["size"].toUInt64().value_or(0) > 0);
        next += *r["size"].toUInt64();
    }
    QCOMPARE(next, uint64_t(QFileInfo(fixture(file)).size()));
    QCOMPARE(regions->items()[0]["kind"].text(), std::string("magic"));
}

void TestInspectCli::textOutput_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected");
    const QString q4 = fixture(QStringLiteral("q4_K.gguf"));
    QTest::newRow("summary") << QStringList{q4} << "q4_K.weight";
    QTest::newRow("info") << QStringList{"info", q4} << "llama.cpp would accept this file";
    QTest::newRow("dump") << QStringList{"dump", q4} << "oracle.n_tensors";
    QTest::newRow("tensors") << QStringList{"tensors", q4} << "Q4_K";
    QTest::newRow("vocab") << QStringList{"vocab", fixture(QStringLiteral("ggml-vocab-llama-spm.gguf"))} << "<0x0A>";
    QTest::newRow("validate") << QStringList{"validate", q4} << "llama.cpp would accept this file";
    QTest::newRow("layout") << QStringList{"layout", q4} << "tensor_data";
    QTest::newRow("validate refusal") << QStringList{"validate", fixture(QStringLiteral("metadata_all_types.gguf"))}
                                      << "llama.cpp would refuse this file: ";
}

void TestInspectCli::textOutput()
{
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    const Run run = inspect(args);
    QCOMPARE(run.exitCode, args.contains(QStringLiteral("validate")) && expected.contains("refuse") ? 1 : 0);
    QVERIFY(run.err.isEmpty());
    QVERIFY2(run.out.contains(expected.toUtf8()), run.out.left(400).constData());
}

void TestInspectCli::badInput_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("pattern");
    QVERIFY(m_tmp.isValid());
    const QString empty = m_tmp.filePath(QStringLiteral("empty.gguf"));
    QFile(empty).open(QIODevice::WriteOnly);
    const QString png = m_tmp.filePath(QStringLiteral("picture.gguf"));
    QFile pngFile(png);
    QVERIFY(pngFile.open(QIODevice::WriteOnly));
    pngFile.write(QByteArray::fromHex("89504e470d0a1a0a0000000d49484452"));
    pngFile.close();
    QTest::newRow("missing") << m_tmp.filePath(QStringLiteral("nope.gguf")) << "no such file$";
    QTest::newRow("directory") << m_tmp.path() << "is a directory";
    QTest::newRow("empty") << empty << "empty.*\\(offset 0\\)$";
    QTest::newRow("png") << png << "PNG.*\\(offset 0\\)$";
    QTest::newRow("device") << QStringLiteral("/dev/null") << "character device";
}

void TestInspectCli::badInput()
{
    QFETCH(QString, path);
    QFETCH(QString, pattern);
    for (const char *command : {"", "info", "dump", "tensors", "vocab", "validate", "layout"}) {
        QStringList args{path, QStringLiteral("--json")};
        if (*command)
            args.prepend(QLatin1String(command));
        const Run run = inspect(args);
        verifyOneLineFailure(run);
        if (QTest::currentTestFailed())
            return;
        const QString line = QString::fromUtf8(run.err).trimmed();
        QVERIFY2(line.contains(path), qPrintable(line));
        QVERIFY2(line.contains(QRegularExpression(pattern)), qPrintable(line));
    }
}

void TestInspectCli::truncatedFile_data()
{
    QTest::addColumn<int>("keep");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("label"); // of the broken region, when checked
    QTest::newRow("inside the tensor count") << 11 << "truncated"
                                             << "broken: u64 tensor count: needs 8 bytes, 3 left";
    // the counts (1 tensor, 4 pairs) are right; the file ends inside key 0's text (#40: it blamed the
    // tensor count)
    QTest::newRow("counts without items") << 40 << "key_past_end"
                                          << "";
    QTest::newRow("inside a string length") << 100 << "truncated"
                                            << "";
    QTest::newRow("inside a string") << 150 << "string_past_end"
                                     << "";
    QTest::newRow("inside a tensor info") << 270 << "truncated"
                                          << "";
}

void TestInspectCli::truncatedFile()
{
    QFETCH(int, keep);
    QFETCH(QString, code);
    QFETCH(QString, label);
    QVERIFY(m_tmp.isValid());
    const QString path = m_tmp.filePath(QStringLiteral("cut-%1.gguf").arg(keep));
    QFile out(path);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(readFile(fixture(QStringLiteral("q4_K.gguf"))).left(keep));
    out.close();
    verifyOneLineFailure(inspect({QStringLiteral("vocab"), path, QStringLiteral("--json")}));
    if (QTest::currentTestFailed())
        return;
    // info describes what was read (as the Overview does), then names the break: every cut here
    // falls before the end of the only tensor info
    const Run info = inspect({QStringLiteral("info"), path, QStringLiteral("--json")});
    QCOMPARE(info.exitCode, 1);
    QCOMPARE(info.err.count('\n'), 1);
    QVERIFY2(info.err.startsWith("gguf-inspect: ") && info.err.contains(path.toUtf8()), info.err.constData());
    const auto described = parsePythonJson(info.out);
    QVERIFY2(described, info.out.left(300).constData());
    QCOMPARE((*described)["file_size"].toUInt64(), uint64_t(keep));
    QCOMPARE((*described)["tensor_count"].toUInt64(), uint64_t(0));
    QCOMPARE((*described)["parameter_count"].toUInt64(), uint64_t(0));
    QCOMPARE((*described)["shards"].size(), size_t(1));
    QVERIFY(!(*described)["shards"].items()[0]["error"].isNull());
    // dump and tensors print what the prefix holds, then the error (#21). What the prefix holds
    // comes from gguf_dump.py's dump of the whole file: a field is whole when the next one starts
    // inside the prefix (the last pair ends where the first tensor info starts).
    const auto golden = parsePythonJson(readFile(kDataDir + QStringLiteral("/gguf-dump/q4_K.json")));
    QVERIFY(golden);
    const auto &fields = (*golden)["metadata"].members();
    const auto &goldenTensors = (*golden)["tensors"].members();
    QVERIFY(!goldenTensors.empty());
    const uint64_t firstInfo = goldenTensors.front().second["offset"].toUInt64().value_or(0);
    std::vector<std::string> whole;
    for (size_t i = 0; i < fields.size(); ++i) {
        // the header fields: the version ends at 8, the two counts are shown once both are read (24)
        const uint64_t end = i == 0                  ? 8
                             : i < 3                 ? 24
                             : i + 1 < fields.size() ? fields[i + 1].second["offset"].toUInt64().value_or(0)
                                                     : firstInfo;
        if (end <= uint64_t(keep))
            whole.push_back(fields[i].first);
    }
    const Run dump = inspect({QStringLiteral("dump"), path, QStringLiteral("--json")});
    QCOMPARE(dump.exitCode, 1);
    QCOMPARE(dump.err.count('\n'), 1);
    QVERIFY2(dump.err.startsWith("gguf-inspect: ") && dump.err.contains(path.toUtf8()), dump.err.constData());
    const auto partial = parsePythonJson(dump.out);
    QVERIFY2(partial, dump.out.left(300).constData());
    const auto &got = (*partial)["metadata"].members();
    QCOMPARE(got.size(), whole.size());
    for (size_t i = 0; i < got.size(); ++i) {
        QCOMPARE(got[i].first, whole[i]);
        const QString diff = jsonDifference(got[i].second, (*golden)["metadata"][whole[i]]);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }
    // every cut here falls before the end of the only tensor info
    QCOMPARE((*partial)["tensors"].size(), size_t(0));
    const Run tensors = inspect({QStringLiteral("tensors"), path, QStringLiteral("--json")});
    QCOMPARE(tensors.exitCode, 1);
    QCOMPARE(tensors.err.count('\n'), 1);
    const auto tensorList = parsePythonJson(tensors.out);
    QVERIFY2(tensorList && tensorList->isArray() && tensorList->size() == 0, tensors.out.left(300).constData());
    // validate and layout still print what was read; the code is said once (it said
    // "truncated: truncated: …", #40)
    const Run validateText = inspect({QStringLiteral("validate"), path});
    QCOMPARE(validateText.exitCode, 1);
    QVERIFY2(validateText.out.count((code + QStringLiteral(": ")).toUtf8()) == 1, validateText.out.constData());
    const Run validate = inspect({QStringLiteral("validate"), path, QStringLiteral("--json")});
    QCOMPARE(validate.exitCode, 1);
    const auto findings = parsePythonJson(validate.out);
    QVERIFY(findings && findings->size() >= 1);
    const ExactJson &last = findings->items().back();
    QCOMPARE(QString::fromStdString(last["code"].text()), code);
    QVERIFY(last["offset"].toUInt64().value_or(UINT64_MAX) <= uint64_t(keep));
    // where the file ends is said in every message of a cut
    const QString ends = QStringLiteral("ends at %1 (0x%2)").arg(keep).arg(keep, 0, 16);
    QVERIFY2(QString::fromStdString(last["message"].text()).contains(ends), last["message"].text().c_str());
    const Run layout = inspect({QStringLiteral("layout"), path, QStringLiteral("--json")});
    QCOMPARE(layout.exitCode, 1);
    QCOMPARE(layout.err.count('\n'), 1);
    const auto regions = parsePythonJson(layout.out);
    QVERIFY(regions && regions->size() >= 2);
    // the field that broke (as far as the file has it), then what was not parsed
    const ExactJson &tail = regions->items().back();
    QVERIFY(tail["kind"].text() == "unparsed" || tail["kind"].text() == "broken");
    QCOMPARE(tail["offset"].toUInt64().value_or(0) + tail["size"].toUInt64().value_or(0), uint64_t(keep));
    const auto broken = std::find_if(regions->items().begin(), regions->items().end(),
                                     [](const ExactJson &r) { return r["kind"].text() == "broken"; });
    QVERIFY(broken != regions->items().end());
    QCOMPARE((*broken)["offset"].toUInt64(), last["offset"].toUInt64());
    QVERIFY2((*broken)["label"].text().find("broken: ") == 0, (*broken)["label"].text().c_str());
    if (!label.isEmpty())
        QCOMPARE(QString::fromStdString((*broken)["label"].text()), label);
}

void TestInspectCli::usage_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    const QString q4 = fixture(QStringLiteral("q4_K.gguf"));
    QTest::newRow("no arguments") << QStringList{} << 2;
    QTest::newRow("command without file") << QStringList{"info"} << 2;
    QTest::newRow("unknown command") << QStringList{"frobnicate", q4} << 2;
    QTest::newRow("unknown option") << QStringList{"info", q4, "--bogus"} << 2;
    QTest::newRow("extra argument") << QStringList{"tensors", q4, q4} << 2;
    QTest::newRow("json-array outside dump") << QStringList{"info", q4, "--json-array"} << 2;
    QTest::newRow("dequant without -o") << QStringList{"dequant", q4, "q4_K.weight"} << 2;
    QTest::newRow("dequant of a missing tensor") << QStringList{"dequant", q4, "nope", "-o", "/dev/null"} << 2;
    QTest::newRow("dequant over its own input") << QStringList{"dequant", q4, "q4_K.weight", "-o", q4} << 2;
    QTest::newRow("stats of a missing tensor") << QStringList{"stats", q4, "nope"} << 2;
    QTest::newRow("stats with zero bins") << QStringList{"stats", q4, "--bins", "0"} << 2;
    QTest::newRow("stats with bins not a number") << QStringList{"stats", q4, "--bins", "many"} << 2;
    // each command takes only its own options (#39): these were once accepted and ignored
    QTest::newRow("bins outside stats") << QStringList{"info", q4, "--bins", "8"} << 2;
    QTest::newRow("bins without a command") << QStringList{q4, "--bins", "8"} << 2;
    QTest::newRow("json to dequant") << QStringList{"dequant", q4, "q4_K.weight", "-o", "/dev/null", "--json"} << 2;
    QTest::newRow("json to detokenize") << QStringList{"detokenize", q4, "1", "--json"} << 2;
    QTest::newRow("range outside stats") << QStringList{"info", q4, "--range", "0", "1"} << 2;
    QTest::newRow("names outside tensors") << QStringList{"vocab", q4, "--names"} << 2;
    QTest::newRow("ctx outside memory") << QStringList{"stats", q4, "--ctx", "512"} << 2;
    QTest::newRow("output outside dequant and set") << QStringList{"layout", q4, "-o", "/dev/null"} << 2;
    QTest::newRow("help") << QStringList{"--help"} << 0;
    QTest::newRow("version") << QStringList{"--version"} << 0;
}

void TestInspectCli::usage()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    const Run run = inspect(args);
    QCOMPARE(run.exitCode, exitCode);
    if (exitCode == 0) {
        QVERIFY(run.out.contains("gguf-inspect"));
        QVERIFY(run.err.isEmpty());
    } else {
        QVERIFY(run.out.isEmpty());
        QVERIFY(run.err.startsWith("gguf-inspect: "));
    }
}

// A refused option is named with the command and what that command takes.
void TestInspectCli::usageNamesTheOption()
{
    const QString q4 = fixture(QStringLiteral("q4_K.gguf"));
    Run run = inspect({QStringLiteral("dequant"), q4, QStringLiteral("q4_K.weight"), QStringLiteral("-o"),
                       QStringLiteral("/dev/null"), QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.startsWith("gguf-inspect: the dequant command does not take --json (it takes -o)\n"),
             run.err.constData());
    run =
        inspect({QStringLiteral("detokenize"), q4, QStringLiteral("1"), QStringLiteral("--bins"), QStringLiteral("4")});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.startsWith("gguf-inspect: the detokenize command does not take --bins (it takes no option)\n"),
             run.err.constData());
    run = inspect({q4, QStringLiteral("--fast")});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(
        run.err.startsWith("gguf-inspect: gguf-inspect FILE (no command) does not take --fast (it takes --json)\n"),
        run.err.constData());
    // and the options a command does take still work: set --json, stats --bins
    run =
        inspect({QStringLiteral("stats"), q4, QStringLiteral("--bins"), QStringLiteral("4"), QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 0);
}

// Every reference tensor, written raw and as .npy, must hold ggml's own float32 values bit for bit.
void TestInspectCli::dequantMatchesReference_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("npy");
    const QStringList files = QDir(kDataDir + QStringLiteral("/ggml-reference")).entryList({"*.gguf"});
    for (const QString &f : files) {
        if (f.startsWith(QStringLiteral("metadata")))
            continue;
        const QString base = f.chopped(5);
        QTest::newRow(qPrintable(base + QStringLiteral(" raw"))) << base << false;
        QTest::newRow(qPrintable(base + QStringLiteral(" npy"))) << base << true;
    }
}

void TestInspectCli::dequantMatchesReference()
{
    QFETCH(QString, name);
    QFETCH(bool, npy);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString out = dir.filePath(name + (npy ? QStringLiteral(".npy") : QStringLiteral(".f32")));
    const Run run = inspect({QStringLiteral("dequant"), fixture(name + QStringLiteral(".gguf")),
                             name + QStringLiteral(".weight"), QStringLiteral("-o"), out});
    QCOMPARE(run.exitCode, 0);
    QByteArray ours = readFile(out);
    const QByteArray reference = readFile(fixture(name + QStringLiteral(".f32")));
    QVERIFY(!reference.isEmpty());
    if (npy) {
        QVERIFY(ours.startsWith(QByteArray("\x93NUMPY\x01\x00", 8)));
        const int headerLength = static_cast<uint8_t>(ours[8]) | (static_cast<uint8_t>(ours[9]) << 8);
        QCOMPARE((10 + headerLength) % 64, 0);
        const QByteArray header = ours.mid(10, headerLength);
        QVERIFY(header.contains("'descr': '<f4'"));
        QVERIFY(header.contains("'fortran_order': False"));
        // NumPy's shape is the GGUF dims reversed: rows first
        const auto tensors = parsePythonJson(
            inspect({QStringLiteral("tensors"), fixture(name + QStringLiteral(".gguf")), QStringLiteral("--json")})
                .out);
        QVERIFY(tensors);
        const ExactJson &dims = tensors->items()[0]["dims"];
        QString shape = QStringLiteral("(");
        for (size_t d = dims.size(); d-- > 0;)
            shape += QString::number(dims.items()[d].toUInt64().value_or(UINT64_MAX)) +
                     (d ? QStringLiteral(", ") : QString());
        QVERIFY2(header.contains(("'shape': " + shape + ")").toUtf8()), header.constData());
        ours = ours.mid(10 + headerLength);
    }
    QCOMPARE(ours.size(), reference.size());
    QVERIFY(ours == reference);
}

void TestInspectCli::statsJson_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("bins");
    for (const char *n : {"f32", "f16", "q4_0", "q8_0", "q4_K", "q6_K", "iq2_xxs", "tq1_0", "mxfp4", "nvfp4"})
        QTest::newRow(n) << QString::fromLatin1(n) << 17;
}

void TestInspectCli::statsJson()
{
    QFETCH(QString, name);
    QFETCH(int, bins);
    const Run run = inspect({QStringLiteral("stats"), fixture(name + QStringLiteral(".gguf")), QStringLiteral("--bins"),
                             QString::number(bins), QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 0);
    const auto list = parsePythonJson(run.out);
    QVERIFY(list && list->isArray());
    QCOMPARE(list->items().size(), size_t(1));
    const ExactJson &s = list->items()[0];
    QCOMPARE(jsonKeys(s), (QStringList{"name", "count", "min", "max", "mean", "std", "zeros", "nan", "inf",
                                       "percentiles", "percentiles_exact", "histogram"}));
    QCOMPARE(jsonKeys(s["percentiles"]), (QStringList{"p1", "p5", "p25", "p50", "p75", "p95", "p99"}));
    QCOMPARE(jsonKeys(s["histogram"]), (QStringList{"lo", "hi", "counts", "below", "above", "exact"}));
    // compare with the reference values, NaN and ±Inf left out
    const QByteArray raw = readFile(fixture(name + QStringLiteral(".f32")));
    std::vector<float> values(static_cast<size_t>(raw.size()) / 4);
    std::memcpy(values.data(), raw.constData(), values.size() * 4);
    uint64_t nan = 0, inf = 0, zeros = 0, finite = 0;
    double mn = INFINITY, mx = -INFINITY;
    for (float v : values) {
        if (std::isnan(v)) {
            ++nan;
        } else if (std::isinf(v)) {
            ++inf;
        } else {
            ++finite;
            zeros += v == 0.0f;
            mn = std::min<double>(mn, v);
            mx = std::max<double>(mx, v);
        }
    }
    QCOMPARE(s["name"].text(), (name + QStringLiteral(".weight")).toStdString());
    QCOMPARE(s["count"].toUInt64().value_or(UINT64_MAX), uint64_t(values.size()));
    QCOMPARE(s["nan"].toUInt64().value_or(UINT64_MAX), nan);
    QCOMPARE(s["inf"].toUInt64().value_or(UINT64_MAX), inf);
    QCOMPARE(s["zeros"].toUInt64().value_or(UINT64_MAX), zeros);
    QCOMPARE(s["min"].toDouble().value_or(NAN), mn);
    QCOMPARE(s["max"].toDouble().value_or(NAN), mx);
    QCOMPARE(s["histogram"]["counts"].size(), size_t(bins));
    uint64_t binned = 0;
    for (const ExactJson &c : s["histogram"]["counts"].items())
        binned += c.toUInt64().value_or(0);
    QCOMPARE(binned, finite);
}

// A set whose download went wrong (#45): a Git LFS pointer, a missing shard and a zero-byte shard
// are each named with their shard, and validate exits 1.
void TestInspectCli::splitSetDamagedDownload()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto path = [&](int k) {
        return dir.filePath(QStringLiteral("big-%1-of-00004.gguf").arg(k, 5, 10, QLatin1Char('0')));
    };
    gguf::test::GgufBuilder first;
    first.kv("general.architecture", gguf::test::V::str("llama"))
        .kv("split.no", gguf::test::V::u16(0))
        .kv("split.count", gguf::test::V::u16(4))
        .kv("split.tensors.count", gguf::test::V::i32(4))
        .tensor("blk.0.w", {32}, 0);
    QVERIFY(gguf::test::writeBytes(path(1), first.build().bytes()));
    QFile lfs(path(2));
    QVERIFY(lfs.open(QIODevice::WriteOnly));
    lfs.write("version https://git-lfs.github.com/spec/v1\n"
              "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 4000000000\n");
    lfs.close();
    QVERIFY(gguf::test::writeBytes(path(4), QByteArray()));
    const Run run = inspect({QStringLiteral("validate"), path(1)});
    QCOMPARE(run.exitCode, 1);
    for (const char *says : {"shard 2 of 4 (", "is a Git LFS pointer, not the shard: fetch it with git lfs pull",
                             "shard 3 of 4 (", "is missing", "shard 4 of 4 (", "is empty (0 bytes)"})
        QVERIFY2(run.out.contains(says), run.out.constData());
    QVERIFY2(run.out.contains("3 findings: 3 errors"), run.out.constData());
    const Run json = inspect({QStringLiteral("validate"), path(1), QStringLiteral("--json")});
    QCOMPARE(json.exitCode, 1);
    for (const char *code : {"shard_lfs_pointer", "shard_missing", "shard_empty"})
        QVERIFY2(json.out.contains(code), json.out.constData());
}

// A split set with a shard missing is refused as llama.cpp refuses it (#40): validate names the shard
// and exits 1; the whole set is accepted; memory names the missing shard once.
void TestInspectCli::splitSetMissingShard()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString lonely = dir.filePath(QStringLiteral("lonely-00001-of-00002.gguf"));
    QVERIFY(gguf::test::writeBytes(lonely, gguf::test::twoFileSplitShard(1)));
    Run run = inspect({QStringLiteral("validate"), lonely});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.out.contains("lonely-00002-of-00002.gguf") && run.out.contains("missing"), run.out.constData());
    QVERIFY2(run.out.contains("llama.cpp would refuse this model"), run.out.constData());
    QVERIFY2(run.out.contains("1 finding: 1 error, 0 warnings, 0 notes"), run.out.constData());
    run = inspect({QStringLiteral("validate"), lonely, QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 1);
    const auto findings = parsePythonJson(run.out);
    QVERIFY(findings && findings->size() == 1);
    const ExactJson &missing = findings->items().front();
    QCOMPARE(missing["code"].text(), std::string("shard_missing"));
    QCOMPARE(missing["severity"].text(), std::string("error"));
    QVERIFY(missing["file"].isNull()); // about the set, not one of its files
    // the set made whole
    QVERIFY(gguf::test::writeBytes(dir.filePath(QStringLiteral("lonely-00002-of-00002.gguf")),
                                   gguf::test::twoFileSplitShard(2)));
    run = inspect({QStringLiteral("validate"), lonely});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.contains("llama.cpp would accept this model"), run.out.constData());
    // memory names the missing shard once
    QVERIFY(QFile::remove(dir.filePath(QStringLiteral("lonely-00002-of-00002.gguf"))));
    run = inspect({QStringLiteral("memory"), lonely});
    QCOMPARE(run.exitCode, 1);
    QCOMPARE(run.err.count("lonely-00002-of-00002.gguf"), qsizetype(1));
    QCOMPARE(run.err.count('\n'), qsizetype(1));
}

// Shard 2 of a two-file set, or shard 1 with a small SentencePiece vocabulary (4 tokens), each with one
// 32-value F32 tensor "blk.K.w".
static std::vector<uint8_t> vocabSetShard(uint16_t number)
{
    using V = gguf::test::BuildValue;
    gguf::test::GgufBuilder builder;
    if (number == 1)
        builder.kv("general.architecture", V::str("llama"))
            .kv("tokenizer.ggml.model", V::str("llama"))
            .kv("tokenizer.ggml.tokens", V::stringArray({"<unk>", "<s>", "</s>", "\u2581hello"}))
            .kv("tokenizer.ggml.scores",
                V::array(gguf::ValueType::Float32, {V::f32(0), V::f32(0), V::f32(0), V::f32(-1)}))
            .kv("tokenizer.ggml.token_type",
                V::array(gguf::ValueType::Int32, {V::i32(2), V::i32(3), V::i32(3), V::i32(1)}));
    builder.kv("split.no", V::u16(static_cast<uint16_t>(number - 1)))
        .kv("split.count", V::u16(2))
        .kv("split.tensors.count", V::i32(2))
        .tensor("blk." + std::to_string(number) + ".w", {32}, 0);
    return builder.build().bytes();
}

// Every command reads a split set as one model, whichever shard it is given (#40): the tensor list,
// the dump and the byte map cover both files, the vocabulary and the tokenizer are shard 1's, and
// `set` edits shard 1 only, saying so, and refuses shard 2.
void TestInspectCli::splitSetEveryCommand()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString first = dir.filePath(QStringLiteral("set-00001-of-00002.gguf"));
    const QString second = dir.filePath(QStringLiteral("set-00002-of-00002.gguf"));
    QVERIFY(gguf::test::writeBytes(first, vocabSetShard(1)));
    QVERIFY(gguf::test::writeBytes(second, vocabSetShard(2)));

    Run run = inspect({QStringLiteral("tensors"), second, QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 0);
    auto list = parsePythonJson(run.out);
    QVERIFY(list && list->size() == 2);
    for (size_t i = 0; i < 2; ++i) {
        const ExactJson &t = list->items()[i];
        QCOMPARE(t["index"].toUInt64(), uint64_t(i));
        QCOMPARE(t["name"].text(), "blk." + std::to_string(i + 1) + ".w");
        QCOMPARE(t["shard"].toUInt64(), uint64_t(i + 1));
        QCOMPARE(t["data_offset"].toUInt64(), t["offset"].toUInt64());
    }
    run = inspect({QStringLiteral("tensors"), first});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.contains("2 tensors in 2 files") && run.out.contains("data offset") &&
                 run.out.contains("file offset"),
             run.out.constData());

    run = inspect({QStringLiteral("dump"), second, QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 0);
    const auto dump = parsePythonJson(run.out);
    QVERIFY(dump && (*dump)["shards"].size() == 2);
    QCOMPARE((*dump)["filename"].text(), second.toStdString());
    QVERIFY((*dump)["shards"].items()[0]["metadata"].find("general.architecture") != nullptr);
    QVERIFY((*dump)["shards"].items()[1]["tensors"].find("blk.2.w") != nullptr);
    run = inspect({QStringLiteral("dump"), first});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.contains("== shard 2 of 2: ") && run.out.contains("blk.2.w"), run.out.constData());

    run = inspect({QStringLiteral("layout"), first, QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 0);
    const auto regions = parsePythonJson(run.out);
    QVERIFY(regions && regions->isArray());
    QStringList files;
    for (const ExactJson &r : regions->items())
        if (!files.contains(QString::fromStdString(r["file"].text())))
            files << QString::fromStdString(r["file"].text());
    QCOMPARE(files, QStringList({first, second}));

    run = inspect({QStringLiteral("vocab"), second, QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.out.contains("\u2581hello") || run.out.contains("\\u2581hello"), run.out.constData());
    run = inspect({QStringLiteral("tokenize"), second, QStringLiteral("</s>"), QStringLiteral("--parse-special"),
                   QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 0);
    const auto ids = parsePythonJson(run.out);
    QVERIFY2(ids && ids->size() == 1 && ids->items()[0]["id"].toUInt64() == 2u, run.out.constData());

    // set: shard 2 refused (nothing written), shard 1 edited alone with a note
    const QString out = dir.filePath(QStringLiteral("edited.gguf"));
    run = inspect({QStringLiteral("set"), second, QStringLiteral("general.name=x"), QStringLiteral("-o"), out});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(first.toUtf8()), run.err.constData());
    QVERIFY(!QFileInfo::exists(out));
    run = inspect(
        {QStringLiteral("set"), first, QStringLiteral("general.architecture=llama"), QStringLiteral("-o"), out});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY2(run.err.contains("only this file is edited"), run.err.constData());
}

QTEST_GUILESS_MAIN(TestInspectCli)
#include "tst_inspect_cli.moc"
