// SPDX-License-Identifier: GPL-3.0-or-later
// Checkpoints of several shards: an index and its shards, a folder, config.json, and what is
// reported when they disagree or a shard is missing; files written here.
#include "core/safetensors/checkpoint.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <fstream>

#include <sys/stat.h>

using namespace gguf;
using namespace gguf::st;

namespace {

void writeFile(const QString &path, const std::string &bytes)
{
    std::ofstream(path.toStdString(), std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A safetensors file of U8 tensors of the given sizes, named in order.
std::string shardOf(const std::vector<std::pair<std::string, int>> &tensors)
{
    std::string header = "{";
    int at = 0;
    for (const auto &[name, size] : tensors) {
        header += (header.size() > 1 ? "," : "") + std::string("\"") + name + "\":{\"dtype\":\"U8\",\"shape\":[" +
                  std::to_string(size) + "],\"data_offsets\":[" + std::to_string(at) + "," + std::to_string(at + size) +
                  "]}";
        at += size;
    }
    header += "}";
    std::string out(8, '\0');
    uint64_t n = header.size();
    for (int i = 0; i < 8; ++i, n >>= 8)
        out[static_cast<size_t>(i)] = static_cast<char>(n & 0xff);
    return out + header + std::string(static_cast<size_t>(at), '\x07');
}

const char *const kConfig = R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "num_hidden_layers": 2})";

bool hasFinding(const Checkpoint &c, const std::string &code)
{
    return std::any_of(c.findings().begin(), c.findings().end(),
                       [&](const Checkpoint::FileFinding &f) { return f.finding.code == code; });
}

} // namespace

class TestCheckpoint : public QObject {
    Q_OBJECT

private slots:
    void indexAndShards()
    {
        QTemporaryDir dir;
        writeFile(dir.filePath("model-00001-of-00002.safetensors"), shardOf({{"a", 3}, {"b", 5}}));
        writeFile(dir.filePath("model-00002-of-00002.safetensors"), shardOf({{"c", 7}}));
        writeFile(dir.filePath("model.safetensors.index.json"),
                  R"({"metadata": {"total_size": 15}, "weight_map": {"a": "model-00001-of-00002.safetensors",)"
                  R"( "c": "model-00002-of-00002.safetensors", "b": "model-00001-of-00002.safetensors"}})");
        writeFile(dir.filePath("config.json"), kConfig);
        for (const QString &path : {dir.path(), dir.filePath("model.safetensors.index.json")}) {
            QVERIFY(Checkpoint::looksLikeCheckpoint(path.toStdString()));
            Error error;
            const auto c = Checkpoint::open(path.toStdString(), error);
            QVERIFY2(c, error.message.c_str());
            QCOMPARE(c->shards().size(), 2u);
            QCOMPARE(c->tensors().size(), 3u);
            QCOMPARE(c->tensor("c")->shard, 1u);
            QCOMPARE(c->parameterCount(), 15u);
            QCOMPARE(c->tensorBytes(), 15u);
            QVERIFY2(c->findings().empty(), c->findings().empty() ? "" : c->findings()[0].finding.message.c_str());
            QVERIFY(c->referenceAccepts());
            QCOMPARE(c->architecture(), std::string("LlamaForCausalLM"));
            QCOMPARE(c->config()->find("num_hidden_layers")->asUnsigned(), std::optional<uint64_t>(2));
        }
    }

