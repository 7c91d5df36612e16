// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gguf {

/// A trie over bytes whose nodes may carry a token id; node 0 is the root.
class ByteTrie {
public:
    static constexpr uint32_t kNone = UINT32_MAX;

    ByteTrie() : m_values(1, -1) {}

    void insert(std::string_view key, int32_t value)
    {
        uint32_t node = 0;
        for (char c : key) {
            const auto [it, inserted] = m_edges.try_emplace(edge(node, c), static_cast<uint32_t>(m_values.size()));
            if (inserted)
                m_values.push_back(-1);
            node = it->second;
        }
        m_values[node] = value;
    }
    /// The child of `node` by byte `c`, or kNone.
    uint32_t child(uint32_t node, char c) const
    {
        const auto it = m_edges.find(edge(node, c));
        return it == m_edges.end() ? kNone : it->second;
    }
    /// The id stored at `node`, or -1.
    int32_t value(uint32_t node) const { return m_values[node]; }

private:
    static uint64_t edge(uint32_t node, char c) { return (uint64_t{node} << 8) | static_cast<uint8_t>(c); }
    std::unordered_map<uint64_t, uint32_t> m_edges;
    std::vector<int32_t> m_values;
};

} // namespace gguf
