// SPDX-License-Identifier: GPL-3.0-or-later
// ChatTemplateView: phi-3's real template shown in full, read-only, fixed-pitch and highlighted;
// copying it; named templates (tokenizer.chat_template.NAME) after the default one; a file
// without a template; line wrapping; "Render with example messages" against what Jinja2 renders
// (tests/data/chat-templates/expected.json), its fallbacks and errors, and the prompt tokenized.
#include "core/format/gguf_file.h"
#include "core/vocab/vocabulary.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/test_paths.h"
#include "ui/tokenizer/chat_template_view.h"
#include "ui/tokenizer/tokenize_view.h"
#include "ui/tokenizer/tokenizer_page.h"

#include <QCheckBox>
#include <QClipboard>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTabWidget>
#include <QTextBlock>
#include <QTextLayout>
#include <QtTest>

using namespace gguf;
using namespace gguf::test;

namespace {

std::shared_ptr<const GgufFile> openReal(const QString &name)
{
    return GgufFile::open((gguf::test::dataPath(u"real/") + name).toStdString()).file;
}

QString expectedRendering(const QString &templateFile)
{
    QFile f(gguf::test::dataPath(u"chat-templates/expected.json"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll())
        .object()[templateFile]
        .toObject()["with_system"]
        .toObject()["text"]
        .toString();
}

// A file with a template and the BOS/EOS tokens <s> and </s> (ids 1 and 2).
std::shared_ptr<const GgufFile> fileWithTemplate(const QByteArray &source)
{
    GgufBuilder builder;
    builder.kv("tokenizer.ggml.model", V::str("llama"))
        .kv("tokenizer.ggml.tokens", V::stringArray({"<unk>", "<s>", "</s>"}))
        .kv("tokenizer.ggml.bos_token_id", V::u32(1))
        .kv("tokenizer.ggml.eos_token_id", V::u32(2))
        .kv("tokenizer.chat_template", V::str(source.toStdString()));
    return GgufFile::openBuffer(builder.build().bytes(), "template.gguf").file;
}

bool renderedIn(ChatTemplateView &view)
{
    QSignalSpy done(&view, &ChatTemplateView::rendered);
    view.renderButton()->click();
    return !done.isEmpty() || done.wait(10000);
}

} // namespace

class TestChatTemplateView : public QObject {
    Q_OBJECT

private slots:
    void realTemplate()
    {
        const auto file = openReal(QStringLiteral("ggml-vocab-phi-3.gguf"));
        QVERIFY(file);
        ChatTemplateView view;
        view.setFile(file);
        QCOMPARE(view.templateCount(), 1);
        QCOMPARE(view.templateKeys(), QStringList{"tokenizer.chat_template"});
        QCOMPARE(view.currentKey(), QStringLiteral("tokenizer.chat_template"));
        const std::string_view expected = file->value("tokenizer.chat_template").toStringView();
        QCOMPARE(view.text(), QString::fromUtf8(expected.data(), qsizetype(expected.size())));
        QVERIFY(view.text().startsWith(QStringLiteral("{{ bos_token }}{% for message in messages %}")));
        QVERIFY(view.editor()->isReadOnly());
        QVERIFY(QFontInfo(view.editor()->font()).fixedPitch());
        // highlighted: "{{" opens the first line with the delimiter format
        QTRY_VERIFY(!view.editor()->document()->firstBlock().layout()->formats().isEmpty());
        QCOMPARE(view.editor()->document()->firstBlock().layout()->formats().first().start, 0);
        QApplication::clipboard()->clear();
        QVERIFY(view.copyButton()->isEnabled());
        view.copyButton()->click();
        QCOMPARE(QApplication::clipboard()->text(), view.text());
    }

    void namedTemplates()
    {
        GgufBuilder builder;
        builder.kv("tokenizer.chat_template.tool_use", V::str("{% for tool in tools %}{{ tool }}{% endfor %}"))
            .kv("tokenizer.chat_template", V::str("{{ messages[0]['content'] }}"))
            .kv("tokenizer.chat_template.rag", V::str("{# rag #}"))
            .kv("tokenizer.chat_template.broken", V::u32(7)); // not a string: not a template
        const auto file = GgufFile::openBuffer(builder.build().bytes(), "templates.gguf").file;
        QVERIFY(file);
        ChatTemplateView view;
        view.setFile(file);
        // the default template first, then the named ones in file order
        QCOMPARE(view.templateKeys(), (QStringList{"tokenizer.chat_template", "tokenizer.chat_template.tool_use",
                                                   "tokenizer.chat_template.rag"}));
        QCOMPARE(view.text(), QStringLiteral("{{ messages[0]['content'] }}"));
        // its size, in words that agree with the counts (#40: "1 lines")
        const auto labels = view.findChildren<QLabel *>();
        QVERIFY(std::any_of(labels.begin(), labels.end(), [](const QLabel *l) {
            return l->text() == QStringLiteral("tokenizer.chat_template — 28 characters, 1 line");
        }));
        QVERIFY(view.showTemplate(QStringLiteral("tokenizer.chat_template.rag")));
        QCOMPARE(view.text(), QStringLiteral("{# rag #}"));
        QCOMPARE(view.currentKey(), QStringLiteral("tokenizer.chat_template.rag"));
        QVERIFY(!view.showTemplate(QStringLiteral("tokenizer.chat_template.broken")));
        QCOMPARE(view.text(), QStringLiteral("{# rag #}"));
    }

