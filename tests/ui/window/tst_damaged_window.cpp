// SPDX-License-Identifier: GPL-3.0-or-later
// Every file of the corruption matrix in the explorer window (#21): a damaged file opens with what
// was read before the break, a red bar names the offset `gguf-inspect validate` names, its "Show in
// Bytes" leads to the field that broke (highlighted, noted), and the Bytes page waits there; a file
// that is wrong but parses opens with each finding linked to its bytes; a file that is not a GGUF
// stays a plain error.
#include "app/explorer/main_window.h"
#include "core/format/byte_map.h"
#include "core/format/split_model.h"
#include "tests/support/corruption_cases.h"
#include "tests/support/exact_json.h"
#include "tests/support/inspect_run.h"
#include "ui/common/message_bar.h"
#include "ui/common/text_format.h"
#include "ui/hex/hex_annotator.h"
#include "ui/hex/hex_notes.h"
#include "ui/hex/hex_page.h"
#include "ui/hex/hex_view.h"
#include "ui/metadata/metadata_page.h"
#include "ui/metadata/metadata_tree_model.h"
#include "ui/overview/overview_page.h"
#include "ui/shell/document.h"
#include "ui/tensors/tensor_sort_filter_proxy.h"
#include "ui/tensors/tensor_table_model.h"
#include "ui/tensors/tensors_page.h"

#include <QAbstractItemModel>
#include <QFile>
#include <QPushButton>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTreeView>
#include <QTreeWidget>
#include <QtTest>

using namespace corruption_cases;

namespace {

// Every index of `model` under `parent`, depth first.
void collect(const QAbstractItemModel &model, const QModelIndex &parent, QList<QModelIndex> &out)
{
    for (int r = 0; r < model.rowCount(parent); ++r) {
        const QModelIndex index = model.index(r, 0, parent);
        out << index;
        collect(model, index, out);
    }
}

// What `gguf-inspect validate --json` names: (code, offset) of each finding.
QList<std::pair<std::string, uint64_t>> validateFindings(const QString &path)
{
    const gguf::test::InspectRun run =
        gguf::test::inspect({QStringLiteral("validate"), path, QStringLiteral("--json")});
    QList<std::pair<std::string, uint64_t>> out;
    const auto json = gguf::test::ExactJson::parse(run.out.toStdString());
    if (!json || !json->isArray())
        return out;
    for (const gguf::test::ExactJson &f : json->items())
        out.append({f["code"].text(), f["offset"].toUInt64().value_or(UINT64_MAX)});
    return out;
}

} // namespace

class TestDamagedWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_window.resize(1200, 800);
        m_window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&m_window));
    }
    void llamaCppHandcrafted_data() { addLlamaCppRows(); }
    void llamaCppHandcrafted() { checkInWindow(); }
    void findings_data() { addFindingRows(); }
    void findings() { checkInWindow(); }
    // a download cut short inside each field of the header: what the prefix holds, then the break
    void cuts_data();
    void cuts();

private:
    void checkInWindow();
    void checkDamaged(const Case &c, const QString &path, uint64_t offset);
    void checkFindingsLinked(const QString &path);

    QTemporaryDir m_dir;
    MainWindow m_window;
    int m_files = 0;
};

