// SPDX-License-Identifier: GPL-3.0-or-later
// The link from the metadata tree to the Tokenizer page in the explorer window: activating a
// tokenizer.ggml.*_token_id key (Enter or a double click) or an element of tokenizer.ggml.tokens
// shows the Tokenizer page with that token selected; other keys do nothing.
#include "app/explorer/main_window.h"
#include "tests/support/test_paths.h"
#include "ui/metadata/metadata_filter_proxy.h"
#include "ui/metadata/metadata_page.h"
#include "ui/metadata/metadata_tree_model.h"
#include "ui/shell/document.h"
#include "ui/tokenizer/tokenizer_page.h"
#include "ui/tokenizer/vocabulary_view.h"

#include <QSettings>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

namespace {

QString realPath(const QString &name)
{
    return gguf::test::dataPath(u"real/") + name;
}

// The token links among what `spy` (on Page::linkActivated) saw: a selection also links its bytes.
QList<Link> tokenLinks(const QSignalSpy &spy)
{
    QList<Link> out;
    for (const QList<QVariant> &args : spy)
        if (const Link link = args.first().value<Link>(); link.target == Link::Target::Token)
            out << link;
    return out;
}

} // namespace

class TestTokenizerLinks : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        // the window reads and writes its settings: keep them away from the user's
        QVERIFY(m_settingsDir.isValid());
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir.path());
        QCoreApplication::setOrganizationName(QStringLiteral("gguf-explorer-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_tokenizer_links"));
    }

    void metadataActivationSelectsToken()
    {
        MainWindow window;
        window.resize(1100, 760);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy shown(&window, &MainWindow::modelShown);
        window.openFile(realPath(QStringLiteral("ggml-vocab-phi-3.gguf")));
        QVERIFY(shown.wait(10000));
        MetadataPage *metadata = window.page<MetadataPage>();
        TokenizerPage *tokenizer = window.page<TokenizerPage>();
        window.pages()->setCurrentWidget(metadata);
        QTreeView *tree = metadata->view();
        const auto proxyIndexOf = [metadata](const QString &key) {
            return metadata->proxy()->mapFromSource(metadata->model()->indexOfKey(key));
        };

        // Enter on tokenizer.ggml.eos_token_id
        QSignalSpy activated(metadata, &Page::linkActivated);
        const QModelIndex eos = proxyIndexOf(QStringLiteral("tokenizer.ggml.eos_token_id"));
        QVERIFY(eos.isValid());
        tree->setCurrentIndex(eos);
        tree->setFocus();
        QTest::keyClick(tree, Qt::Key_Return);
        QCOMPARE(tokenLinks(activated), QList<Link>{Link::tokenId(32000)});
        QCOMPARE(window.pages()->currentWidget(), tokenizer);
        QTRY_COMPARE(tokenizer->vocabularyView()->currentToken(), qint64(32000));

        // a double click on tokenizer.ggml.bos_token_id
        window.pages()->setCurrentWidget(metadata);
        const QModelIndex bos = proxyIndexOf(QStringLiteral("tokenizer.ggml.bos_token_id"));
        tree->scrollTo(bos);
        const QPoint at = tree->visualRect(bos).center();
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, at);
        QTest::mouseDClick(tree->viewport(), Qt::LeftButton, {}, at);
        QCOMPARE(window.pages()->currentWidget(), tokenizer);
        QTRY_COMPARE(tokenizer->vocabularyView()->currentToken(), qint64(1));

        // element 13 of tokenizer.ggml.tokens
        window.pages()->setCurrentWidget(metadata);
        const QModelIndex tokens = proxyIndexOf(QStringLiteral("tokenizer.ggml.tokens"));
        tree->expand(tokens);
        if (metadata->proxy()->canFetchMore(tokens))
            metadata->proxy()->fetchMore(tokens);
        const QModelIndex element = metadata->proxy()->index(13, 0, tokens);
        QVERIFY(element.isValid());
        tree->setCurrentIndex(element);
        QTest::keyClick(tree, Qt::Key_Return);
        QCOMPARE(window.pages()->currentWidget(), tokenizer);
        QTRY_COMPARE(tokenizer->vocabularyView()->currentToken(), qint64(13));

        // keys that name no token do nothing
        window.pages()->setCurrentWidget(metadata);
        activated.clear();
        tree->setCurrentIndex(proxyIndexOf(QStringLiteral("tokenizer.ggml.add_bos_token")));
        QTest::keyClick(tree, Qt::Key_Return);
        QCOMPARE(tokenLinks(activated), QList<Link>{});
        QCOMPARE(window.pages()->currentWidget(), metadata);
    }

private:
    QTemporaryDir m_settingsDir;
};

QTEST_MAIN(TestTokenizerLinks)
#include "tst_tokenizer_links.moc"
