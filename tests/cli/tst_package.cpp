// SPDX-License-Identifier: GPL-3.0-or-later
// The Debian package (#20): scripts/package.sh run on this build, the package unpacked into a
// scratch root with dpkg -x, and what it holds checked against what an installed program needs:
// the file list, the control fields (Depends against the packages that own the libraries the
// built programs load), the programs and the sample model, the desktop entry, AppStream metadata,
// the MIME type (read back through Qt's MIME database) and the icons.
// When the environment variable GGUF_PACKAGE_DEB names an existing file, that .deb is checked
// instead and package.sh is not run (scripts/test.sh builds the package of this build once and
// passes it); it is used where it is, not copied, and unpacked all the same.

#include "tests/support/test_paths.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMimeDatabase>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct Run {
    int exitCode = -1; ///< -1: it crashed, hung or could not start
    QByteArray out;
    QByteArray err;
};

Run run(const QString &program, const QStringList &args, const QProcessEnvironment &env = {})
{
    QProcess process;
    if (!env.isEmpty())
        process.setProcessEnvironment(env);
    process.start(program, args);
    Run result;
    if (!process.waitForFinished(15 * 60 * 1000) || process.exitStatus() != QProcess::NormalExit)
        return result;
    result.exitCode = process.exitCode();
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    return result;
}

QByteArray sha256(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(&f);
    return hash.result().toHex();
}

const QString kAppId = QStringLiteral(GGUF_APP_ID);
const QList<int> kIconSizes = {16, 22, 24, 32, 48, 64, 128, 256, 512};

} // namespace

class TestPackage : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void fileName();
    void controlFields();
    void dependsCoversLinkedLibraries();
    void fileList();
    void programsRunFromThePackage();
    void desktopEntryAndMetainfoValidate();
    void mimeTypeKnowsNameAndMagic();
    void icons();
    void compressedDocs();
    void versionsAgree();

private:
    QTemporaryDir m_dir;
    QString m_deb;
    QString m_root;
};

void TestPackage::initTestCase()
{
    QVERIFY(m_dir.isValid());
    // a package made beforehand (scripts/test.sh), else one made here from this build
    const QString given = qEnvironmentVariable("GGUF_PACKAGE_DEB");
    if (!given.isEmpty() && QFileInfo(given).isFile()) {
        m_deb = given;
    } else {
        const Run built =
            run(QStringLiteral("bash"), {gguf::test::sourcePath(u"scripts/package.sh"), QStringLiteral("--build-dir"),
                                         gguf::test::buildDir(), QStringLiteral("--output"), m_dir.path()});
        QVERIFY2(built.exitCode == 0, built.err.constData());
        m_deb = QString::fromLocal8Bit(built.out.trimmed().split('\n').constLast());
    }
    QVERIFY2(QFileInfo(m_deb).isFile(), qPrintable(m_deb));
    m_root = m_dir.filePath(QStringLiteral("root"));
    const Run unpacked = run(QStringLiteral("dpkg"), {QStringLiteral("-x"), m_deb, m_root});
    QVERIFY2(unpacked.exitCode == 0, unpacked.err.constData());
}

void TestPackage::fileName()
{
    const Run arch = run(QStringLiteral("dpkg"), {QStringLiteral("--print-architecture")});
    QCOMPARE(arch.exitCode, 0);
    QCOMPARE(QFileInfo(m_deb).fileName(),
             QStringLiteral("gguf-explorer_%1_%2.deb")
                 .arg(QStringLiteral(GGUF_VERSION), QString::fromLatin1(arch.out.trimmed())));
}

