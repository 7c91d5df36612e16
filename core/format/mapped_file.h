// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/format/byte_source.h"
#include "core/format/errors.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace gguf {

/// A read-only view of a whole file: a private read-only memory map (never written, never copied),
/// or an owned buffer for in-memory documents and tests.
class MappedFile final : public ByteSource {
public:
    ~MappedFile() override;

    /// Maps `path` read-only. Refuses directories, FIFOs and devices without blocking on them.
    /// On failure returns nullptr and fills `error` (NotFound / Unreadable).
    static std::shared_ptr<MappedFile> open(const std::string &path, Error &error);

    /// Wraps bytes held in memory (the path is only a display name).
    static std::shared_ptr<MappedFile> fromBuffer(std::vector<uint8_t> bytes, std::string name);

    const uint8_t *data() const override { return m_data; }
    uint64_t size() const override { return m_size; }
    const std::string &path() const override { return m_path; }
    bool isMapped() const override { return m_mapped; }
    bool changed() const override { return changedOnDisk(); }
    uint64_t currentSize() const override { return currentDiskSize(); }

    /// True once the file was seen to change under the mapping: a page past its new end was touched
    /// (and read as zeros instead of crashing the program with SIGBUS), or the path now names a file
    /// of another size, modification time or identity (replaced), or nothing (deleted).
    bool changedOnDisk() const;

    /// Current size of the file on disk (re-checked with stat); equals size() for buffers.
    /// Used to notice a file that was truncated or replaced while it is open.
    uint64_t currentDiskSize() const;

    /// Drops the resident pages wholly inside [offset, offset+size) from this process (they are
    /// read again from the page cache if touched). Streaming passes call it so that resident
    /// memory stays bounded however large the tensor. No effect on buffers.
    void releasePages(uint64_t offset, uint64_t size) const override;

private:
    MappedFile() = default;

    std::string m_path;
    const uint8_t *m_data = nullptr;
    uint64_t m_size = 0;
    bool m_mapped = false;
    std::vector<uint8_t> m_buffer;
    int m_guardSlot = -1;               ///< slot in the SIGBUS guard's table of mappings
    uint64_t m_device = 0, m_inode = 0; ///< identity at open, to notice a replaced file
    int64_t m_mtimeNs = 0;
};

} // namespace gguf
