// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/edit/owned_value.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

class GgufFile;

/// The key the writer adds to pad a header so that an edited file can be saved in place
/// (docs/EDITING.md §2): an ARRAY of UINT8 zeros, always the last pair. It carries no meaning;
/// the writer recomputes it on every save, so it cannot be edited.
inline constexpr std::string_view kPaddingKey = "gguf_explorer.padding";

/// What happens to one key.
struct KeyChange {
    enum class Kind : uint8_t {
        Set,      ///< a new value (or a new key)
        Remove,   ///< every pair with this key goes
        Elements, ///< some elements of an existing array get new values
    };
    Kind kind = Kind::Set;
    OwnedValue value;                        ///< Set
    std::map<uint64_t, OwnedValue> elements; ///< Elements: index → new element

    bool operator==(const KeyChange &other) const = default;
};

/// A set of pending metadata changes to one file, keyed by name. Later changes to a key replace
/// earlier ones (element changes accumulate). New keys are written after the existing ones, in the
/// order they were first changed.
class MetadataChanges {
public:
    void set(const std::string &key, OwnedValue value);
    void remove(const std::string &key);
    /// Changes element `index` of the array `key`: an existing array (checked by `problems`), or
    /// one this set gives a new value (false when `index` is past its end). False when the key is
    /// being removed or was given a value that is not an array.
    bool setElement(const std::string &key, uint64_t index, OwnedValue element);
    /// Forgets every change to `key`.
    void revert(const std::string &key);
    /// Puts back a change as find() returned it (what an undo does).
    void put(const std::string &key, KeyChange change);
    void clear();

    const KeyChange *find(std::string_view key) const;
    bool empty() const { return m_changes.empty(); }
    size_t size() const { return m_changes.size(); }
    /// Changed keys in the order they were first changed.
    const std::vector<std::string> &order() const { return m_order; }

    /// Problems that stop these changes from being written to `file`, one line each (empty when
    /// they can be written): the reserved padding key, keys whose change would move tensor data
    /// (`general.alignment`) or break a split set (`split.*`), element changes to a key that is not
    /// an array or out of its range, elements of the wrong type, over-long strings.
    std::vector<std::string> problems(const GgufFile &file) const;

private:
    KeyChange &slot(const std::string &key);

    std::map<std::string, KeyChange, std::less<>> m_changes;
    std::vector<std::string> m_order;
};

/// True for keys whose value the data layout or a split set depends on (not editable).
bool isStructuralKey(std::string_view key);

} // namespace gguf
