// SPDX-License-Identifier: GPL-3.0-or-later
// The Tokenizer page on llama.cpp's real vocabularies: the summary, searches and header sorting
// run on a worker, selecting tokens (also when a search hides them), the special tokens panel,
// the merges producing a token, the merges table, which sections a file has. Screenshots of every
// section go to $GGUF_SCREENSHOT_DIR when set.
#include "core/format/gguf_file.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/screenshots.h"
#include "tests/support/test_paths.h"
#include "ui/tokenizer/chat_template_view.h"
#include "ui/tokenizer/merges_model.h"
#include "ui/tokenizer/merges_view.h"
#include "ui/tokenizer/token_details_panel.h"
#include "ui/tokenizer/token_search_bar.h"
#include "ui/tokenizer/tokenizer_page.h"
#include "ui/tokenizer/vocabulary_model.h"
#include "ui/tokenizer/vocabulary_view.h"

#include <QAction>
#include <QClipboard>
#include <QHeaderView>
#include <QLineEdit>
#include <QTabWidget>
#include <QTableView>
#include <QTreeWidget>
#include <QtTest>

using namespace gguf;
using namespace gguf::test;

namespace {

std::shared_ptr<const GgufFile> openReal(const QString &name)
{
    return GgufFile::open((gguf::test::dataPath(u"real/") + name).toStdString()).file;
}

TokenSearch::Query query(TokenSearch::Mode mode, const QString &text,
                         TokenSearch::Field field = TokenSearch::Field::StoredOrDecoded)
{
    return TokenSearch::Query{mode, text.toStdString(), field, false, TokenSearch::kAnyType};
}

// Runs `action` and waits until `view` shows the result of the search it started (which may
// have been shown at once, without a worker).
template <typename View, typename Action> bool searched(View *view, Action action)
{
    QSignalSpy finished(view, &View::searchFinished);
    action();
    return !finished.isEmpty() || finished.wait(10000);
}

// Waits for the summary's token-type counts, computed on a worker.
bool counted(const TokenizerPage &page)
{
    return QTest::qWaitFor([&page] { return !page.summaryText().contains(QStringLiteral("counting")); }, 10000);
}

void screenshot(QWidget &widget, const QString &name)
{
    QVERIFY(gguf::test::saveScreenshot(widget, QStringLiteral("tokenizer-") + name));
}

} // namespace

class TestTokenizerPage : public QObject {
    Q_OBJECT

private slots:
    void summary_data();
    void summary();
    void searchRunsOnAWorker();
    void badQuerySaysWhy();
    void sortByHeader();
    void selectTokenHiddenBySearch();
    void copyingTokens();
    void specialTokensPanel();
    void mergesProducingAToken();
    void mergesTable();
    void sectionsFollowTheFile();
    void fileWithoutVocabulary();
    void screenshots_data();
    void screenshots();
};

void TestTokenizerPage::summary_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QStringList>("fragments");
    const QLocale locale;
    QTest::newRow("gpt-2") << "ggml-vocab-gpt-2.gguf"
                           << QStringList{"gpt2 tokenizer",
                                          "pre-tokenizer gpt-2",
                                          locale.toString(50257) + " tokens",
                                          locale.toString(50000) + " merge rules",
                                          "GPT-2 byte-level",
                                          locale.toString(50256) + " normal · 1 control",
                                          "no scores",
                                          "Flags: none"};
    QTest::newRow("phi-3")
        << "ggml-vocab-phi-3.gguf"
        << QStringList{"llama tokenizer",
                       "no merge rules",
                       "SentencePiece",
                       locale.toString(31741) + " normal · 256 byte · 13 control · 1 user-defined · 53 unknown",
                       "scores from -1e+09 to 0",
                       "add_bos_token = true",
                       "add_eos_token = false"};
    QTest::newRow("bert") << "ggml-vocab-bert-bge.gguf"
                          << QStringList{"bert tokenizer", "pre-tokenizer bert-bge", "WordPiece",
                                         locale.toString(30517) + " normal · 5 control"};
}

void TestTokenizerPage::summary()
{
    QFETCH(QString, file);
    QFETCH(QStringList, fragments);
    TokenizerPage page;
    page.setFile(openReal(file));
    QVERIFY(counted(page));
    for (const QString &fragment : fragments)
        QVERIFY2(page.summaryText().contains(fragment), qPrintable(page.summaryText() + " / " + fragment));
}

