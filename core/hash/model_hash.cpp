// SPDX-License-Identifier: GPL-3.0-or-later
// hashModel (docs/HASH.md): one pass over every tensor's data in the model's order, each chunk fed
// to the tensor's hashers and to the whole model's. llama-gguf-hash (llama.cpp's
// examples/gguf-hash/gguf-hash.cpp) hashes exactly the ggml_nbytes of each tensor, without the
// alignment padding, and the model over the same bytes in tensor-info order.
#include "core/hash/model_hash.h"

#include "core/format/split_model.h"
#include "core/stats/tensor_data.h"
#include "hash_libraries.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <future>
#include <memory>
#include <sstream>

namespace gguf {
namespace {

constexpr uint64_t kChunk = uint64_t(16) << 20;

// llama.cpp's UUID namespace (UUID_NAMESPACE_LLAMA_CPP): itself UUIDv5(URL,
// "en.wikipedia.org/wiki/Llama.cpp"), ef001206-dadc-5f6d-a15f-3359e577d4e5.
constexpr std::array<uint8_t, 16> kLlamaCppNamespace = {0xef, 0x00, 0x12, 0x06, 0xda, 0xdc, 0x5f, 0x6d,
                                                        0xa1, 0x5f, 0x33, 0x59, 0xe5, 0x77, 0xd4, 0xe5};

std::string hex(const uint8_t *bytes, size_t n)
{
    std::string out;
    out.reserve(2 * n);
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; ++i) {
        out += digits[bytes[i] >> 4];
        out += digits[bytes[i] & 15];
    }
    return out;
}

struct EvpFree {
    void operator()(EVP_MD_CTX *c) const { detail::hashLibraries()->crypto.mdCtxFree(c); }
};
struct XxhFree {
    void operator()(XXH64_state_t *s) const { detail::hashLibraries()->xxh.freeState(s); }
};

// One running hash of one kind.
class Hasher {
public:
    /// `lib`: hashLibraries(), loaded.
    Hasher(HashKind kind, const detail::HashLibraries &lib) : m_kind(kind), m_lib(lib)
    {
        if (kind == HashKind::Xxh64) {
            m_xxh.reset(lib.xxh.createState());
            lib.xxh.reset(m_xxh.get(), 0);
            return;
        }
        m_evp.reset(lib.crypto.mdCtxNew());
        lib.crypto.digestInit(m_evp.get(), kind == HashKind::Sha256 ? lib.crypto.sha256() : lib.crypto.sha1(), nullptr);
        if (kind == HashKind::Uuid) // SHA-1 of the namespace's bytes, then the name (all tensor data)
            lib.crypto.digestUpdate(m_evp.get(), kLlamaCppNamespace.data(), kLlamaCppNamespace.size());
    }
    void add(const uint8_t *bytes, size_t n)
    {
        if (m_xxh)
            m_lib.xxh.update(m_xxh.get(), bytes, n);
        else
            m_lib.crypto.digestUpdate(m_evp.get(), bytes, n);
    }
    HashKind kind() const { return m_kind; }
    std::string digest()
    {
        if (m_xxh) {
            XXH64_canonical_t canonical;
            m_lib.xxh.canonical(&canonical, m_lib.xxh.digest(m_xxh.get()));
            return hex(canonical.digest, sizeof canonical.digest);
        }
        std::array<uint8_t, EVP_MAX_MD_SIZE> md{};
        unsigned int n = 0;
        m_lib.crypto.digestFinal(m_evp.get(), md.data(), &n);
        if (m_kind != HashKind::Uuid)
            return hex(md.data(), n);
        // RFC 9562 §5.5: the first 16 bytes, version 5, variant 10
        md[6] = uint8_t((md[6] & 0x0f) | 0x50);
        md[8] = uint8_t((md[8] & 0x3f) | 0x80);
        const std::string h = hex(md.data(), 16);
        return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) + "-" +
               h.substr(20);
    }

private:
    HashKind m_kind;
    const detail::HashLibraries &m_lib;
    std::unique_ptr<EVP_MD_CTX, EvpFree> m_evp;
    std::unique_ptr<XXH64_state_t, XxhFree> m_xxh;
};

// What one kind costs per byte, roughly (XXH64 runs at memory speed, the SHA family far slower).
int costOf(HashKind kind)
{
    return kind == HashKind::Xxh64 ? 1 : 6;
}

