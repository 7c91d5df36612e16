// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/format/byte_source.h"
#include "core/util/parallel_chunks.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace gguf {

class GgufFile;
struct TensorInfo;
struct ChunkedRead;

/// How a pass over tensor data ended.
enum class StatsStatus : uint8_t { Ok, Cancelled, Unsupported, NoData };

/// The bytes of one tensor and how to read them.
struct TensorData {
    uint32_t typeId = 0;
    /// Exactly the tensor's data range. For a remote tensor (`chunked` set) only the parts an
    /// ElementHold holds are readable.
    std::span<const uint8_t> bytes;
    uint64_t elements = 0;
    bool swapBytes = false;             ///< big-endian file
    const ByteSource *source = nullptr; ///< when set, pages already scanned are released
    ByteLease lease;                    ///< the whole tensor held (failed: why its bytes cannot be read)
    /// Set for a remote tensor: the passes fetch and hold one chunk at a time (ElementHold), so a
    /// tensor larger than the block cache is read within the cache's cap.
    std::shared_ptr<ChunkedRead> chunked;
};

/// The data of `tensor` in `file`; empty bytes when the data is not inside the file. A mapped
/// file's tensor is readable at once; a remote file's is fetched later, chunk by chunk, by the
/// passes that read it (statistics, heatmap, export, comparison), each through an ElementHold.
TensorData tensorData(const GgufFile &file, const TensorInfo &tensor);

/// The same for bytes of any source (a safetensors tensor, #43): `byteSize` bytes at `fileOffset`
/// holding `elements` values of ggml type `typeId`; empty bytes when `inFile` is false.
TensorData tensorData(const ByteSource &source, uint32_t typeId, uint64_t elements, uint64_t fileOffset,
                      uint64_t byteSize, bool inFile, bool swapBytes = false);

/// Why the bytes of `data` could not be read: a failed lease, or the first failed chunk of a
/// chunked read (a network error, or Cancelled). Empty when nothing failed.
std::optional<Error> readError(const TensorData &data);
/// The first of the two tensors' errors (a pass over a pair).
std::optional<Error> readError(const TensorData &a, const TensorData &b);

/// Keeps the bytes of elements [first, last) of `data` readable while it lives: a remote tensor's
/// chunk is fetched (I2_S: with its tensor-wide scale), a mapped one needs nothing. When it goes,
/// the pages of the range are released (ByteSource::releasePages), as a pass does after each
/// chunk. A failed hold is false and records why in `data` (readError), and the passes of the
/// same data stop at their next chunk.
class ElementHold {
public:
    ElementHold() = default;
    ElementHold(const TensorData &data, uint64_t first, uint64_t last);
    /// The same for bytes [begin, end) of the tensor's data.
    static ElementHold ofBytes(const TensorData &data, uint64_t begin, uint64_t end);
    ElementHold(ElementHold &&other) noexcept;
    ElementHold &operator=(ElementHold &&other) noexcept;
    ElementHold(const ElementHold &) = delete;
    ElementHold &operator=(const ElementHold &) = delete;
    ~ElementHold();

    explicit operator bool() const { return m_ok; }

private:
    void hold();
    void release();

    const TensorData *m_data = nullptr;
    uint64_t m_begin = 0, m_end = 0; ///< bytes of the tensor's data
    ByteLease m_lease, m_scale;
    bool m_ok = true;
};

/// Elements [first, last) of a tensor.
struct ElementRange {
    uint64_t first = 0, last = 0;
    bool operator==(const ElementRange &) const = default;
};

/// The block size of a sample: a remote file's cache block (each run is fetched in one), else 1 MiB.
uint64_t sampleRunBytes(const TensorData &data);

/// Evenly spaced runs of whole ggml blocks, about `sampleBytes` of data in all, for statistics that
/// read a sample of a large tensor: the blocks of sampleRunBytes() that lie wholly inside the
/// tensor (counted in the file, so each run of a remote tensor is one block of its cache), the
/// k-th of n taken at floor(k · n / wanted). Empty when that would not read less than the whole
/// tensor (a small tensor, or sampleBytes 0).
std::vector<ElementRange> sampleRuns(const TensorData &data, uint64_t sampleBytes);

/// Bytes [begin, end) of the tensor's data that hold elements [first, last): whole ggml blocks,
/// clipped to the data.
std::pair<uint64_t, uint64_t> bytesOfElements(const TensorData &data, uint64_t first, uint64_t last);

/// The progress a pass over `data` hands to runChunks: `outer`, and when `data` is read in chunks,
/// also false once a chunk failed (so no more start), and a cancel that reaches the fetches under way.
/// Called once as a pass starts: it clears an earlier pass's cancel (a failed fetch stays).
ProgressFn watchedProgress(const TensorData &data, const ProgressFn &outer);

/// The result of a pass over `data` when a chunk could not be fetched: Cancelled when the user
/// cancelled the fetch, NoData for a network error (readError says which); empty when none failed.
std::optional<StatsStatus> fetchStatus(const TensorData &data);
std::optional<StatsStatus> fetchStatus(const TensorData &a, const TensorData &b);

} // namespace gguf
