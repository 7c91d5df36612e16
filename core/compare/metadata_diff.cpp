// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/compare/metadata_diff.h"

#include "core/util/byte_order.h"

#include <cstring>
#include <optional>

namespace gguf {
namespace {

// Nested arrays deeper than this compare as different (the parser refuses far shallower nesting).
constexpr int kMaxDepth = 64;

bool isSigned(ValueType t)
{
    return t == ValueType::Int8 || t == ValueType::Int16 || t == ValueType::Int32 || t == ValueType::Int64;
}

// Both files see their fixed-size elements in the same byte order, so equal bytes mean equal values.
struct Files {
    const GgufFile &a, &b;
    bool sameOrder() const { return a.byteOrder() == b.byteOrder(); }
};

bool sameValue(const Files &files, const Value &x, const Value &y, int depth);

bool sameArray(const Files &files, const ArrayRef &x, const ArrayRef &y, int depth)
{
    if (x.elementType() != y.elementType() || x.size() != y.size())
        return false;
    const uint32_t fixed = valueTypeSize(x.elementType());
    // equal bytes are equal values for integers (floats: a NaN's bits; bools: any non-zero byte is true)
    if (fixed != 0 && files.sameOrder() && x.elementType() != ValueType::Bool) {
        const uint64_t bytes = x.size() * fixed;
        const auto sx = files.a.bytes(x.elementsOffset(), bytes), sy = files.b.bytes(y.elementsOffset(), bytes);
        if (sx.size() == bytes && sy.size() == bytes)
            return std::memcmp(sx.data(), sy.data(), bytes) == 0;
    }
    for (uint64_t i = 0; i < x.size(); ++i)
        if (!sameValue(files, x.at(i), y.at(i), depth + 1))
            return false;
    return true;
}

bool sameValue(const Files &files, const Value &x, const Value &y, int depth)
{
    if (!x.isValid() || !y.isValid())
        return x.isValid() == y.isValid();
    if (x.type() != y.type() || depth > kMaxDepth)
        return false;
    switch (x.type()) {
    case ValueType::String: return x.toStringView() == y.toStringView();
    case ValueType::Array: return sameArray(files, x.array(), y.array(), depth);
    case ValueType::Bool: return x.toBool() == y.toBool();
    case ValueType::Float32:
    case ValueType::Float64: {
        // by the bits: -0 is not 0, and a NaN is the same NaN only with the same payload
        const auto bx = x.bits(), by = y.bits();
        return bx && by && *bx == *by;
    }
    default: return isSigned(x.type()) ? x.toInt() == y.toInt() : x.toUInt() == y.toUInt();
    }
}

void compareArrays(const Files &files, const ArrayRef &x, const ArrayRef &y, const MetadataDiffOptions &options,
                   MetadataDifference &out)
{
    const uint64_t common = std::min(x.size(), y.size());
    const auto note = [&](uint64_t i) {
        ++out.differingElements;
        if (out.firstDifferences.size() < options.maxElementDifferences)
            out.firstDifferences.push_back({i, i < x.size() ? x.at(i).toDisplayString(options.maxValueChars) : "",
                                            i < y.size() ? y.at(i).toDisplayString(options.maxValueChars) : ""});
    };
    for (uint64_t i = 0; i < common; ++i)
        if (!sameValue(files, x.at(i), y.at(i), 1))
            note(i);
    const uint64_t longer = std::max(x.size(), y.size());
    for (uint64_t i = common; i < longer; ++i) {
        if (out.firstDifferences.size() == options.maxElementDifferences) {
            out.differingElements += longer - i; // the rest of the longer array, without display text
            break;
        }
        note(i);
    }
}

} // namespace

std::string_view diffStatusName(DiffStatus status)
{
    switch (status) {
    case DiffStatus::Same: return "same";
    case DiffStatus::Added: return "added";
    case DiffStatus::Removed: return "removed";
    case DiffStatus::Changed: return "changed";
    }
    return "same";
}

MetadataDiff compareMetadata(const GgufFile &a, const GgufFile &b, const MetadataDiffOptions &options)
{
    MetadataDiff diff;
    const Files files{a, b};
    for (const MetadataEntry &e : a.metadata()) {
        if (a.findMetadata(e.key) != &e)
            continue; // a repeated key: the one findMetadata gives counts
        MetadataDifference d;
        d.key = e.key;
        d.a = &e;
        d.b = b.findMetadata(e.key);
        if (!d.b) {
            d.status = DiffStatus::Removed;
            ++diff.removed;
        } else if (sameValue(files, e.value, d.b->value, 0)) {
            ++diff.same;
        } else {
            d.status = DiffStatus::Changed;
            ++diff.changed;
            const Value &x = e.value, &y = d.b->value;
            d.typeChanged = x.type() != y.type() ||
                            (x.type() == ValueType::Array && x.array().elementType() != y.array().elementType());
            if (x.type() == ValueType::Array && !d.typeChanged)
                compareArrays(files, x.array(), y.array(), options, d);
        }
        diff.entries.push_back(std::move(d));
    }
    for (const MetadataEntry &e : b.metadata()) {
        if (a.findMetadata(e.key) || b.findMetadata(e.key) != &e)
            continue;
        MetadataDifference d;
        d.key = e.key;
        d.b = &e;
        d.status = DiffStatus::Added;
        ++diff.added;
        diff.entries.push_back(std::move(d));
    }
    return diff;
}

} // namespace gguf
