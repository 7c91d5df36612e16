// SPDX-License-Identifier: GPL-3.0-or-later
// The Metadata page's editing: the Edit button and its bar, the pending changes, the detail pane
// as a text editor (with the chat template's live check), Save and Save As (docs/EDITING.md).
#include "core/edit/owned_value.h"
#include "core/format/gguf_file.h"
#include "core/template/chat_template.h"
#include "ui/common/jinja_highlighter.h"
#include "ui/common/job_tracker.h"
#include "ui/metadata/metadata_editor.h"
#include "ui/metadata/metadata_filter_proxy.h"
#include "ui/metadata/metadata_page.h"
#include "ui/metadata/metadata_tree_model.h"
#include "ui/metadata/metadata_value_delegate.h"

#include <QAction>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTextDocument>
#include <QToolButton>
#include <QTreeView>
#include <QUndoStack>

namespace {

constexpr auto kChatTemplateKey = "tokenizer.chat_template";

QToolButton *toolButton(QWidget *parent, QAction *action)
{
    auto *b = new QToolButton(parent);
    b->setDefaultAction(action);
    b->setToolButtonStyle(Qt::ToolButtonTextOnly);
    return b;
}

} // namespace

QWidget *MetadataPage::createEditBar()
{
    auto *bar = new QWidget(this);
    auto *row = new QHBoxLayout(bar);
    row->setContentsMargins(0, 0, 0, 0);
    m_editButton = new QToolButton(bar);
    m_editButton->setText(tr("&Edit"));
    m_editButton->setObjectName(QStringLiteral("editMetadata"));
    m_editButton->setCheckable(true);
    m_editTip = tr("Edit the metadata: values, keys, array elements, the chat template. Nothing is "
                   "written until you save.");
    m_editButton->setToolTip(m_editTip);
    connect(m_editButton, &QToolButton::toggled, this, &MetadataPage::setEditing);
    row->addWidget(m_editButton);

    m_editBar = new QWidget(bar);
    auto *edits = new QHBoxLayout(m_editBar);
    edits->setContentsMargins(0, 0, 0, 0);
    auto *add = new QAction(tr("Add Key…"), this);
    connect(add, &QAction::triggered, this, &MetadataPage::chooseAddKey);
    auto *remove = new QAction(tr("Remove Key"), this);
    connect(remove, &QAction::triggered, this, [this] {
        if (const QString why = removeSelectedKey(); !why.isEmpty())
            emit editMessage(why);
    });
    const auto [undo, redo] = createUndoActions();
    auto *saveAction = new QAction(tr("&Save"), this);
    saveAction->setObjectName(QStringLiteral("saveEdits"));
    saveAction->setShortcut(QKeySequence::Save);
    saveAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(saveAction); // Ctrl+S wherever the focus is on the page
    connect(saveAction, &QAction::triggered, this, &MetadataPage::save);
    auto *saveAsAction = new QAction(tr("Save &As…"), this);
    connect(saveAsAction, &QAction::triggered, this, &MetadataPage::chooseSaveAs);
    auto *discard = new QAction(tr("Discard"), this);
    connect(discard, &QAction::triggered, m_editor, &MetadataEditor::discard);
    for (QAction *a : {add, remove, undo, redo, saveAction, saveAsAction, discard})
        edits->addWidget(toolButton(m_editBar, a));
    row->addWidget(m_editBar);

    // save and discard only when there is something to save; nothing while saving
    const auto enable = [this, saveAction, saveAsAction, discard] {
        const bool changes = m_editor->hasChanges(), saving = m_editor->isSaving();
        saveAction->setEnabled(changes && !saving);
        saveAsAction->setEnabled(!saving && m_editor->file());
        discard->setEnabled(changes && !saving);
    };
    connect(m_editor->undoStack(), &QUndoStack::indexChanged, this, enable);
    connect(m_editor->saveTracker(), &JobTracker::started, this, enable);
    connect(m_editor->saveTracker(), &JobTracker::finished, this, enable);
    connect(m_editor->saveTracker(), &JobTracker::cancelled, this, enable);
    enable();

    connectEditing();
    return bar;
}