// Feeds a chunk to the tensor's hashers and the model's, in two halves of about equal cost, one on
// another thread: a tensor and the model each need every byte, so hashing both takes two cores to
// keep the pace of one.
void feed(std::vector<Hasher> &own, const std::vector<std::unique_ptr<Hasher>> &whole, const uint8_t *p, size_t n)
{
    std::vector<Hasher *> all;
    all.reserve(own.size() + whole.size());
    for (Hasher &h : own)
        all.push_back(&h);
    for (const auto &h : whole)
        all.push_back(h.get());
    if (all.size() < 2 || n < (size_t(1) << 20)) {
        for (Hasher *h : all)
            h->add(p, n);
        return;
    }
    std::sort(all.begin(), all.end(),
              [](const Hasher *a, const Hasher *b) { return costOf(a->kind()) > costOf(b->kind()); });
    std::vector<Hasher *> here, there;
    int hereCost = 0, thereCost = 0;
    for (Hasher *h : all) {
        const bool mine = hereCost <= thereCost;
        (mine ? hereCost : thereCost) += costOf(h->kind());
        (mine ? here : there).push_back(h);
    }
    auto other = std::async(std::launch::async, [&there, p, n] {
        for (Hasher *h : there)
            h->add(p, n);
    });
    for (Hasher *h : here)
        h->add(p, n);
    other.get();
}

// The tensor kinds in llama-gguf-hash's order (no uuid per tensor).
std::vector<HashKind> tensorKinds(const HashSelection &which)
{
    std::vector<HashKind> out;
    for (const HashKind k : {HashKind::Xxh64, HashKind::Sha1, HashKind::Sha256})
        if (which.has(k) && which.perTensor)
            out.push_back(k);
    return out;
}

} // namespace

const char *hashKindName(HashKind kind)
{
    switch (kind) {
    case HashKind::Xxh64: return "xxh64";
    case HashKind::Sha1: return "sha1";
    case HashKind::Sha256: return "sha256";
    case HashKind::Uuid: return "uuid";
    }
    return "xxh64";
}

std::optional<HashKind> hashKindFromName(std::string_view name)
{
    for (const HashKind k : kHashKinds)
        if (name == hashKindName(k))
            return k;
    return std::nullopt;
}

std::string hashLineText(const HashLine &line, const std::string &file)
{
    char kind[16];
    std::snprintf(kind, sizeof kind, "%-8s", hashKindName(line.kind));
    return std::string(kind) + "  " + line.digest + "  " + file + (line.tensor.empty() ? "" : ":" + line.tensor);
}

ModelHashes hashTensors(const std::vector<HashedTensor> &tensors, const HashSelection &which,
                        const ProgressFn &progress)
{
    ModelHashes out;
    const detail::HashLibraries *lib = detail::hashLibraries();
    if (!lib) {
        out.error = Error{ErrorKind::Unreadable, "no_hash_library", 0, detail::hashLibrariesError()};
        return out;
    }
    uint64_t total = 0;
    for (const HashedTensor &t : tensors)
        total += t.size;
    std::vector<std::unique_ptr<Hasher>> whole;
    std::vector<HashKind> wholeKinds;
    for (const HashKind k : kHashKinds)
        if (which.has(k)) {
            whole.push_back(std::make_unique<Hasher>(k, *lib));
            wholeKinds.push_back(k);
        }
    const std::vector<HashKind> perTensor = tensorKinds(which);
    for (const HashedTensor &t : tensors) {
        const TensorData &data = t.data;
        const uint64_t size = t.size;
        if (data.bytes.size() < size) {
            out.lines.clear();
            out.error = Error{ErrorKind::Malformed, "tensor_data_outside_file", t.fileOffset,
                              "the data of tensor " + t.name + " (" + std::to_string(size) + " bytes at offset " +
                                  std::to_string(t.fileOffset) + ") is not inside the file " + t.file};
            return out;
        }
        std::vector<Hasher> own;
        own.reserve(perTensor.size());
        for (const HashKind k : perTensor)
            own.emplace_back(k, *lib);
        for (uint64_t at = 0; at < size; at += kChunk) {
            const uint64_t n = std::min(kChunk, size - at);
            const ElementHold hold = ElementHold::ofBytes(data, at, at + n); // a remote chunk is fetched here
            if (const std::optional<Error> e = readError(data); e || !hold) {
                out.lines.clear();
                out.error = e ? *e
                              : Error{ErrorKind::Unreadable, "read_failed", t.fileOffset + at,
                                      "tensor " + t.name + " could not be read"};
                out.cancelled = e && e->kind == ErrorKind::Cancelled;
                return out;
            }
            feed(own, whole, data.bytes.data() + at, size_t(n));
            out.bytes += n;
            if (progress && !progress(out.bytes, total)) {
                out.lines.clear();
                out.cancelled = true;
                return out;
            }
        }
        for (size_t i = 0; i < own.size(); ++i)
            out.lines.push_back({perTensor[i], own[i].digest(), t.name});
    }
    for (size_t i = 0; i < whole.size(); ++i)
        out.lines.push_back({wholeKinds[i], whole[i]->digest(), {}});
    return out;
}

