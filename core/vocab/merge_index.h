// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/util/parallel_chunks.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace gguf {

class Vocabulary;

/// Which merge rules produce a token: the rules whose two halves, joined, spell the token's stored
/// text ("Ġt" + "he" → "Ġthe"). A sorted table of (hash of the joined halves, rank); the halves
/// themselves stay in the file.
class MergeIndex {
public:
    /// Hashes every merge rule of `vocab`. nullopt when `progress` returned false (cancelled).
    static std::optional<MergeIndex> build(const Vocabulary &vocab, const ProgressFn &progress = {});

    /// Ranks of the rules of `vocab` (the vocabulary the index was built from) that produce
    /// `text`, ascending.
    std::vector<uint64_t> producing(const Vocabulary &vocab, std::string_view text) const;

    uint64_t size() const { return m_entries.size(); }

private:
    std::vector<std::pair<uint64_t, uint32_t>> m_entries; // (hash, rank), sorted
};

} // namespace gguf