    void noTemplate()
    {
        ChatTemplateView view;
        view.setFile(openReal(QStringLiteral("ggml-vocab-gpt-2.gguf")));
        QCOMPARE(view.templateCount(), 0);
        QVERIFY(view.text().isEmpty());
        QVERIFY(!view.copyButton()->isEnabled());
        view.setFile(nullptr);
        QCOMPARE(view.templateCount(), 0);
    }

    // phi-3's own template with its own BOS (<s>): the text Jinja2 gives, then tokenized with the
    // special tokens parsed
    void renderRealTemplate()
    {
        const auto file = openReal(QStringLiteral("ggml-vocab-phi-3.gguf"));
        TokenizerPage page;
        page.setFile(file);
        ChatTemplateView *view = page.chatTemplateView();
        page.sections()->setCurrentWidget(view);
        QVERIFY(view->renderButton()->isEnabled());
        QVERIFY(renderedIn(*view));
        const QString expected = expectedRendering(QStringLiteral("phi-3-gguf.jinja"));
        QVERIFY(!expected.isEmpty());
        QCOMPARE(view->renderedText(), expected);
        QVERIFY2(view->renderNote().startsWith("Rendered"), qPrintable(view->renderNote()));
        QVERIFY(view->tokenizeButton()->isEnabled());

        view->tokenizeButton()->click();
        TokenizeView *tokenize = page.tokenizeView();
        QCOMPARE(page.sections()->currentWidget(), tokenize);
        QVERIFY(tokenize->parseSpecialBox()->isChecked());
        QVERIFY(QTest::qWaitFor([tokenize] { return !tokenize->isBusy() && !tokenize->ids().empty(); }, 20000));
        // <s>, <|user|>, <|end|> and <|assistant|> each become their one control token (two user
        // turns, each followed by the assistant's; three turns end)
        const Vocabulary vocab(*file);
        const auto idOf = [&vocab](std::string_view text) {
            for (uint64_t id = 0; id < vocab.size(); ++id)
                if (vocab.token(id) == text)
                    return static_cast<qint32>(id);
            return qint32(-1);
        };
        const std::vector<qint32> &ids = tokenize->ids();
        QCOMPARE(ids.front(), idOf("<s>"));
        QCOMPARE(std::count(ids.begin(), ids.end(), idOf("<|user|>")), 2);
        QCOMPARE(std::count(ids.begin(), ids.end(), idOf("<|assistant|>")), 2);
        QCOMPARE(std::count(ids.begin(), ids.end(), idOf("<|end|>")), 3);
    }

    // A template that refuses a system message is rendered without one, and says so
    void renderWithoutSystem()
    {
        ChatTemplateView view;
        // google/gemma-7b-it's template (as llama.cpp's tests quote it)
        view.setFile(fileWithTemplate(
            "{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}"
            "{% for message in messages %}{% if (message['role'] == 'assistant') %}{% set role = 'model' %}"
            "{% else %}{% set role = message['role'] %}{% endif %}{{ '<start_of_turn>' + role + '\\n' + "
            "message['content'] | trim + '<end_of_turn>\\n' }}{% endfor %}{% if add_generation_prompt %}"
            "{{'<start_of_turn>model\\n'}}{% endif %}"));
        QVERIFY(renderedIn(view));
        QVERIFY2(view.renderNote().contains("System role not supported"), qPrintable(view.renderNote()));
        QCOMPARE(view.renderedText(),
                 QStringLiteral("<start_of_turn>user\nWhat is the capital of France?<end_of_turn>\n"
                                "<start_of_turn>model\nThe capital of France is Paris.<end_of_turn>\n"
                                "<start_of_turn>user\nAnd of Italy?<end_of_turn>\n<start_of_turn>model\n"));
    }

    void renderErrors()
    {
        ChatTemplateView view;
        view.setFile(fileWithTemplate("{{ bos_token }}\n{% for m in messages %}{{ m.content | shout }}{% endfor %}"));
        QVERIFY(renderedIn(view));
        QVERIFY2(view.renderNote().contains("'shout' filter") && view.renderNote().contains("line 2, column 37"),
                 qPrintable(view.renderNote()));
        QVERIFY(!view.tokenizeButton()->isEnabled());
        view.setFile(fileWithTemplate("{% include 'other.jinja' %}"));
        QVERIFY(renderedIn(view));
        QVERIFY2(view.renderNote().contains("cannot be evaluated here") &&
                     view.renderNote().contains("line 1, column 4"),
                 qPrintable(view.renderNote()));
        // BOS and EOS come from the file's vocabulary
        view.setFile(fileWithTemplate("[{{ bos_token }}|{{ eos_token }}]"));
        QVERIFY(renderedIn(view));
        QCOMPARE(view.renderedText(), QStringLiteral("[<s>|</s>]"));
    }

    void wrapping()
    {
        ChatTemplateView view;
        view.setFile(openReal(QStringLiteral("ggml-vocab-phi-3.gguf")));
        auto *wrap = view.findChild<QCheckBox *>();
        QVERIFY(wrap);
        QVERIFY(wrap->isChecked());
        QCOMPARE(view.editor()->lineWrapMode(), QPlainTextEdit::WidgetWidth);
        wrap->setChecked(false);
        QCOMPARE(view.editor()->lineWrapMode(), QPlainTextEdit::NoWrap);
    }
};

QTEST_MAIN(TestChatTemplateView)
#include "tst_chat_template_view.moc"