std::pair<QAction *, QAction *> MetadataPage::createUndoActions()
{
    // short labels that keep the bar still; what would be undone is in the tooltip
    QUndoStack *stack = m_editor->undoStack();
    auto *undo = new QAction(tr("Undo"), this);
    undo->setShortcut(QKeySequence::Undo);
    connect(undo, &QAction::triggered, stack, &QUndoStack::undo);
    connect(stack, &QUndoStack::canUndoChanged, undo, &QAction::setEnabled);
    connect(stack, &QUndoStack::undoTextChanged, undo,
            [undo](const QString &text) { undo->setToolTip(tr("Undo %1").arg(text)); });
    auto *redo = new QAction(tr("Redo"), this);
    redo->setShortcut(QKeySequence::Redo);
    connect(redo, &QAction::triggered, stack, &QUndoStack::redo);
    connect(stack, &QUndoStack::canRedoChanged, redo, &QAction::setEnabled);
    connect(stack, &QUndoStack::redoTextChanged, redo,
            [redo](const QString &text) { redo->setToolTip(tr("Redo %1").arg(text)); });
    undo->setEnabled(false);
    redo->setEnabled(false);
    for (QAction *a : {undo, redo})
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_view->addActions({undo, redo});
    return {undo, redo};
}

void MetadataPage::connectEditing()
{
    connect(m_editor, &MetadataEditor::keyChanged, this, [this](const QString &key) {
        m_model->pendingChanged(key);
        updatePending();
        if (m_view->currentIndex().isValid() && key == m_view->currentIndex().data(MetadataTreeModel::KeyRole))
            showDetails(m_view->currentIndex());
    });
    connect(m_editor, &MetadataEditor::keysAddedOrDropped, this, [this] {
        const QString current = m_view->currentIndex().data(MetadataTreeModel::KeyRole).toString();
        m_model->rebuild();
        m_view->expandToDepth(0);
        if (const QModelIndex again = m_proxy->mapFromSource(m_model->indexOfKey(current)); again.isValid())
            m_view->setCurrentIndex(again);
        else
            showDetails({}); // the key on show went away (an added key undone)
    });
    connect(m_pending, &QListWidget::itemActivated, this, [this](QListWidgetItem *item) {
        const QModelIndex index = m_proxy->mapFromSource(m_model->indexOfKey(item->data(Qt::UserRole).toString()));
        m_view->setCurrentIndex(index);
        m_view->scrollTo(index);
    });

    connect(m_apply, &QPushButton::clicked, this, [this] {
        if (const QString why = applyDetailText(); !why.isEmpty())
            emit editMessage(why);
    });
    m_checker = new JobTracker(this);
    connect(m_detail, &QPlainTextEdit::textChanged, this, &MetadataPage::checkTemplate);
    m_highlighter = new JinjaHighlighter(nullptr);
    m_highlighter->setParent(this);
    auto *delegate = new MetadataValueDelegate(m_view);
    m_view->setItemDelegateForColumn(MetadataTreeModel::ValueColumn, delegate);
    connect(delegate, &MetadataValueDelegate::editRefused, this, &MetadataPage::editMessage);
}

MetadataPage::~MetadataPage()
{
    for (QObject *sender : std::initializer_list<QObject *>{m_editor, m_editor->undoStack(), m_editor->saveTracker()})
        sender->disconnect(this);
}

bool MetadataPage::isEditing() const
{
    return m_editButton->isChecked();
}

void MetadataPage::setEditing(bool editing)
{
    if (m_editButton->isChecked() != editing)
        m_editButton->setChecked(editing); // comes back here through toggled()
    m_model->setEditable(editing, [this](const QString &key, qint64 element, const gguf::OwnedValue &value) {
        return element >= 0 ? m_editor->setElement(key, static_cast<quint64>(element), value)
                            : m_editor->setValue(key, value);
    });
    m_view->setEditTriggers(editing ? QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                                          QAbstractItemView::SelectedClicked
                                    : QAbstractItemView::NoEditTriggers);
    updateEditState();
}

void MetadataPage::updateEditState()
{
    const bool editing = isEditing();
    m_editBar->setVisible(editing);
    updateDetailEditing(currentSourceIndex());
    updatePending();
}

QModelIndex MetadataPage::currentSourceIndex() const
{
    return m_proxy->mapToSource(m_view->currentIndex().siblingAtColumn(0));
}

