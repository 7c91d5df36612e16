// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/stats/tensor_data.h"

#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <utility>

namespace gguf {

/// The state a remote tensor's passes share: where the tensor lies, the first failure, and a stop
/// that cancels the fetches under way.
struct ChunkedRead {
    std::atomic<bool> stop{false};
    std::atomic<bool> failed{false};
    std::mutex mutex;
    Error error; ///< the first failure (under mutex)

    void fail(Error e)
    {
        {
            std::lock_guard lock(mutex);
            if (failed.load())
                return;
            error = std::move(e);
        }
        failed = true;
    }
};

namespace {

// Where the tensor's data starts in its source.
uint64_t baseOf(const TensorData &data)
{
    return static_cast<uint64_t>(data.bytes.data() - data.source->data());
}

} // namespace

std::pair<uint64_t, uint64_t> bytesOfElements(const TensorData &data, uint64_t first, uint64_t last)
{
    const TypeTraits &t = typeTraits(data.typeId);
    if (t.blockSize == 0 || last <= first)
        return {0, 0};
    const uint64_t begin = first / t.blockSize * t.typeSize;
    const uint64_t end = std::min<uint64_t>(data.bytes.size(), (last + t.blockSize - 1) / t.blockSize * t.typeSize);
    return {std::min(begin, end), end};
}

TensorData tensorData(const GgufFile &file, const TensorInfo &tensor)
{
    return tensorData(file.source(), tensor.typeId, tensor.elements, tensor.fileOffset, tensor.byteSize,
                      tensor.dataInFile, file.byteSwapped());
}

TensorData tensorData(const ByteSource &source, uint32_t typeId, uint64_t elements, uint64_t fileOffset,
                      uint64_t byteSize, bool inFile, bool swapBytes)
{
    TensorData d;
    d.typeId = typeId;
    d.elements = elements;
    d.swapBytes = swapBytes;
    d.source = &source;
    if (!inFile)
        return d;
    if (source.isRemote()) {
        d.chunked = std::make_shared<ChunkedRead>();
        d.bytes = std::span<const uint8_t>(source.data() + fileOffset, byteSize);
    } else {
        d.lease = source.acquire(fileOffset, byteSize);
        d.bytes = d.lease.bytes();
    }
    return d;
}

std::optional<Error> readError(const TensorData &data)
{
    if (!data.lease)
        return data.lease.error();
    if (data.chunked && data.chunked->failed) {
        std::lock_guard lock(data.chunked->mutex);
        return data.chunked->error;
    }
    return std::nullopt;
}

std::optional<Error> readError(const TensorData &a, const TensorData &b)
{
    std::optional<Error> e = readError(a);
    return e ? e : readError(b);
}

namespace {

std::optional<StatsStatus> statusOf(const std::optional<Error> &e)
{
    if (!e)
        return std::nullopt;
    return e->kind == ErrorKind::Cancelled ? StatsStatus::Cancelled : StatsStatus::NoData;
}

} // namespace

std::optional<StatsStatus> fetchStatus(const TensorData &data)
{
    return statusOf(readError(data));
}

std::optional<StatsStatus> fetchStatus(const TensorData &a, const TensorData &b)
{
    return statusOf(readError(a, b));
}

ProgressFn watchedProgress(const TensorData &data, const ProgressFn &outer)
{
    if (!data.chunked)
        return outer;
    data.chunked->stop = false; // a new pass: an earlier one's cancel does not stop it
    return [read = data.chunked, outer](uint64_t done, uint64_t total) {
        if (read->failed)
            return false;
        if (outer && !outer(done, total)) {
            read->stop = true;
            return false;
        }
        return true;
    };
}

ElementHold::ElementHold(const TensorData &data, uint64_t first, uint64_t last) : m_data(&data)
{
    std::tie(m_begin, m_end) = bytesOfElements(data, first, last);
    hold();
}

ElementHold ElementHold::ofBytes(const TensorData &data, uint64_t begin, uint64_t end)
{
    ElementHold h;
    h.m_data = &data;
    h.m_end = std::min<uint64_t>(end, data.bytes.size());
    h.m_begin = std::min(begin, h.m_end);
    h.hold();
    return h;
}

void ElementHold::hold()
{
    const std::shared_ptr<ChunkedRead> &read = m_data->chunked;
    if (!read || m_end <= m_begin)
        return;
    if (read->failed || read->stop) {
        m_ok = false;
        if (read->stop)
            read->fail(Error{ErrorKind::Cancelled, "cancelled", baseOf(*m_data) + m_begin, "cancelled"});
        return;
    }
    const FetchProgress stop = [read](uint64_t, uint64_t) { return !read->stop.load(); };
    const uint64_t base = baseOf(*m_data);
    m_lease = m_data->source->acquire(base + m_begin, m_end - m_begin, stop);
    const TypeTraits &t = typeTraits(m_data->typeId);
    if (m_lease && t.rule == SizeRule::BitNetI2S) {
        // every I2_S value is scaled by the one f32 after the code blocks, at the tensor's end
        const uint64_t codes = m_data->elements / t.blockSize * t.typeSize;
        m_scale = m_data->source->acquire(base + codes, sizeof(float), stop);
    }
    for (const ByteLease *l : {&m_lease, &m_scale})
        if (!*l) {
            m_ok = false;
            read->fail(l->error());
            return;
        }
}

void ElementHold::release()
{
    if (!m_data)
        return;
    // unpinned first: a remote file's cache only reorders blocks no lease holds
    m_lease = ByteLease();
    m_scale = ByteLease();
    if (m_data->source && m_end > m_begin && !m_data->bytes.empty())
        m_data->source->releasePages(baseOf(*m_data) + m_begin, m_end - m_begin);
    m_data = nullptr;
}

ElementHold::ElementHold(ElementHold &&other) noexcept
    : m_data(std::exchange(other.m_data, nullptr)), m_begin(other.m_begin), m_end(other.m_end),
      m_lease(std::move(other.m_lease)), m_scale(std::move(other.m_scale)), m_ok(other.m_ok)
{
}

ElementHold &ElementHold::operator=(ElementHold &&other) noexcept
{
    if (this != &other) {
        release();
        m_data = std::exchange(other.m_data, nullptr);
        m_begin = other.m_begin;
        m_end = other.m_end;
        m_lease = std::move(other.m_lease);
        m_scale = std::move(other.m_scale);
        m_ok = other.m_ok;
    }
    return *this;
}

ElementHold::~ElementHold()
{
    release();
}

uint64_t sampleRunBytes(const TensorData &data)
{
    const uint64_t block = data.chunked && data.source ? data.source->blockSize() : 0;
    return block > 0 ? block : uint64_t(1) << 20;
}

std::vector<ElementRange> sampleRuns(const TensorData &data, uint64_t sampleBytes)
{
    const TypeTraits &t = typeTraits(data.typeId);
    const uint64_t size = data.bytes.size();
    if (sampleBytes == 0 || size <= sampleBytes || t.blockSize == 0 || t.typeSize == 0 || !data.source)
        return {};
    const uint64_t run = sampleRunBytes(data);
    // the tensor's place in the file: runs follow the file's blocks, not the tensor's
    const uint64_t base = baseOf(data);
    const uint64_t codes = data.elements / t.blockSize * t.typeSize; // I2_S's scale trailer is not data
    std::vector<ElementRange> whole;
    for (uint64_t b = base / run; b * run < base + codes; ++b) {
        const uint64_t lo = std::max(b * run, base) - base, hi = std::min((b + 1) * run, base + codes) - base;
        // the ggml blocks wholly inside this file block
        const uint64_t first = (lo + t.typeSize - 1) / t.typeSize, last = hi / t.typeSize;
        if (last > first)
            whole.push_back({first * t.blockSize, std::min(data.elements, last * t.blockSize)});
    }
    const uint64_t wanted = (sampleBytes + run - 1) / run;
    if (wanted >= whole.size())
        return {};
    std::vector<ElementRange> runs;
    runs.reserve(static_cast<size_t>(wanted));
    for (uint64_t k = 0; k < wanted; ++k)
        runs.push_back(whole[static_cast<size_t>(k * whole.size() / wanted)]);
    return runs;
}

} // namespace gguf
