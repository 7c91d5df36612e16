// SPDX-License-Identifier: GPL-3.0-or-later
// ChatTemplateView: phi-3's real template shown in full, read-only, fixed-pitch and highlighted;
// copying it; named templates (tokenizer.chat_template.NAME) after the default one; a file
// without a template; line wrapping.
#include "core/format/gguf_file.h"
#include "tests/support/gguf_builder.h"
#include "ui/tokenizer/chat_template_view.h"

#include <QCheckBox>
#include <QClipboard>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTextBlock>
#include <QTextLayout>
#include <QtTest>

using namespace gguf;
using namespace gguf::test;

namespace {

std::shared_ptr<const GgufFile> openReal(const QString &name)
{
    return GgufFile::open((QStringLiteral(GGUF_TEST_DATA_DIR "/real/") + name).toStdString()).file;
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
