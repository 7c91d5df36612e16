// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/format/byte_source.h"
#include "core/format/errors.h"
#include "core/format/gguf_value.h"
#include "core/format/mapped_file.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gguf {

enum class ByteOrder : uint8_t { Little, Big };
/// Plain: every ggml-written file. Extended: a u32 alignment and a u64 data offset follow the
/// counts (BitNet-rs's writer; docs/FORMAT.md §1.3).
enum class HeaderLayout : uint8_t { Plain, Extended };

/// One metadata key/value pair and where each of its parts sits in the file.
struct MetadataEntry {
    uint32_t index = 0;
    uint64_t offset = 0;     ///< key length field
    uint64_t keyOffset = 0;  ///< key text
    std::string_view key;    ///< view into the mapping
    uint64_t typeOffset = 0; ///< value type field
    Value value;             ///< the value (for arrays: starts at the element-type field)
    uint64_t end() const { return value.offset() + value.size(); }
};

/// One tensor info record, the positions of its fields, and what the reader derived from it.
struct TensorInfo {
    uint32_t index = 0;
    std::string_view name;   ///< view into the mapping
    uint64_t infoOffset = 0; ///< name length field (start of the record)
    uint64_t nameOffset = 0; ///< name text
    uint64_t nDimsOffset = 0;
    uint64_t dimsOffset = 0;
    uint64_t typeOffset = 0;
    uint64_t offsetFieldOffset = 0;
    uint64_t infoEnd = 0;
    uint32_t nDims = 0;
    std::array<uint64_t, 4> ne{1, 1, 1, 1}; ///< dims, innermost first; only the first 4 are kept
    uint32_t typeId = 0;
    uint64_t relativeOffset = 0; ///< as stored: from the start of the data region
    uint64_t fileOffset = 0;     ///< absolute offset of the data (saturates on overflow)
    uint64_t elements = 0;       ///< product of all dims (saturates on overflow)
    uint64_t byteSize = 0;       ///< from type and shape, or inferred (see sizeKnown)
    bool sizeFromType = false;   ///< byteSize computed from the type and the shape
    bool sizeInferred = false;   ///< unsized type: byteSize is the gap to the next tensor
    bool dataInFile = false;     ///< the data range lies inside the file
    int32_t layer = -1;          ///< N of "blk.N." (or "layers.N."), else -1
    uint16_t shard = 0;          ///< index of the shard (split models), 0 for single files
};

/// Where reading stopped in a damaged file: the item that was being read, the parts of it that were
/// read, and the field that could not be.
struct Breakage {
    enum class Section : uint8_t { Header, Metadata, TensorInfos };
    Section section = Section::Header;
    uint64_t index = 0;  ///< the key/value pair or tensor info being read (0 in the header)
    uint64_t offset = 0; ///< where that item starts
    /// The item as far as it was read: fields at offsets before fieldOffset hold what the file says,
    /// the rest are zero. `entry` for Section::Metadata, `tensor` for Section::TensorInfos.
    MetadataEntry entry;
    TensorInfo tensor;
    uint32_t valueType = UINT32_MAX; ///< the pair's value type when it was read
    uint64_t fieldOffset = 0;        ///< start of the field that could not be read
    uint64_t fieldSize = 0;          ///< bytes that field needs (or its size, when its value is wrong)
    std::string field;               ///< what it is: "u64 tensor count", "key 'general.name': u32 value type"
    std::string expected;            ///< the layout it needed: "u64 tensor count: needs 8 bytes, 3 left"
    /// A key or tensor name was read (entry.key / tensor.name hold it).
    bool nameRead() const { return section == Section::Metadata ? entry.keyOffset != 0 : tensor.nameOffset != 0; }
};

/// Options for opening.
struct OpenOptions {
    /// Stop after the metadata: no tensor infos, no data checks ("peek").
    bool metadataOnly = false;
    /// Called now and then with (bytes parsed, bytes of the header region so far estimated);
    /// return false to cancel.
    std::function<bool(uint64_t done, uint64_t total)> progress;
};

