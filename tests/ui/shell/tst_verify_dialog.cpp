// SPDX-License-Identifier: GPL-3.0-or-later
// File ▸ Verify… (#45): the dialog hashes the open model on a worker (SHA-256 by default; the
// expected digests computed here by QCryptographicHash over the bytes the test wrote), writes a
// manifest that checks Ok, and names the tensor whose bit was flipped.
#include "core/format/split_model.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/kind_samples.h"
#include "tests/support/temp_files.h"
#include "ui/shell/verify_dialog.h"

#include <QCryptographicHash>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

using namespace gguf;
using namespace gguf::test;

class TestVerifyDialog : public QObject {
    Q_OBJECT
private slots:
    void hashesAndChecks()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("m.gguf"));
        GgufBuilder b;
        b.kv("general.architecture", V::str("llama"));
        b.tensor("token_embd.weight", {4}, 0, f32Data({1, 2, 3, 4}))
            .tensor("output.weight", {2}, 0, f32Data({0.5f, -1}));
        const BuiltFile built = b.build();
        QVERIFY(writeBytes(path, built.bytes()));
        Error error;
        auto model = SplitModel::open(path.toStdString(), error);
        QVERIFY(model);
        VerifyDialog dialog(model);
        dialog.start();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.running(), 20000);
        const QTreeWidget *results = dialog.results();
        QCOMPARE(results->topLevelItemCount(), 3); // two tensors and the model, SHA-256
        const QByteArray embd = QByteArray::fromHex("0000803f000000400000404000008040");
        QCOMPARE(results->topLevelItem(0)->text(1), QStringLiteral("token_embd.weight"));
        QCOMPARE(results->topLevelItem(0)->text(2),
                 QString::fromLatin1(QCryptographicHash::hash(embd, QCryptographicHash::Sha256).toHex()));
        QVERIFY2(dialog.summary().contains(QStringLiteral("2 tensor")), qPrintable(dialog.summary()));

        const QString manifest = dir.filePath(QStringLiteral("m.manifest"));
        QString why;
        QVERIFY2(dialog.saveManifest(manifest, why), qPrintable(why));
        dialog.setManifest(manifest);
        dialog.start();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.running(), 20000);
        QVERIFY2(dialog.summary().contains(QStringLiteral("Every line matches")), qPrintable(dialog.summary()));
        for (int i = 0; i < 3; ++i)
            QCOMPARE(dialog.results()->topLevelItem(i)->text(3), QStringLiteral("Ok"));

        // one bit of output.weight flipped: the model opened again is named as differing
        std::vector<uint8_t> bytes = built.bytes();
        bytes[built.layout().tensor("output.weight")->dataOffset] ^= 0x80;
        QVERIFY(writeBytes(path, bytes));
        model = SplitModel::open(path.toStdString(), error);
        QVERIFY(model);
        VerifyDialog again(model);
        again.setManifest(manifest);
        again.start();
        QTRY_VERIFY_WITH_TIMEOUT(!again.running(), 20000);
        QVERIFY2(again.summary().contains(QStringLiteral("Differs from the manifest: output.weight")),
                 qPrintable(again.summary()));
        QCOMPARE(again.results()->topLevelItem(0)->text(3), QStringLiteral("Ok"));
        QCOMPARE(again.results()->topLevelItem(1)->text(3), QStringLiteral("Mismatch"));
    }
};

QTEST_MAIN(TestVerifyDialog)
#include "tst_verify_dialog.moc"