void TestTokenizerPage::searchRunsOnAWorker()
{
    TokenizerPage page;
    page.setFile(openReal(QStringLiteral("ggml-vocab-llama-spm.gguf")));
    VocabularyView *view = page.vocabularyView();
    QCOMPARE(view->model()->rowCount(), 32000);
    // typing a space finds the ▁ tokens (and <0x20>)
    QVERIFY(searched(view, [view] { view->searchBar()->lineEdit()->setText(QStringLiteral(" ")); }));
    QCOMPARE(view->model()->rowCount(), 16410);
    QVERIFY(view->model()->rowOf(29871) >= 0);
    QVERIFY2(view->statusText().startsWith(
                 QStringLiteral("%1 of %2 tokens match").arg(QLocale().toString(16410), QLocale().toString(32000))),
             qPrintable(view->statusText()));
    // a newer query replaces one still running: only the last result is shown
    QVERIFY(searched(view, [view] {
        view->setQuery(query(TokenSearch::Mode::Text, QStringLiteral("the")));
        view->setQuery(query(TokenSearch::Mode::Id, QStringLiteral("13, 278")));
    }));
    QTRY_VERIFY(!view->isSearching());
    QCOMPARE(view->model()->rowCount(), 2);
    QCOMPARE(*view->model()->idAt(1), 278u);
}

void TestTokenizerPage::badQuerySaysWhy()
{
    TokenizerPage page;
    page.setFile(openReal(QStringLiteral("ggml-vocab-gpt-2.gguf")));
    VocabularyView *view = page.vocabularyView();
    QVERIFY(
        searched(view, [view] { view->setQuery(query(TokenSearch::Mode::RegularExpression, QStringLiteral("(a"))); }));
    QVERIFY(view->statusText().startsWith(QStringLiteral("Bad regular expression")));
    QVERIFY(!view->searchBar()->lineEdit()->toolTip().isEmpty());
    QVERIFY(
        searched(view, [view] { view->setQuery(query(TokenSearch::Mode::RegularExpression, QStringLiteral("(a)"))); }));
    QVERIFY(view->searchBar()->lineEdit()->toolTip().isEmpty());
}

void TestTokenizerPage::sortByHeader()
{
    TokenizerPage page;
    page.setFile(openReal(QStringLiteral("ggml-vocab-llama-spm.gguf")));
    VocabularyView *view = page.vocabularyView();
    QVERIFY(searched(view, [view] { view->view()->sortByColumn(VocabularyModel::ScoreColumn, Qt::DescendingOrder); }));
    const VocabularyModel *model = view->model();
    QCOMPARE(model->rowCount(), 32000);
    const auto scoreAt = [model](int row) {
        return model->index(row, VocabularyModel::ScoreColumn).data().toString().toDouble();
    };
    QCOMPARE(scoreAt(0), 0.0);
    QCOMPARE(scoreAt(31999), -1e9);
    QCOMPARE(*model->idAt(0), 258u); // among equal scores, descending ids
    QVERIFY2(view->statusText().contains(QStringLiteral("sorted by score (descending)")),
             qPrintable(view->statusText()));
    // decoded text has no order of its own: the indicator stays on Score
    view->view()->sortByColumn(VocabularyModel::DecodedColumn, Qt::AscendingOrder);
    QCOMPARE(view->view()->horizontalHeader()->sortIndicatorSection(), int(VocabularyModel::ScoreColumn));
    QVERIFY(!view->isSearching());
    // a search keeps the order
    QVERIFY(searched(view, [view] { view->setQuery(query(TokenSearch::Mode::Id, QStringLiteral("13, 278, 29871"))); }));
    QCOMPARE(*model->idAt(0), 13u);    // 0
    QCOMPARE(*model->idAt(1), 278u);   // -19
    QCOMPARE(*model->idAt(2), 29871u); // -1e9
}

void TestTokenizerPage::selectTokenHiddenBySearch()
{
    TokenizerPage page;
    page.setFile(openReal(QStringLiteral("ggml-vocab-gpt-2.gguf")));
    VocabularyView *view = page.vocabularyView();
    QVERIFY(page.selectToken(29871));
    QCOMPARE(view->currentToken(), qint64(29871));
    QVERIFY(
        searched(view, [view] { view->setQuery(query(TokenSearch::Mode::Text, QStringLiteral("no such token"))); }));
    QCOMPARE(view->model()->rowCount(), 0);
    QCOMPARE(view->currentToken(), qint64(-1));
    // the search hides token 220: it is cleared, then the token is selected
    QVERIFY(searched(view, [&page] { QVERIFY(page.selectToken(220)); }));
    QTRY_COMPARE(view->currentToken(), qint64(220));
    QVERIFY(view->searchBar()->lineEdit()->text().isEmpty());
    QCOMPARE(view->model()->rowCount(), 50257);
    QVERIFY(page.detailsPanel()->detailsText().contains(QStringLiteral("20 (1 byte)")));
    QVERIFY(!page.selectToken(50257));
}

