// SPDX-License-Identifier: GPL-3.0-or-later
// The explorer window under the offscreen platform: opening the sample fills every page, a drop of
// file URLs opens them, a bad drop keeps the open document and says why inside the window, the
// recent-files list and the saved window state. Screenshots go to $GGUF_SCREENSHOT_DIR when set.
#include "app/explorer/main_window.h"
#include "app/explorer/screenshot_tour.h"
#include "core/format/split_model.h"
#include "tests/support/contrast.h"
#include "tests/support/pending_events.h"
#include "tests/support/screenshots.h"
#include "tests/support/test_paths.h"
#include "ui/common/message_bar.h"
#include "ui/common/tensor_ref.h"
#include "ui/metadata/metadata_filter_proxy.h"
#include "ui/metadata/metadata_page.h"
#include "ui/metadata/metadata_tree_model.h"
#include "ui/overview/overview_page.h"
#include "ui/plots/type_mix_plot.h"
#include "ui/shell/document.h"
#include "ui/shell/load_status.h"
#include "ui/shell/start_view.h"
#include "ui/tensors/tensor_sort_filter_proxy.h"
#include "ui/tensors/tensor_table_model.h"
#include "ui/tensors/tensors_page.h"
#include "ui/weights/weights_page.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QTimer>
#include <QTreeView>
#include <QtTest>

#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace {

const QString kSample = gguf::test::sampleModel();
const QString kVocab = gguf::test::dataPath(u"real/ggml-vocab-phi-3.gguf");

bool openAndWait(MainWindow &window, const QString &path)
{
    QSignalSpy shown(&window, &MainWindow::modelShown);
    window.openFile(path);
    return shown.wait(10000);
}

// Delivers a drop of `urls` onto the window as the platform would.
bool drop(MainWindow &window, const QList<QUrl> &urls)
{
    QMimeData mime;
    mime.setUrls(urls);
    const QPoint pos = window.rect().center();
    QDragEnterEvent enter(pos, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &enter);
    if (!enter.isAccepted())
        return false;
    QDropEvent dropEvent(QPointF(pos), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &dropEvent);
    return dropEvent.isAccepted();
}

// True when the image has more than one colour (a blank grab is not a screenshot).
bool hasContent(const QImage &image)
{
    if (image.isNull())
        return false;
    const QRgb first = image.pixel(0, 0);
    for (int y = 0; y < image.height(); y += 7)
        for (int x = 0; x < image.width(); x += 7)
            if (image.pixel(x, y) != first)
                return true;
    return false;
}

// Run as root, the tests could read a file without read permission: drop the capabilities that
// override file permissions from this thread, so threads started later (the loading workers) lack
// them too. Returns false when they are still in effect.
bool dropPermissionOverride()
{
    if (::geteuid() != 0)
        return true;
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2]{};
    if (::syscall(SYS_capget, &header, data) != 0)
        return false;
    for (const int cap : {CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH})
        data[cap / 32].effective &= ~(1u << (cap % 32));
    return ::syscall(SYS_capset, &header, data) == 0;
}

