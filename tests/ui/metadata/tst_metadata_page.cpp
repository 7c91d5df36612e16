// SPDX-License-Identifier: GPL-3.0-or-later
// MetadataPage: recursive filtering, the detail pane, copying key and value, the byte range of the
// selection, and its saved state.
#include "core/format/gguf_file.h"
#include "tests/support/test_paths.h"
#include "ui/metadata/metadata_filter_proxy.h"
#include "ui/metadata/metadata_page.h"
#include "ui/metadata/metadata_tree_model.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QTreeView>
#include <QtTest>

namespace {

QStringList visibleKeys(const QAbstractItemModel &model)
{
    QStringList keys;
    for (int g = 0; g < model.rowCount(); ++g) {
        const QModelIndex group = model.index(g, 0);
        for (int k = 0; k < model.rowCount(group); ++k)
            keys << model.index(k, 0, group).data().toString();
    }
    return keys;
}

QAction *action(const QWidget *widget, const QString &text)
{
    for (QAction *a : widget->actions())
        if (a->text().remove(u'&') == text)
            return a;
    return nullptr;
}

} // namespace

class TestMetadataPage : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        m_file = gguf::GgufFile::open(gguf::test::sampleModel().toStdString()).file;
        QVERIFY(m_file);
    }

    void filters_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("keys");
        QTest::newRow("key part") << "head_count"
                                  << QStringList{"llama.attention.head_count", "llama.attention.head_count_kv"};
        QTest::newRow("decoded value") << "Q4_K_M" << QStringList{"general.file_type"};
        QTest::newRow("token text") << "</s>" << QStringList{"tokenizer.ggml.tokens", "tokenizer.ggml.eos_token_id"};
        QTest::newRow("type") << "FLOAT32"
                              << QStringList{"tokenizer.ggml.scores", "llama.attention.layer_norm_rms_epsilon",
                                             "llama.rope.freq_base"};
        QTest::newRow("group shows all its keys")
            << "llama.rope" << QStringList{"llama.rope.freq_base", "llama.rope.dimension_count"};
        QTest::newRow("nothing") << "no-such-key" << QStringList{};
    }

    void filters()
    {
        QFETCH(QString, text);
        QFETCH(QStringList, keys);
        MetadataPage page;
        QAbstractItemModelTester tester(page.proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        page.setFile(m_file);
        page.setFilterText(text);
        QCOMPARE(visibleKeys(*page.proxy()), keys);
        page.setFilterText(QString());
        QCOMPARE(visibleKeys(*page.proxy()).size(), 25);
    }

    void selectionShowsDetailsAndByteRange()
    {
        MetadataPage page;
        page.setFile(m_file);
        QSignalSpy range(&page, &Page::linkActivated);
        const QModelIndex key =
            page.proxy()->mapFromSource(page.model()->indexOfKey(QStringLiteral("general.description")));
        page.view()->setCurrentIndex(key);
        QCOMPARE(range.count(), 1);
        const gguf::MetadataEntry *entry = m_file->findMetadata("general.description");
        // the entry's bytes in the primary file, followed where the pages are
        QCOMPARE(range.first().at(0).value<Link>(),
                 Link::bytes(Link::kPrimaryShard, entry->offset, entry->end() - entry->offset).inBackground());
        const std::string_view text = entry->value.toStringView();
        QCOMPARE(page.detailText(), QString::fromUtf8(text.data(), qsizetype(text.size())));
    }

    void copiesKeyAndValue()
    {
        MetadataPage page;
        page.setFile(m_file);
        page.view()->setCurrentIndex(
            page.proxy()->mapFromSource(page.model()->indexOfKey(QStringLiteral("general.name"))));
        QAction *copyKey = action(page.view(), QStringLiteral("Copy Key"));
        QAction *copyValue = action(page.view(), QStringLiteral("Copy Value"));
        QVERIFY(copyKey && copyValue);
        QCOMPARE(copyValue->shortcut(), QKeySequence(QKeySequence::Copy));
        copyKey->trigger();
        QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("general.name"));
        copyValue->trigger();
        QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("tiny-llama-oracle-tied"));
    }

    void restoresState()
    {
        QByteArray state;
        {
            MetadataPage page;
            page.resize(800, 600);
            page.view()->setColumnWidth(0, 123);
            state = page.saveState();
        }
        MetadataPage restored;
        restored.restoreState(state);
        QCOMPARE(restored.view()->columnWidth(0), 123);
        restored.restoreState(QByteArray("garbage")); // ignored
        QCOMPARE(restored.view()->columnWidth(0), 123);
    }

private:
    std::shared_ptr<const gguf::GgufFile> m_file;
};

QTEST_MAIN(TestMetadataPage)
#include "tst_metadata_page.moc"
