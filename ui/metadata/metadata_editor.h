// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/edit/metadata_changes.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <optional>

class JobTracker;
class QUndoStack;

namespace gguf {
class GgufFile;
}

/// The pending metadata changes to one file and their saving (docs/EDITING.md). Every change is a
/// command on an undo stack; nothing touches the file until save(), which plans the new header and
/// writes it (in place, or by a copy beside the target) on a worker through a JobTracker, with
/// progress and Cancel.
class MetadataEditor : public QObject {
    Q_OBJECT
public:
    explicit MetadataEditor(QObject *parent = nullptr);
    ~MetadataEditor() override;

    /// Edits `file` from now on (null: nothing); forgets the changes and the undo history.
    void setFile(std::shared_ptr<const gguf::GgufFile> file);
    const gguf::GgufFile *file() const { return m_file.get(); }
    const gguf::MetadataChanges &changes() const { return m_changes; }
    bool hasChanges() const { return !m_changes.empty(); }
    QUndoStack *undoStack() const { return m_undo; }
    JobTracker *saveTracker() const { return m_saver; }

    /// Each of these is one undoable step; an empty string when it was taken, else why not (a
    /// key that cannot be edited, an element past the end, a value of the wrong type).
    QString setValue(const QString &key, const gguf::OwnedValue &value);
    QString removeKey(const QString &key);
    QString setElement(const QString &key, quint64 index, const gguf::OwnedValue &element);
    /// Forgets the change to `key`.
    void revertKey(const QString &key);
    /// Forgets every change (undoable as one step).
    void discard();

    /// The current value of an existing or added key (the pending one when changed); nullopt for a
    /// removed or unknown key.
    std::optional<gguf::OwnedValue> valueOf(const QString &key) const;
    /// One line per pending change, in the order the keys were first changed.
    QStringList describeChanges() const;

    /// Writes the changes to `target`: the file itself (Save: in place when the header fits, with
    /// `allowInPlace`) or another file (Save As: always a copy). `reserve`: spare header bytes when
    /// the data must move (HeaderOptions::reserve). Changes are refused while it runs.
    void save(const QString &target, bool allowInPlace, quint64 reserve = 0);
    bool isSaving() const;

signals:
    /// The pending change of `key` changed (it was made, undone, redone or reverted).
    void keyChanged(const QString &key);
    /// A key was added to or dropped from the file's keys (the tree must be rebuilt).
    void keysAddedOrDropped();
    /// Saving finished: `path` now holds the edited file (`inPlace`: only its header was written).
    void saved(const QString &path, bool inPlace, const QString &how);
    /// Saving failed or was cancelled; the target is as it was.
    void saveFailed(const QString &message);

private:
    friend class KeyChangeCommand;
    /// Puts `key`'s change to `state` (nullopt: no change) and tells the views.
    void apply(const std::string &key, const std::optional<gguf::KeyChange> &state);
    /// Why `one` (a change about to be made) cannot be: a save running, no file, or the first of
    /// its problems(); empty when it can.
    QString problemWith(const gguf::MetadataChanges &one) const;
    /// Pushes the step from the current change of `key` to `after`; false when nothing changes.
    bool push(const QString &text, const std::string &key, std::optional<gguf::KeyChange> after);
    std::shared_ptr<const gguf::GgufFile> m_file;
    gguf::MetadataChanges m_changes;
    QUndoStack *m_undo;
    JobTracker *m_saver;
};
