// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/edit/header_writer.h"

#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "core/util/byte_order.h"

#include <algorithm>
#include <cstring>

namespace gguf {
namespace {

constexpr uint64_t kCopyBlock = 4096;                     ///< a page, and the block of common file systems
constexpr uint64_t kMaxHeaderBytes = uint64_t(256) << 20; ///< far beyond a real header (a 256k vocabulary: ~20 MB)

uint64_t alignUp(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

// Writes values in one file's byte order and version.
class Encoder {
public:
    Encoder(const GgufFile &file, std::vector<uint8_t> &out) : m_file(file), m_out(out) {}

    template <typename T> void put(T v)
    {
        if (m_file.byteSwapped())
            v = byteSwap(v);
        const auto *p = reinterpret_cast<const uint8_t *>(&v);
        m_out.insert(m_out.end(), p, p + sizeof v);
    }
    void putLength(uint64_t n)
    {
        if (m_file.v1())
            put(static_cast<uint32_t>(n));
        else
            put(n);
    }
    void putText(std::string_view s)
    {
        putLength(s.size());
        m_out.insert(m_out.end(), s.begin(), s.end());
    }
    void putFixed(ValueType type, uint64_t bits)
    {
        switch (valueTypeSize(type)) {
        case 1: m_out.push_back(static_cast<uint8_t>(bits)); break;
        case 2: put(static_cast<uint16_t>(bits)); break;
        case 4: put(static_cast<uint32_t>(bits)); break;
        default: put(bits); break;
        }
    }
    /// The bytes of [offset, offset+size) of the file as they are.
    void copy(uint64_t offset, uint64_t size)
    {
        const auto b = m_file.bytes(offset, size);
        m_out.insert(m_out.end(), b.begin(), b.end());
    }

    // a value without its type field
    void putValue(const OwnedValue &v)
    {
        if (v.type == ValueType::String) {
            putText(v.text);
        } else if (v.type == ValueType::Array) {
            put(static_cast<uint32_t>(v.elementType));
            putLength(v.elements.size());
            for (const OwnedValue &e : v.elements)
                putValue(e);
        } else {
            putFixed(v.type, v.bits);
        }
    }
    void putValue(const Value &v)
    {
        if (v.type() == ValueType::String) {
            putText(v.toStringView());
        } else if (v.type() == ValueType::Array) {
            const ArrayRef a = v.array();
            put(static_cast<uint32_t>(a.elementType()));
            putLength(a.size());
            for (uint64_t i = 0; i < a.size(); ++i)
                putValue(a.at(i));
        } else {
            putFixed(v.type(), v.bits().value_or(0));
        }
    }
    // an array with some elements replaced: the rest copied as stored
    void putPatched(const ArrayRef &a, const std::map<uint64_t, OwnedValue> &patches)
    {
        put(static_cast<uint32_t>(a.elementType()));
        putLength(a.size());
        const uint32_t fixed = valueTypeSize(a.elementType());
        if (fixed) {
            const size_t start = m_out.size();
            copy(a.elementsOffset(), a.size() * fixed);
            for (const auto &[index, element] : patches) {
                std::vector<uint8_t> one;
                Encoder(m_file, one).putFixed(a.elementType(), element.bits);
                std::memcpy(m_out.data() + start + index * fixed, one.data(), fixed);
            }
            return;
        }
        auto next = patches.begin();
        for (uint64_t i = 0; i < a.size(); ++i) {
            if (next != patches.end() && next->first == i) {
                putValue(next->second);
                ++next;
            } else {
                const Value e = a.at(i);
                copy(e.offset(), e.size());
            }
        }
    }
    void putPair(std::string_view key, ValueType type)
    {
        putText(key);
        put(static_cast<uint32_t>(type));
    }
    // the padding key's fixed cost: key, type, element type, count
    uint64_t paddingOverhead() const
    {
        const uint64_t len = m_file.v1() ? 4 : 8;
        return len + kPaddingKey.size() + 4 + 4 + len;
    }

private:
    const GgufFile &m_file;
    std::vector<uint8_t> &m_out;
};

// Where the data region must start after a header that ends at `end`.
uint64_t dataStartAfter(const GgufFile &file, uint64_t end)
{
    return file.tensors().empty() ? end : alignUp(end, file.alignment());
}

} // namespace

std::string otherShardRefusal(const GgufFile &file)
{
    const auto no = file.value("split.no").toUInt();
    if (!no || *no == 0)
        return {};
    const auto name = parseShardName(file.path());
    return "this is shard " + std::to_string(*no + 1) +
           " of a split set, whose metadata lives in the first shard: edit " +
           (name ? shardPath(*name, 1) : std::string("that one"));
}

std::optional<HeaderPlan> planHeader(const GgufFile &file, const MetadataChanges &changes, const HeaderOptions &options,
                                     std::string &error)
{
    if (!file.complete() || file.error()) {
        error = file.error() ? "the file did not parse completely: " + file.error().message
                             : "only the metadata of the file was read";
        return std::nullopt;
    }
    if (error = otherShardRefusal(file); !error.empty())
        return std::nullopt;
    if (const auto problems = changes.problems(file); !problems.empty()) {
        error = problems.front();
        return std::nullopt;
    }

    HeaderPlan plan;
    plan.oldDataOffset = file.dataOffset();
    std::vector<uint8_t> &out = plan.bytes;
    out.reserve(static_cast<size_t>(std::min<uint64_t>(file.dataOffset(), uint64_t(1) << 28)));
    Encoder enc(file, out);

    // the fixed header as it is; the key/value count and (extended) the data offset patched below
    enc.copy(0, file.headerEnd());
    uint64_t kvCount = 0;
    for (const MetadataEntry &e : file.metadata()) {
        if (e.key == kPaddingKey)
            continue; // recomputed below
        const KeyChange *c = changes.find(e.key);
        // a Set replaces the first pair with its key (the one ggml reads); later duplicates stay
        const bool first = file.findMetadata(e.key) == &e;
        if (c && c->kind == KeyChange::Kind::Remove)
            continue;
        ++kvCount;
        if (c && first && c->kind == KeyChange::Kind::Set) {
            enc.putPair(e.key, c->value.type);
            enc.putValue(c->value);
        } else if (c && first && c->kind == KeyChange::Kind::Elements) {
            enc.putPair(e.key, ValueType::Array);
            enc.putPatched(e.value.array(), c->elements);
        } else if (options.reencode) {
            enc.putPair(e.key, e.value.type());
            enc.putValue(e.value);
        } else {
            enc.copy(e.offset, e.end() - e.offset);
        }
    }
    for (const std::string &key : changes.order()) {
        const KeyChange *c = changes.find(key);
        if (c->kind != KeyChange::Kind::Set || file.findMetadata(key))
            continue;
        ++kvCount;
        enc.putPair(key, c->value.type);
        enc.putValue(c->value);
    }
    const size_t metadataEnd = out.size();
    enc.copy(file.metadataEnd(), file.tensorInfoEnd() - file.metadataEnd());

    // Where the data region starts. Extended header: anywhere at or after the header, so the old
    // place when it fits. Plain: the header's end padded to the alignment, which must come out at
    // the old place, if need be with the padding key's help (docs/EDITING.md §2).
    const uint64_t bare = out.size();
    const uint64_t overhead = enc.paddingOverhead();
    uint64_t dataOffset = 0;
    uint64_t padding = 0;
    bool padKey = false;
    // The padding key is the program's own: it is written only to keep the data in place when the
    // header shrank (and the caller saves in place), or to hold the spare room a reserve asks for.
    // A reserved copy moves the data by a whole number of blocks, so that the copy runs on whole
    // pages (and a file system that shares blocks between files can share them).
    const uint64_t block = std::max<uint64_t>(kCopyBlock, file.alignment());
    const auto grew = [&] {
        return "the header grew " + std::to_string(bare - file.dataOffset()) + " bytes past the start of the data";
    };
    const auto movedData = [&](uint64_t need) { return file.dataOffset() + alignUp(need - file.dataOffset(), block); };
    if (file.headerLayout() == HeaderLayout::Extended) {
        dataOffset = bare <= file.dataOffset() ? file.dataOffset() : movedData(bare + options.reserve);
        plan.reason = bare <= file.dataOffset() ? "the header fits before the data region"
                                                : "the header grew past the data region";
    } else if (dataStartAfter(file, bare) == file.dataOffset()) {
        dataOffset = file.dataOffset();
        plan.reason = "the header fits in the space before the data region";
    } else if (options.paddingKey && bare + overhead <= file.dataOffset()) {
        dataOffset = file.dataOffset();
        padding = file.dataOffset() - bare - overhead;
        padKey = true;
        plan.reason = "the header shrank; to keep the data in place, the program's own key " +
                      std::string(kPaddingKey) + " fills the " + std::to_string(padding + overhead) +
                      " bytes it left (llama.cpp ignores it)";
    } else if (options.reserve > 0 && !file.tensors().empty() && bare > file.dataOffset()) {
        dataOffset = movedData(bare + overhead + options.reserve);
        padding = dataOffset - bare - overhead;
        padKey = true;
        plan.reason = grew() + "; " + std::string(kPaddingKey) + " holds " + std::to_string(padding) +
                      " spare bytes for later edits, as the reserve asked";
    } else {
        if (options.reserve > 0) {
            padding = options.reserve;
            padKey = true;
        }
        dataOffset = dataStartAfter(file, bare + (padKey ? overhead + padding : 0));
        plan.reason = bare > file.dataOffset() ? grew()
                      : options.paddingKey
                          ? "the header shrank by too little for the padding key (" + std::to_string(overhead) +
                                " bytes at least) to fill the space before the data region"
                          : "the header shrank, and a copy moves the data back to the header's end";
    }
    // the header is built in memory, padding included: a hostile alignment (2^30 is a power of
    // two ggml accepts) or data offset must not make it gigabytes
    if (dataOffset > kMaxHeaderBytes) {
        error = "the new header and its padding would take " + std::to_string(dataOffset) + " bytes (alignment " +
                std::to_string(file.alignment()) + "); headers over " + std::to_string(kMaxHeaderBytes >> 20) +
                " MiB are not written";
        return std::nullopt;
    }
    if (padKey) {
        std::vector<uint8_t> pair;
        Encoder p(file, pair);
        p.putPair(kPaddingKey, ValueType::Array);
        p.put(static_cast<uint32_t>(ValueType::Uint8));
        p.putLength(padding);
        pair.resize(pair.size() + padding, 0);
        out.insert(out.begin() + static_cast<ptrdiff_t>(metadataEnd), pair.begin(), pair.end());
        ++kvCount;
    }
    out.resize(dataOffset, 0);

    // the counts: kv count as u32 (v1) or u64, and the extended header's data offset
    std::vector<uint8_t> field;
    Encoder f(file, field);
    f.putLength(kvCount);
    std::memcpy(out.data() + file.kvCountOffset(), field.data(), field.size());
    if (file.headerLayout() == HeaderLayout::Extended) {
        field.clear();
        f.put(dataOffset);
        std::memcpy(out.data() + file.headerEnd() - 8, field.data(), 8);
    }

    plan.dataOffset = dataOffset;
    plan.kvCount = kvCount;
    plan.paddingBytes = padding;
    plan.paddingKeyWritten = padKey;
    plan.fitsInPlace = dataOffset == file.dataOffset();
    return plan;
}

} // namespace gguf