void MetadataPage::updatePending()
{
    const QStringList lines = m_editor->describeChanges();
    m_pending->clear();
    const auto &order = m_editor->changes().order();
    for (qsizetype i = 0; i < lines.size(); ++i) {
        auto *item = new QListWidgetItem(lines[i], m_pending);
        item->setData(Qt::UserRole, QString::fromStdString(order[static_cast<size_t>(i)]));
    }
    m_pendingTitle->setText(lines.isEmpty()     ? tr("No pending changes")
                            : lines.size() == 1 ? tr("1 pending change, not saved yet:")
                                                : tr("%1 pending changes, not saved yet:").arg(lines.size()));
    const bool show = isEditing() || !lines.isEmpty();
    m_pendingTitle->setVisible(show);
    m_pending->setVisible(show && !lines.isEmpty());
}

void MetadataPage::updateDetailEditing(const QModelIndex &index)
{
    m_detailKey.clear();
    m_detailElement = -1;
    const bool editable =
        isEditing() && index.isValid() &&
        index.siblingAtColumn(MetadataTreeModel::TypeColumn).data().toString() == QLatin1String("STRING");
    if (editable) {
        const QString key = index.data(MetadataTreeModel::KeyRole).toString();
        const gguf::KeyChange *c = m_editor->changes().find(key.toStdString());
        const bool removed = c && c->kind == gguf::KeyChange::Kind::Remove;
        const bool structural = gguf::isStructuralKey(key.toStdString()) || key == QLatin1String(gguf::kPaddingKey);
        const qint64 element = index.data(MetadataTreeModel::ElementIndexRole).toLongLong();
        if (!removed && !structural && keepsItsBytes(stringBytes(key, element))) {
            m_detailKey = key;
            m_detailElement = element;
        }
    }
    m_detail->setReadOnly(m_detailKey.isEmpty());
    m_apply->setVisible(!m_detailKey.isEmpty());
    const bool isTemplate = index.isValid() && m_detailElement < 0 &&
                            index.data(MetadataTreeModel::KeyRole).toString() == QLatin1String(kChatTemplateKey);
    m_highlighter->setDocument(isTemplate ? m_detail->document() : nullptr);
    m_templateCheck->setVisible(isTemplate && !m_detailKey.isEmpty());
    m_templateCheck->clear();
}

void MetadataPage::checkTemplate()
{
    if (!m_templateCheck->isVisibleTo(this))
        return;
    // parsed on a worker: a hostile template of megabytes never stalls typing
    m_checker->start(
        tr("Checking the chat template"),
        [source = m_detail->toPlainText().toStdString()](const gguf::ProgressFn &) {
            const gguf::ChatTemplate t(source);
            if (t.isValid())
                return tr("✔ The template is well-formed (every tag is closed, every expression parses).");
            const gguf::SourcePosition at = gguf::sourcePosition(source, t.errorOffset());
            return tr("✘ %1 at line %2, column %3").arg(QString::fromStdString(t.error())).arg(at.line).arg(at.column);
        },
        [this](const QString &verdict) { m_templateCheck->setText(verdict); });
}

QString MetadataPage::templateCheck() const
{
    return m_templateCheck->isVisibleTo(this) ? m_templateCheck->text() : QString();
}

QStringList MetadataPage::pendingChanges() const
{
    return m_editor->describeChanges();
}

std::string MetadataPage::stringBytes(const QString &key, qint64 element) const
{
    const std::string k = key.toStdString();
    const auto index = static_cast<uint64_t>(element);
    if (const gguf::KeyChange *c = m_editor->changes().find(k)) {
        if (c->kind == gguf::KeyChange::Kind::Set)
            return element < 0 ? c->value.text
                               : (index < c->value.elements.size() ? c->value.elements[index].text : std::string());
        if (const auto it = c->elements.find(index); element >= 0 && it != c->elements.end())
            return it->second.text;
    }
    const gguf::MetadataEntry *entry = m_editor->file() ? m_editor->file()->findMetadata(k) : nullptr;
    if (!entry)
        return {};
    return std::string(element < 0 ? entry->value.toStringView() : entry->value.array().stringAt(index));
}

bool MetadataPage::keepsItsBytes(const std::string &bytes)
{
    // The text editor would change these: invalid UTF-8 (shown as U+FFFD), carriage returns and the
    // line and paragraph separators (it makes line breaks of them). Such strings are edited with
    // `gguf-inspect set`, which takes bytes as they are.
    if (QString::fromUtf8(bytes.data(), static_cast<qsizetype>(bytes.size())).toUtf8() !=
        QByteArrayView(bytes.data(), static_cast<qsizetype>(bytes.size())))
        return false;
    return bytes.find('\r') == std::string::npos && bytes.find("\xE2\x80\xA8") == std::string::npos &&
           bytes.find("\xE2\x80\xA9") == std::string::npos;
}

