// SPDX-License-Identifier: GPL-3.0-or-later
// The explorer is ready to be translated (#20): the build's translation template (lupdate over
// ui/ and app/explorer/) is turned here into a pseudo-translation in which every text becomes
// ⟦text⟧, compiled with lrelease and installed; then the window, with the sample open, is walked
// page by page and every fixed text it shows (menus and actions, buttons, tabs, group titles,
// placeholders, column headers, tool tips) must carry the brackets, that is, must have gone
// through tr(). Texts that are data (file names, keys, token texts, numbers) are not fixed texts
// and are left out by where they come from, never by what they say.

#include "app/explorer/main_window.h"
#include "tests/support/test_paths.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QGroupBox>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTranslator>
#include <QXmlStreamReader>
#include <QXmlStreamWriter>

namespace {

const QString kOpen = QStringLiteral("\u27e6");

// Writes the pseudo-translation of the template `ts` to `out`: each message translated as ⟦source⟧.
// Returns the number of messages, or -1 when the template cannot be read.
int writePseudoTranslation(const QString &ts, const QString &out)
{
    QFile in(ts);
    QFile target(out);
    if (!in.open(QIODevice::ReadOnly) || !target.open(QIODevice::WriteOnly))
        return -1;
    QXmlStreamReader reader(&in);
    QXmlStreamWriter writer(&target);
    writer.writeStartDocument();
    writer.writeDTD(QStringLiteral("<!DOCTYPE TS>"));
    writer.writeStartElement(QStringLiteral("TS"));
    writer.writeAttribute(QStringLiteral("version"), QStringLiteral("2.1"));
    writer.writeAttribute(QStringLiteral("language"), QStringLiteral("en"));
    int messages = 0;
    QString context, source, comment;
    bool numerus = false;
    while (!reader.atEnd()) {
        reader.readNext();
        if (reader.isStartElement()) {
            const auto name = reader.name();
            if (name == QLatin1String("context")) {
                writer.writeStartElement(QStringLiteral("context"));
            } else if (name == QLatin1String("name")) {
                writer.writeTextElement(QStringLiteral("name"), reader.readElementText());
            } else if (name == QLatin1String("message")) {
                numerus = reader.attributes().value(QLatin1String("numerus")) == QLatin1String("yes");
                source.clear();
                comment.clear();
            } else if (name == QLatin1String("source")) {
                source = reader.readElementText();
            } else if (name == QLatin1String("comment")) {
                comment = reader.readElementText();
            }
        } else if (reader.isEndElement()) {
            const auto name = reader.name();
            if (name == QLatin1String("context")) {
                writer.writeEndElement();
            } else if (name == QLatin1String("message")) {
                ++messages;
                writer.writeStartElement(QStringLiteral("message"));
                if (numerus)
                    writer.writeAttribute(QStringLiteral("numerus"), QStringLiteral("yes"));
                writer.writeTextElement(QStringLiteral("source"), source);
                if (!comment.isEmpty())
                    writer.writeTextElement(QStringLiteral("comment"), comment);
                writer.writeStartElement(QStringLiteral("translation"));
                const QString pseudo = kOpen + source + QStringLiteral("\u27e7");
                if (numerus) {
                    writer.writeTextElement(QStringLiteral("numerusform"), pseudo);
                    writer.writeTextElement(QStringLiteral("numerusform"), pseudo);
                } else {
                    writer.writeCharacters(pseudo);
                }
                writer.writeEndElement();
                writer.writeEndElement();
            }
        }
    }
    writer.writeEndElement();
    writer.writeEndDocument();
    return reader.hasError() ? -1 : messages;
}

// A fixed text must be translated; one without letters (a number, a symbol) need not be.
bool needsTranslation(const QString &text)
{
    return std::any_of(text.begin(), text.end(), [](QChar c) { return c.isLetter(); });
}

} // namespace

