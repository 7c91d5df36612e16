// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/edit/header_writer.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace gguf {

class GgufFile;

/// The steps of a save, in order (docs/EDITING.md §3). The in-place path takes Checked,
/// BackupWritten, HeaderWritten, HeaderSynced, BackupRemoved; the copy path Checked, TempCreated,
/// HeaderCopied, DataCopied, TempSynced, Renamed.
enum class SaveStep : uint8_t {
    Checked,       ///< the file is as it was parsed; nothing written yet
    BackupWritten, ///< in place: the old header is in the backup file, synced
    HeaderWritten, ///< in place: the new header is written over the old one (not yet synced)
    HeaderSynced,  ///< in place: the new header is on the disk
    BackupRemoved, ///< in place: done
    TempCreated,   ///< copy: the temporary file exists beside the target
    HeaderCopied,  ///< copy: the new header is in the temporary file
    DataCopied,    ///< copy: the tensor data is in the temporary file
    TempSynced,    ///< copy: the temporary file is on the disk
    Renamed,       ///< copy: the temporary file replaced the target; done
};

std::string_view saveStepName(SaveStep step);

struct SaveHooks {
    /// Copy path: (bytes copied, bytes to copy); return false to cancel. Cancel is honoured up to
    /// the rename; the target is then as it was and the temporary file is gone.
    std::function<bool(uint64_t done, uint64_t total)> progress;
    /// Told after each step (tests stop the writer here to check what an interruption leaves).
    std::function<void(SaveStep)> step;
};

struct SaveResult {
    bool ok = false;
    bool cancelled = false;
    bool inPlace = false;
    std::string path;    ///< the file written (the target, symlinks resolved)
    std::string message; ///< on failure: one line naming what failed and where
    uint64_t bytesWritten = 0;
    bool ownerKept = true; ///< copy: the replaced file's owner and group could be given to the new one
};

/// Where the in-place path keeps the old header while it writes the new one.
std::string headerBackupPath(const std::string &path);
/// The header backup an interrupted in-place save left beside `path` (beside the file a symbolic
/// link names: the writer follows it), or nullopt when there is none. While there is one, no save
/// goes to `path` (docs/EDITING.md §3).
std::optional<std::string> leftoverHeaderBackup(const std::string &path);

/// Writes `plan` (made from `file` by planHeader) to `target`.
/// - In place when `target` is the file itself, the plan fits in place and `allowInPlace`: the old
///   header goes to headerBackupPath() and is synced, the new header is written and synced, the
///   backup is removed. A backup that is already there (an earlier save was interrupted) stops
///   the save: it must be restored or removed first.
/// - Otherwise a copy: a new file beside the target gets the new header and then the bytes of the
///   old data region (holes stay holes), is synced and renamed over the target, keeping the
///   target's permissions. Any failure or a cancel removes the new file; the target is untouched.
/// Both paths first check that the file on disk is still the one `file` was parsed from.
SaveResult writeEdited(const GgufFile &file, const HeaderPlan &plan, const std::string &target, bool allowInPlace,
                       const SaveHooks &hooks = {});

} // namespace gguf