    void disagreements()
    {
        QTemporaryDir dir;
        writeFile(dir.filePath("s1.safetensors"), shardOf({{"a", 3}, {"extra", 1}}));
        const std::string index = R"({"metadata": {"total_size": 99}, "weight_map": {"a": "s1.safetensors",)"
                                  R"( "b": "s1.safetensors", "c": "s2.safetensors", "d": "../x.safetensors"}})";
        writeFile(dir.filePath("model.safetensors.index.json"), index);
        Error error;
        const auto c = Checkpoint::open(dir.path().toStdString(), error);
        QVERIFY(c);
        QVERIFY(hasFinding(*c, "tensor_missing_from_shard")); // b
        QVERIFY(hasFinding(*c, "shard_missing"));             // s2
        QVERIFY(hasFinding(*c, "tensor_not_in_index"));       // extra
        QVERIFY(hasFinding(*c, "total_size_mismatch"));
        QVERIFY(hasFinding(*c, "bad_shard_name")); // a path out of the folder is not followed
        QVERIFY(!c->referenceAccepts());
        QCOMPARE(c->shards().size(), 2u);
        QVERIFY(c->shards()[0].file);
        QVERIFY(!c->shards()[1].file);
        QCOMPARE(c->shards()[1].error.kind, ErrorKind::NotFound);
        QCOMPARE(c->tensors().size(), 2u); // what the shard that opened holds
        // the finding about b points at its key in the index
        const auto b = std::find_if(c->findings().begin(), c->findings().end(), [](const Checkpoint::FileFinding &f) {
            return f.finding.code == "tensor_missing_from_shard";
        });
        QCOMPARE(b->finding.offset, static_cast<uint64_t>(index.find("\"b\"")));
        QVERIFY(b->file.ends_with("model.safetensors.index.json"));
        // the tensor the index does not list is pointed at in its shard
        const auto extra =
            std::find_if(c->findings().begin(), c->findings().end(),
                         [](const Checkpoint::FileFinding &f) { return f.finding.code == "tensor_not_in_index"; });
        QVERIFY(extra->file.ends_with("s1.safetensors"));
    }

    void folderWithoutIndex()
    {
        QTemporaryDir dir;
        writeFile(dir.filePath("b.safetensors"), shardOf({{"y", 2}}));
        writeFile(dir.filePath("a.safetensors"), shardOf({{"x", 1}, {"y", 1}}));
        Error error;
        const auto c = Checkpoint::open(dir.path().toStdString(), error);
        QVERIFY(c);
        QCOMPARE(c->shards().size(), 2u);
        QVERIFY(c->shards()[0].path.ends_with("a.safetensors")); // by name
        QVERIFY(hasFinding(*c, "duplicate_tensor"));             // y twice
        QVERIFY(c->architecture().empty());
    }

    void nothingToRead()
    {
        QTemporaryDir dir;
        Error error;
        QVERIFY(!Checkpoint::looksLikeCheckpoint(dir.path().toStdString()));
        QVERIFY(!Checkpoint::open(dir.path().toStdString(), error));
        QCOMPARE(error.kind, ErrorKind::NotFound);
        writeFile(dir.filePath("x.safetensors.index.json"), "{\"weight_map\": [}");
        QVERIFY(!Checkpoint::open(dir.filePath("x.safetensors.index.json").toStdString(), error));
        QCOMPARE(error.code, std::string("bad_index_json"));
        writeFile(dir.filePath("y.safetensors.index.json"), "{\"metadata\": {}}");
        QVERIFY(!Checkpoint::open(dir.filePath("y.safetensors.index.json").toStdString(), error));
        QCOMPARE(error.code, std::string("no_weight_map"));
        QVERIFY(!Checkpoint::open(dir.filePath("missing.safetensors").toStdString(), error));
        QCOMPARE(error.kind, ErrorKind::NotFound);
        // a FIFO is not read (opening it would wait for a writer): the window and the CLI ask
        // this of every path before they open it
        const std::string fifo = dir.filePath("pipe").toStdString();
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        QVERIFY(!Checkpoint::looksLikeCheckpoint(fifo));
    }

    void badConfigIsSaid()
    {
        QTemporaryDir dir;
        writeFile(dir.filePath("model.safetensors"), shardOf({{"w", 4}}));
        writeFile(dir.filePath("config.json"), "{\"model_type\": ");
        Error error;
        const auto c = Checkpoint::open(dir.filePath("model.safetensors").toStdString(), error);
        QVERIFY(c);
        QVERIFY(!c->config());
        QVERIFY(c->configProblem().find("not JSON") != std::string::npos);
        QVERIFY(c->referenceAccepts()); // config.json is not the checkpoint's tensors
    }
};

QTEST_GUILESS_MAIN(TestCheckpoint)
#include "tst_checkpoint.moc"
