// SPDX-License-Identifier: GPL-3.0-or-later
// Saving edits to disk: in place and by a copy, and what every interruption leaves — the writer
// stopped after each step (in a child process that exits there), a write that fails (the file size
// limit, RLIMIT_FSIZE, stands in for a full disk), a cancel, a file changed under the editor.
#include "core/edit/file_writer.h"
#include "core/edit/header_writer.h"
#include "core/format/gguf_file.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/gguf_file_checks.h"
#include "tests/support/temp_files.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace gguf;
using namespace gguf::test;

namespace {

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QByteArray sha256(const QByteArray &bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

// The hash of every tensor's data, in order.
QList<QByteArray> tensorHashes(const GgufFile &f)
{
    QList<QByteArray> out;
    for (const TensorInfo &t : f.tensors()) {
        const auto b = f.tensorBytes(t);
        out << sha256(QByteArray(reinterpret_cast<const char *>(b.data()), static_cast<qsizetype>(b.size())));
    }
    return out;
}

std::shared_ptr<const GgufFile> openPath(const QString &path)
{
    OpenResult r = GgufFile::open(path.toStdString());
    return r.error ? nullptr : r.file;
}

// Files in `dir` other than `keep`.
QStringList strays(const QString &dir, const QStringList &keep)
{
    QStringList out;
    for (const QString &name : QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot))
        if (!keep.contains(name))
            out << name;
    return out;
}

// Runs `body` in a child process; returns its exit status (or 128 + signal).
template <typename F> int inChild(F body)
{
    const pid_t pid = ::fork();
    if (pid == 0) {
        body();
        ::_exit(100); // body did not exit itself
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

} // namespace

class TestEditSave : public QObject {
    Q_OBJECT
private slots:
    void init();
    void savesInPlace();
    void savesByACopyBesideTheFile();
    void savesToAnotherFile();
    void interruptedSaveLeavesTheOriginal_data();
    void interruptedSaveLeavesTheOriginal();
    void failedWriteLeavesTheOriginal();
    void cancelLeavesTheOriginal();
    void refusesAFileChangedSinceOpening();
    void refusesWhileABackupIsThere();
    void reportsUnwritableTargets();
    void keepsHolesAndPermissions();

private:
    QString m_path;
    QByteArray m_original;
    std::unique_ptr<QTemporaryDir> m_dir;
};

void TestEditSave::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_path = m_dir->filePath(QStringLiteral("model.gguf"));
    GgufBuilder b = gguf_file_checks::sampleModel({3, Endian::Little});
    b.kv("tokenizer.chat_template", V::str(std::string(300, 't')));
    QVERIFY(writeBytes(m_path, b.build().bytes()));
    m_original = readAll(m_path);
}

void TestEditSave::savesInPlace()
{
    const auto f = openPath(m_path);
    MetadataChanges c;
    c.set("tokenizer.chat_template", OwnedValue::string("{{ messages }}"));
    std::string error;
    const auto plan = planHeader(*f, c, {}, error);
    QVERIFY(plan && plan->fitsInPlace);
    std::vector<SaveStep> steps;
    const SaveResult r =
        writeEdited(*f, *plan, m_path.toStdString(), true, SaveHooks{{}, [&](SaveStep s) { steps.push_back(s); }});
    QVERIFY2(r.ok, r.message.c_str());
    QVERIFY(r.inPlace);
    QCOMPARE(r.bytesWritten, plan->dataOffset);
    QCOMPARE(steps, (std::vector<SaveStep>{SaveStep::Checked, SaveStep::BackupWritten, SaveStep::HeaderWritten,
                                           SaveStep::HeaderSynced, SaveStep::BackupRemoved}));
    const auto out = openPath(m_path);
    QVERIFY(out && out->complete() && out->llamaCppAccepts());
    QCOMPARE(out->value("tokenizer.chat_template").toStringView(), "{{ messages }}");
    QCOMPARE(tensorHashes(*out), tensorHashes(*f));
    // only the header changed: the data region is the original's, byte for byte
    const QByteArray now = readAll(m_path);
    QCOMPARE(now.size(), m_original.size());
    QCOMPARE(now.mid(static_cast<qsizetype>(f->dataOffset())), m_original.mid(static_cast<qsizetype>(f->dataOffset())));
    QCOMPARE(strays(m_dir->path(), {"model.gguf"}), QStringList());
}

void TestEditSave::savesByACopyBesideTheFile()
{
    const auto f = openPath(m_path);
    MetadataChanges c;
    c.set("tokenizer.chat_template", OwnedValue::string(std::string(2000, 'x')));
    c.set("general.name", OwnedValue::string("renamed"));
    std::string error;
    // with room reserved for later edits, the data moves by whole pages (without, the header is padded
    // to the alignment only and no key is added: tst_edit growsByACopyWhenTheHeaderOutgrowsItsSpace)
    HeaderOptions options;
    options.reserve = 512;
    const auto plan = planHeader(*f, c, options, error);
    QVERIFY(plan && !plan->fitsInPlace && plan->paddingKeyWritten);
    std::vector<SaveStep> steps;
    uint64_t lastDone = 0, lastTotal = 0;
    const SaveResult r = writeEdited(*f, *plan, m_path.toStdString(), true,
                                     SaveHooks{[&](uint64_t done, uint64_t total) {
                                                   lastDone = done;
                                                   lastTotal = total;
                                                   return true;
                                               },
                                               [&](SaveStep s) { steps.push_back(s); }});
    QVERIFY2(r.ok, r.message.c_str());
    QVERIFY(!r.inPlace);
    QCOMPARE(steps, (std::vector<SaveStep>{SaveStep::Checked, SaveStep::TempCreated, SaveStep::HeaderCopied,
                                           SaveStep::DataCopied, SaveStep::TempSynced, SaveStep::Renamed}));
    QCOMPARE(lastTotal, f->fileSize() - f->dataOffset());
    QCOMPARE(lastDone, lastTotal);
    const auto out = openPath(m_path);
    QVERIFY(out && out->complete() && out->llamaCppAccepts());
    QCOMPARE(out->value("general.name").toStringView(), "renamed");
    QCOMPARE(out->fileSize(), f->fileSize() + (plan->dataOffset - f->dataOffset()));
    // the data moved by whole pages and was copied from the page it begins in: the header's last
    // bytes were written again after that
    QCOMPARE((plan->dataOffset - f->dataOffset()) % 4096, uint64_t(0));
    QVERIFY(f->dataOffset() % 4096 != 0);
    const QByteArray now = readAll(m_path);
    QCOMPARE(
        now.left(static_cast<qsizetype>(plan->dataOffset)),
        QByteArray(reinterpret_cast<const char *>(plan->bytes.data()), static_cast<qsizetype>(plan->bytes.size())));
    QCOMPARE(now.mid(static_cast<qsizetype>(plan->dataOffset)),
             m_original.mid(static_cast<qsizetype>(f->dataOffset())));
    QCOMPARE(tensorHashes(*out), tensorHashes(*f));
    QCOMPARE(strays(m_dir->path(), {"model.gguf"}), QStringList());
    // the original mapping still reads the old file (the new one replaced its name only)
    QCOMPARE(f->value("general.name").toStringView(), "sample");
}

void TestEditSave::savesToAnotherFile()
{
    const auto f = openPath(m_path);
    MetadataChanges c;
    c.set("general.name", OwnedValue::string("copy"));
    std::string error;
    const auto plan = planHeader(*f, c, {}, error);
    QVERIFY(plan && plan->fitsInPlace);
    const QString out = m_dir->filePath(QStringLiteral("out.gguf"));
    const SaveResult r = writeEdited(*f, *plan, out.toStdString(), true);
    QVERIFY2(r.ok, r.message.c_str());
    QVERIFY(!r.inPlace); // a plan that fits in place still copies to another file
    QCOMPARE(readAll(m_path), m_original);

    // another name for the same file (a hard link): with in place not allowed (Save As, -o) it is
    // replaced by a copy, and the file under the first name keeps its contents
    const QString link = m_dir->filePath(QStringLiteral("link.gguf"));
    QCOMPARE(::link(m_path.toLocal8Bit().constData(), link.toLocal8Bit().constData()), 0);
    const SaveResult viaLink = writeEdited(*f, *plan, link.toStdString(), false);
    QVERIFY2(viaLink.ok, viaLink.message.c_str());
    QVERIFY(!viaLink.inPlace);
    QCOMPARE(readAll(m_path), m_original);
    QCOMPARE(openPath(link)->value("general.name").toStringView(), "copy");
    const auto written = openPath(out);
    QVERIFY(written && written->complete());
    QCOMPARE(written->value("general.name").toStringView(), "copy");
    QCOMPARE(tensorHashes(*written), tensorHashes(*f));
}

void TestEditSave::interruptedSaveLeavesTheOriginal_data()
{
    QTest::addColumn<int>("step");
    QTest::addColumn<bool>("fits");
    for (SaveStep s : {SaveStep::Checked, SaveStep::BackupWritten, SaveStep::HeaderWritten, SaveStep::HeaderSynced,
                       SaveStep::BackupRemoved})
        QTest::newRow(("in place, " + std::string(saveStepName(s))).c_str()) << static_cast<int>(s) << true;
    for (SaveStep s : {SaveStep::Checked, SaveStep::TempCreated, SaveStep::HeaderCopied, SaveStep::DataCopied,
                       SaveStep::TempSynced, SaveStep::Renamed})
        QTest::newRow(("copy, " + std::string(saveStepName(s))).c_str()) << static_cast<int>(s) << false;
}

void TestEditSave::interruptedSaveLeavesTheOriginal()
{
    QFETCH(int, step);
    QFETCH(bool, fits);
    const auto f = openPath(m_path);
    MetadataChanges c;
    c.set("tokenizer.chat_template", OwnedValue::string(fits ? "short" : std::string(5000, 'x')));
    std::string error;
    const auto plan = planHeader(*f, c, {}, error);
    QVERIFY(plan && plan->fitsInPlace == fits);
    // the writer's process dies right after the step (as a kill would leave it)
    const int status = inChild([&] {
        writeEdited(*f, *plan, m_path.toStdString(), true, SaveHooks{{}, [&](SaveStep s) {
                                                                         if (static_cast<int>(s) == step)
                                                                             ::_exit(42);
                                                                     }});
    });
    QCOMPARE(status, 42);
    const QByteArray now = readAll(m_path);
    const QString backup = QString::fromStdString(headerBackupPath(m_path.toStdString()));
    const auto s = static_cast<SaveStep>(step);
    const bool finished = s == SaveStep::BackupRemoved || s == SaveStep::Renamed;
    const bool headerOut = s == SaveStep::HeaderWritten || s == SaveStep::HeaderSynced;
    if (finished || headerOut) {
        // the whole new file is there…
        const auto out = openPath(m_path);
        QVERIFY(out && out->complete());
        QCOMPARE(out->value("tokenizer.chat_template").toStringView().size(), fits ? size_t(5) : size_t(5000));
        QCOMPARE(tensorHashes(*out), tensorHashes(*f));
    } else {
        QCOMPARE(now, m_original); // …or the original, byte for byte
    }
    if (headerOut) {
        // in place, after the header went out: the backup holds the old header; putting it back
        // gives the original
        const QByteArray old = readAll(backup);
        QCOMPARE(old.size(), static_cast<qsizetype>(f->dataOffset()));
        QByteArray restored = now;
        restored.replace(0, old.size(), old);
        QCOMPARE(restored, m_original);
    } else if (s == SaveStep::BackupWritten) {
        QCOMPARE(readAll(backup), m_original.left(static_cast<qsizetype>(f->dataOffset())));
    } else {
        QVERIFY(!QFile::exists(backup));
    }
}

void TestEditSave::failedWriteLeavesTheOriginal()
{
    // a copy that cannot be written in full (the size limit stands in for a full disk)
    const auto f = openPath(m_path);
    MetadataChanges c;
    c.set("tokenizer.chat_template", OwnedValue::string(std::string(5000, 'x')));
    std::string error;
    const auto plan = planHeader(*f, c, {}, error);
    QVERIFY(plan && !plan->fitsInPlace);
    const int status = inChild([&] {
        ::signal(SIGXFSZ, SIG_IGN);
        struct rlimit limit {
            plan->dataOffset + 100, plan->dataOffset + 100
        };
        ::setrlimit(RLIMIT_FSIZE, &limit);
        const SaveResult r = writeEdited(*f, *plan, m_path.toStdString(), true);
        const bool clear = !r.ok && r.message.find("is unchanged") != std::string::npos;
        ::_exit(clear ? 7 : 8);
    });
    QCOMPARE(status, 7);
    QCOMPARE(readAll(m_path), m_original);
    QCOMPARE(strays(m_dir->path(), {"model.gguf"}), QStringList()); // the temporary file is gone

    // in place on a file that cannot be written: refused before anything is written
    MetadataChanges small;
    small.set("general.name", OwnedValue::string("x"));
    const auto inPlace = planHeader(*f, small, {}, error);
    QVERIFY(inPlace && inPlace->fitsInPlace);
    QVERIFY(QFile::setPermissions(m_path, QFile::ReadOwner));
    if (::geteuid() != 0) { // root writes anyway
        const SaveResult r = writeEdited(*f, *inPlace, m_path.toStdString(), true);
        QVERIFY(!r.ok);
        QVERIFY2(QString::fromStdString(r.message).contains("nothing was changed"), r.message.c_str());
        QCOMPARE(readAll(m_path), m_original);
    }
}

void TestEditSave::cancelLeavesTheOriginal()
{
    // a data region of several copy chunks (bytes after the last tensor are copied too), so that
    // there is a moment to cancel in
    {
        QFile f(m_path);
        QVERIFY(f.open(QIODevice::Append));
        const QByteArray tail(200 << 20, 0x5A);
        QCOMPARE(f.write(tail), tail.size());
    }
    m_original = readAll(m_path);
    const auto f = openPath(m_path);
    MetadataChanges c;
    c.set("general.name", OwnedValue::string(std::string(4000, 'n')));
    std::string error;
    const auto plan = planHeader(*f, c, {}, error);
    QVERIFY(plan && !plan->fitsInPlace);
    int calls = 0;
    const SaveResult r = writeEdited(*f, *plan, m_path.toStdString(), true,
                                     SaveHooks{[&](uint64_t, uint64_t) { return ++calls < 2; }, {}});
    QVERIFY(!r.ok);
    QVERIFY(r.cancelled);
    QCOMPARE(calls, 2);
    QCOMPARE(sha256(readAll(m_path)), sha256(m_original));
    QCOMPARE(strays(m_dir->path(), {"model.gguf"}), QStringList());

    // a cancel after the last byte was copied, while the copy is synced, still leaves the original
    const SaveResult late = writeEdited(*f, *plan, m_path.toStdString(), true,
                                        SaveHooks{[&](uint64_t done, uint64_t total) { return done < total; }, {}});
    QVERIFY(!late.ok && late.cancelled);
    QCOMPARE(sha256(readAll(m_path)), sha256(m_original));
    QCOMPARE(strays(m_dir->path(), {"model.gguf"}), QStringList());
}

void TestEditSave::refusesAFileChangedSinceOpening()
{
    const auto f = openPath(m_path);
    MetadataChanges c;
    c.set("general.name", OwnedValue::string("x"));
    std::string error;
    const auto plan = planHeader(*f, c, {}, error);
    QVERIFY(plan);
    // someone else rewrites the file (same size, other bytes) after it was opened
    QByteArray other = m_original;
    other[static_cast<qsizetype>(f->findMetadata("general.name")->value.stringDataOffset())] = 'S';
    {
        QFile w(m_path);
        QVERIFY(w.open(QIODevice::ReadWrite));
        QCOMPARE(w.write(other), other.size());
    }
    const SaveResult r = writeEdited(*f, *plan, m_path.toStdString(), true);
    QVERIFY(!r.ok);
    QVERIFY2(QString::fromStdString(r.message).contains("changed on disk"), r.message.c_str());
    QCOMPARE(readAll(m_path), other);
}

void TestEditSave::refusesWhileABackupIsThere()
{
    const QString backup = QString::fromStdString(headerBackupPath(m_path.toStdString()));
    QVERIFY(!leftoverHeaderBackup(m_path.toStdString()));
    QVERIFY(writeBytes(backup, {1, 2, 3}));
    // what the window asks when it opens the file: the backup, found through a symbolic link too
    const std::string real = QFileInfo(m_path).canonicalFilePath().toStdString();
    QCOMPARE(leftoverHeaderBackup(m_path.toStdString()), std::optional(headerBackupPath(real)));
    const QString link = m_path + QStringLiteral(".link.gguf");
    QVERIFY(QFile::link(m_path, link));
    QCOMPARE(leftoverHeaderBackup(link.toStdString()), std::optional(headerBackupPath(real)));
    QVERIFY(QFile::remove(link));
    const auto f = openPath(m_path);
    MetadataChanges c;
    c.set("general.name", OwnedValue::string("x"));
    std::string error;
    const auto plan = planHeader(*f, c, {}, error);
    QVERIFY(plan && plan->fitsInPlace);
    const SaveResult r = writeEdited(*f, *plan, m_path.toStdString(), true);
    QVERIFY(!r.ok);
    QVERIFY2(QString::fromStdString(r.message).contains(backup), r.message.c_str());
    QCOMPARE(readAll(m_path), m_original);
    QCOMPARE(readAll(backup), QByteArray("\x01\x02\x03", 3)); // not touched
    // nor by a copy: the backup would no longer fit the file
    MetadataChanges grow;
    grow.set("general.name", OwnedValue::string(std::string(5000, 'g')));
    const auto copyPlan = planHeader(*f, grow, {}, error);
    QVERIFY(copyPlan && !copyPlan->fitsInPlace);
    const SaveResult copied = writeEdited(*f, *copyPlan, m_path.toStdString(), true);
    QVERIFY(!copied.ok);
    QCOMPARE(readAll(m_path), m_original);
}

void TestEditSave::reportsUnwritableTargets()
{
    const auto f = openPath(m_path);
    std::string error;
    const auto plan = planHeader(*f, {}, {}, error);
    QVERIFY(plan);
    SaveResult r = writeEdited(*f, *plan, m_dir->filePath("no/such/dir/x.gguf").toStdString(), true);
    QVERIFY(!r.ok);
    QVERIFY2(QString::fromStdString(r.message).contains("folder does not exist"), r.message.c_str());
    QVERIFY(QDir(m_dir->path()).mkdir("sub"));
    r = writeEdited(*f, *plan, m_dir->filePath("sub").toStdString(), true);
    QVERIFY(!r.ok);
    QVERIFY2(QString::fromStdString(r.message).contains("is a folder"), r.message.c_str());
    QCOMPARE(readAll(m_path), m_original);
}

void TestEditSave::keepsHolesAndPermissions()
{
    // a model whose data region is mostly a hole (as the benchmark's sparse models are)
    GgufBuilder b = gguf_file_checks::sampleModel({3, Endian::Little});
    const BuiltFile built = b.build();
    QVERIFY(writeBytes(m_path, built.bytes()));
    const uint64_t holeEnd = uint64_t(256) << 20;
    {
        QFile f(m_path);
        QVERIFY(f.open(QIODevice::ReadWrite));
        QVERIFY(f.resize(static_cast<qint64>(holeEnd)));
        QVERIFY(f.seek(static_cast<qint64>(holeEnd)));
        QCOMPARE(f.write("tail", 4), qint64(4));
    }
    QVERIFY(QFile::setPermissions(m_path, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup));
    m_original = readAll(m_path);
    const auto f = openPath(m_path);
    QVERIFY(f);
    MetadataChanges c;
    c.set("general.name", OwnedValue::string(std::string(3000, 'n')));
    std::string error;
    const auto plan = planHeader(*f, c, {}, error);
    QVERIFY(plan && !plan->fitsInPlace);
    const SaveResult r = writeEdited(*f, *plan, m_path.toStdString(), true);
    QVERIFY2(r.ok, r.message.c_str());
    struct stat st {};
    QCOMPARE(::stat(m_path.toLocal8Bit().constData(), &st), 0);
    QCOMPARE(st.st_mode & 0777, mode_t(0640));
    QCOMPARE(uint64_t(st.st_size), f->fileSize() + plan->dataOffset - f->dataOffset());
    QVERIFY2(uint64_t(st.st_blocks) * 512 < (uint64_t(16) << 20), qPrintable(QString::number(st.st_blocks)));
    const QByteArray now = readAll(m_path);
    QCOMPARE(now.mid(static_cast<qsizetype>(plan->dataOffset)),
             m_original.mid(static_cast<qsizetype>(f->dataOffset())));
}

QTEST_GUILESS_MAIN(TestEditSave)
#include "tst_edit_save.moc"