class GgufFile;
/// The outcome of opening: `file` is null when nothing could be read (not found, unreadable,
/// not GGUF, unsupported version); when `error` is set together with a `file`, the file holds
/// everything that was read before the problem.
struct OpenResult {
    std::shared_ptr<const GgufFile> file;
    Error error;
};

/// A parsed GGUF file: immutable after opening and safe to share between threads.
/// Values and names are views into the read-only mapping; nothing is copied.
class GgufFile {
public:
    static OpenResult open(const std::string &path, const OpenOptions &options = {});
    static OpenResult openBuffer(std::vector<uint8_t> bytes, std::string name = "<memory>",
                                 const OpenOptions &options = {});
    /// Parses the bytes of `source`. A remote source is read by growing ranged reads from its
    /// start until the header parses (at most kMaxRemoteHeader bytes); the header then stays
    /// resident for the life of the file.
    static OpenResult openSource(std::shared_ptr<ByteSource> source, const OpenOptions &options = {});

    /// The largest header (metadata and tensor infos) read from a remote file.
    static constexpr uint64_t kMaxRemoteHeader = uint64_t(512) << 20;

    // --- the file
    const std::string &path() const { return m_source->path(); }
    uint64_t fileSize() const { return m_source->size(); }
    const ByteSource &source() const { return *m_source; }
    std::shared_ptr<ByteSource> sourceShared() const { return m_source; }
    bool isRemote() const { return m_source->isRemote(); }
    /// Bytes [offset, offset+size) clipped to the file. Always readable inside the header; past it,
    /// a remote file's bytes must be held by a lease (acquire) while they are read.
    std::span<const uint8_t> bytes(uint64_t offset, uint64_t size) const;
    /// Makes [offset, offset+size) readable while the lease lives (fetching it for a remote file).
    ByteLease acquire(uint64_t offset, uint64_t size, const FetchProgress &progress = {}) const
    {
        return m_source->acquire(offset, size, progress);
    }
    /// acquire() without fetching (ByteSource::peek): what the GUI thread reads with.
    ByteLease peek(uint64_t offset, uint64_t size) const { return m_source->peek(offset, size); }

    // --- header
    uint32_t version() const { return m_version; }
    ByteOrder byteOrder() const { return m_byteOrder; }
    bool byteSwapped() const { return m_byteOrder == ByteOrder::Big; }
    bool swappedMagic() const { return m_swappedMagic; }
    HeaderLayout headerLayout() const { return m_layout; }
    uint64_t declaredTensorCount() const { return m_declaredTensors; }
    uint64_t declaredKvCount() const { return m_declaredKvs; }
    uint64_t alignment() const { return m_alignment; }
    /// Start of the tensor data region.
    uint64_t dataOffset() const { return m_dataOffset; }
    /// End of the tensor info records (start of the padding before the data region).
    uint64_t tensorInfoEnd() const { return m_tensorInfoEnd; }
    /// End of the metadata section.
    uint64_t metadataEnd() const { return m_metadataEnd; }
    /// Offsets of the header fields (the extended header adds two).
    uint64_t versionOffset() const { return 4; }
    uint64_t tensorCountOffset() const { return 8; }
    uint64_t kvCountOffset() const { return m_version == 1 ? 12 : 16; }
    uint64_t headerEnd() const { return m_headerEnd; }

    // --- content
    std::span<const MetadataEntry> metadata() const { return m_metadata; }
    const MetadataEntry *findMetadata(std::string_view key) const;
    Value value(std::string_view key) const;
    std::span<const TensorInfo> tensors() const { return m_tensors; }
    const TensorInfo *findTensor(std::string_view name) const;
    /// The bytes of one tensor's data (empty when the range is not inside the file).
    std::span<const uint8_t> tensorBytes(const TensorInfo &tensor) const;
    /// tensorBytes() held readable (fetched, for a remote file) while the lease lives; an empty,
    /// successful lease when the range is not inside the file.
    ByteLease tensorLease(const TensorInfo &tensor, const FetchProgress &progress = {}) const;