void TestDamagedWindow::checkInWindow()
{
    QFETCH(Case, testCase);
    const QString path = m_dir.filePath(QStringLiteral("case-%1.gguf").arg(++m_files));
    QFile out(path);
    QVERIFY(out.open(QIODevice::WriteOnly));
    QCOMPARE(out.write(reinterpret_cast<const char *>(testCase.bytes.data()), qint64(testCase.bytes.size())),
             qint64(testCase.bytes.size()));
    out.close();

    QSignalSpy shown(&m_window, &MainWindow::modelShown);
    QSignalSpy failed(m_window.document(), &Document::loadFailed);
    m_window.openFile(path);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() + failed.count() > 0, 20000);
    MessageBar *bar = m_window.messageBar();
    const Expect &e = testCase.expect;
    if (e.fileNull) {
        // not a GGUF at all: a plain error, nothing opened
        QCOMPARE(failed.count(), 1);
        QVERIFY(bar->isVisible() && bar->kind() == MessageBar::Kind::Error);
        QVERIFY2(bar->text().contains(QFileInfo(path).fileName()), qPrintable(bar->text()));
        QVERIFY(!bar->actionButton()->isVisible());
        return;
    }
    QCOMPARE(shown.count(), 1);
    QCOMPARE(m_window.document()->path(), path);
    const QList<std::pair<std::string, uint64_t>> named = validateFindings(path);
    const bool structural = e.errorKind == gguf::ErrorKind::Malformed ||
                            e.errorKind == gguf::ErrorKind::UnsupportedType ||
                            e.errorKind == gguf::ErrorKind::UnsupportedVersion;
    if (structural) {
        // the offset validate gives the fatal finding
        const auto fatal =
            std::find_if(named.begin(), named.end(), [&](const auto &f) { return f.first == e.errorCode; });
        QVERIFY2(fatal != named.end(), e.errorCode.c_str());
        checkDamaged(testCase, path, fatal->second);
        return;
    }
    QVERIFY(!m_window.document()->model()->firstBreak());
    QVERIFY(!m_window.windowTitle().contains(QStringLiteral("damaged")));
    QVERIFY(!bar->isVisible() || bar->kind() != MessageBar::Kind::Error);
    checkFindingsLinked(path);
}

void TestDamagedWindow::cuts_data()
{
    QTest::addColumn<Case>("testCase");
    const BuiltFile full = base().build();
    const Layout &L = full.layout();
    // each field, and where reading stops when the file ends one byte into it (from the format's
    // rules, not from the reader): a length whose text is cut off is itself what cannot be read;
    // a tensor's type and offset are read together
    struct Field {
        std::string what;
        uint64_t at;
        std::string code;
        uint64_t breaks;
    };
    std::vector<Field> fields{{"version", L.versionOffset, "truncated", L.versionOffset},
                              {"tensor_count", L.tensorCountOffset, "truncated", L.tensorCountOffset},
                              {"kv_count", L.kvCountOffset, "truncated", L.kvCountOffset}};
    for (const KvLayout &k : L.kvs) {
        fields.push_back({k.key + " key_length", k.offset, "truncated", k.offset});
        fields.push_back({k.key + " key", k.keyOffset, "key_past_end", k.offset});
        fields.push_back({k.key + " value_type", k.typeOffset, "truncated", k.typeOffset});
        // (a one-byte value is whole at its end: then the next pair's key length is cut off)
        fields.push_back(
            {k.key + " value", k.valueOffset, "truncated", k.end - k.valueOffset == 1 ? k.end : k.valueOffset});
    }
    for (const TensorLayout &t : L.tensors) {
        fields.push_back({t.name + " name_length", t.infoOffset, "truncated", t.infoOffset});
        fields.push_back({t.name + " name", t.nameOffset, "tensor_name_past_end", t.infoOffset});
        fields.push_back({t.name + " n_dims", t.nDimsOffset, "truncated", t.nDimsOffset});
        fields.push_back({t.name + " dims", t.dimsOffset, "truncated", t.dimsOffset});
        fields.push_back({t.name + " type", t.typeOffset, "truncated", t.typeOffset});
        fields.push_back({t.name + " offset", t.offsetFieldOffset, "truncated", t.typeOffset});
    }
    // The counts are right and the file was cut: the break is the field where the file ends, never the
    // counts (#40), even where the counts claim more items than the bytes after them can hold.
    for (const Field &f : fields) {
        const uint64_t size = f.at + 1;
        Case c{cut(full, size).bytes(), {}};
        c.expect.errorKind = gguf::ErrorKind::Malformed;
        c.expect.errorCode = f.code;
        c.expect.errorOffset = f.breaks;
        QTest::addRow("inside %s (%llu)", f.what.c_str(), static_cast<unsigned long long>(f.at)) << c;
    }
}

