// SPDX-License-Identifier: GPL-3.0-or-later
// DropPaths: which dropped URLs are files, and how the shards of a split model collapse into one.
#include "ui/shell/drop_paths.h"

#include <QMimeData>
#include <QUrl>
#include <QtTest>

class TestDropPaths : public QObject {
    Q_OBJECT

private slots:
    void localFiles()
    {
        QMimeData mime;
        QCOMPARE(DropPaths::localFiles(&mime), QStringList());
        mime.setUrls({QUrl::fromLocalFile(QStringLiteral("/m/a.gguf")), QUrl(QStringLiteral("https://h/b.gguf")),
                      QUrl::fromLocalFile(QStringLiteral("/m/c.gguf"))});
        QCOMPARE(DropPaths::localFiles(&mime), (QStringList{"/m/a.gguf", "/m/c.gguf"}));
        QCOMPARE(DropPaths::localFiles(nullptr), QStringList());
    }

    void distinctModels_data()
    {
        QTest::addColumn<QStringList>("paths");
        QTest::addColumn<QStringList>("models");
        QTest::newRow("one file") << QStringList{"/m/a.gguf"} << QStringList{"/m/a.gguf"};
        QTest::newRow("two files") << QStringList{"/m/a.gguf", "/m/b.gguf"} << QStringList{"/m/a.gguf", "/m/b.gguf"};
        QTest::newRow("duplicate") << QStringList{"/m/a.gguf", "/m/a.gguf"} << QStringList{"/m/a.gguf"};
        QTest::newRow("shards collapse to the first")
            << QStringList{"/m/x-00002-of-00003.gguf", "/m/x-00003-of-00003.gguf", "/m/x-00001-of-00003.gguf"}
            << QStringList{"/m/x-00001-of-00003.gguf"};
        QTest::newRow("two splits and a file")
            << QStringList{"/m/x-00002-of-00002.gguf", "/m/a.gguf", "/m/y-00001-of-00002.gguf",
                           "/m/x-00001-of-00002.gguf"}
            << QStringList{"/m/x-00001-of-00002.gguf", "/m/a.gguf", "/m/y-00001-of-00002.gguf"};
        QTest::newRow("not a shard name") << QStringList{"/m/x-1-of-2.gguf"} << QStringList{"/m/x-1-of-2.gguf"};
    }

    void distinctModels()
    {
        QFETCH(QStringList, paths);
        QFETCH(QStringList, models);
        QCOMPARE(DropPaths::distinctModels(paths), models);
    }
};

QTEST_GUILESS_MAIN(TestDropPaths)
#include "tst_drop_paths.moc"
