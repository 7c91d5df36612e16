// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gguf_bench/bench_files.h"

#include "app/gguf_bench/bench_util.h"
#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"
#include "core/quant/dequantize.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <span>

#include <cstdio>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

namespace bench {
namespace {

// A minimal streaming GGUF v3 writer: enough for the benchmark's generated files.
class Writer {
public:
    explicit Writer(const std::string &path) : m_file(std::fopen(path.c_str(), "wb"))
    {
        if (!m_file)
            throw std::runtime_error("cannot write " + path);
    }
    ~Writer()
    {
        if (m_file)
            std::fclose(m_file);
    }
    void raw(const void *p, size_t n)
    {
        std::fwrite(p, 1, n, m_file);
        m_pos += n;
    }
    void u32(uint32_t v) { raw(&v, 4); }
    void u64(uint64_t v) { raw(&v, 8); }
    void f32(float v) { raw(&v, 4); }
    void str(const std::string &s)
    {
        u64(s.size());
        raw(s.data(), s.size());
    }
    void header(uint64_t tensors, uint64_t kvs)
    {
        raw("GGUF", 4);
        u32(3);
        u64(tensors);
        u64(kvs);
    }
    void kvString(const std::string &k, const std::string &v)
    {
        str(k);
        u32(8);
        str(v);
    }
    void kvU32(const std::string &k, uint32_t v)
    {
        str(k);
        u32(4);
        u32(v);
    }
    void arrayHeader(const std::string &k, uint32_t elemType, uint64_t n)
    {
        str(k);
        u32(9);
        u32(elemType);
        u64(n);
    }
    void tensor(const std::string &name, const std::vector<uint64_t> &dims, uint32_t type, uint64_t offset)
    {
        str(name);
        u32(static_cast<uint32_t>(dims.size()));
        for (uint64_t d : dims)
            u64(d);
        u32(type);
        u64(offset);
    }
    uint64_t padTo(uint64_t alignment)
    {
        static const char zeros[64] = {};
        while (m_pos % alignment)
            raw(zeros, std::min<uint64_t>(64, alignment - m_pos % alignment));
        return m_pos;
    }
    std::FILE *file() { return m_file; }
    uint64_t pos() const { return m_pos; }

private:
    std::FILE *m_file;
    uint64_t m_pos = 0;
};

// float → IEEE half, rounded to nearest even (overflow → ±inf, NaN stays NaN)
uint16_t toHalf(float f)
{
    const uint32_t x = std::bit_cast<uint32_t>(f);
    const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000);
    const uint32_t biased = (x >> 23) & 0xff;
    uint32_t mant = x & 0x7fffff;
    if (biased == 0xff)
        return static_cast<uint16_t>(sign | 0x7c00 | (mant ? 0x200 : 0));
    const int exp = static_cast<int>(biased) - 127 + 15;
    if (exp >= 31)
        return static_cast<uint16_t>(sign | 0x7c00);
    uint32_t shift = 13, base = static_cast<uint32_t>(exp) << 10;
    if (exp <= 0) { // subnormal half: the implicit bit joins the mantissa
        if (exp < -10)
            return sign;
        mant |= 0x800000;
        shift = static_cast<uint32_t>(14 - exp);
        base = 0;
    }
    uint32_t half = base | (mant >> shift);
    const uint32_t rest = mant & ((1u << shift) - 1), middle = 1u << (shift - 1);
    if (rest > middle || (rest == middle && (half & 1)))
        ++half; // a carry into the exponent is the right result (up to inf)
    return static_cast<uint16_t>(sign | half);
}

uint64_t padded(uint64_t v)
{
    return (v + 31) / 32 * 32;
}

} // namespace

