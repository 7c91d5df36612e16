// SPDX-License-Identifier: GPL-3.0-or-later
// Editing metadata in the window: read-only until Edit, type-aware edits in the tree (enums as
// named choices), array elements, added and removed keys, undo and redo, the chat template in the
// detail pane with its live check, Save in place and Save As with the reload and the verdict.
#include "app/explorer/main_window.h"
#include "core/format/gguf_file.h"
#include "tests/support/test_paths.h"
#include "ui/common/message_bar.h"
#include "ui/metadata/metadata_editor.h"
#include "ui/metadata/metadata_filter_proxy.h"
#include "ui/metadata/metadata_page.h"
#include "ui/metadata/metadata_tree_model.h"
#include "ui/metadata/metadata_value_delegate.h"
#include "ui/shell/document.h"

#include <QAbstractItemModelTester>
#include <QCryptographicHash>
#include <QFile>
#include <QPlainTextEdit>
#include <QTemporaryDir>
#include <QTreeView>
#include <QUndoStack>
#include <QtTest>

namespace {

const QString kSample = gguf::test::sampleModel();

// The value column of `key` (or of its element `element`) as the page's view shows it.
QModelIndex valueIndex(MetadataPage &page, const QString &key, int element = -1)
{
    QModelIndex source = page.model()->indexOfKey(key);
    if (element >= 0) {
        while (page.model()->rowCount(source) <= element && page.model()->canFetchMore(source))
            page.model()->fetchMore(source);
        source = page.model()->index(element, 0, source);
    }
    return page.proxy()->mapFromSource(source.siblingAtColumn(MetadataTreeModel::ValueColumn));
}

QByteArray tensorsHash(const gguf::GgufFile &f)
{
    QCryptographicHash h(QCryptographicHash::Sha256);
    for (const gguf::TensorInfo &t : f.tensors()) {
        const auto b = f.tensorBytes(t);
        h.addData(QByteArrayView(b.data(), static_cast<qsizetype>(b.size())));
    }
    return h.result().toHex();
}

} // namespace

