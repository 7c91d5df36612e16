// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/metadata/metadata_editor.h"

#include "core/edit/file_writer.h"
#include "core/edit/header_writer.h"
#include "core/format/gguf_file.h"
#include "ui/common/job_tracker.h"
#include "ui/common/text_format.h"

#include <QFileInfo>
#include <QUndoCommand>
#include <QUndoStack>

namespace {

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

QString shortText(const gguf::OwnedValue &v)
{
    return qs(v.toDisplayString(40)).replace(QLatin1Char('\n'), QStringLiteral("⏎"));
}

// What a save job hands to the GUI thread.
struct SaveOutcome {
    gguf::SaveResult result;
    QString problem;         ///< the plan was refused
    QString reason;          ///< why in place or why a copy
    bool paddingKey = false; ///< the program's own padding key was written (the reason says why)
};

} // namespace

/// One step: the change of one key goes from `before` to `after`.
class KeyChangeCommand : public QUndoCommand {
public:
    KeyChangeCommand(MetadataEditor *editor, const QString &text, std::string key,
                     std::optional<gguf::KeyChange> before, std::optional<gguf::KeyChange> after,
                     QUndoCommand *parent = nullptr)
        : QUndoCommand(text, parent), m_editor(editor), m_key(std::move(key)), m_before(std::move(before)),
          m_after(std::move(after))
    {
    }
    void redo() override { m_editor->apply(m_key, m_after); }
    void undo() override { m_editor->apply(m_key, m_before); }

private:
    MetadataEditor *m_editor;
    std::string m_key;
    std::optional<gguf::KeyChange> m_before, m_after;
};

MetadataEditor::MetadataEditor(QObject *parent)
    : QObject(parent), m_undo(new QUndoStack(this)), m_saver(new JobTracker(this))
{
    // Cancel only asks the writer to stop: a save that had already written its file (an in-place
    // save, a copy past its rename) is still reported as a save, and the job counts as running
    // until the writer has answered
    m_saver->setCancelWaits(true);
}

MetadataEditor::~MetadataEditor() = default;

void MetadataEditor::setFile(std::shared_ptr<const gguf::GgufFile> file)
{
    m_file = std::move(file);
    const bool hadNewKeys = [&] {
        for (const std::string &key : m_changes.order())
            if (!m_file || !m_file->findMetadata(key))
                return true;
        return false;
    }();
    m_changes.clear();
    m_undo->clear(); // after the changes: what listens to the stack sees none
    if (hadNewKeys)
        emit keysAddedOrDropped();
}

void MetadataEditor::apply(const std::string &key, const std::optional<gguf::KeyChange> &state)
{
    const auto isNewKey = [&] {
        const gguf::KeyChange *c = m_changes.find(key);
        return c && c->kind == gguf::KeyChange::Kind::Set && m_file && !m_file->findMetadata(key);
    };
    const bool wasNew = isNewKey();
    if (state)
        m_changes.put(key, *state);
    else
        m_changes.revert(key);
    if (wasNew != isNewKey())
        emit keysAddedOrDropped();
    emit keyChanged(qs(key));
}

bool MetadataEditor::push(const QString &text, const std::string &key, std::optional<gguf::KeyChange> after)
{
    if (isSaving())
        return false; // the save took the changes as they were; the reload after it starts afresh
    const gguf::KeyChange *current = m_changes.find(key);
    std::optional<gguf::KeyChange> before = current ? std::optional(*current) : std::nullopt;
    if (before == after)
        return false;
    m_undo->push(new KeyChangeCommand(this, text, key, std::move(before), std::move(after)));
    return true;
}

QString MetadataEditor::problemWith(const gguf::MetadataChanges &one) const
{
    if (isSaving())
        return tr("Saving; the file can be edited again when it is saved.");
    if (!m_file)
        return tr("No file is open.");
    const auto problems = one.problems(*m_file);
    return problems.empty() ? QString() : qs(problems.front());
}

QString MetadataEditor::setValue(const QString &key, const gguf::OwnedValue &value)
{
    const std::string k = key.toStdString();
    gguf::MetadataChanges one;
    one.set(k, value);
    if (const QString why = problemWith(one); !why.isEmpty())
        return why;
    // setting a key back to the value it has in the file is no change at all
    if (const gguf::MetadataEntry *e = m_file->findMetadata(k);
        e && value.type != gguf::ValueType::Array && gguf::OwnedValue::fromValue(e->value) == value) {
        if (m_changes.find(k))
            push(tr("Revert %1").arg(key), k, std::nullopt);
        return {};
    }
    push(tr("Set %1").arg(key), k, *one.find(k));
    return {};
}

QString MetadataEditor::removeKey(const QString &key)
{
    const std::string k = key.toStdString();
    if (isSaving())
        return problemWith({});
    if (m_file && !m_file->findMetadata(k)) {
        // an added key: removing it is forgetting it
        if (m_changes.find(k))
            push(tr("Remove %1").arg(key), k, std::nullopt);
        return {};
    }
    gguf::MetadataChanges one;
    one.remove(k);
    if (const QString why = problemWith(one); !why.isEmpty())
        return why;
    push(tr("Remove %1").arg(key), k, *one.find(k));
    return {};
}