void TestTokenizerPage::copyingTokens()
{
    TokenizerPage page;
    page.setFile(openReal(QStringLiteral("ggml-vocab-gpt-2.gguf")));
    QVERIFY(page.selectToken(29871));
    QTableView *table = page.vocabularyView()->view();
    QStringList copied;
    for (QAction *action : table->actions()) {
        QApplication::clipboard()->clear();
        action->trigger();
        copied << action->text().remove(u'&') + u'=' + QApplication::clipboard()->text();
    }
    QCOMPARE(copied,
             (QStringList{QString::fromUtf8("Copy Token=\u0120mortar"), "Copy Decoded Text= mortar", "Copy Id=29871"}));
}

void TestTokenizerPage::specialTokensPanel()
{
    TokenizerPage page;
    page.setFile(openReal(QStringLiteral("ggml-vocab-phi-3.gguf")));
    QTreeWidget *special = page.detailsPanel()->specialTokens();
    QCOMPARE(special->topLevelItemCount(), 4);
    QStringList rows;
    for (int i = 0; i < special->topLevelItemCount(); ++i)
        rows << special->topLevelItem(i)->text(0) + u'=' + special->topLevelItem(i)->text(1) + u'=' +
                    special->topLevelItem(i)->text(2);
    QCOMPARE(rows,
             (QStringList{"bos=1=<s>", "eos=32000=<|endoftext|>", "unknown=0=<unk>", "padding=32000=<|endoftext|>"}));
    page.resize(1000, 700);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    const QRect rect = special->visualItemRect(special->topLevelItem(1));
    QTest::mouseClick(special->viewport(), Qt::LeftButton, {}, rect.center());
    QCOMPARE(page.vocabularyView()->currentToken(), qint64(32000));
    const QString details = page.detailsPanel()->detailsText();
    QVERIFY2(details.contains(QStringLiteral("eos, padding")), qPrintable(details));
    QVERIFY(details.contains(QStringLiteral("<|endoftext|>")));
    QVERIFY(details.contains(QStringLiteral("control")));
}

void TestTokenizerPage::mergesProducingAToken()
{
    TokenizerPage page;
    page.setFile(openReal(QStringLiteral("ggml-vocab-gpt-2.gguf")));
    TokenDetailsPanel *details = page.detailsPanel();
    QSignalSpy shown(details, &TokenDetailsPanel::producersShown);
    QVERIFY(page.selectToken(262)); // Ġthe
    QVERIFY(shown.wait(10000));     // the index is built on a worker on first use
    QVERIFY2(details->producersText().contains(QString::fromUtf8("#6 \u0120t + he")),
             qPrintable(details->producersText()));
    // the index is kept: the next token needs no worker
    shown.clear();
    QVERIFY(page.selectToken(220));
    QCOMPARE(shown.count(), 1);
    QCOMPARE(details->producersText(), QStringLiteral("No merge rule produces this token."));
    QVERIFY(!details->isIndexing());
    // the rule's link opens it in the merges table
    emit details->mergeActivated(6);
    QCOMPARE(page.sections()->currentWidget(), page.mergesView());
    QCOMPARE(page.mergesView()->view()->currentIndex().row(), 6);
}

void TestTokenizerPage::mergesTable()
{
    TokenizerPage page;
    page.setFile(openReal(QStringLiteral("ggml-vocab-gpt-2.gguf")));
    MergesView *merges = page.mergesView();
    QVERIFY(page.sections()->isTabEnabled(page.sections()->indexOf(merges)));
    QCOMPARE(merges->model()->rowCount(), 50000);
    QVERIFY(searched(merges, [merges] {
        merges->setQuery(
            query(TokenSearch::Mode::RegularExpression, QStringLiteral("^ mortar$"), TokenSearch::Field::Decoded));
    }));
    QCOMPARE(merges->model()->rowCount(), 1);
    QCOMPARE(*merges->model()->rankAt(0), 29615u);
    QVERIFY(
        merges->statusText().startsWith(QStringLiteral("1 of %1 merge rules match").arg(QLocale().toString(50000))));
    // selecting a rule the search hides clears the search
    QVERIFY(searched(merges, [&page] { QVERIFY(page.selectMerge(7)); }));
    QCOMPARE(merges->model()->rowCount(), 50000);
    QCOMPARE(merges->view()->currentIndex().row(), 7);
    // SentencePiece vocabularies have no merges: the section is disabled
    page.setFile(openReal(QStringLiteral("ggml-vocab-llama-spm.gguf")));
    QVERIFY(!page.sections()->isTabEnabled(page.sections()->indexOf(merges)));
    QVERIFY(!page.selectMerge(0));
}