uint64_t writeSingleTensorFile(const std::string &path, uint32_t typeId, uint64_t bytes)
{
    const gguf::TypeTraits &t = gguf::typeTraits(typeId);
    const uint64_t rowBlocks = 16; // rows of 16 blocks
    const uint64_t blocks = bytes / t.typeSize / rowBlocks * rowBlocks;
    const uint64_t ne0 = rowBlocks * t.blockSize;
    const uint64_t ne1 = blocks / rowBlocks;
    Writer w(path);
    w.header(1, 2);
    w.kvString("general.architecture", "bench");
    w.kvU32("general.alignment", 32);
    w.tensor("bench.weight", {ne0, ne1}, typeId, 0);
    w.padTo(32);
    std::vector<uint8_t> chunk(64 << 20);
    for (uint64_t left = blocks * t.typeSize, seed = 1; left > 0; ++seed) {
        const uint64_t n = std::min<uint64_t>(left, chunk.size());
        fillWeightLike(chunk.data(), n, seed);
        w.raw(chunk.data(), n);
        left -= n;
    }
    return ne0 * ne1;
}

uint64_t writeF16CopyFile(const std::string &path, const std::string &source)
{
    const gguf::OpenResult r = gguf::GgufFile::open(source);
    if (!r.file || r.file->tensors().size() != 1)
        return 0;
    const gguf::TensorInfo &t = r.file->tensors()[0];
    Writer w(path);
    w.header(1, 2);
    w.kvString("general.architecture", "bench");
    w.kvU32("general.alignment", 32);
    w.tensor("bench.weight", {t.ne[0], t.ne[1]}, 1, 0);
    w.padTo(32);
    constexpr uint64_t kRun = uint64_t(1) << 20;
    std::vector<float> values(kRun);
    std::vector<uint16_t> halves(kRun);
    for (uint64_t at = 0; at < t.elements; at += kRun) {
        const size_t n = static_cast<size_t>(std::min(kRun, t.elements - at));
        if (!gguf::dequantizeRange(t.typeId, r.file->tensorBytes(t), t.elements, at, std::span(values.data(), n)))
            return 0;
        for (size_t i = 0; i < n; ++i)
            halves[i] = toHalf(values[i]);
        w.raw(halves.data(), n * sizeof(uint16_t));
    }
    return t.elements;
}

uint64_t writeBf16OriginalFile(const std::string &path, const std::string &source, const std::string &name,
                               uint32_t ropeHeads)
{
    const gguf::OpenResult r = gguf::GgufFile::open(source);
    if (!r.file || r.file->tensors().size() != 1)
        return 0;
    const gguf::TensorInfo &t = r.file->tensors()[0];
    const uint64_t cols = t.ne[0], rows = t.ne[1];
    std::string header = "{\"__metadata__\":{\"format\":\"pt\"},\"" + name + "\":{\"dtype\":\"BF16\",\"shape\":[" +
                         std::to_string(rows) + "," + std::to_string(cols) + "],\"data_offsets\":[0," +
                         std::to_string(rows * cols * 2) + "]}}";
    header.append((8 - header.size() % 8) % 8, ' ');
    Writer w(path);
    w.u64(header.size());
    w.raw(header.data(), header.size());
    std::vector<float> values(static_cast<size_t>(cols));
    std::vector<uint16_t> row(static_cast<size_t>(cols));
    const uint64_t perHead = ropeHeads ? rows / ropeHeads : 1, half = perHead / 2;
    for (uint64_t hf = 0; hf < rows; ++hf) {
        // the GGUF row the converter made from checkpoint row hf = h·D + j·D/2 + i: h·D + 2i + j
        uint64_t g = hf;
        if (ropeHeads) {
            const uint64_t head = hf / perHead, within = hf % perHead;
            g = head * perHead + 2 * (within % half) + within / half;
        }
        if (!gguf::dequantizeRange(t.typeId, r.file->tensorBytes(t), t.elements, g * cols, values))
            return 0;
        for (size_t i = 0; i < values.size(); ++i) {
            uint32_t bits = 0;
            std::memcpy(&bits, &values[i], 4);
            row[i] = static_cast<uint16_t>((bits + 0x7fff + ((bits >> 16) & 1)) >> 16); // nearest, ties to even
        }
        w.raw(row.data(), row.size() * sizeof(uint16_t));
    }
    return rows * cols;
}