void saveScreenshots(MainWindow &window, const QString &name)
{
    const QString dir = gguf::test::screenshotDir();
    if (!dir.isEmpty())
        grabPages(window, dir + u'/' + name);
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY(m_settingsDir.isValid());
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir.path());
        QCoreApplication::setOrganizationName(QStringLiteral("gguf-explorer-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_main_window"));
        m_permissionsApply = dropPermissionOverride();
    }

    void smokeTestOnTheSample()
    {
        MainWindow window;
        window.resize(1100, 760);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(openAndWait(window, kSample));
        QVERIFY(window.windowTitle().contains(QStringLiteral("tiny-llama-tied-q4_k_m.gguf")));
        QVERIFY(window.messageBar()->isHidden());
        QVERIFY(!window.windowIcon().pixmap(64, 64).isNull()); // the SVG from the resources
        // Overview
        OverviewPage *overview = window.page<OverviewPage>();
        QCOMPARE(overview->fieldText(OverviewPage::Field::Architecture), QStringLiteral("llama"));
        QCOMPARE(overview->fieldText(OverviewPage::Field::Name), QStringLiteral("tiny-llama-oracle-tied"));
        QCOMPARE(overview->fieldText(OverviewPage::Field::FileType), QStringLiteral("15 (Q4_K_M)"));
        QCOMPARE(overview->fieldText(OverviewPage::Field::Version), QStringLiteral("3"));
        QCOMPARE(overview->fieldText(OverviewPage::Field::Layers), QStringLiteral("4"));
        QCOMPARE(overview->fieldText(OverviewPage::Field::Alignment), QStringLiteral("32"));
        QVERIFY(overview->fieldText(OverviewPage::Field::DataOffset).contains(QStringLiteral("726")));
        QVERIFY(overview->fieldText(OverviewPage::Field::Parameters).contains(QStringLiteral("11.34 M")));
        QVERIFY(overview->verdictText().contains(QStringLiteral("would accept")));
        QCOMPARE(overview->typeMixPlot()->barCount(), 3);
        // Metadata and tensors
        QCOMPARE(window.page<MetadataPage>()->model()->rowCount(), 5);
        QCOMPARE(window.page<TensorsPage>()->proxy()->rowCount(), 38);
        QVERIFY(window.page<TensorsPage>()->totalsText().startsWith(QStringLiteral("38 of 38 tensors")));
        // Every page paints something.
        for (int i = 0; i < window.pages()->count(); ++i) {
            window.pages()->setCurrentIndex(i);
            QVERIFY2(hasContent(window.grab().toImage()), qPrintable(window.pages()->tabText(i)));
        }
        saveScreenshots(window, QStringLiteral("sample"));
    }

    // File ▸ Export Report… (#45): the report written on a worker beside its target and renamed
    // (an older report is replaced whole); never over the model; a wrong ending or a folder that
    // cannot be written is told in the message bar, the model untouched. The report's content is
    // checked by tst_inspect_report (the same core function).
    void exportReport()
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(openAndWait(window, kSample));
        QVERIFY(window.findChild<QAction *>(QStringLiteral("exportReportAction")));
        QTemporaryDir dir;
        const QString html = dir.filePath(QStringLiteral("r.html"));
        {
            QFile old(html);
            QVERIFY(old.open(QIODevice::WriteOnly));
            old.write("an older report");
        }
        window.exportReport(html);
        QTRY_VERIFY_WITH_TIMEOUT(window.messageBar()->isVisible(), 10000);
        QCOMPARE(window.messageBar()->text(), QStringLiteral("Report written to ") + html);
        QFile page(html);
        QVERIFY(page.open(QIODevice::ReadOnly));
        const QByteArray text = page.readAll();
        QVERIFY(text.startsWith("<!DOCTYPE html>"));
        for (const char *id : {"overview", "verdict", "metadata", "chat-template", "tensors", "type-mix", "memory"})
            QVERIFY2(text.contains(QByteArray("<section id=\"") + id + "\">"), id);
        QCOMPARE(text.count("<tr>"), 1 + 17 + 1 + 25 + 1 + 38 + 1 + 3 + 1 + 5); // header rows and the rows
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("r.html")}); // nothing beside

        QFile sample(kSample);
        QVERIFY(sample.open(QIODevice::ReadOnly));
        const QByteArray before = QCryptographicHash::hash(sample.readAll(), QCryptographicHash::Sha256);
        sample.close();
        window.messageBar()->clearMessage();
        window.exportReport(kSample.left(kSample.size() - 5) + QStringLiteral(".txt"));
        QTRY_VERIFY(window.messageBar()->isVisible());
        QCOMPARE(window.messageBar()->kind(), MessageBar::Kind::Error);
        QVERIFY(window.messageBar()->text().contains(QStringLiteral(".md")));
        window.messageBar()->clearMessage();
        window.exportReport(dir.filePath(QStringLiteral("no/such/r.md")));
        QTRY_VERIFY_WITH_TIMEOUT(window.messageBar()->isVisible(), 10000);
        QCOMPARE(window.messageBar()->kind(), MessageBar::Kind::Error);
        QVERIFY(window.messageBar()->text().contains(QStringLiteral("could not be written")));
        QVERIFY(sample.open(QIODevice::ReadOnly));
        QCOMPARE(QCryptographicHash::hash(sample.readAll(), QCryptographicHash::Sha256), before);
        QCOMPARE(window.document()->path(), kSample);
    }

    void groupedTensorsAndExpandedArrays()
    {
        MainWindow window;
        window.resize(1100, 760);
        window.show();
        QVERIFY(openAndWait(window, kSample));
        TensorsPage *tensors = window.page<TensorsPage>();
        tensors->setGroupedByLayer(true);
        tensors->setFilter(QStringLiteral("attn_[qk]"), true);
        QCOMPARE(tensors->proxy()->rowCount(), 4);
        QVERIFY(tensors->view()->isExpanded(tensors->proxy()->index(0, 0)));
        QVERIFY2(tensors->totalsText().startsWith(QStringLiteral("8 of 38 tensors")),
                 qPrintable(tensors->totalsText()));
        QSignalSpy selected(tensors, &Page::linkActivated);
        const QModelIndex first = tensors->proxy()->index(0, 0, tensors->proxy()->index(0, 0));
        tensors->view()->setCurrentIndex(first);
        QCOMPARE(selected.count(), 1);
        // blk.0.attn_k.weight is tensor info 2; the other pages follow the selection where they are
        QCOMPARE(selected.first().at(0).value<Link>(), Link::tensor(TensorRef{0, 2}).inBackground());
        tensors->setFilter(QStringLiteral("attn_[qk"), true);
        QVERIFY(tensors->totalsText().contains(QStringLiteral("Invalid regular expression")));
        tensors->setFilter(QStringLiteral("attn_q"), false);

        MetadataPage *metadata = window.page<MetadataPage>();
        const QModelIndex tokens = metadata->proxy()->mapFromSource(
            metadata->model()->indexOfKey(QStringLiteral("tokenizer.ggml.token_type")));
        metadata->view()->expand(tokens);
        QTRY_VERIFY(metadata->proxy()->rowCount(tokens) > 0);
        metadata->view()->setCurrentIndex(metadata->proxy()->index(3, 0, tokens));
        QVERIFY(metadata->detailText().contains(QStringLiteral("6 (byte)")));
        window.pages()->setCurrentWidget(metadata);
        saveScreenshots(window, QStringLiteral("interactions"));
    }

    void followsTheDarkPalette()
    {
        const QPalette light = QApplication::palette();
        QApplication::setPalette(gguf::test::breezeDarkPalette());
        MainWindow window;
        window.resize(1100, 760);
        window.show();
        QVERIFY(openAndWait(window, kSample));
        window.messageBar()->showMessage(MessageBar::Kind::Warning, QStringLiteral("A warning on a dark palette"));
        const QImage image = window.grab().toImage();
        double luminance = 0;
        int samples = 0;
        for (int y = 0; y < image.height(); y += 5)
            for (int x = 0; x < image.width(); x += 5, ++samples)
                luminance += qGray(image.pixel(x, y)) / 255.0;
        saveScreenshots(window, QStringLiteral("dark"));
        QApplication::setPalette(light);
        QVERIFY2(luminance / samples < 0.4, "the window, chart included, must be drawn in the dark palette");
    }

    // View ▸ Colour Scheme recolours the open window at once, plots and Bytes page included, and
    // is remembered (#20).
    void colourSchemeMenuRecolours()
    {
        MainWindow window;
        window.resize(1100, 760);
        window.show();
        QVERIFY(openAndWait(window, kSample));
        auto *menu = window.findChild<QMenu *>(QStringLiteral("colorSchemeMenu"));
        QVERIFY(menu);
        auto choose = [&](const QString &name) {
            for (QAction *action : menu->actions())
                if (action->data().toString() == name)
                    action->trigger();
        };
        // the mean grey level of the window's pixels, page by page
        auto meanGrey = [&] {
            double sum = 0;
            int n = 0;
            for (int page = 0; page < window.pages()->count(); ++page) {
                window.pages()->setCurrentIndex(page);
                const QImage image = window.grab().toImage();
                for (int y = 0; y < image.height(); y += 7)
                    for (int x = 0; x < image.width(); x += 7, ++n)
                        sum += qGray(image.pixel(x, y)) / 255.0;
            }
            return sum / n;
        };
        const QPalette before = QApplication::palette();
        choose(QStringLiteral("dark"));
        QCOMPARE(QSettings().value(QStringLiteral("appearance/colorScheme")).toString(), QStringLiteral("dark"));
        // the palette reaches the widgets through posted events
        QTRY_COMPARE(window.palette().color(QPalette::Window), QApplication::palette().color(QPalette::Window));
        const double dark = meanGrey();
        choose(QStringLiteral("light"));
        QTRY_COMPARE(window.palette().color(QPalette::Window), QApplication::palette().color(QPalette::Window));
        const double light = meanGrey();
        choose(QStringLiteral("system"));
        QCOMPARE(QApplication::palette().color(QPalette::Window), before.color(QPalette::Window));
        QVERIFY2(dark < 0.35, qPrintable(QString::number(dark)));
        QVERIFY2(light > 0.7, qPrintable(QString::number(light)));
    }

    // Help ▸ About names the version and the git revision the program was built from (#20); the
    // revision is read here from git itself.
    void aboutShowsVersionAndRevision()
    {
        QProcess git;
        git.start(QStringLiteral("git"), {QStringLiteral("-C"), gguf::test::sourceDir(), QStringLiteral("rev-parse"),
                                          QStringLiteral("--short=12"), QStringLiteral("HEAD")});
        const bool inGit = git.waitForFinished(30000) && git.exitCode() == 0;
        const QString revision =
            inGit ? QString::fromLatin1(git.readAllStandardOutput().trimmed()) : QStringLiteral("unknown");
        MainWindow window;
        window.show();
        QAction *about = nullptr;
        for (QAction *menu : window.menuBar()->actions())
            for (QAction *action : menu->menu() ? menu->menu()->actions() : QList<QAction *>{})
                if (action->menuRole() == QAction::AboutRole)
                    about = action;
        QVERIFY(about);
        QString shown;
        QTimer::singleShot(0, &window, [&] {
            auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
            if (box && box->objectName() == QStringLiteral("aboutBox")) {
                shown = box->text();
                box->accept();
            }
        });
        about->trigger();
        QVERIFY2(shown.contains(QStringLiteral("GGUF Explorer " GGUF_VERSION)), qPrintable(shown));
        QVERIFY2(shown.contains(QStringLiteral("<tt>") + revision), qPrintable(shown));
        QVERIFY2(shown.contains(QStringLiteral(QT_VERSION_STR)), qPrintable(shown));
    }

    void vocabularyOnlyFile()
    {
        MainWindow window;
        window.show();
        QVERIFY(openAndWait(window, kVocab));
        QCOMPARE(window.page<TensorsPage>()->proxy()->rowCount(), 0);
        QCOMPARE(window.page<OverviewPage>()->fieldText(OverviewPage::Field::TensorCount), QStringLiteral("0"));
        QCOMPARE(window.page<OverviewPage>()->typeMixPlot()->barCount(), 0);
        // The chat template is shown in full in the detail pane.
        MetadataPage *page = window.page<MetadataPage>();
        page->setFilterText(QStringLiteral("chat_template"));
        const QModelIndex group = page->proxy()->index(0, 0);
        QVERIFY(group.isValid());
        const QModelIndex key = page->proxy()->index(0, 0, group);
        QCOMPARE(key.data().toString(), QStringLiteral("tokenizer.chat_template"));
        QSignalSpy range(page, &Page::linkActivated);
        page->view()->setCurrentIndex(key);
        QCOMPARE(range.count(), 1);
        QVERIFY(page->detailText().contains(QStringLiteral("{% for message in messages %}")));
        QVERIFY(page->detailText().contains(u'\n'));
        window.pages()->setCurrentWidget(page);
        saveScreenshots(window, QStringLiteral("vocab"));
    }

    void dropOpensFiles()
    {
        MainWindow window;
        window.show();
        QSignalSpy shown(&window, &MainWindow::modelShown);
        QVERIFY(drop(window, {QUrl::fromLocalFile(kSample)}));
        QVERIFY(shown.wait(10000));
        QCOMPARE(window.document()->path(), QFileInfo(kSample).absoluteFilePath());
        QCOMPARE(window.page<TensorsPage>()->proxy()->rowCount(), 38);
    }

    void dropOfTwoModelsOpensASecondWindow()
    {
        MainWindow window;
        window.show();
        const QList<QWidget *> before = QApplication::topLevelWidgets();
        QSignalSpy shown(&window, &MainWindow::modelShown);
        QVERIFY(drop(window, {QUrl::fromLocalFile(kSample), QUrl::fromLocalFile(kVocab)}));
        QVERIFY(shown.wait(10000));
        QCOMPARE(window.document()->path(), kSample);
        MainWindow *second = nullptr;
        for (QWidget *widget : QApplication::topLevelWidgets())
            if (!before.contains(widget) && qobject_cast<MainWindow *>(widget))
                second = static_cast<MainWindow *>(widget);
        QVERIFY(second);
        QTRY_COMPARE(second->document()->path(), kVocab);
        QVERIFY(second->testAttribute(Qt::WA_DeleteOnClose));
        second->close();
    }

    void loadShowsProgressAndCancels()
    {
        MainWindow window;
        window.show();
        auto *status = window.findChild<LoadStatus *>();
        QVERIFY(status);
        QVERIFY(status->isHidden());
        QSignalSpy cancelled(window.document(), &Document::loadCancelled);
        QSignalSpy loaded(window.document(), &Document::loaded);
        window.openFile(kSample);
        QVERIFY(status->isVisible());
        auto *cancel = status->findChild<QPushButton *>();
        QVERIFY(cancel);
        cancel->click();
        QCOMPARE(cancelled.count(), 1);
        QVERIFY(status->isHidden());
        QVERIFY(gguf::test::settlePool(QThreadPool::globalInstance()));
        QCOMPARE(loaded.count(), 0);
        QVERIFY(!window.document()->model());
        // The window is still usable afterwards.
        QVERIFY(openAndWait(window, kSample));
        QVERIFY(status->isHidden());
    }

    void dropOfNonFilesIsRefused()
    {
        MainWindow window;
        QMimeData mime;
        mime.setText(QStringLiteral("just text"));
        QDragEnterEvent enter(QPoint(1, 1), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &enter);
        QVERIFY(!enter.isAccepted());
        // http(s) links open as remote files (#19, tst_remote_window); other schemes are refused
        QVERIFY(!drop(window, {QUrl(QStringLiteral("ftp://example.org/model.gguf"))}));
        QVERIFY(!drop(window, {QUrl(QStringLiteral("mailto:someone@example.org"))}));
    }

    void badDropKeepsTheDocument_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("special"); // how the input is made when it is not a plain file
        const QString plain;
        QTest::newRow("png") << "picture.png" << QByteArray("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16) << "PNG image"
                             << plain;
        QTest::newRow("directory") << "" << QByteArray() << "directory" << plain;
        QTest::newRow("zero bytes") << "empty.gguf" << QByteArray() << "empty" << plain;
        QTest::newRow("not GGUF") << "notes.txt" << QByteArray("hello, world\n") << "not a GGUF file" << plain;
        QTest::newRow("symlink loop") << "loop.gguf" << QByteArray() << "symlink loop"
                                      << "symlink loop";
        QTest::newRow("FIFO") << "pipe.gguf" << QByteArray() << "FIFO"
                              << "fifo";
        QTest::newRow("device file") << "/dev/zero" << QByteArray() << "character device"
                                     << "device";
        QTest::newRow("5 GB of zeros") << "download.gguf" << QByteArray() << "begins with zero bytes"
                                       << "5 GB";
        QTest::newRow("no permission") << "secret.gguf" << QByteArray("GGUF\3\0\0\0", 8) << "Permission denied"
                                       << "no permission";
    }

    void badDropKeepsTheDocument()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, bytes);
        QFETCH(QString, message);
        QFETCH(QString, special);
        QTemporaryDir dir;
        QString path = dir.path();
        if (special == QLatin1String("device")) {
            path = name;
        } else if (special == QLatin1String("symlink loop")) {
            path = dir.filePath(name);
            QVERIFY(QFile::link(dir.filePath(QStringLiteral("other.gguf")), path));
            QVERIFY(QFile::link(path, dir.filePath(QStringLiteral("other.gguf"))));
        } else if (special == QLatin1String("fifo")) {
            path = dir.filePath(name);
            QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
        } else if (!name.isEmpty()) {
            path = dir.filePath(name);
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(bytes);
            if (special == QLatin1String("5 GB"))
                QVERIFY(file.resize(qint64(5) << 30)); // sparse: no disk blocks
            if (special == QLatin1String("no permission")) {
                QVERIFY(file.setPermissions({}));
                // dropping one's own effective capabilities is always allowed
                QVERIFY2(m_permissionsApply, "could not drop the capability to read any file");
            }
        }
        MainWindow window;
        window.resize(1100, 760);
        window.show();
        // nothing open yet: the start view says why, beside the ways to open a file (#40: the window was
        // an empty shell of pages)
        const auto *start = window.findChild<StartView *>();
        QVERIFY(start && start->isVisible());
        QVERIFY(!window.pages()->isVisible());
        {
            QSignalSpy failedFirst(window.document(), &Document::loadFailed);
            QVERIFY(drop(window, {QUrl::fromLocalFile(path)}));
            QVERIFY(failedFirst.wait(10000));
        }
        QVERIFY(start->isVisible() && start->openButton()->isVisible() && start->openUrlButton()->isVisible() &&
                start->openFolderButton()->isVisible());
        QVERIFY2(start->failureText().contains(message), qPrintable(start->failureText()));
        QCOMPARE(start->failureText().count(QDir::toNativeSeparators(path)), 1);
        // its wrapped texts laid out for a readable width: the window's least height stays a window's
        QVERIFY2(window.minimumSizeHint().height() < 1000,
                 qPrintable(QString::number(window.minimumSizeHint().height())));
        QVERIFY(window.messageBar()->isHidden()); // said once, in the start view
        QVERIFY(openAndWait(window, kSample));
        QVERIFY(!start->isVisible() && window.pages()->isVisible());
        const auto model = window.document()->model();
        QSignalSpy failed(window.document(), &Document::loadFailed);
        QVERIFY(drop(window, {QUrl::fromLocalFile(path)}));
        QVERIFY(failed.wait(10000));
        QCOMPARE(window.document()->model(), model);
        QVERIFY(window.messageBar()->isVisible());
        QCOMPARE(window.messageBar()->kind(), MessageBar::Kind::Error);
        QVERIFY2(window.messageBar()->text().contains(message), qPrintable(window.messageBar()->text()));
        // a byte offset only where reading stopped at a byte; the path said once (#40)
        const QString said = window.messageBar()->text();
        const bool unreadable = special == QLatin1String("device") || special == QLatin1String("fifo") ||
                                special == QLatin1String("symlink loop") || special == QLatin1String("no permission") ||
                                name.isEmpty();
        QVERIFY2(said.contains(QStringLiteral("byte offset 0")) == !unreadable, qPrintable(said));
        QCOMPARE(said.count(QDir::toNativeSeparators(path)), 1);
        QVERIFY(said.contains(QStringLiteral("Still showing tiny-llama-tied-q4_k_m.gguf")));
        QCOMPARE(window.page<OverviewPage>()->fieldText(OverviewPage::Field::Architecture), QStringLiteral("llama"));
        QCOMPARE(window.page<TensorsPage>()->proxy()->rowCount(), 38);
        if (name.endsWith(QLatin1String(".png")))
            saveScreenshots(window, QStringLiteral("bad-png"));
        // A good file afterwards clears the message.
        QVERIFY(openAndWait(window, kVocab));
        QVERIFY(window.messageBar()->isHidden());
    }

    void recentFilesAndWindowState()
    {
        QSettings().clear();
        {
            MainWindow window;
            window.show();
            QVERIFY(openAndWait(window, kVocab));
            QVERIFY(openAndWait(window, kSample));
            window.page<TensorsPage>()->setGroupedByLayer(true);
            window.resize(900, 600);
            window.close();
        }
        const QStringList recent = QSettings().value(QStringLiteral("recentFiles")).toStringList();
        QCOMPARE(recent, (QStringList{QFileInfo(kSample).absoluteFilePath(), QFileInfo(kVocab).absoluteFilePath()}));
        QVERIFY(!QSettings().value(QStringLiteral("mainWindow/geometry")).toByteArray().isEmpty());
        MainWindow restored;
        QCOMPARE(restored.size(), QSize(900, 600));
        QVERIFY(restored.page<TensorsPage>()->model()->isGroupedByLayer());
    }

    void fileChangedOnDiskIsReportedAndReloads_data()
    {
        QTest::addColumn<QString>("change");
        QTest::addColumn<QString>("message");
        QTest::newRow("truncated") << "truncate"
                                   << "was truncated from";
        QTest::newRow("grown") << "append"
                               << "grew from";
        QTest::newRow("replaced") << "replace"
                                  << "was modified or replaced";
        QTest::newRow("deleted") << "delete"
                                 << "was deleted or renamed";
    }

    // A file that changes while it is open (a download still running, a re-quantized model
    // written over it): the window says so, keeps working, and reloads on request.
    void fileChangedOnDiskIsReportedAndReloads()
    {
        QFETCH(QString, change);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("model.gguf"));
        QVERIFY(QFile::copy(kSample, path));
        const qint64 size = QFileInfo(path).size();
        MainWindow window;
        window.resize(1100, 760);
        window.show();
        QVERIFY(openAndWait(window, path));
        const auto model = window.document()->model();
        QVERIFY(window.messageBar()->isHidden());
        window.page<TensorsPage>()->selectTensor({0, 7});
        const QString shown = window.page<WeightsPage>()->tensor().name();
        QVERIFY(!shown.isEmpty());

        if (change == QLatin1String("truncate")) {
            QVERIFY(QFile::resize(path, size / 2));
        } else if (change == QLatin1String("append")) {
            QFile file(path);
            QVERIFY(file.open(QIODevice::Append));
            file.write(QByteArray(4096, '\0'));
        } else if (change == QLatin1String("replace")) {
            // written elsewhere and renamed over it, as download managers and converters do
            const QString fresh = dir.filePath(QStringLiteral("fresh.gguf"));
            QVERIFY(QFile::copy(kSample, fresh));
            QCOMPARE(::rename(QFile::encodeName(fresh).constData(), QFile::encodeName(path).constData()), 0);
        } else {
            QVERIFY(QFile::remove(path));
        }
        QTRY_VERIFY_WITH_TIMEOUT(window.messageBar()->isVisible(), 5000);
        QCOMPARE(window.messageBar()->kind(), MessageBar::Kind::Warning);
        QVERIFY2(window.messageBar()->text().contains(message), qPrintable(window.messageBar()->text()));
        QVERIFY(window.messageBar()->text().contains(QStringLiteral("model.gguf")));
        QVERIFY(window.messageBar()->actionButton()->isVisible());
        // the open document is untouched and its pages still work
        QCOMPARE(window.document()->model(), model);
        QCOMPARE(window.page<OverviewPage>()->fieldText(OverviewPage::Field::Architecture), QStringLiteral("llama"));
        if (change == QLatin1String("truncate"))
            saveScreenshots(window, QStringLiteral("changed-on-disk"));

        QSignalSpy loaded(window.document(), &Document::loaded);
        QSignalSpy failed(window.document(), &Document::loadFailed);
        QSignalSpy pagesFilled(&window, &MainWindow::modelShown);
        window.messageBar()->actionButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() + failed.count() == 1, 10000);
        if (change == QLatin1String("append") || change == QLatin1String("replace")) {
            QCOMPARE(loaded.count(), 1);
            QTRY_COMPARE_WITH_TIMEOUT(pagesFilled.count(), 1, 10000); // every page has the new model
            QVERIFY(window.document()->model() != model);
            QVERIFY(window.messageBar()->isHidden());
            // the tensor on show before the reload is on show again
            QCOMPARE(window.page<WeightsPage>()->tensor().model, window.document()->model());
            QCOMPARE(window.page<WeightsPage>()->tensor().name(), shown);
            // the new mapping is watched again
            QFile file(path);
            QVERIFY(file.open(QIODevice::Append));
            file.write("x");
            file.close();
            QTRY_VERIFY_WITH_TIMEOUT(window.messageBar()->isVisible(), 5000);
        } else if (change == QLatin1String("truncate")) {
            // the header is still whole: the file opens again, with a warning naming what is missing
            QCOMPARE(loaded.count(), 1);
            QVERIFY(window.messageBar()->isVisible());
            QCOMPARE(window.messageBar()->kind(), MessageBar::Kind::Warning);
            QVERIFY2(window.messageBar()->text().contains(
                         QRegularExpression(QStringLiteral("is truncated .* of its 38 tensors"))),
                     qPrintable(window.messageBar()->text()));
        } else {
            // a file that cannot be read any more: the old document stays, with the reason
            QCOMPARE(failed.count(), 1);
            QCOMPARE(window.document()->model(), model);
            QCOMPARE(window.messageBar()->kind(), MessageBar::Kind::Error);
            QVERIFY(window.messageBar()->text().contains(QStringLiteral("Still showing model.gguf")));
        }
    }

private:
    QTemporaryDir m_settingsDir;
    bool m_permissionsApply = true;
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