    // --- validation
    const std::vector<Finding> &findings() const { return m_findings; }
    /// True when ggml's reader (and so llama.cpp) would accept the file (docs/FORMAT.md §5).
    bool llamaCppAccepts() const;
    /// The first finding of severity Error, or nullptr.
    const Finding *firstRefusal() const;
    /// Set when reading stopped early; the file still holds what was read before.
    const Error &error() const { return m_error; }
    /// With a structural error (not a cancel or a network failure): the item and field where reading
    /// stopped; null otherwise.
    const Breakage *breakage() const { return m_breakage ? &*m_breakage : nullptr; }
    /// The bytes [first, first + second) of the breakage()'s field as far as the file has them: at
    /// least one byte (the file's last when it ends where the field should start); {0, 0} without.
    std::pair<uint64_t, uint64_t> brokenBytes() const;
    bool complete() const { return !m_error && !m_metadataOnly; }
    bool metadataOnly() const { return m_metadataOnly; }

    // --- convenience getters (nullopt when absent or of a non-integer type)
    std::string architecture() const;
    std::string name() const;
    std::optional<uint64_t> archUInt(std::string_view suffix) const; ///< `<arch>.<suffix>`
    std::optional<uint64_t> contextLength() const { return archUInt("context_length"); }
    std::optional<uint64_t> embeddingLength() const { return archUInt("embedding_length"); }
    std::optional<uint64_t> headCount() const { return archUInt("attention.head_count"); }
    std::optional<uint64_t> headCountKv() const { return archUInt("attention.head_count_kv"); }
    std::optional<uint64_t> blockCount() const { return archUInt("block_count"); }
    std::optional<uint64_t> feedForwardLength() const { return archUInt("feed_forward_length"); }
    /// `<arch>.vocab_size`, else the length of `tokenizer.ggml.tokens`.
    std::optional<uint64_t> vocabSize() const;
    /// `general.file_type`.
    std::optional<uint64_t> fileType() const;
    /// Sum of the elements of all tensors.
    uint64_t parameterCount() const;
    /// Sum of the byte sizes of all tensors.
    uint64_t tensorDataBytes() const;
    /// Number of distinct layers seen in tensor names (max layer + 1), 0 when none.
    uint32_t layerCount() const;

    // --- internal: lazy element index of string and nested arrays (thread-safe)
    const std::vector<uint64_t> &arrayIndex(const ArrayRef &array) const;
    /// How many of those indexes have been built so far (each is built on first element access).
    size_t builtArrayIndexCount() const;
    bool v1() const { return m_version == 1; }

private:
    friend class GgufParser;
    GgufFile() = default;

    std::shared_ptr<ByteSource> m_source;
    ByteLease m_header; ///< a remote file's header, kept resident
    uint32_t m_version = 0;
    ByteOrder m_byteOrder = ByteOrder::Little;
    bool m_swappedMagic = false;
    HeaderLayout m_layout = HeaderLayout::Plain;
    uint64_t m_declaredTensors = 0;
    uint64_t m_declaredKvs = 0;
    uint64_t m_alignment = 32;
    uint64_t m_headerEnd = 0;
    uint64_t m_metadataEnd = 0;
    uint64_t m_tensorInfoEnd = 0;
    uint64_t m_dataOffset = 0;
    bool m_metadataOnly = false;
    std::vector<MetadataEntry> m_metadata;
    std::vector<TensorInfo> m_tensors;
    std::unordered_map<std::string_view, uint32_t> m_keyIndex;
    std::unordered_map<std::string_view, uint32_t> m_tensorIndex;
    std::vector<Finding> m_findings;
    Error m_error;
    std::optional<Breakage> m_breakage;

    mutable std::mutex m_indexMutex;
    mutable std::unordered_map<uint64_t, std::unique_ptr<std::vector<uint64_t>>> m_arrayIndexes;
};

} // namespace gguf