class TestTranslations : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.path());
        QCoreApplication::setOrganizationName(QStringLiteral("gguf-explorer-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_translations"));
        const QString ts = m_dir.filePath(QStringLiteral("pseudo.ts"));
        const int messages = writePseudoTranslation(gguf::test::tsTemplate(), ts);
        // the template holds the explorer's texts: hundreds of them, in the pages' contexts
        QVERIFY2(messages > 800, qPrintable(QString::number(messages)));
        const QString qm = m_dir.filePath(QStringLiteral("pseudo.qm"));
        QProcess lrelease;
        lrelease.start(gguf::test::lreleasePath(), {QStringLiteral("-silent"), ts, QStringLiteral("-qm"), qm});
        QVERIFY(lrelease.waitForFinished(120000));
        QVERIFY2(lrelease.exitCode() == 0, lrelease.readAllStandardError().constData());
        QVERIFY(m_translator.load(qm));
        QVERIFY(QCoreApplication::installTranslator(&m_translator));
    }

    void templateHasEveryPage()
    {
        QFile ts(gguf::test::tsTemplate());
        QVERIFY(ts.open(QIODevice::ReadOnly));
        const QByteArray text = ts.readAll();
        for (const char *context : {"MainWindow", "OverviewPage", "MetadataPage", "TensorsPage", "HexPage",
                                    "WeightsPage", "TokenizerPage", "ComparePage", "HexNotes"})
            QVERIFY2(text.contains(QByteArray("<name>") + context + "</name>"), context);
    }

    void windowShowsOnlyTranslatedText()
    {
        MainWindow window;
        window.resize(1280, 860);
        window.show();
        QSignalSpy shown(&window, &MainWindow::modelShown);
        window.openFile(gguf::test::sampleModel());
        QVERIFY(shown.wait(20000));
        QStringList untranslated;
        auto check = [&](const QString &text, const QString &where) {
            if (needsTranslation(text) && !text.contains(kOpen))
                untranslated << QStringLiteral("%1: \"%2\"").arg(where, text.left(80));
        };
        QTabWidget *pages = window.pages();
        for (int page = 0; page < pages->count(); ++page) {
            pages->setCurrentIndex(page);
            check(pages->tabText(page), QStringLiteral("page tab"));
            QTRY_VERIFY(pages->widget(page)->isVisible());
            collect(pages->widget(page), check);
        }
        for (QAction *action : window.findChildren<QAction *>()) {
            // Open Recent's entries are file names
            if (action->parent() && action->parent()->objectName() == QStringLiteral("recentMenu"))
                continue;
            check(action->text(), QStringLiteral("action"));
            check(action->toolTip() == action->text().remove(QLatin1Char('&')) ? QString() : action->toolTip(),
                  QStringLiteral("action tool tip"));
        }
        QVERIFY2(untranslated.isEmpty(), qPrintable(untranslated.join(QLatin1Char('\n'))));
    }

private:
    template <typename Check> static void collect(QWidget *root, const Check &check)
    {
        for (QAbstractButton *button : root->findChildren<QAbstractButton *>()) {
            check(button->text(), QStringLiteral("button ") + button->objectName());
            check(button->toolTip(), QStringLiteral("button tool tip ") + button->objectName());
        }
        for (QTabWidget *tabs : root->findChildren<QTabWidget *>())
            for (int i = 0; i < tabs->count(); ++i)
                check(tabs->tabText(i), QStringLiteral("tab ") + tabs->objectName());
        for (QGroupBox *box : root->findChildren<QGroupBox *>())
            check(box->title(), QStringLiteral("group ") + box->objectName());
        for (QLineEdit *edit : root->findChildren<QLineEdit *>())
            check(edit->placeholderText(), QStringLiteral("placeholder ") + edit->objectName());
        for (QAbstractItemView *view : root->findChildren<QAbstractItemView *>()) {
            QAbstractItemModel *model = view->model();
            if (!model)
                continue;
            for (int c = 0; c < model->columnCount(); ++c)
                check(model->headerData(c, Qt::Horizontal).toString(), QStringLiteral("column ") + view->objectName());
        }
        // lists of data: ggml's cache type names, the tensor names of a layer, the shards' file
        // names, and llama.cpp's token type names (after the first two entries, which are ours)
        static const QStringList dataChoices = {QStringLiteral("memoryCacheK"), QStringLiteral("memoryCacheV"),
                                                QStringLiteral("layerRole"), QStringLiteral("hexShards")};
        for (QComboBox *combo : root->findChildren<QComboBox *>()) {
            if (combo->isEditable() || dataChoices.contains(combo->objectName()))
                continue; // its items are what the user typed or picked from data
            const int last = combo->objectName() == QStringLiteral("tokenTypeFilter") ? 2 : combo->count();
            for (int i = 0; i < std::min(last, combo->count()); ++i)
                check(combo->itemText(i), QStringLiteral("choice ") + combo->objectName());
        }
    }

    QTemporaryDir m_dir;
    QTranslator m_translator;
};

QTEST_MAIN(TestTranslations)
#include "tst_translations.moc"