void TestDamagedWindow::cuts()
{
    QFETCH(Case, testCase);
    const QString path = m_dir.filePath(QStringLiteral("cut-%1.gguf").arg(++m_files));
    QFile out(path);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(reinterpret_cast<const char *>(testCase.bytes.data()), qint64(testCase.bytes.size()));
    out.close();
    // validate names the break where the format's rules put it (its fatal finding is the last)
    const QList<std::pair<std::string, uint64_t>> named = validateFindings(path);
    QVERIFY(!named.isEmpty());
    QCOMPARE(named.back().first, testCase.expect.errorCode);
    QCOMPARE(named.back().second, testCase.expect.errorOffset);
    QSignalSpy shown(&m_window, &MainWindow::modelShown);
    m_window.openFile(path);
    QVERIFY(shown.wait(20000));
    checkDamaged(testCase, path, named.back().second);
}

void TestDamagedWindow::checkDamaged(const Case &c, const QString &path, uint64_t offset)
{
    const uint64_t size = c.bytes.size();
    QCOMPARE(offset, c.expect.errorOffset);
    const auto shardBreak = m_window.document()->model()->firstBreak();
    QVERIFY(shardBreak);
    QCOMPARE(shardBreak->shard, size_t(0));
    const gguf::GgufFile &file = m_window.document()->model()->primary();
    QVERIFY(file.breakage());
    QVERIFY(m_window.windowTitle().contains(QStringLiteral("(damaged)")));

    // the red bar: the error and its offset, and the way to its bytes
    MessageBar *bar = m_window.messageBar();
    QVERIFY(bar->isVisible());
    QCOMPARE(bar->kind(), MessageBar::Kind::Error);
    QVERIFY2(bar->text().contains(QFileInfo(path).fileName()), qPrintable(bar->text()));
    QVERIFY2(bar->text().contains(TextFormat::offset(offset)), qPrintable(bar->text()));
    QVERIFY(bar->actionButton()->isVisible());

    // the Bytes page waits at the break, the field that broke selected; the button goes there too
    const uint64_t first = std::min(offset, size - 1);
    HexPage *hex = m_window.page<HexPage>();
    QCOMPARE(hex->view()->selection().first, first);
    m_window.pages()->setCurrentWidget(m_window.page<OverviewPage>());
    QTest::mouseClick(bar->actionButton(), Qt::LeftButton);
    QCOMPARE(m_window.pages()->currentWidget(), hex);
    QVERIFY(bar->isVisible()); // the bar stays while the file is damaged
    const gguf::Breakage &broken = *file.breakage();
    const auto [begin, end] = hex->view()->selection();
    QCOMPARE(begin, first);
    QVERIFY(end > begin && end <= size);
    if (offset < size) {
        // the field is its own region, coloured and noted as broken, with the layout it needed
        QTRY_VERIFY_WITH_TIMEOUT(hex->annotator() != nullptr, 10000);
        const HexAnnotator::Description d = hex->annotator()->describe(offset);
        QCOMPARE(d.kind, gguf::RegionKind::Broken);
        QCOMPARE(d.category, HexAnnotator::Category::Broken);
        QCOMPARE(d.regionOffset, offset);
        QVERIFY2(d.explanation.contains(QString::fromStdString(file.breakage()->expected)), qPrintable(d.explanation));
        const QString notes = HexNotes::forRow(*hex->annotator(), offset, offset + 1, 1000);
        QVERIFY2(notes.contains(QStringLiteral("✖ ") + QString::fromStdString(broken.expected).left(20)),
                 qPrintable(notes));
    }

    // the Metadata page lists the pairs read, and the one being read when it broke, marked
    QList<QModelIndex> rows;
    const QAbstractItemModel &tree = *m_window.page<MetadataPage>()->model();
    collect(tree, {}, rows);
    const auto brokenRows = std::count_if(
        rows.begin(), rows.end(), [](const QModelIndex &i) { return i.data(MetadataTreeModel::BrokenRole).toBool(); });
    QCOMPARE(brokenRows, broken.section == gguf::Breakage::Section::Metadata ? 1 : 0);
    const auto entries = std::count_if(rows.begin(), rows.end(), [](const QModelIndex &i) {
        return i.data(MetadataTreeModel::ItemKindRole).toInt() == int(MetadataTreeModel::ItemKind::Entry) &&
               !i.data(MetadataTreeModel::BrokenRole).toBool();
    });
    QCOMPARE(size_t(entries), file.metadata().size());

    // the Tensors page lists the tensor infos read, and the one being read when it broke, marked,
    // flat and grouped by layer; it is not counted as a tensor
    TensorsPage *tensorsPage = m_window.page<TensorsPage>();
    for (const bool grouped : {false, true}) {
        tensorsPage->setGroupedByLayer(grouped);
        QList<QModelIndex> tensorRows;
        collect(*tensorsPage->proxy(), {}, tensorRows);
        const auto marked = std::count_if(tensorRows.begin(), tensorRows.end(), [](const QModelIndex &i) {
            return i.data(TensorTableModel::BrokenRole).toBool();
        });
        QCOMPARE(marked, broken.section == gguf::Breakage::Section::TensorInfos ? 1 : 0);
        const auto listed = std::count_if(tensorRows.begin(), tensorRows.end(), [](const QModelIndex &i) {
            return !i.data(TensorTableModel::IsGroupRole).toBool() && !i.data(TensorTableModel::BrokenRole).toBool();
        });
        QCOMPARE(size_t(listed), file.tensors().size());
        // the count agrees with its word, and a broken tensor info row is said to be one (#40)
        const size_t n = file.tensors().size();
        const QString shown =
            n == 1 ? QStringLiteral("1 of 1 tensor shown") : QStringLiteral("%1 of %1 tensors shown").arg(n);
        QVERIFY2(tensorsPage->totalsText().startsWith(shown), qPrintable(tensorsPage->totalsText()));
        QCOMPARE(tensorsPage->totalsText().contains(
                     QStringLiteral("reading stopped in tensor info %1 of the").arg(broken.index)),
                 broken.section == gguf::Breakage::Section::TensorInfos);
    }
    tensorsPage->setGroupedByLayer(false);
    // ...and says which tensor info broke, or that none was read
    const MessageBar *damage = m_window.page<TensorsPage>()->findChild<MessageBar *>(QStringLiteral("tensorsDamage"));
    QVERIFY(damage && !damage->text().isEmpty());
    QVERIFY2(damage->text().contains(TextFormat::offset(broken.fieldOffset)), qPrintable(damage->text()));
}

