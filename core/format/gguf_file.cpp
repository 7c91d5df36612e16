// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/format/gguf_file.h"

#include "core/format/gguf_parser.h"
#include "core/util/byte_order.h"

#include <algorithm>

namespace gguf {
namespace {

constexpr uint64_t kBad = UINT64_MAX;

// End offset of the value of `type` starting at `offset`; kBad when it does not fit.
// The parser has already walked every value once, so this only re-walks trusted structure.
uint64_t valueEnd(const GgufFile &file, ValueType type, uint64_t offset, int depth)
{
    const uint64_t size = file.fileSize();
    const bool sw = file.byteSwapped();
    const uint64_t lenSize = file.v1() ? 4 : 8;
    const uint32_t fixed = valueTypeSize(type);
    if (fixed != 0)
        return offset + fixed <= size ? offset + fixed : kBad;
    if (type == ValueType::String) {
        const auto b = file.bytes(offset, lenSize);
        if (b.size() < lenSize)
            return kBad;
        const uint64_t len = lenSize == 4 ? loadAs<uint32_t>(b.data(), sw) : loadAs<uint64_t>(b.data(), sw);
        if (len > size - offset - lenSize)
            return kBad;
        return offset + lenSize + len;
    }
    if (type != ValueType::Array || depth > 8)
        return kBad;
    const auto b = file.bytes(offset, 4 + lenSize);
    if (b.size() < 4 + lenSize)
        return kBad;
    const auto elemType = static_cast<ValueType>(loadAs<uint32_t>(b.data(), sw));
    const uint64_t count = lenSize == 4 ? loadAs<uint32_t>(b.data() + 4, sw) : loadAs<uint64_t>(b.data() + 4, sw);
    uint64_t pos = offset + 4 + lenSize;
    const uint32_t elemFixed = valueTypeSize(elemType);
    if (elemFixed != 0) {
        if (count > (size - pos) / elemFixed)
            return kBad;
        return pos + count * elemFixed;
    }
    for (uint64_t i = 0; i < count; ++i) {
        pos = valueEnd(file, elemType, pos, depth + 1);
        if (pos == kBad)
            return kBad;
    }
    return pos;
}

} // namespace

namespace {

// A fetch while opening can be cancelled through the parse's progress callback.
FetchProgress cancelOf(const OpenOptions &options)
{
    return [&options](uint64_t, uint64_t) { return !options.progress || options.progress(0, 0); };
}

} // namespace

std::pair<uint64_t, uint64_t> GgufFile::brokenBytes() const
{
    const uint64_t size = fileSize();
    if (!m_breakage || size == 0)
        return {0, 0};
    const uint64_t offset = std::min(m_breakage->fieldOffset, size - 1);
    return {offset, std::max<uint64_t>(1, std::min(m_breakage->fieldSize, size - offset))};
}

OpenResult GgufFile::open(const std::string &path, const OpenOptions &options)
{
    OpenResult result;
    auto source = openByteSource(path, result.error, cancelOf(options));
    if (!source)
        return result;
    return openSource(std::move(source), options);
}

OpenResult GgufFile::openBuffer(std::vector<uint8_t> bytes, std::string name, const OpenOptions &options)
{
    return openSource(MappedFile::fromBuffer(std::move(bytes), std::move(name)), options);
}

OpenResult GgufFile::openSource(std::shared_ptr<ByteSource> source, const OpenOptions &options)
{
    auto file = std::shared_ptr<GgufFile>(new GgufFile());
    file->m_source = std::move(source);
    if (file->m_source->isRemote()) {
        // Grow the prefix one block at a time until the parser no longer runs out of bytes.
        const FetchProgress cancel = cancelOf(options);
        const uint64_t total = file->m_source->size();
        const uint64_t block = std::max<uint64_t>(file->m_source->blockSize(), 4096);
        const auto wholeBlocks = [&](uint64_t n) { return std::min(total, (n + block - 1) / block * block); };
        uint64_t want = wholeBlocks(1);
        for (;;) {
            ByteLease prefix = file->m_source->acquire(0, want, cancel);
            if (!prefix) {
                file->m_error = prefix.error();
                break;
            }
            GgufParser parser(*file, options, prefix.bytes().size());
            parser.run();
            if (file->m_error.kind != ErrorKind::NeedMore) {
                // the last value walked may be a string that was skipped, not read; a damaged header
                // keeps everything before its break and the bytes of the field that broke
                uint64_t end = std::max(file->m_metadataEnd, file->m_tensorInfoEnd);
                if (file->m_breakage)
                    end = std::max(end, std::min(total, file->m_breakage->fieldOffset +
                                                            std::min(file->m_breakage->fieldSize, total)));
                if (end > prefix.bytes().size())
                    prefix = file->m_source->acquire(0, end, cancel);
                if (!prefix)
                    file->m_error = prefix.error();
                file->m_header = std::move(prefix);
                break;
            }
            const uint64_t needed = file->m_error.offset;
            if (needed > kMaxRemoteHeader) {
                // what was read stays readable (names and values point into it); the rest is refused
                file->m_error = Error{ErrorKind::Malformed, "remote_header_too_large", needed,
                                      "the header runs past " + std::to_string(kMaxRemoteHeader >> 20) +
                                          " MiB; download the file to look inside it"};
                file->m_findings.push_back(
                    Finding{Severity::Error, file->m_error.code, file->m_error.offset, file->m_error.message});
                file->m_header = std::move(prefix);
                break;
            }
            auto fresh = std::shared_ptr<GgufFile>(new GgufFile());
            fresh->m_source = std::move(file->m_source);
            file = std::move(fresh);
            want = wholeBlocks(std::max<uint64_t>(needed, prefix.bytes().size() + 1));
        }
    } else {
        GgufParser parser(*file, options);
        parser.run();
    }
    OpenResult result;
    result.error = file->m_error;
    // Nothing worth showing when the file is not a GGUF at all, or was not read; a GGUF of an unknown
    // version is shown as far as its magic and version, like any other damaged file.
    const ErrorKind k = file->m_error.kind;
    if (k == ErrorKind::InvalidMagic || k == ErrorKind::Cancelled || k == ErrorKind::Network)
        return result;
    result.file = std::move(file);
    return result;
}

std::span<const uint8_t> GgufFile::bytes(uint64_t offset, uint64_t size) const
{
    const uint64_t total = m_source->size();
    if (offset >= total)
        return {};
    const uint64_t n = std::min(size, total - offset);
    return {m_source->data() + offset, static_cast<size_t>(n)};
}

const MetadataEntry *GgufFile::findMetadata(std::string_view key) const
{
    const auto it = m_keyIndex.find(key);
    return it == m_keyIndex.end() ? nullptr : &m_metadata[it->second];
}

Value GgufFile::value(std::string_view key) const
{
    const MetadataEntry *e = findMetadata(key);
    return e ? e->value : Value();
}

const TensorInfo *GgufFile::findTensor(std::string_view name) const
{
    const auto it = m_tensorIndex.find(name);
    return it == m_tensorIndex.end() ? nullptr : &m_tensors[it->second];
}

ByteLease GgufFile::tensorLease(const TensorInfo &tensor, const FetchProgress &progress) const
{
    if (!tensor.dataInFile)
        return ByteLease({}, nullptr);
    return m_source->acquire(tensor.fileOffset, tensor.byteSize, progress);
}

std::span<const uint8_t> GgufFile::tensorBytes(const TensorInfo &tensor) const
{
    if (!tensor.dataInFile)
        return {};
    return bytes(tensor.fileOffset, tensor.byteSize);
}

bool GgufFile::llamaCppAccepts() const
{
    return firstRefusal() == nullptr && !m_error;
}

const Finding *GgufFile::firstRefusal() const
{
    for (const Finding &f : m_findings)
        if (f.severity == Severity::Error)
            return &f;
    return nullptr;
}

std::string GgufFile::architecture() const
{
    return std::string(value("general.architecture").toStringView());
}

std::string GgufFile::name() const
{
    return std::string(value("general.name").toStringView());
}

std::optional<uint64_t> GgufFile::archUInt(std::string_view suffix) const
{
    const std::string arch = architecture();
    if (arch.empty())
        return std::nullopt;
    return value(arch + "." + std::string(suffix)).toUInt();
}

std::optional<uint64_t> GgufFile::vocabSize() const
{
    if (auto v = archUInt("vocab_size"))
        return v;
    const Value tokens = value("tokenizer.ggml.tokens");
    if (tokens.type() == ValueType::Array && tokens.isValid())
        return tokens.array().size();
    return std::nullopt;
}

std::optional<uint64_t> GgufFile::fileType() const
{
    return value("general.file_type").toUInt();
}

uint64_t GgufFile::parameterCount() const
{
    uint64_t total = 0;
    for (const TensorInfo &t : m_tensors)
        total = t.elements > UINT64_MAX - total ? UINT64_MAX : total + t.elements;
    return total;
}

uint64_t GgufFile::tensorDataBytes() const
{
    uint64_t total = 0;
    for (const TensorInfo &t : m_tensors)
        total = t.byteSize > UINT64_MAX - total ? UINT64_MAX : total + t.byteSize;
    return total;
}

uint32_t GgufFile::layerCount() const
{
    int32_t maxLayer = -1;
    for (const TensorInfo &t : m_tensors)
        maxLayer = std::max(maxLayer, t.layer);
    return static_cast<uint32_t>(maxLayer + 1);
}

size_t GgufFile::builtArrayIndexCount() const
{
    std::lock_guard<std::mutex> lock(m_indexMutex);
    return m_arrayIndexes.size();
}

const std::vector<uint64_t> &GgufFile::arrayIndex(const ArrayRef &array) const
{
    std::lock_guard<std::mutex> lock(m_indexMutex);
    auto &slot = m_arrayIndexes[array.elementsOffset()];
    if (slot)
        return *slot;
    // count+1 offsets: element i spans [index[i], index[i+1]).
    auto index = std::make_unique<std::vector<uint64_t>>();
    const uint64_t count = array.size();
    // The parser proved every element fits, so count ≤ bytes of the array; the cap is only a guard.
    index->reserve(static_cast<size_t>(std::min<uint64_t>(count, array.end() - array.elementsOffset()) + 1));
    uint64_t pos = array.elementsOffset();
    index->push_back(pos);
    for (uint64_t i = 0; i < count; ++i) {
        pos = valueEnd(*this, array.elementType(), pos, 1);
        if (pos == kBad || pos > array.end())
            break;
        index->push_back(pos);
    }
    slot = std::move(index);
    return *slot;
}

} // namespace gguf
