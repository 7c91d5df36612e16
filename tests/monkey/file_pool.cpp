// SPDX-License-Identifier: GPL-3.0-or-later
#include "tests/monkey/file_pool.h"

#include "core/format/ggml_types.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/kind_samples.h"
#include "tests/support/range_server/range_server.h"
#include "tests/support/test_paths.h"

#include <QBuffer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QUrl>

#include <string>

using gguf::test::GgufBuilder;
using gguf::test::V;

namespace {

const QString kSample = gguf::test::sampleModel();
const QString kData = gguf::test::dataDir();

QByteArray bytesOf(const std::vector<uint8_t> &bytes)
{
    return {reinterpret_cast<const char *>(bytes.data()), static_cast<qsizetype>(bytes.size())};
}

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

FilePool::FilePool(QRandomGenerator &random)
{
    if (!m_dir.isValid()) {
        m_error = QStringLiteral("no temporary folder: %1").arg(m_dir.errorString());
        return;
    }
    makeGoodFiles();
    makeDamagedFiles(random);
    makeHugeSparseFile();
    serveSome();
}

FilePool::~FilePool()
{
    if (m_server)
        m_server->stop();
}

void FilePool::serveSome()
{
    m_server = std::make_unique<gguf::test::RangeServer>();
    if (!m_server->start()) {
        m_error = QStringLiteral("the range server could not listen on 127.0.0.1");
        return;
    }
    // a model, a vocabulary, a split set (each shard found from the other), a cut copy, and a name
    // the server does not have (404)
    for (const char *name :
         {"sample.gguf", "real-ggml-vocab-phi-3.gguf", "split-00001-of-00002.gguf", "split-00002-of-00002.gguf"})
        m_server->serve("/pool/" + std::string(name), m_dir.filePath(QLatin1String(name)).toStdString());
    for (const QString &path : std::as_const(m_paths))
        if (QFileInfo(path).fileName().startsWith(QLatin1String("truncated-"))) {
            m_server->serve("/pool/cut.gguf", path.toStdString());
            break;
        }
    for (const char *name :
         {"sample.gguf", "real-ggml-vocab-phi-3.gguf", "split-00002-of-00002.gguf", "cut.gguf", "not-there.gguf"})
        m_paths << QString::fromStdString(m_server->url("/pool/" + std::string(name)));
}

QString FilePool::name(const QString &path) const
{
    if (path.contains(QLatin1String("://")))
        return QStringLiteral("URL ") + QUrl(path).path();
    return QDir(m_dir.path()).relativeFilePath(path);
}

QString FilePool::add(const QString &name)
{
    const QString path = m_dir.filePath(name);
    m_paths << path;
    return path;
}

bool FilePool::copy(const QString &source, const QString &name)
{
    if (QFile::copy(source, m_dir.filePath(name))) {
        add(name);
        return true;
    }
    m_error = QStringLiteral("could not copy %1").arg(source);
    return false;
}

bool FilePool::write(const QString &name, const QByteArray &bytes)
{
    QFile file(m_dir.filePath(name));
    if (file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size()) {
        add(name);
        return true;
    }
    m_error = QStringLiteral("could not write %1").arg(name);
    return false;
}

void FilePool::makeGoodFiles()
{
    copy(kSample, QStringLiteral("sample.gguf"));
    const char *const real[] = {"real/tiny-llama-q4_k_m.gguf",   "real/tiny-llama-tied-q8_0.gguf",
                                "real/ggml-vocab-phi-3.gguf",    "real/ggml-vocab-gpt-2.gguf",
                                "real/ggml-vocab-bert-bge.gguf", "big-endian/q4_K.gguf",
                                "ggml-reference/iq2_xs.gguf",    "ggml-reference/metadata_all_types.gguf"};
    for (const char *file : real)
        copy(kData + u'/' + QLatin1String(file), QString::fromLatin1(file).replace(u'/', u'-'));
    write(QStringLiteral("imatrix.gguf"), bytesOf(gguf::test::imatrixSample().build().bytes()));
    write(QStringLiteral("lora.gguf"), bytesOf(gguf::test::loraSample().build().bytes()));
    // a split set (opening either shard finds the other) and one whose second shard is missing
    write(QStringLiteral("split-00001-of-00002.gguf"), bytesOf(gguf::test::twoFileSplitShard(1)));
    write(QStringLiteral("split-00002-of-00002.gguf"), bytesOf(gguf::test::twoFileSplitShard(2)));
    write(QStringLiteral("lonely-00001-of-00002.gguf"), bytesOf(gguf::test::twoFileSplitShard(1)));
}

void FilePool::makeDamagedFiles(QRandomGenerator &random)
{
    const QByteArray sample = readAll(kSample);
    if (sample.size() < 4096) {
        m_error = QStringLiteral("could not read %1").arg(kSample);
        return;
    }
    // cut inside the header, inside the tensor infos and inside the data
    const qsizetype cuts[] = {static_cast<qsizetype>(random.bounded(24, 400)),
                              static_cast<qsizetype>(random.bounded(400, 4096)),
                              static_cast<qsizetype>(random.bounded(4096, static_cast<int>(sample.size())))};
    for (int i = 0; i < 3; ++i)
        write(QStringLiteral("truncated-%1.gguf").arg(cuts[i]), sample.left(cuts[i]));
    for (int i = 0; i < 2; ++i) {
        QByteArray flipped = sample.left(64 * 1024);
        const int offset = static_cast<int>(random.bounded(i == 0 ? 24 : 800));
        flipped[offset] = static_cast<char>(flipped[offset] ^ (1 << random.bounded(8)));
        write(QStringLiteral("flipped-at-%1.gguf").arg(offset), flipped);
    }
    write(QStringLiteral("empty.gguf"), {});
    write(QStringLiteral("notes.txt"), QByteArrayLiteral("This is not a model.\nGGUF is a file format.\n"));
    QImage image(16, 16, QImage::Format_RGB32);
    image.fill(Qt::darkCyan);
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, "PNG");
    write(QStringLiteral("picture.gguf"), png);
    QDir(m_dir.path()).mkdir(QStringLiteral("folder.gguf"));
    add(QStringLiteral("folder.gguf"));
    add(QStringLiteral("missing.gguf"));
}

void FilePool::makeHugeSparseFile()
{
    // the header of two tensors; the last one's second dimension is then made to claim 4 GiB
    constexpr uint64_t kRows = 524288;
    const auto f16 = static_cast<uint32_t>(gguf::GgmlType::F16);
    const auto f32 = static_cast<uint32_t>(gguf::GgmlType::F32);
    gguf::test::BuiltFile built = GgufBuilder()
                                      .kv("general.architecture", V::str("llama"))
                                      .kv("general.name", V::str("huge sparse"))
                                      .kv("llama.block_count", V::u32(1))
                                      .tensor("token_embd.weight", {16, 4}, f32)
                                      .tensor("blk.0.attn_q.weight", {4096, 1}, f16)
                                      .build();
    const gguf::test::TensorLayout big = built.layout().tensors.back();
    built.setTensorDim(1, 1, kRows);
    const QString name = QStringLiteral("huge-sparse.gguf");
    QFile file(m_dir.filePath(name));
    const QByteArray header = bytesOf(built.bytes()).left(static_cast<qsizetype>(big.dataOffset));
    if (!file.open(QIODevice::WriteOnly) || file.write(header) != header.size() ||
        !file.resize(static_cast<qint64>(big.dataOffset + 4096 * kRows * 2))) {
        m_error = QStringLiteral("could not make the sparse file");
        return;
    }
    add(name);
}