void TestDamagedWindow::checkFindingsLinked(const QString &path)
{
    // every finding validate names is listed on the Overview with its offset, and leads to its bytes
    const QList<std::pair<std::string, uint64_t>> named = validateFindings(path);
    auto *list = m_window.page<OverviewPage>()->findChild<QTreeWidget *>(QStringLiteral("findings"));
    QVERIFY(list);
    for (const auto &[code, offset] : named) {
        QTreeWidgetItem *item = nullptr;
        for (int i = 0; i < list->topLevelItemCount() && !item; ++i)
            if (list->topLevelItem(i)->text(2) == QString::fromStdString(code) &&
                list->topLevelItem(i)->text(1) == TextFormat::offset(offset))
                item = list->topLevelItem(i);
        QVERIFY2(item, code.c_str());
        m_window.pages()->setCurrentWidget(m_window.page<OverviewPage>());
        emit list->itemActivated(item, 0);
        QCOMPARE(m_window.pages()->currentWidget(), m_window.page<HexPage>());
        // (a finding at the end of the file, such as a data region that would start there, is
        // shown at its last byte)
        const uint64_t at = std::min(offset, m_window.document()->model()->primary().fileSize() - 1);
        const auto [begin, end] = m_window.page<HexPage>()->view()->selection();
        QVERIFY2(begin <= at && at < end, code.c_str());
    }
}

QTEST_MAIN(TestDamagedWindow)
#include "tst_damaged_window.moc"