namespace {

// Pseudo-random floats in [−0.5, 0.5) (xorshift), written in runs.
void writeRandomFloats(Writer &w, uint64_t count, uint64_t &state)
{
    std::vector<float> run(std::min<uint64_t>(count, uint64_t(1) << 16));
    for (uint64_t at = 0; at < count; at += run.size()) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(run.size(), count - at));
        for (size_t i = 0; i < n; ++i) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            run[i] = static_cast<float>(state >> 40) / static_cast<float>(uint64_t(1) << 24) - 0.5f;
        }
        w.raw(run.data(), n * sizeof(float));
    }
}

} // namespace

uint64_t writeLoraFile(const std::string &path, uint64_t nIn, uint64_t nOut, uint64_t rank)
{
    {
        Writer w(path);
        w.header(2, 4);
        w.kvString("general.architecture", "llama");
        w.kvString("general.type", "adapter");
        w.kvString("adapter.type", "lora");
        w.str("adapter.lora.alpha");
        w.u32(6); // FLOAT32
        w.f32(static_cast<float>(2 * rank));
        w.tensor("blk.0.ffn_up.weight.lora_a", {nIn, rank}, 0, 0);
        w.tensor("blk.0.ffn_up.weight.lora_b", {rank, nOut}, 0, padded(nIn * rank * 4));
        w.padTo(32);
        uint64_t state = 88172645463325252ull;
        writeRandomFloats(w, nIn * rank, state);
        w.padTo(32);
        writeRandomFloats(w, rank * nOut, state);
    }
    return std::filesystem::file_size(path);
}

uint64_t writeImatrixFile(const std::string &path, uint32_t layers, uint64_t experts, uint64_t channels)
{
    struct Entry {
        std::string name;
        uint64_t matrices;
    };
    std::vector<Entry> entries;
    for (uint32_t l = 0; l < layers; ++l) {
        for (const char *role : {"attn_q", "attn_k", "attn_v", "attn_output"})
            entries.push_back({"blk." + std::to_string(l) + "." + role + ".weight", 1});
        for (const char *role : {"ffn_gate_exps", "ffn_up_exps", "ffn_down_exps"})
            entries.push_back({"blk." + std::to_string(l) + "." + role + ".weight", experts});
    }
    {
        Writer w(path);
        w.header(entries.size() * 2, 4);
        w.kvString("general.type", "imatrix");
        w.arrayHeader("imatrix.datasets", 8, 1);
        w.str("bench.txt");
        w.kvU32("imatrix.chunk_count", 100);
        w.kvU32("imatrix.chunk_size", 512);
        uint64_t offset = 0;
        for (const Entry &e : entries) {
            w.tensor(e.name + ".in_sum2", {channels, e.matrices}, 0, offset);
            offset += padded(channels * e.matrices * 4);
            w.tensor(e.name + ".counts", {1, e.matrices}, 0, offset);
            offset += padded(e.matrices * 4);
        }
        w.padTo(32);
        uint64_t state = 2463534242ull;
        for (const Entry &e : entries) {
            writeRandomFloats(w, channels * e.matrices, state); // the timing does not need real sums
            w.padTo(32);
            std::vector<float> counts(e.matrices);
            for (uint64_t m = 0; m < e.matrices; ++m)
                counts[m] = (e.matrices > 1 && m % 16 == 15) ? 0.0f : static_cast<float>(512 * (1 + m % 7));
            w.raw(counts.data(), counts.size() * sizeof(float));
            w.padTo(32);
        }
    }
    return std::filesystem::file_size(path);
}