void TestPackage::controlFields()
{
    const Run fields = run(QStringLiteral("dpkg-deb"),
                           {QStringLiteral("-f"), m_deb, QStringLiteral("Package"), QStringLiteral("Version"),
                            QStringLiteral("Section"), QStringLiteral("Maintainer"), QStringLiteral("Description")});
    QCOMPARE(fields.exitCode, 0);
    const QString text = QString::fromUtf8(fields.out);
    QVERIFY2(text.contains(QStringLiteral("Package: gguf-explorer\n")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Version: " GGUF_VERSION "\n")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Section: science\n")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Maintainer: ")), qPrintable(text));
    // a synopsis, then an extended description
    QVERIFY2(text.contains(QStringLiteral("Description: look inside GGUF model files")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("\n gguf-inspect")) || text.contains(QStringLiteral(" gguf-inspect,")),
             qPrintable(text));
}

// Every library the built programs link (NEEDED) comes from a Debian package that Depends names.
void TestPackage::dependsCoversLinkedLibraries()
{
    const Run depends = run(QStringLiteral("dpkg-deb"), {QStringLiteral("-f"), m_deb, QStringLiteral("Depends")});
    QCOMPARE(depends.exitCode, 0);
    QSet<QString> named;
    for (const QByteArray &item : depends.out.trimmed().split(','))
        named.insert(QString::fromLatin1(item.trimmed().split(' ').constFirst()));
    QSet<QString> needed;
    for (const QString &program : {gguf::test::explorerPath(), gguf::test::inspectPath()}) {
        // the libraries the program names itself (its NEEDED entries), found where ldd finds them
        const Run dynamic = run(QStringLiteral("readelf"), {QStringLiteral("-d"), program});
        QCOMPARE(dynamic.exitCode, 0);
        const Run ldd = run(QStringLiteral("ldd"), {program});
        QCOMPARE(ldd.exitCode, 0);
        static const QRegularExpression neededLine(QStringLiteral("\\(NEEDED\\)\\s+Shared library: \\[([^\\]]+)\\]"));
        for (auto it = neededLine.globalMatch(QString::fromLocal8Bit(dynamic.out)); it.hasNext();) {
            const QString soname = it.next().captured(1);
            // "libfoo.so.1 => /lib/…/libfoo.so.1 (…)", or for the loader "/lib64/ld-linux-x86-64.so.2 (…)"
            const QRegularExpression resolved(
                QStringLiteral("^\\s*(?:%1 => )?(/\\S*%1)\\s").arg(QRegularExpression::escape(soname)),
                QRegularExpression::MultilineOption);
            const QRegularExpressionMatch where = resolved.match(QString::fromLocal8Bit(ldd.out));
            QVERIFY2(where.hasMatch(), qPrintable(soname));
            const QString library = QFileInfo(where.captured(1)).canonicalFilePath();
            // the package that owns the library (under /lib or /usr/lib, merged /usr or not)
            Run owner = run(QStringLiteral("dpkg"), {QStringLiteral("-S"), library});
            if (owner.exitCode != 0 && library.startsWith(QStringLiteral("/usr/")))
                owner = run(QStringLiteral("dpkg"), {QStringLiteral("-S"), library.mid(4)});
            QVERIFY2(owner.exitCode == 0, qPrintable(library));
            needed.insert(QString::fromLatin1(owner.out.split(':').constFirst()));
        }
    }
    QVERIFY(needed.contains(QStringLiteral("libqt6widgets6")));
    QVERIFY(needed.contains(QStringLiteral("libqcustomplot2.1-qt6")));
    // libcurl is loaded at run time (dlopen of libcurl.so.4, core/net/curl_library.cpp), so no
    // program names it; the package that holds it must be named all the same
    const Run curl = run(QStringLiteral("dpkg"), {QStringLiteral("-S"), QStringLiteral("*/libcurl.so.4")});
    QVERIFY2(curl.exitCode == 0, "no installed package holds libcurl.so.4");
    needed.insert(QString::fromLatin1(curl.out.split(':').constFirst()));
    QVERIFY(needed.contains(QStringLiteral("libcurl4")));
    // so are libcrypto and libxxhash (core/hash/hash_libraries.cpp)
    for (const char *library : {"*/libcrypto.so.3", "*/libxxhash.so.0"}) {
        const Run owner = run(QStringLiteral("dpkg"), {QStringLiteral("-S"), QLatin1String(library)});
        QVERIFY2(owner.exitCode == 0, library);
        needed.insert(QString::fromLatin1(owner.out.split(':').constFirst()));
    }
    QVERIFY(needed.contains(QStringLiteral("libssl3")));
    QVERIFY(needed.contains(QStringLiteral("libxxhash0")));
    for (const QString &package : needed)
        QVERIFY2(named.contains(package),
                 qPrintable(package + QStringLiteral(" is missing from Depends: ") + QString::fromLatin1(depends.out)));
}

void TestPackage::fileList()
{
    QStringList expected = {
        QStringLiteral("usr/bin/gguf-explorer"),
        QStringLiteral("usr/bin/gguf-inspect"),
        QStringLiteral("usr/share/applications/%1.desktop").arg(kAppId),
        QStringLiteral("usr/share/metainfo/%1.metainfo.xml").arg(kAppId),
        QStringLiteral("usr/share/mime/packages/gguf-explorer.xml"),
        QStringLiteral("usr/share/icons/hicolor/scalable/apps/%1.svg").arg(kAppId),
        QStringLiteral("usr/share/gguf-explorer/sample/tiny-llama-tied-q4_k_m.gguf"),
        QStringLiteral("usr/share/gguf-explorer/sample/README.md"),
        QStringLiteral("usr/share/man/man1/gguf-inspect.1.gz"),
        QStringLiteral("usr/share/man/man1/gguf-explorer.1.gz"),
        QStringLiteral("usr/share/bash-completion/completions/gguf-inspect"),
        QStringLiteral("usr/share/bash-completion/completions/gguf-explorer"),
        QStringLiteral("usr/share/zsh/vendor-completions/_gguf-inspect"),
        QStringLiteral("usr/share/zsh/vendor-completions/_gguf-explorer"),
        QStringLiteral("usr/share/doc/gguf-explorer/copyright"),
        QStringLiteral("usr/share/doc/gguf-explorer/changelog.gz"),
    };
    for (int size : kIconSizes)
        expected << QStringLiteral("usr/share/icons/hicolor/%1x%1/apps/%2.png").arg(size).arg(kAppId);
    QStringList found;
    const QDir root(m_root);
    for (QDirIterator it(m_root, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories); it.hasNext();)
        found << root.relativeFilePath(it.next());
    expected.sort();
    found.sort();
    QCOMPARE(found, expected);
}

void TestPackage::programsRunFromThePackage()
{
    const QString inspect = m_root + QStringLiteral("/usr/bin/gguf-inspect");
    const QString sample = m_root + QStringLiteral("/usr/share/gguf-explorer/sample/tiny-llama-tied-q4_k_m.gguf");
    QCOMPARE(sha256(sample), sha256(gguf::test::sourcePath(u"resources/sample/tiny-llama-tied-q4_k_m.gguf")));
    const Run version = run(inspect, {QStringLiteral("--version")});
    QCOMPARE(version.exitCode, 0);
    QVERIFY2(version.out.startsWith("gguf-inspect " GGUF_VERSION " (git "), version.out.constData());
    const Run info = run(inspect, {QStringLiteral("info"), sample, QStringLiteral("--json")});
    QCOMPARE(info.exitCode, 0);
    QCOMPARE(QJsonDocument::fromJson(info.out).object().value(QStringLiteral("tensor_count")).toInt(), 38);
    // the explorer answers --version without a display
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    const Run explorer = run(m_root + QStringLiteral("/usr/bin/gguf-explorer"), {QStringLiteral("--version")}, env);
    QCOMPARE(explorer.exitCode, 0);
    QVERIFY2(explorer.out.startsWith("gguf-explorer " GGUF_VERSION " (git "), explorer.out.constData());
    // stripped, as Debian wants
    const Run file = run(QStringLiteral("file"), {QStringLiteral("-L"), inspect});
    QVERIFY2(file.out.contains(", stripped"), file.out.constData());
}

void TestPackage::desktopEntryAndMetainfoValidate()
{
    const QString desktop = m_root + QStringLiteral("/usr/share/applications/%1.desktop").arg(kAppId);
    const Run entry = run(QStringLiteral("desktop-file-validate"), {desktop});
    QVERIFY2(entry.exitCode == 0 && !entry.out.contains("error"), entry.out.constData());
    QFile f(desktop);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray text = f.readAll();
    QVERIFY(text.contains("\nIcon=" + kAppId.toLatin1() + '\n'));
    QVERIFY(text.contains("\nMimeType=application/x-gguf;\n"));
    const Run metainfo = run(QStringLiteral("appstreamcli"),
                             {QStringLiteral("validate"), QStringLiteral("--no-net"),
                              m_root + QStringLiteral("/usr/share/metainfo/%1.metainfo.xml").arg(kAppId)});
    QVERIFY2(metainfo.exitCode == 0, (metainfo.out + metainfo.err).constData());
}

// Qt's MIME database, pointed at the unpacked root, knows a .gguf name and both magics.
void TestPackage::mimeTypeKnowsNameAndMagic()
{
    const QString share = m_root + QStringLiteral("/usr/share");
    const Run cache = run(QStringLiteral("update-mime-database"), {share + QStringLiteral("/mime")});
    QVERIFY2(cache.exitCode == 0, cache.err.constData());
    qputenv("XDG_DATA_DIRS", (share + QStringLiteral(":/usr/share")).toLocal8Bit());
    const QMimeDatabase db;
    auto write = [&](const QString &name, const QByteArray &bytes) {
        QFile f(m_dir.filePath(name));
        return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size() ? f.fileName() : QString();
    };
    const QString little = write(QStringLiteral("little.bin"), QByteArray("GGUF\3\0\0\0", 8) + QByteArray(64, '\0'));
    const QString big = write(QStringLiteral("big.bin"), QByteArray("FUGG\0\0\0\3", 8) + QByteArray(64, '\0'));
    const QString named = write(QStringLiteral("model.gguf"), QByteArray(64, 'x'));
    const QString text = write(QStringLiteral("notes.bin"), QByteArray("just some text\n"));
    QCOMPARE(db.mimeTypeForFile(little, QMimeDatabase::MatchContent).name(), QStringLiteral("application/x-gguf"));
    QCOMPARE(db.mimeTypeForFile(big, QMimeDatabase::MatchContent).name(), QStringLiteral("application/x-gguf"));
    QCOMPARE(db.mimeTypeForFile(named, QMimeDatabase::MatchExtension).name(), QStringLiteral("application/x-gguf"));
    QVERIFY(db.mimeTypeForFile(text, QMimeDatabase::MatchContent).name() != QStringLiteral("application/x-gguf"));
}

void TestPackage::icons()
{
    for (int size : kIconSizes) {
        const QImage icon(m_root + QStringLiteral("/usr/share/icons/hicolor/%1x%1/apps/%2.png").arg(size).arg(kAppId));
        QCOMPARE(icon.size(), QSize(size, size));
        // drawn, not blank: the centre is opaque
        QVERIFY(qAlpha(icon.pixel(size / 2, size / 2)) > 0);
    }
}

// Man pages and the changelog are gzip -9n copies of the sources.
void TestPackage::compressedDocs()
{
    const QStringList pairs = {
        QStringLiteral("usr/share/man/man1/gguf-inspect.1.gz|resources/man/gguf-inspect.1"),
        QStringLiteral("usr/share/man/man1/gguf-explorer.1.gz|resources/man/gguf-explorer.1"),
        QStringLiteral("usr/share/doc/gguf-explorer/changelog.gz|resources/debian/changelog"),
    };
    for (const QString &pair : pairs) {
        const QStringList paths = pair.split(QLatin1Char('|'));
        const Run unzipped = run(QStringLiteral("gzip"), {QStringLiteral("-dc"), m_root + QLatin1Char('/') + paths[0]});
        QCOMPARE(unzipped.exitCode, 0);
        QFile source(gguf::test::sourcePath(paths[1]));
        QVERIFY(source.open(QIODevice::ReadOnly));
        QCOMPARE(unzipped.out, source.readAll());
    }
}

// The version is written in several places besides CMake's project(): the changelog's newest
// entry, the metainfo's newest release and the man pages' title lines must all say it.
void TestPackage::versionsAgree()
{
    const QString version = QStringLiteral(GGUF_VERSION);
    auto read = [](const QString &relative) {
        QFile f(gguf::test::sourcePath(relative));
        return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
    };
    QVERIFY(read(QStringLiteral("resources/debian/changelog"))
                .startsWith(QStringLiteral("gguf-explorer (%1) ").arg(version)));
    const QString metainfo = read(QStringLiteral("resources/%1.metainfo.xml").arg(kAppId));
    const qsizetype release = metainfo.indexOf(QStringLiteral("<release "));
    QVERIFY(release > 0);
    QVERIFY2(metainfo.mid(release).startsWith(QStringLiteral("<release version=\"%1\"").arg(version)),
             qPrintable(metainfo.mid(release, 60)));
    for (const QString &page : {QStringLiteral("gguf-inspect.1"), QStringLiteral("gguf-explorer.1")})
        QVERIFY2(
            read(QStringLiteral("resources/man/") + page).contains(QStringLiteral("\"GGUF Explorer %1\"").arg(version)),
            qPrintable(page));
}

QTEST_GUILESS_MAIN(TestPackage)
#include "tst_package.moc"
