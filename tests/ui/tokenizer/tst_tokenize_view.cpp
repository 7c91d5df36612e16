// SPDX-License-Identifier: GPL-3.0-or-later
// The Tokenize view of the Tokenizer page on llama.cpp's real vocabularies: ids as llama.cpp gives
// them (the test vectors' values), the toggles, chips with tooltips that lead to the vocabulary,
// counts, long texts on a worker, and files without a tokenizer.
#include "core/format/gguf_file.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/pre_splice.h"
#include "tests/support/screenshots.h"
#include "tests/support/test_paths.h"
#include "ui/tokenizer/token_chips.h"
#include "ui/tokenizer/tokenize_view.h"
#include "ui/tokenizer/tokenizer_page.h"
#include "ui/tokenizer/vocabulary_view.h"

#include <QCheckBox>
#include <QPlainTextEdit>
#include <QTabWidget>
#include <QtTest>

using namespace gguf;

namespace {

std::shared_ptr<const GgufFile> openData(const QString &name)
{
    return GgufFile::open(gguf::test::dataPath(name).toStdString()).file;
}

bool settled(const TokenizeView &view)
{
    return QTest::qWaitFor([&view] { return !view.isBusy(); }, 20000);
}

std::vector<qint32> idsOf(std::initializer_list<qint32> ids)
{
    return ids;
}

} // namespace

class TestTokenizeView : public QObject {
    Q_OBJECT

private slots:
    void idsAndToggles()
    {
        TokenizeView view;
        view.resize(900, 600);
        view.show();
        view.setFile(openData("real/ggml-vocab-gpt-2.gguf"));
        QVERIFY(settled(view));
        QVERIFY(view.editor()->isEnabled());
        QVERIFY(view.notesText().contains("BPE"));
        // from llama.cpp's test vectors (tests/data/tokenizer-tests/ggml-vocab-gpt-2.gguf.out)
        view.setText(QStringLiteral("Hello world"));
        QVERIFY(settled(view));
        QCOMPARE(view.ids(), idsOf({15496, 995}));
        QCOMPARE(view.chips()->chips().size(), 2);
        QCOMPARE(view.chips()->chips()[1].text, QString::fromUtf8("\xC2\xB7world")); // "·world": the space made visible
        QVERIFY(view.countsText().startsWith("2 tokens · 11 characters · 11 bytes · 5.50 characters per token"));

        view.setText(QStringLiteral("<|endoftext|>"));
        QVERIFY(settled(view));
        QVERIFY(view.ids().size() > 1);
        view.parseSpecialBox()->setChecked(true);
        QVERIFY(settled(view));
        QCOMPARE(view.ids(), idsOf({50256}));
        QVERIFY(view.chips()->chips()[0].special);
        view.parseSpecialBox()->setChecked(false);

        // typing: the view follows the editor after a short pause
        view.editor()->setPlainText(QStringLiteral("Hello"));
        QVERIFY(settled(view));
        QCOMPARE(view.ids(), idsOf({15496}));
        QVERIFY(view.countsText().startsWith("1 token · "));
    }

    void addSpecialOnSentencePiece()
    {
        TokenizeView view;
        view.setFile(openData("real/ggml-vocab-llama-spm.gguf"));
        QVERIFY(settled(view));
        view.setText(QString::fromUtf8("ied 4 \xC2\xBD months"));
        QVERIFY(settled(view));
        QCOMPARE(view.ids(), idsOf({474, 287, 29871, 29946, 29871, 30226, 7378}));
        view.addSpecialBox()->setChecked(true);
        QVERIFY(settled(view));
        QCOMPARE(view.ids(), idsOf({1, 474, 287, 29871, 29946, 29871, 30226, 7378}));
    }

    void chipsLeadToTheVocabulary()
    {
        TokenizerPage page;
        page.resize(1000, 700);
        page.show();
        page.setFile(openData("real/ggml-vocab-gpt-2.gguf"));
        TokenizeView *view = page.tokenizeView();
        page.sections()->setCurrentWidget(view);
        QVERIFY(settled(*view));
        view->setText(QStringLiteral("Hello world"));
        QVERIFY(settled(*view));
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        const QString tip = view->chipToolTip(0);
        QVERIFY2(tip.contains("token 15496") && tip.contains("stored: Hello") && tip.contains("bytes: 48 65 6c 6c 6f"),
                 qPrintable(tip));
        QTRY_VERIFY(view->chips()->chipRect(1).isValid());
        QSignalSpy activated(view, &TokenizeView::tokenActivated);
        QTest::mouseClick(view->chips(), Qt::LeftButton, {}, view->chips()->chipRect(1).center());
        QCOMPARE(activated.size(), 1);
        QCOMPARE(activated[0][0].toULongLong(), 995u);
        QVERIFY(page.sections()->currentWidget() != view); // the vocabulary, with token 995 selected
        QVERIFY(gguf::test::saveScreenshot(page, QStringLiteral("tokenize")));
    }