uint64_t writeBigSparseModel(const std::string &path, uint64_t &claimedFileSize)
{
    constexpr uint64_t kTokens = 256000, kMerges = 500000, kTensors = 20000;
    Writer w(path);
    w.header(kTensors, 7);
    w.kvString("general.architecture", "llama");
    w.kvString("general.name", "benchmark model (generated)");
    w.kvU32("llama.block_count", kTensors / 10);
    w.kvString("tokenizer.ggml.model", "gpt2");
    uint64_t x = 88172645463325252ull;
    const auto rnd = [&] {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        return x;
    };
    const auto word = [&] {
        std::string s;
        const uint64_t len = 2 + rnd() % 9;
        for (uint64_t i = 0; i < len; ++i)
            s += static_cast<char>('a' + rnd() % 26);
        return s;
    };
    w.arrayHeader("tokenizer.ggml.tokens", 8, kTokens);
    for (uint64_t i = 0; i < kTokens; ++i)
        w.str(word());
    w.arrayHeader("tokenizer.ggml.scores", 6, kTokens);
    for (uint64_t i = 0; i < kTokens; ++i)
        w.f32(-static_cast<float>(i));
    w.arrayHeader("tokenizer.ggml.merges", 8, kMerges);
    for (uint64_t i = 0; i < kMerges; ++i)
        w.str(word() + " " + word());
    // 20,000 Q4_K tensors of 4096 × 656 elements (1.5 MB each): about 30 GB of data
    const uint64_t ne0 = 4096, ne1 = 656;
    const uint64_t size = *gguf::tensorByteSize(12, ne0, ne0 * ne1);
    uint64_t offset = 0;
    for (uint64_t i = 0; i < kTensors; ++i) {
        w.tensor("blk." + std::to_string(i / 10) + ".t" + std::to_string(i % 10) + ".weight", {ne0, ne1}, 12, offset);
        offset += padded(size);
    }
    const uint64_t dataStart = w.padTo(32);
    std::fflush(w.file());
    claimedFileSize = dataStart + offset;
    if (::ftruncate(::fileno(w.file()), static_cast<off_t>(claimedFileSize)) != 0)
        throw std::runtime_error("cannot extend " + path);
    return dataStart;
}

uint64_t writeTokenVocabulary(const std::string &path, uint32_t count)
{
    // drawn as the former tests/tst_token_search_timings.cpp drew them, so that its counts carry over
    std::mt19937 rng(7);
    std::vector<std::string> tokens, merges;
    tokens.reserve(count);
    for (int b = 0; b < 256; ++b)
        tokens.push_back(b >= 33 && b <= 126 ? std::string(1, static_cast<char>(b))
                                             : std::string("\xC4") + static_cast<char>(0x80 + b % 64));
    std::uniform_int_distribution<int> letter('a', 'z'), length(2, 10), coin(0, 9);
    while (tokens.size() < count) {
        std::string word;
        for (int n = length(rng); n > 0; --n)
            word += static_cast<char>(letter(rng));
        if (coin(rng) < 6)
            word = std::string("\xC4\xA0") + word; // Ġ
        merges.push_back(word.substr(0, word.size() - 1) + " " + word.substr(word.size() - 1));
        tokens.push_back(std::move(word));
    }
    Writer w(path);
    w.header(0, 6);
    w.kvString("tokenizer.ggml.model", "gpt2");
    w.arrayHeader("tokenizer.ggml.tokens", 8, tokens.size());
    for (const std::string &t : tokens)
        w.str(t);
    w.arrayHeader("tokenizer.ggml.token_type", 5, tokens.size()); // INT32: byte (6), then normal (1)
    for (size_t i = 0; i < tokens.size(); ++i)
        w.u32(i < 256 ? 6 : 1);
    w.arrayHeader("tokenizer.ggml.scores", 6, tokens.size());
    for (size_t i = 0; i < tokens.size(); ++i)
        w.f32(-static_cast<float>(i));
    w.arrayHeader("tokenizer.ggml.merges", 8, merges.size());
    for (const std::string &m : merges)
        w.str(m);
    w.kvU32("tokenizer.ggml.bos_token_id", 1);
    return merges.size();
}

} // namespace bench
