// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/edit/metadata_changes.h"

#include "core/format/gguf_file.h"

#include <algorithm>

namespace gguf {
namespace {

constexpr uint64_t kMaxString = uint64_t(1) << 30; // ggml refuses longer strings (docs/FORMAT.md §5)

// Why `value` cannot be written as an element of `elementType` (empty when it can).
std::string elementProblem(const OwnedValue &value, ValueType elementType)
{
    if (value.type != elementType)
        return "is " + typeDisplayName(value.type, value.elementType) + ", the array holds " +
               valueTypeName(elementType);
    if (value.type == ValueType::String && value.text.size() > kMaxString)
        return "is a string longer than 1 GiB";
    return {};
}

std::string valueProblem(const OwnedValue &value)
{
    if (value.type == ValueType::String && value.text.size() > kMaxString)
        return "a string longer than 1 GiB (ggml refuses it)";
    if (value.type != ValueType::Array)
        return {};
    for (size_t i = 0; i < value.elements.size(); ++i) {
        if (auto p = elementProblem(value.elements[i], value.elementType); !p.empty())
            return "element " + std::to_string(i) + " " + p;
        if (auto p = valueProblem(value.elements[i]); !p.empty())
            return "element " + std::to_string(i) + ": " + p;
    }
    return {};
}

} // namespace

bool isStructuralKey(std::string_view key)
{
    return key == "general.alignment" || key.starts_with("split.");
}

KeyChange &MetadataChanges::slot(const std::string &key)
{
    auto it = m_changes.find(key);
    if (it == m_changes.end()) {
        m_order.push_back(key);
        it = m_changes.emplace(key, KeyChange{}).first;
    }
    return it->second;
}

void MetadataChanges::set(const std::string &key, OwnedValue value)
{
    KeyChange &c = slot(key);
    c = KeyChange{KeyChange::Kind::Set, std::move(value), {}};
}

void MetadataChanges::remove(const std::string &key)
{
    KeyChange &c = slot(key);
    c = KeyChange{KeyChange::Kind::Remove, {}, {}};
}

bool MetadataChanges::setElement(const std::string &key, uint64_t index, OwnedValue element)
{
    const auto it = m_changes.find(key);
    if (it == m_changes.end()) {
        KeyChange &c = slot(key);
        c.kind = KeyChange::Kind::Elements;
        c.elements[index] = std::move(element);
        return true;
    }
    KeyChange &c = it->second;
    switch (c.kind) {
    case KeyChange::Kind::Elements: c.elements[index] = std::move(element); return true;
    case KeyChange::Kind::Set:
        if (!c.value.isArray() || index >= c.value.elements.size())
            return false;
        c.value.elements[index] = std::move(element);
        return true;
    case KeyChange::Kind::Remove: return false;
    }
    return false;
}

void MetadataChanges::put(const std::string &key, KeyChange change)
{
    slot(key) = std::move(change);
}

void MetadataChanges::revert(const std::string &key)
{
    if (m_changes.erase(key))
        m_order.erase(std::find(m_order.begin(), m_order.end(), key));
}

void MetadataChanges::clear()
{
    m_changes.clear();
    m_order.clear();
}

const KeyChange *MetadataChanges::find(std::string_view key) const
{
    const auto it = m_changes.find(key);
    return it == m_changes.end() ? nullptr : &it->second;
}

std::vector<std::string> MetadataChanges::problems(const GgufFile &file) const
{
    std::vector<std::string> out;
    for (const std::string &key : m_order) {
        const KeyChange &c = m_changes.find(key)->second;
        const auto say = [&](const std::string &what) { out.push_back(key + ": " + what); };
        if (key.empty()) {
            out.push_back("a key cannot be empty");
            continue;
        }
        if (key == kPaddingKey) {
            say("reserved for the header padding the editor writes (docs/EDITING.md)");
            continue;
        }
        if (isStructuralKey(key)) {
            say(key == "general.alignment" ? "changing the alignment would move every tensor's data; convert the "
                                             "model again instead"
                                           : "the split keys hold a split set together and cannot be edited");
            continue;
        }
        const MetadataEntry *entry = file.findMetadata(key);
        switch (c.kind) {
        case KeyChange::Kind::Remove:
            if (!entry)
                say("no such key to remove");
            break;
        case KeyChange::Kind::Set:
            if (auto p = valueProblem(c.value); !p.empty())
                say(p);
            break;
        case KeyChange::Kind::Elements: {
            if (!entry || entry->value.type() != ValueType::Array) {
                say(entry ? "not an array, so it has no elements to change" : "no such array");
                break;
            }
            const ArrayRef array = entry->value.array();
            if (array.elementType() == ValueType::Array) {
                say("an array of arrays: give it a whole new value instead");
                break;
            }
            for (const auto &[index, element] : c.elements) {
                if (index >= array.size()) {
                    say("element " + std::to_string(index) + " is past the end (" + std::to_string(array.size()) +
                        " elements)");
                    break;
                }
                if (auto p = elementProblem(element, array.elementType()); !p.empty()) {
                    say("element " + std::to_string(index) + " " + p);
                    break;
                }
            }
            break;
        }
        }
    }
    return out;
}

} // namespace gguf
