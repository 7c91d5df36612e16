// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A safetensors file (Hugging Face's checkpoint format; docs/SAFETENSORS.md): an 8-byte
// little-endian header length N, N bytes of a JSON object, then the tensors' bytes. Read with the
// rules of the reference implementation (huggingface/safetensors, `SafeTensors::read_metadata`
// and `Metadata::validate`), each problem reported with the byte offset where it lies; a file that
// breaks a rule opens as far as it parses, like a damaged GGUF.

#include "core/format/byte_source.h"
#include "core/format/errors.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gguf::st {

/// The element types the format defines (in the reference implementation's order).
enum class Dtype : uint8_t { BOOL, U8, I8, F8_E5M2, F8_E4M3, I16, U16, F16, BF16, I32, U32, F32, F64, I64, U64 };

/// "F32", "BF16", … as written in headers.
std::string_view dtypeName(Dtype dtype);
/// Bytes per element.
uint32_t dtypeSize(Dtype dtype);
/// The dtype a header names, or nullopt for a name the format does not define.
std::optional<Dtype> dtypeFromName(std::string_view name);
/// The type id the decoders read the dtype's values as: the ggml type that holds them the same way
/// (F32, F16, BF16, F64, I8, I16, I32, I64: little-endian, one element after another), else an
/// ExtendedType (U8–U64, BOOL, F8_E4M3, F8_E5M2; core/format/ggml_types.h); nullopt for none.
std::optional<uint32_t> ggmlTypeOf(Dtype dtype);

/// The longest header the reference implementation reads (its MAX_HEADER_SIZE).
inline constexpr uint64_t kMaxHeaderLength = 100'000'000;

struct TensorEntry {
    std::string name;
    uint64_t nameOffset = 0;  ///< the key's opening quote in the file
    uint64_t entryOffset = 0; ///< the entry's `{` in the file
    uint64_t entryEnd = 0;
    Dtype dtype = Dtype::F32;
    std::vector<uint64_t> shape; ///< as written: outermost first (row-major)
    uint64_t elements = 0;       ///< product of the shape (0 when it overflows)
    uint64_t begin = 0, end = 0; ///< data_offsets: relative to the data section
    uint64_t fileBegin = 0;      ///< begin + dataOffset(); saturates on overflow
    bool dataInFile = false;     ///< [begin, end) lies inside the file's data section
    /// end - begin (0 when the offsets are reversed).
    uint64_t bytes() const { return end >= begin ? end - begin : 0; }
};

/// "[4096, 11008]": a shape as written, outermost first.
std::string shapeText(const std::vector<uint64_t> &shape);

struct MetadataItem {
    std::string key, value;
    uint64_t offset = 0; ///< the key's opening quote in the file
};

class SafetensorsFile;

struct SafetensorsOpen {
    std::shared_ptr<const SafetensorsFile> file; ///< null only when nothing could be read
    Error error;                                 ///< set when the file could not be read, or was read in part
};

class SafetensorsFile {
public:
    /// A local path, or an http(s) URL or hf: name once core/net has installed its opener.
    static SafetensorsOpen open(const std::string &path);
    static SafetensorsOpen openBuffer(std::vector<uint8_t> bytes, std::string name);
    static SafetensorsOpen openSource(std::shared_ptr<const ByteSource> source, std::string path);

    const std::string &path() const { return m_path; }
    uint64_t fileSize() const { return m_fileSize; }
    /// N, the header's length as written (the JSON text is bytes 8 … 8 + N).
    uint64_t headerLength() const { return m_headerLength; }
    /// Where the tensors' bytes start: 8 + N.
    uint64_t dataOffset() const { return 8 + m_headerLength; }
    /// The tensors in the order the header names them.
    const std::vector<TensorEntry> &tensors() const { return m_tensors; }
    /// `__metadata__`: string keys and values, in the order written.
    const std::vector<MetadataItem> &metadata() const { return m_metadata; }
    /// Every problem found, in file order of discovery.
    const std::vector<Finding> &findings() const { return m_findings; }
    /// Where reading stopped, when it did (then the header was not read whole).
    const Error &error() const { return m_error; }
    /// The header was read whole (its tensors may still break rules; see findings()).
    bool headerComplete() const { return !m_error; }
    /// The reference implementation would load this file: no finding of Error severity.
    bool referenceAccepts() const;
    /// The bytes of the file.
    const ByteSource &source() const { return *m_source; }
    /// Sum of the tensors' element counts.
    uint64_t parameterCount() const;
    /// Where the JSON object ends (the header's padding follows, up to dataOffset()); 0 when the
    /// header was not read.
    uint64_t jsonEnd() const { return m_jsonEnd; }
    /// The `"__metadata__": {…}` member, [begin, end); empty when there is none.
    std::pair<uint64_t, uint64_t> metadataRange() const { return m_metadataRange; }
    const TensorEntry *tensor(std::string_view name) const;

private:
    friend class SafetensorsParser;
    std::string m_path;
    std::shared_ptr<const ByteSource> m_source;
    uint64_t m_fileSize = 0;
    uint64_t m_headerLength = 0;
    std::vector<TensorEntry> m_tensors;
    std::vector<MetadataItem> m_metadata;
    std::vector<Finding> m_findings;
    Error m_error;
    uint64_t m_jsonEnd = 0;
    std::pair<uint64_t, uint64_t> m_metadataRange{0, 0};
};

/// What a stretch of a safetensors file holds (the byte map of `gguf-inspect layout` and the Bytes
/// page).
enum class RegionKind : uint8_t {
    HeaderLength,  ///< the 8-byte length N
    Header,        ///< JSON punctuation between entries
    Metadata,      ///< the `__metadata__` member
    TensorEntry,   ///< one tensor's member: its name and {dtype, shape, data_offsets}
    HeaderPadding, ///< spaces after the JSON object, up to the data
    TensorData,
    Unused,   ///< data bytes no tensor claims
    Unparsed, ///< what could not be read, after a header that broke
};

/// "header_length", "header", "metadata", "tensor_info", "padding", "tensor_data", "unused", "unparsed".
std::string_view regionKindName(RegionKind kind);

struct Region {
    uint64_t offset = 0, size = 0;
    RegionKind kind = RegionKind::Unused;
    std::string label;
};

/// Every byte of the file in order, in regions (a tensor's data clipped where it would overlap the
/// one before or run past the end of the file).
std::vector<Region> byteRegions(const SafetensorsFile &file);

/// Whether the first bytes of a file (`head`, of a file of `fileSize` bytes) look like safetensors:
/// a plausible header length, then the JSON object's `{` (after spaces).
bool looksLikeSafetensors(const uint8_t *head, size_t headSize, uint64_t fileSize);

} // namespace gguf::st