QString MetadataPage::applyDetailText()
{
    if (m_detailKey.isEmpty())
        return tr("Select a string value while editing to change its text (strings with invalid UTF-8, carriage "
                  "returns or line separators are edited with gguf-inspect set).");
    // the raw text: toPlainText() would turn no-break spaces into spaces
    const QString text = m_detail->document()->toRawText().replace(QChar::ParagraphSeparator, QLatin1Char('\n'));
    const gguf::OwnedValue value = gguf::OwnedValue::string(text.toStdString());
    return m_detailElement >= 0 ? m_editor->setElement(m_detailKey, static_cast<quint64>(m_detailElement), value)
                                : m_editor->setValue(m_detailKey, value);
}

QString MetadataPage::addKey(const QString &key, const QString &typeName, const QString &text)
{
    gguf::ValueType type{}, elementType{};
    if (key.trimmed().isEmpty())
        return tr("A key needs a name.");
    if (!gguf::parseTypeName(typeName.toStdString(), type, elementType))
        return tr("%1 is not a GGUF value type.").arg(typeName);
    std::string error;
    const auto value = gguf::parseValue(type, text.toStdString(), error, elementType);
    if (!value)
        return tr("%1: %2").arg(key, QString::fromStdString(error));
    return m_editor->setValue(key.trimmed(), *value);
}

QString MetadataPage::removeSelectedKey()
{
    const QModelIndex index = currentSourceIndex();
    if (!index.isValid() ||
        index.data(MetadataTreeModel::ItemKindRole).toInt() != static_cast<int>(MetadataTreeModel::ItemKind::Entry))
        return tr("Select a key to remove.");
    return m_editor->removeKey(index.data(MetadataTreeModel::KeyRole).toString());
}

void MetadataPage::chooseAddKey()
{
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Add Key"));
    auto *key = new QLineEdit(&dialog);
    key->setPlaceholderText(tr("general.license"));
    auto *type = new QComboBox(&dialog);
    for (uint32_t id = 0; id < gguf::kValueTypeCount; ++id)
        if (id != static_cast<uint32_t>(gguf::ValueType::Array))
            type->addItem(QString::fromStdString(gguf::valueTypeName(id)));
    for (uint32_t id = 0; id < gguf::kValueTypeCount; ++id)
        if (id != static_cast<uint32_t>(gguf::ValueType::Array))
            type->addItem(QStringLiteral("ARRAY[%1]").arg(QString::fromStdString(gguf::valueTypeName(id))));
    type->setCurrentText(QStringLiteral("STRING"));
    auto *value = new QLineEdit(&dialog);
    value->setPlaceholderText(tr("a value; an array as [1, 2, 3] or [\"a\", \"b\"]"));
    auto *problem = new QLabel(&dialog);
    problem->setWordWrap(true);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    auto *form = new QFormLayout(&dialog);
    form->addRow(tr("&Key:"), key);
    form->addRow(tr("&Type:"), type);
    form->addRow(tr("&Value:"), value);
    form->addRow(problem);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, [&] {
        const QString why = addKey(key->text(), type->currentText(), value->text());
        if (why.isEmpty())
            dialog.accept();
        else
            problem->setText(why);
    });
    dialog.exec();
}

void MetadataPage::save()
{
    if (const gguf::GgufFile *file = m_editor->file(); file && m_editor->hasChanges())
        m_editor->save(QString::fromStdString(file->path()), true);
}

void MetadataPage::saveAs(const QString &path)
{
    if (m_editor->file() && !path.isEmpty())
        m_editor->save(path, false);
}

void MetadataPage::chooseSaveAs()
{
    const gguf::GgufFile *file = m_editor->file();
    if (!file)
        return;
    const QFileInfo info(QString::fromStdString(file->path()));
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save As"), info.dir().filePath(info.completeBaseName() + QStringLiteral("-edited.gguf")),
        tr("GGUF files (*.gguf);;All files (*)"));
    saveAs(path);
}

void MetadataPage::changeEvent(QEvent *event)
{
    // a switch between light and dark palettes recolours a chat template on show
    if (event->type() == QEvent::PaletteChange && m_highlighter)
        m_highlighter->applyPalette(palette());
    QWidget::changeEvent(event);
}