void TestTokenizerPage::sectionsFollowTheFile()
{
    TokenizerPage page;
    QTabWidget *sections = page.sections();
    const int merges = sections->indexOf(page.mergesView());
    const int chat = sections->indexOf(page.chatTemplateView());
    page.setFile(openReal(QStringLiteral("ggml-vocab-phi-3.gguf")));
    QCOMPARE(sections->tabText(0), QStringLiteral("Vocabulary (%1)").arg(QLocale().toString(32064)));
    QVERIFY(!sections->isTabEnabled(merges));
    QVERIFY(sections->isTabEnabled(chat));
    QCOMPARE(sections->tabText(chat), QStringLiteral("Chat template"));
    sections->setCurrentIndex(chat);
    // GPT-2: merges, no template; the disabled section is left
    page.setFile(openReal(QStringLiteral("ggml-vocab-gpt-2.gguf")));
    QCOMPARE(sections->tabText(merges), QStringLiteral("Merges (%1)").arg(QLocale().toString(50000)));
    QVERIFY(sections->isTabEnabled(merges));
    QVERIFY(!sections->isTabEnabled(chat));
    QCOMPARE(sections->currentIndex(), 0);
    // named templates are counted
    GgufBuilder builder;
    builder.kv("tokenizer.ggml.model", V::str("gpt2"))
        .kv("tokenizer.ggml.tokens", V::stringArray({"a", "b",
                                                     "\xC4\xA0"
                                                     "c"}))
        .kv("tokenizer.chat_template", V::str("{{ x }}"))
        .kv("tokenizer.chat_template.rag", V::str("{# rag #}"));
    page.setFile(GgufFile::openBuffer(builder.build().bytes(), "templates.gguf").file);
    QCOMPARE(sections->tabText(chat), QStringLiteral("Chat templates (2)"));
    QCOMPARE(page.vocabularyView()->model()->rowCount(), 3);
    QVERIFY(counted(page));
    QVERIFY(page.summaryText().contains(QStringLiteral("3 without a type")));
}

void TestTokenizerPage::fileWithoutVocabulary()
{
    GgufBuilder builder;
    builder.kv("general.architecture", V::str("llama"));
    const auto file = GgufFile::openBuffer(builder.build().bytes(), "bare.gguf").file;
    QVERIFY(file);
    TokenizerPage page;
    page.setFile(file);
    QVERIFY(page.summaryText().startsWith(QStringLiteral("No tokenizer vocabulary in this file")));
    QCOMPARE(page.vocabularyView()->model()->rowCount(), 0);
    QVERIFY(!page.selectToken(0));
    page.setFile(nullptr);
    QVERIFY(page.summaryText().isEmpty());
}

void TestTokenizerPage::screenshots_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("search");
    QTest::addColumn<quint64>("token");
    QTest::newRow("gpt-2") << "ggml-vocab-gpt-2.gguf" << QString::fromUtf8(" mort") << quint64(29871);
    QTest::newRow("llama-spm") << "ggml-vocab-llama-spm.gguf" << QString() << quint64(13);
    QTest::newRow("phi-3") << "ggml-vocab-phi-3.gguf" << QString() << quint64(32000);
    QTest::newRow("bert-bge") << "ggml-vocab-bert-bge.gguf" << QStringLiteral("ing") << quint64(2075);
}

void TestTokenizerPage::screenshots()
{
    QFETCH(QString, file);
    QFETCH(QString, search);
    QFETCH(quint64, token);
    TokenizerPage page;
    page.resize(1100, 700);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    page.setFile(openReal(file));
    QVERIFY(counted(page));
    VocabularyView *view = page.vocabularyView();
    if (!search.isEmpty())
        QVERIFY(searched(view, [view, search] { view->setQuery(query(TokenSearch::Mode::Text, search)); }));
    QVERIFY(page.selectToken(token));
    QTRY_COMPARE(view->currentToken(), qint64(token));
    QTRY_VERIFY(!page.detailsPanel()->isIndexing());
    const QString name = QString::fromLatin1(QTest::currentDataTag());
    screenshot(page, name + QStringLiteral("-vocabulary"));
    for (QWidget *section :
         {static_cast<QWidget *>(page.mergesView()), static_cast<QWidget *>(page.chatTemplateView())}) {
        const int index = page.sections()->indexOf(section);
        if (!page.sections()->isTabEnabled(index))
            continue;
        page.sections()->setCurrentIndex(index);
        screenshot(page, name + u'-' + page.sections()->tabText(index).section(u' ', 0, 0).toLower());
    }
}

QTEST_MAIN(TestTokenizerPage)
#include "tst_tokenizer_page.moc"
