// SPDX-License-Identifier: GPL-3.0-or-later
// The monkey's walks into views that take a setting up first: the Compare page's pair panel, the
// metadata editor's edit, undo, redo and save, and the Overview's kind facts. Where a click reaches
// the view, a click acts; where the way in is a dialog (Save As, the base model's file), the call it
// ends in.
#include "app/explorer/main_window.h"
#include "core/edit/owned_value.h"
#include "core/format/split_model.h"
#include "tests/monkey/file_pool.h"
#include "tests/monkey/monkey.h"
#include "ui/compare/compare_page.h"
#include "ui/compare/tensor_pair_panel.h"
#include "ui/metadata/metadata_editor.h"
#include "ui/metadata/metadata_page.h"
#include "ui/overview/kind_panel.h"
#include "ui/overview/overview_page.h"
#include "ui/shell/document.h"

#include <QTabBar>
#include <QTreeWidget>
#include <QUndoStack>
#include <QtTest>

namespace {

// A path of the pool that holds a model (the shard of a split set included), by index.
QString goodModel(const QStringList &paths, quint32 p)
{
    QStringList good;
    for (const QString &path : paths)
        if (path.endsWith(QLatin1String("sample.gguf")) || path.contains(QLatin1String("tiny-llama")) ||
            path.contains(QLatin1String("split-0000")))
            good << path;
    return good.isEmpty() ? paths.first() : good[static_cast<qsizetype>(p % good.size())];
}

} // namespace

QString Monkey::comparePair(const Params &p)
{
    auto *page = m_window->page<ComparePage>();
    if (!page->model())
        return QStringLiteral("compare: nothing open");
    if (!page->other()) {
        const QString path = goodModel(m_pool->paths(), p[0]);
        m_window->compareWith(path);
        return QStringLiteral("compare with %1").arg(pathName(path));
    }
    if (!showPage(page))
        return QStringLiteral("compare: the page could not be shown");
    // the Tensors section, a pair of A's tensors (or one only in B) in detail, one of its views
    const auto &tensors = page->model()->tensors();
    QString name;
    if (!tensors.empty())
        name = QString::fromUtf8(tensors[p[1] % tensors.size()].info->name.data(),
                                 static_cast<qsizetype>(tensors[p[1] % tensors.size()].info->name.size()));
    const bool shown = !name.isEmpty() && page->selectTensor(name);
    QString view;
    if (QTabBar *bar = page->pairPanel()->findChild<QTabBar *>(); bar && bar->isVisible() && bar->count() > 0) {
        const int index = static_cast<int>(p[2] % static_cast<quint32>(bar->count()));
        QTest::mouseClick(bar, Qt::LeftButton, {}, bar->tabRect(index).center());
        view = bar->tabText(index);
    }
    return QStringLiteral("compare the pair %1%2%3")
        .arg(name, shown ? QString() : QStringLiteral(" (not shown)"),
             view.isEmpty() ? QString() : QStringLiteral(", view %1").arg(view));
}

QString Monkey::editMetadata(const Params &p)
{
    auto *page = m_window->page<MetadataPage>();
    MetadataEditor *editor = page->editor();
    if (!editor->file() || !editor->file()->complete())
        return QStringLiteral("edit: no whole file open");
    showPage(page);
    const auto &entries = editor->file()->metadata();
    switch (p[0] % 7) {
    case 0:
    case 1: {
        const QString name = QStringLiteral("monkey %1").arg(p[1] % 1000);
        const QString refused =
            editor->setValue(QStringLiteral("general.name"), gguf::OwnedValue::string(name.toStdString()));
        return QStringLiteral("set general.name to \"%1\"%2")
            .arg(name, refused.isEmpty() ? QString() : QStringLiteral(": ") + refused);
    }
    case 2: {
        if (entries.empty())
            return QStringLiteral("remove a key: none");
        const QString key = QString::fromUtf8(entries[p[1] % entries.size()].key.data(),
                                              static_cast<qsizetype>(entries[p[1] % entries.size()].key.size()));
        const QString refused = editor->removeKey(key);
        return QStringLiteral("remove %1%2").arg(key, refused.isEmpty() ? QString() : QStringLiteral(": ") + refused);
    }
    case 3: editor->undoStack()->undo(); return QStringLiteral("undo");
    case 4: editor->undoStack()->redo(); return QStringLiteral("redo");
    case 5:
    default: {
        // something to save: a name set first when nothing is changed yet
        QString what;
        if (!editor->hasChanges()) {
            editor->setValue(QStringLiteral("general.name"),
                             gguf::OwnedValue::string("saved by the monkey " + std::to_string(p[1] % 100)));
            what = QStringLiteral("set general.name, then ");
        }
        if (p[0] % 7 == 5) {
            page->save();
            return what + QStringLiteral("save in place");
        }
        const QString target = m_pool->scratchPath(QStringLiteral("saved-%1.gguf").arg(p[1] % 4));
        page->saveAs(target);
        return what + QStringLiteral("save as %1").arg(pathName(target));
    }
    }
}

QString Monkey::kindFacts(const Params &p)
{
    auto *page = m_window->page<OverviewPage>();
    auto *kind = page->findChild<KindPanel *>();
    if (!kind || !kind->isVisibleTo(page))
        return QStringLiteral("kind facts: none for this file");
    showPage(page);
    if (p[0] % 3 == 0) {
        const QString base = goodModel(m_pool->paths(), p[1]);
        kind->checkAgainstBase(base);
        return QStringLiteral("check the adapter against %1").arg(pathName(base));
    }
    auto *tree = kind->findChild<QTreeWidget *>();
    if (!tree || tree->topLevelItemCount() == 0)
        return QStringLiteral("kind facts: empty");
    QTreeWidgetItem *item =
        tree->topLevelItem(static_cast<int>(p[2] % static_cast<quint32>(tree->topLevelItemCount())));
    const QRect rect = tree->visualItemRect(item);
    if (!rect.isValid())
        return QStringLiteral("kind facts: %1 off screen").arg(item->text(0));
    QTest::mouseDClick(tree->viewport(), Qt::LeftButton, {}, rect.center());
    return QStringLiteral("double-click the kind fact %1").arg(item->text(0));
}