ModelHashes hashModel(const SplitModel &model, const HashSelection &which, const ProgressFn &progress)
{
    std::vector<HashedTensor> tensors;
    tensors.reserve(model.tensors().size());
    for (const SplitModel::TensorRef &t : model.tensors()) {
        const GgufFile &file = *model.shards()[t.shard].file;
        tensors.push_back(
            {std::string(t.info->name), tensorData(file, *t.info), t.info->byteSize, t.info->fileOffset, file.path()});
    }
    return hashTensors(tensors, which, progress);
}

std::vector<ManifestLine> parseManifest(std::string_view text)
{
    std::vector<ManifestLine> out;
    std::istringstream lines{std::string(text)};
    std::string line;
    while (std::getline(lines, line)) {
        std::istringstream words(line);
        std::string kind, digest, name;
        if (!(words >> kind >> digest >> name))
            continue;
        if (const auto k = hashKindFromName(kind))
            out.push_back({*k, digest, name});
    }
    return out;
}

std::optional<HashKind> strongestKind(const std::vector<ManifestLine> &manifest)
{
    for (const HashKind k : {HashKind::Sha256, HashKind::Sha1, HashKind::Xxh64, HashKind::Uuid})
        if (std::any_of(manifest.begin(), manifest.end(), [k](const ManifestLine &m) { return m.kind == k; }))
            return k;
    return std::nullopt;
}

const char *checkResultName(CheckResult result)
{
    switch (result) {
    case CheckResult::Ok: return "Ok";
    case CheckResult::Mismatch: return "Mismatch";
    case CheckResult::NotFound: return "Not Found";
    }
    return "Not Found";
}

namespace {

// The manifest's digest for `line`, or empty (ManifestCheck's rule).
std::string expectedDigest(const std::vector<ManifestLine> &manifest, const HashLine &line, const std::string &file,
                           const std::vector<std::string> &tensors)
{
    const std::string name = line.tensor.empty() ? file : file + ":" + line.tensor;
    for (const ManifestLine &m : manifest)
        if (m.kind == line.kind && m.name == name)
            return m.digest;
    for (const ManifestLine &m : manifest) {
        if (m.kind != line.kind)
            continue;
        const size_t colon = m.name.rfind(':');
        const std::string tensor = colon == std::string::npos ? std::string() : m.name.substr(colon + 1);
        const bool ofATensor = std::find(tensors.begin(), tensors.end(), tensor) != tensors.end();
        if (line.tensor.empty() ? !ofATensor : tensor == line.tensor)
            return m.digest;
    }
    return {};
}

} // namespace

ManifestCheck checkAgainst(const std::vector<HashLine> &hashes, const std::vector<ManifestLine> &manifest,
                           const std::string &file, const std::vector<std::string> &tensors)
{
    ManifestCheck out;
    bool found = false;
    for (const HashLine &line : hashes) {
        const std::string want = expectedDigest(manifest, line, file, tensors);
        const CheckResult result = want.empty()          ? CheckResult::NotFound
                                   : want == line.digest ? CheckResult::Ok
                                                         : CheckResult::Mismatch;
        found = found || !want.empty();
        if (result == CheckResult::Mismatch)
            out.differing.push_back(
                line.tensor.empty() ? "the whole model (" + std::string(hashKindName(line.kind)) + ")" : line.tensor);
        out.lines.push_back({line, result});
    }
    out.missing = !found;
    return out;
}

} // namespace gguf