QString MetadataEditor::setElement(const QString &key, quint64 index, const gguf::OwnedValue &element)
{
    const std::string k = key.toStdString();
    gguf::MetadataChanges one;
    if (const gguf::KeyChange *c = m_changes.find(k))
        one.put(k, *c);
    if (!one.setElement(k, index, element))
        return tr("%1 is removed or holds fewer elements").arg(key);
    if (const QString why = problemWith(one); !why.isEmpty())
        return why;
    gguf::KeyChange after = *one.find(k);
    // an element set back to its value in the file is no longer a change
    if (after.kind == gguf::KeyChange::Kind::Elements) {
        const gguf::ArrayRef array = m_file->findMetadata(k)->value.array();
        if (gguf::OwnedValue::fromValue(array.at(index)) == element)
            after.elements.erase(index);
        if (after.elements.empty()) {
            push(tr("Revert %1").arg(key), k, std::nullopt);
            return {};
        }
    }
    push(tr("Set %1[%2]").arg(key).arg(index), k, std::move(after));
    return {};
}

void MetadataEditor::revertKey(const QString &key)
{
    push(tr("Revert %1").arg(key), key.toStdString(), std::nullopt);
}

void MetadataEditor::discard()
{
    if (m_changes.empty())
        return;
    m_undo->beginMacro(tr("Discard every change"));
    const std::vector<std::string> keys = m_changes.order();
    for (const std::string &key : keys)
        push(QString(), key, std::nullopt);
    m_undo->endMacro();
}

std::optional<gguf::OwnedValue> MetadataEditor::valueOf(const QString &key) const
{
    const std::string k = key.toStdString();
    const gguf::KeyChange *c = m_changes.find(k);
    const gguf::MetadataEntry *e = m_file ? m_file->findMetadata(k) : nullptr;
    if (c && c->kind == gguf::KeyChange::Kind::Remove)
        return std::nullopt;
    if (c && c->kind == gguf::KeyChange::Kind::Set)
        return c->value;
    if (!e)
        return std::nullopt;
    gguf::OwnedValue v = gguf::OwnedValue::fromValue(e->value);
    if (c)
        for (const auto &[index, element] : c->elements)
            if (index < v.elements.size())
                v.elements[index] = element;
    return v;
}

QStringList MetadataEditor::describeChanges() const
{
    QStringList out;
    for (const std::string &key : m_changes.order()) {
        const gguf::KeyChange &c = *m_changes.find(key);
        const gguf::MetadataEntry *e = m_file ? m_file->findMetadata(key) : nullptr;
        const QString k = qs(key);
        switch (c.kind) {
        case gguf::KeyChange::Kind::Remove: out << tr("− %1 (removed)").arg(k); break;
        case gguf::KeyChange::Kind::Set:
            if (!e)
                out << tr("+ %1 (%2) = %3")
                           .arg(k, qs(gguf::typeDisplayName(c.value.type, c.value.elementType)), shortText(c.value));
            else
                out << tr("%1: %2 → %3").arg(k, shortText(gguf::OwnedValue::fromValue(e->value)), shortText(c.value));
            break;
        case gguf::KeyChange::Kind::Elements: {
            QStringList parts;
            for (const auto &[index, element] : c.elements) {
                if (parts.size() == 3) {
                    parts << QStringLiteral("…");
                    break;
                }
                parts << QStringLiteral("[%1] = %2").arg(index).arg(shortText(element));
            }
            out << (c.elements.size() == 1 ? tr("%1: 1 element changed: %2").arg(k, parts.join(QString()))
                                           : tr("%1: %2 elements changed: %3")
                                                 .arg(k)
                                                 .arg(c.elements.size())
                                                 .arg(parts.join(QStringLiteral(", "))));
            break;
        }
        }
    }
    return out;
}

bool MetadataEditor::isSaving() const
{
    return m_saver->isRunning();
}

void MetadataEditor::save(const QString &target, bool allowInPlace, quint64 reserve)
{
    if (!m_file || m_saver->isRunning())
        return;
    auto outcome = std::make_shared<SaveOutcome>();
    const auto report = [this, outcome] {
        const gguf::SaveResult &r = outcome->result;
        if (!outcome->problem.isEmpty())
            emit saveFailed(outcome->problem);
        else if (!r.ok)
            emit saveFailed(QString::fromStdString(r.message));
        else
            emit saved(
                QString::fromStdString(r.path), r.inPlace,
                r.inPlace
                    ? (outcome->paddingKey
                           ? tr("saved in place: %1 of header written; %2")
                                 .arg(TextFormat::byteSize(r.bytesWritten), outcome->reason)
                           : tr("saved in place: %1 of header written").arg(TextFormat::byteSize(r.bytesWritten)))
                    : tr("written by a copy (%1; %2)").arg(TextFormat::byteSize(r.bytesWritten), outcome->reason));
    };
    m_saver->start(
        tr("Saving %1").arg(QFileInfo(target).fileName()),
        [file = m_file, changes = m_changes, path = target.toStdString(), allowInPlace, reserve,
         outcome](const gguf::ProgressFn &progress) {
            std::string error;
            gguf::HeaderOptions options;
            options.reserve = reserve;
            options.paddingKey = allowInPlace; // Save As moves the data rather than add a key

            const auto plan = gguf::planHeader(*file, changes, options, error);
            if (!plan) {
                outcome->problem = QString::fromStdString(error);
            } else {
                outcome->reason = QString::fromStdString(plan->reason);
                outcome->paddingKey = plan->paddingKeyWritten;
                outcome->result = gguf::writeEdited(*file, *plan, path, allowInPlace, gguf::SaveHooks{progress, {}});
            }
            return true;
        },
        [report](bool) { report(); });
}