    // A text of a few MB is tokenized on a worker: the view is busy at once and the GUI thread free
    // the tokenizer is built only once the section is shown (or given a text)
    void builtWhenShown()
    {
        TokenizeView view;
        view.setFile(openData("real/ggml-vocab-gpt-2.gguf"));
        QVERIFY(!view.isBusy());
        QVERIFY(!view.editor()->isEnabled());
        QVERIFY(view.notesText().contains("first shown"));
        view.show();
        QVERIFY(view.isBusy());
        QVERIFY(settled(view));
        QVERIFY(view.editor()->isEnabled());
        QVERIFY(view.notesText().contains("BPE"));
    }

    // A vocabulary with a hundred notes (a token text used twice is one each) shows a few, the rest in
    // the tooltip: as tall as its text, the notes made the window's least height 600,000 px (#40)
    void manyNotesStayShort()
    {
        std::vector<std::string> tokens{"a", "b", "ab"};
        for (int i = 0; i < 100; ++i)
            tokens.push_back("dup");
        gguf::test::GgufBuilder builder;
        builder.kv("tokenizer.ggml.model", gguf::test::V::str("gpt2"))
            .kv("tokenizer.ggml.tokens", gguf::test::V::stringArray(tokens))
            .kv("tokenizer.ggml.merges", gguf::test::V::stringArray({"a b"}));
        const auto file = GgufFile::openBuffer(builder.build().bytes(), "dups.gguf").file;
        QVERIFY(file);
        TokenizeView view;
        view.resize(900, 600);
        view.show();
        view.setFile(file);
        QVERIFY(settled(view));
        QVERIFY2(view.notesText().count(QLatin1Char('\n')) <= 8, qPrintable(view.notesText()));
        QVERIFY(view.notesText().contains(QStringLiteral("more notes")));
        QVERIFY2(view.minimumSizeHint().height() < 1000, qPrintable(QString::number(view.minimumSizeHint().height())));
    }

    void longTextOnAWorker()
    {
        TokenizeView view;
        view.setFile(openData("real/ggml-vocab-gpt-2.gguf"));
        QVERIFY(settled(view));
        QString text;
        for (int i = 0; i < 60000; ++i)
            text += QStringLiteral("Hello world %1, Größe 数学.\n").arg(i);
        view.setText(text);
        QVERIFY(view.isBusy());
        QVERIFY(settled(view));
        QVERIFY(view.ids().size() > static_cast<size_t>(TokenizeView::kMaxChips));
        QCOMPARE(view.chips()->chips().size(), TokenizeView::kMaxChips);
        QVERIFY(view.countsText().contains("the first 5,000 shown"));
        QCOMPARE(view.ids()[0], 15496);
    }

    void fileWithoutTokenizer()
    {
        TokenizerPage page;
        page.setFile(openData("ggml-reference/f32.gguf"));
        QVERIFY(!page.sections()->isTabEnabled(page.sections()->indexOf(page.tokenizeView())));
        TokenizeView view;
        view.setFile(openData("ggml-reference/f32.gguf"));
        view.show();
        QVERIFY(settled(view));
        QVERIFY(!view.editor()->isEnabled());
        QVERIFY(view.notesText().contains("tokenizer.ggml.tokens"));
    }
    // A pre value llama.cpp does not know: the section says llama.cpp refuses the vocabulary, in its
    // words, and gives no ids (#41)
    void unknownPreIsRefused()
    {
        QFile gpt2(gguf::test::dataPath(QStringLiteral("real/ggml-vocab-gpt-2.gguf")));
        QVERIFY(gpt2.open(QIODevice::ReadOnly));
        const QByteArray bytes = gguf::test::withPre(gpt2.readAll(), "made-up-pre");
        const auto opened = GgufFile::openBuffer({bytes.begin(), bytes.end()}, "made-up.gguf");
        QVERIFY(opened.file);
        TokenizeView view;
        view.setFile(opened.file);
        view.show();
        QVERIFY(settled(view));
        QVERIFY(!view.editor()->isEnabled());
        QVERIFY2(view.notesText().contains("llama.cpp refuses this vocabulary: \"unknown pre-tokenizer type: "
                                           "'made-up-pre'\""),
                 qPrintable(view.notesText()));
        QVERIFY(view.ids().empty());
    }
};

QTEST_MAIN(TestTokenizeView)
#include "tst_tokenize_view.moc"