class TestMetadataEdit : public QObject {
    Q_OBJECT

private slots:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        m_path = m_dir->filePath(QStringLiteral("model.gguf"));
        QVERIFY(QFile::copy(kSample, m_path));
        QVERIFY(QFile::setPermissions(m_path, QFile::ReadOwner | QFile::WriteOwner));
        m_file = gguf::GgufFile::open(m_path.toStdString()).file;
        QVERIFY(m_file);
    }

    void readOnlyUntilEdit()
    {
        MetadataPage page;
        QAbstractItemModelTester tester(page.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        page.setFile(m_file);
        const QModelIndex name = valueIndex(page, "general.name");
        QVERIFY(!(name.flags() & Qt::ItemIsEditable));
        QVERIFY(!page.proxy()->setData(name, "x"));
        QVERIFY(page.detailEditor()->isReadOnly());
        page.setEditing(true);
        QVERIFY(name.flags() & Qt::ItemIsEditable);
        page.setEditing(false);
        QVERIFY(!(name.flags() & Qt::ItemIsEditable));
    }

    void editsByTypeWithUndo()
    {
        MetadataPage page;
        QAbstractItemModelTester tester(page.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        page.setFile(m_file);
        page.setEditing(true);
        QAbstractItemModel *view = page.proxy();
        const QModelIndex ctx = valueIndex(page, "llama.context_length");
        // a UINT32 takes numbers in range only
        QVERIFY(!view->setData(ctx, "-5"));
        QVERIFY(page.model()->lastEditError().contains("0 to 4294967295"));
        QVERIFY(!view->setData(ctx, "lots"));
        QVERIFY(view->setData(ctx, "4096"));
        QCOMPARE(ctx.data().toString(), QStringLiteral("4096"));
        QCOMPARE(ctx.siblingAtColumn(MetadataTreeModel::TypeColumn).data().toString(), QStringLiteral("UINT32"));
        QVERIFY(ctx.data(MetadataTreeModel::PendingRole).toBool());
        QVERIFY(ctx.data(Qt::FontRole).value<QFont>().bold());
        QCOMPARE(page.pendingChanges(), QStringList{"llama.context_length: 2048 → 4096"});
        // a float keeps its type and its exact value
        const QModelIndex eps = valueIndex(page, "llama.attention.layer_norm_rms_epsilon");
        QVERIFY(view->setData(eps, "1e-06"));
        QCOMPARE(eps.data(Qt::EditRole).toString(), QStringLiteral("1e-06"));
        QCOMPARE(page.editor()->changes().find("llama.attention.layer_norm_rms_epsilon")->value.type,
                 gguf::ValueType::Float32);
        QCOMPARE(page.pendingChanges().size(), 2);
        // undo and redo, one step each
        page.editor()->undoStack()->undo();
        QCOMPARE(page.pendingChanges().size(), 1);
        page.editor()->undoStack()->undo();
        QVERIFY(page.pendingChanges().isEmpty());
        QCOMPARE(ctx.data().toString(), QStringLiteral("2048"));
        QVERIFY(!ctx.data(MetadataTreeModel::PendingRole).toBool());
        page.editor()->undoStack()->redo();
        QCOMPARE(ctx.data().toString(), QStringLiteral("4096"));
        // setting the file's own value again is no change
        QVERIFY(view->setData(ctx, "2048"));
        QVERIFY(page.pendingChanges().isEmpty());
    }

    void enumsAreNamedChoices()
    {
        MetadataPage page;
        page.setFile(m_file);
        page.setEditing(true);
        const auto fileTypes = MetadataValueDelegate::choices(valueIndex(page, "general.file_type"));
        QVERIFY(fileTypes.contains(qMakePair(qint64(15), QStringLiteral("Q4_K_M (15)"))));
        QVERIFY(fileTypes.contains(qMakePair(qint64(7), QStringLiteral("Q8_0 (7)"))));
        const auto tokenTypes = MetadataValueDelegate::choices(valueIndex(page, "tokenizer.ggml.token_type", 3));
        QVERIFY(tokenTypes.contains(qMakePair(qint64(6), QStringLiteral("byte (6)"))));
        QCOMPARE(MetadataValueDelegate::choices(valueIndex(page, "tokenizer.ggml.add_bos_token")).size(), 2);
        QVERIFY(MetadataValueDelegate::choices(valueIndex(page, "llama.context_length")).isEmpty());
        // the delegate's editor for an enum is a list of those names
        MetadataValueDelegate delegate;
        std::unique_ptr<QWidget> editor(
            delegate.createEditor(page.view(), QStyleOptionViewItem(), valueIndex(page, "general.file_type")));
        QCOMPARE(QString(editor->metaObject()->className()), QStringLiteral("QComboBox"));
    }

    void editsArrayElementsKeepingTheirType()
    {
        MetadataPage page;
        page.setFile(m_file);
        page.setEditing(true);
        QAbstractItemModel *view = page.proxy();
        QVERIFY(view->setData(valueIndex(page, "tokenizer.ggml.tokens", 5), "<my-token>"));
        QVERIFY(view->setData(valueIndex(page, "tokenizer.ggml.token_type", 5), "4"));
        QVERIFY(!view->setData(valueIndex(page, "tokenizer.ggml.scores", 5), "not a float"));
        QVERIFY(valueIndex(page, "tokenizer.ggml.tokens", 5).data(MetadataTreeModel::PendingRole).toBool());
        QVERIFY(!valueIndex(page, "tokenizer.ggml.tokens", 6).data(MetadataTreeModel::PendingRole).toBool());
        QVERIFY(valueIndex(page, "tokenizer.ggml.tokens").data().toString().contains("1 element changed"));
        QCOMPARE(page.pendingChanges().size(), 2);

        QSignalSpy saved(page.editor(), &MetadataEditor::saved);
        const QString out = m_dir->filePath("elements.gguf");
        page.saveAs(out);
        QVERIFY(saved.wait(10000));
        const auto written = gguf::GgufFile::open(out.toStdString()).file;
        QVERIFY(written && written->complete());
        const gguf::ArrayRef tokens = written->value("tokenizer.ggml.tokens").array();
        QCOMPARE(tokens.elementType(), gguf::ValueType::String);
        QCOMPARE(tokens.stringAt(5), "<my-token>");
        QCOMPARE(tokens.stringAt(6), m_file->value("tokenizer.ggml.tokens").array().stringAt(6));
        const gguf::ArrayRef types = written->value("tokenizer.ggml.token_type").array();
        QCOMPARE(types.elementType(), gguf::ValueType::Int32);
        QCOMPARE(types.at(5).toInt(), std::optional<int64_t>(4));
        QCOMPARE(tensorsHash(*written), tensorsHash(*m_file));
    }

    void addsRemovesAndChecksTheTemplate()
    {
        MetadataPage page;
        QAbstractItemModelTester tester(page.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        page.setFile(m_file);
        page.setEditing(true);
        QVERIFY(!page.addKey("my.count", "uint16", "70000").isEmpty()); // out of range
        QVERIFY(!page.addKey("general.alignment", "UINT32", "64").isEmpty());
        QCOMPARE(page.addKey("my.count", "UINT16", "7"), QString());
        QCOMPARE(page.addKey("my.list", "ARRAY[INT8]", "[1, -2]"), QString());
        const QModelIndex added = valueIndex(page, "my.count");
        QVERIFY(added.isValid());
        QCOMPARE(added.data().toString(), QStringLiteral("7"));
        QCOMPARE(added.siblingAtColumn(MetadataTreeModel::TypeColumn).data().toString(), QStringLiteral("UINT16"));

        // remove a key: struck out, listed, undoable
        page.view()->setCurrentIndex(valueIndex(page, "general.description").siblingAtColumn(0));
        QCOMPARE(page.removeSelectedKey(), QString());
        QCOMPARE(valueIndex(page, "general.description").data().toString(), QStringLiteral("(removed)"));
        QVERIFY(valueIndex(page, "general.description").data(Qt::FontRole).value<QFont>().strikeOut());

        // the chat template: added, then edited in the detail pane with the live check
        QCOMPARE(page.addKey("tokenizer.chat_template", "STRING", "x"), QString());
        page.view()->setCurrentIndex(valueIndex(page, "tokenizer.chat_template").siblingAtColumn(0));
        QVERIFY(!page.detailEditor()->isReadOnly());
        page.detailEditor()->setPlainText("{% for m in messages %}{{ m.content }}");
        QTRY_VERIFY_WITH_TIMEOUT(page.templateCheck().startsWith(QStringLiteral("✘")), 5000);
        QVERIFY2(page.templateCheck().contains("line 1"), qPrintable(page.templateCheck()));
        page.detailEditor()->setPlainText("{% for m in messages %}\n{{ m.content }}\n{% endfor %}");
        QTRY_VERIFY_WITH_TIMEOUT(page.templateCheck().startsWith(QStringLiteral("✔")), 5000);
        QCOMPARE(page.applyDetailText(), QString());
        QCOMPARE(page.editor()->valueOf("tokenizer.chat_template")->text,
                 std::string("{% for m in messages %}\n{{ m.content }}\n{% endfor %}"));
        QCOMPARE(page.pendingChanges().size(), 4);

        // the detail pane gives back the bytes it was given (a no-break space stays one); strings it
        // would change (carriage returns) are not edited there
        QCOMPARE(page.addKey("my.nbsp", "STRING", QStringLiteral("a\u00a0b")), QString());
        page.view()->setCurrentIndex(valueIndex(page, "my.nbsp").siblingAtColumn(0));
        QVERIFY(!page.detailEditor()->isReadOnly());
        QCOMPARE(page.applyDetailText(), QString());
        QCOMPARE(page.editor()->valueOf("my.nbsp")->text, std::string("a\xC2\xA0"
                                                                      "b"));
        QCOMPARE(page.addKey("my.crlf", "STRING", QStringLiteral("a\r\nb")), QString());
        page.view()->setCurrentIndex(valueIndex(page, "my.crlf").siblingAtColumn(0));
        QVERIFY(page.detailEditor()->isReadOnly());
        QVERIFY(page.applyDetailText().contains("gguf-inspect set"));
        page.editor()->undoStack()->undo();
        page.editor()->undoStack()->undo();

        // Discard is one step: undo brings every change back
        page.editor()->discard();
        QVERIFY(page.pendingChanges().isEmpty());
        QVERIFY(!page.model()->indexOfKey("my.count").isValid());
        QVERIFY(page.detailText().isEmpty()); // the added template on show went with it
        page.editor()->undoStack()->undo();
        QCOMPARE(page.pendingChanges().size(), 4);
        QVERIFY(page.model()->indexOfKey("my.count").isValid());
    }

    void savesInPlaceAndReloads()
    {
        MainWindow window;
        QSignalSpy shown(&window, &MainWindow::modelShown);
        window.openFile(m_path);
        QVERIFY(shown.wait(10000));
        MetadataPage *page = window.page<MetadataPage>();
        page->setEditing(true);
        // same length: the header keeps its size, so only it is written
        QVERIFY(page->proxy()->setData(valueIndex(*page, "general.name"), "tiny-llama-EDITED-tied"));
        page->save();
        QVERIFY(shown.wait(10000)); // reloaded
        QTRY_VERIFY(window.messageBar()->text().contains("Saved"));
        QVERIFY2(window.messageBar()->text().contains("saved in place"), qPrintable(window.messageBar()->text()));
        QVERIFY2(window.messageBar()->text().contains("llama.cpp would load it"),
                 qPrintable(window.messageBar()->text()));
        QVERIFY(page->pendingChanges().isEmpty());
        QCOMPARE(valueIndex(*page, "general.name").data().toString(), QStringLiteral("\"tiny-llama-EDITED-tied\""));
        const auto onDisk = gguf::GgufFile::open(m_path.toStdString()).file;
        QCOMPARE(onDisk->value("general.name").toStringView(), "tiny-llama-EDITED-tied");
        QCOMPARE(onDisk->fileSize(), m_file->fileSize());
        QCOMPARE(tensorsHash(*onDisk), tensorsHash(*m_file));

        // a longer value needs a copy; Save As opens the new file
        QVERIFY(page->proxy()->setData(valueIndex(*page, "general.name"), QString(300, 'n')));
        const QString other = m_dir->filePath("other.gguf");
        page->saveAs(other);
        QVERIFY(shown.wait(10000));
        QCOMPARE(window.document()->path(), other);
        QVERIFY(window.messageBar()->text().contains("written by a copy"));
        QCOMPARE(gguf::GgufFile::open(m_path.toStdString()).file->value("general.name").toStringView(),
                 "tiny-llama-EDITED-tied"); // Save As left the first file alone
    }

    void reportsAFailedSave()
    {
        MainWindow window;
        QSignalSpy shown(&window, &MainWindow::modelShown);
        window.openFile(m_path);
        QVERIFY(shown.wait(10000));
        MetadataPage *page = window.page<MetadataPage>();
        page->setEditing(true);
        QVERIFY(page->proxy()->setData(valueIndex(*page, "general.name"), "x"));
        const QByteArray before = [&] {
            QFile f(m_path);
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        }();
        QSignalSpy failed(page->editor(), &MetadataEditor::saveFailed);
        page->saveAs(m_dir->filePath("no/such/folder/x.gguf"));
        QVERIFY(failed.wait(10000));
        QVERIFY(window.messageBar()->text().contains("Could not save"));
        QVERIFY(window.messageBar()->text().contains("folder does not exist"));
        QCOMPARE(page->pendingChanges().size(), 1); // nothing lost
        QFile f(m_path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), before);
    }

    void warnsOfALeftoverBackup()
    {
        // what an in-place save that was killed between its steps leaves beside the file
        QFile backup(m_path + ".header-backup");
        QVERIFY(backup.open(QIODevice::WriteOnly));
        backup.write("old header");
        backup.close();
        MainWindow window;
        QSignalSpy shown(&window, &MainWindow::modelShown);
        window.openFile(m_path);
        QVERIFY(shown.wait(10000));
        QVERIFY2(window.messageBar()->text().contains("did not finish"), qPrintable(window.messageBar()->text()));
        QVERIFY(window.messageBar()->text().contains("model.gguf.header-backup"));
        // and an in-place save waits until it is dealt with
        MetadataPage *page = window.page<MetadataPage>();
        page->setEditing(true);
        QVERIFY(page->proxy()->setData(valueIndex(*page, "general.name"), "x"));
        QSignalSpy failed(page->editor(), &MetadataEditor::saveFailed);
        page->save();
        QVERIFY(failed.wait(10000));
        QVERIFY(failed.first().first().toString().contains("header backup"));
    }

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_path;
    std::shared_ptr<const gguf::GgufFile> m_file;
};

QTEST_MAIN(TestMetadataEdit)
#include "tst_metadata_edit.moc"
