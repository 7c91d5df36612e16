// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gguf_bench/bench_tokens.h"

#include "app/gguf_bench/bench_files.h"
#include "app/gguf_bench/bench_util.h"
#include "core/format/gguf_file.h"
#include "core/util/parallel_chunks.h"
#include "core/vocab/merge_index.h"
#include "core/vocab/token_search.h"
#include "core/vocab/vocabulary.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace bench {
namespace {

using Mode = gguf::TokenSearch::Mode;
using Field = gguf::TokenSearch::Field;
using SortKey = gguf::TokenSearch::SortKey;

constexpr int kRuns = 5;

struct Timed {
    double ms = 0;
    uint64_t count = 0;
};

// Median of `kRuns` runs of `body`, which returns what it found (the count of the last run).
template <class Body> Timed timeMedian(const Body &body)
{
    std::vector<double> ms;
    uint64_t count = 0;
    for (int i = 0; i < kRuns; ++i) {
        const double t0 = now();
        count = body();
        ms.push_back((now() - t0) * 1e3);
    }
    std::sort(ms.begin(), ms.end());
    return {ms[ms.size() / 2], count};
}

gguf::TokenSearch::Query query(Mode mode, const std::string &text, Field field = Field::StoredOrDecoded,
                               bool caseSensitive = false, int typeFilter = gguf::TokenSearch::kAnyType)
{
    return gguf::TokenSearch::Query{mode, text, field, caseSensitive, typeFilter};
}

// The floor of a search: `test` on positions [0, count) on every core, in chunks of the size
// gguf::TokenSearch scans in, counting the hits (no id list, no decoding, no case folding).
template <class Test> uint64_t countOnAllCores(uint64_t count, const Test &test)
{
    constexpr uint64_t kChunk = 8192;
    const uint64_t chunks = (count + kChunk - 1) / kChunk;
    std::vector<uint64_t> hits(gguf::workerCount(0, chunks));
    gguf::runChunks(chunks, 0,
                    [&](uint64_t chunk, unsigned worker) {
                        uint64_t n = 0;
                        for (uint64_t pos = chunk * kChunk, end = std::min(count, pos + kChunk); pos < end; ++pos)
                            n += test(pos) ? 1 : 0;
                        hits[worker] += n;
                    },
                    {});
    uint64_t total = 0;
    for (const uint64_t n : hits)
        total += n;
    return total;
}

// ^Ġ?[a-c]+s$ written out by hand over the stored bytes: the pattern without a regex engine.
bool abcThenS(std::string_view text)
{
    if (text.starts_with("\xC4\xA0"))
        text.remove_prefix(2);
    if (text.size() < 2 || text.back() != 's')
        return false;
    text.remove_suffix(1);
    return std::all_of(text.begin(), text.end(), [](char c) { return c >= 'a' && c <= 'c'; });
}

void printRow(const char *search, const Timed &t, const std::string &floorName, std::optional<Timed> floor)
{
    if (floor)
        std::printf("| %s | %.1f | %llu | %s (%llu) | %.1f | %.1f× |\n", search, t.ms,
                    static_cast<unsigned long long>(t.count), floorName.c_str(),
                    static_cast<unsigned long long>(floor->count), floor->ms, t.ms / floor->ms);
    else
        std::printf("| %s | %.1f | %llu | — | | |\n", search, t.ms, static_cast<unsigned long long>(t.count));
    std::fflush(stdout);
}

// The floor of a sort: the same pseudo-random keys every time, copied afresh each run (the copy is
// ~1% of the sort).
Timed sortKeys(uint64_t count)
{
    std::vector<uint32_t> unsorted(static_cast<size_t>(count));
    fillRandom(reinterpret_cast<uint8_t *>(unsorted.data()), unsorted.size() * sizeof(uint32_t), 13);
    return timeMedian([&unsorted] {
        std::vector<uint32_t> keys = unsorted;
        std::sort(keys.begin(), keys.end());
        return keys.size();
    });
}

// The searches of the vocabulary, each beside a plain scan of the stored bytes.
void benchSearches(const gguf::Vocabulary &vocab)
{
    const uint64_t n = vocab.size();
    const auto search = [&vocab](const gguf::TokenSearch::Query &q, const gguf::TokenSearch::Ids *order = nullptr,
                                 bool descending = false) {
        return timeMedian([&] { return gguf::TokenSearch(q).tokens(vocab, order, descending)->size(); });
    };
    const auto find = [&vocab, n](std::string_view needle) {
        return timeMedian([&vocab, n, needle] {
            return countOnAllCores(n,
                                   [&](uint64_t id) { return vocab.token(id).find(needle) != std::string_view::npos; });
        });
    };
    const Timed findIng = find("ing");
    const std::string findIngName = "`find(\"ing\")` in the stored tokens";

    printRow("substring \"ing\" (stored or decoded)", search(query(Mode::Text, "ing")), findIngName, findIng);
    printRow("substring \"ing\", case-sensitive, stored", search(query(Mode::Text, "ing", Field::Stored, true)),
             findIngName, findIng);
    // the decoded " th" is stored as "Ġth": the floor looks for the stored spelling, with no decoding
    printRow("decoded text \" th\"", search(query(Mode::Text, " th", Field::Decoded)),
             "`find(\"Ġth\")` in the stored tokens", find("\xC4\xA0th"));
    printRow("regex `^Ġ?[a-c]+s$` (stored or decoded)", search(query(Mode::RegularExpression, "^\xC4\xA0?[a-c]+s$")),
             "the pattern hand-written over the stored tokens", timeMedian([&vocab, n] {
                 return countOnAllCores(n, [&](uint64_t id) { return abcThenS(vocab.token(id)); });
             }));
    printRow("text \"É\", any case (non-ASCII: searched through a regex)", search(query(Mode::Text, "\xC3\x89")),
             "`find(\"É\")` in the stored tokens", find("\xC3\x89"));
    printRow("ids 1000-2000, 5", search(query(Mode::Id, "1000-2000, 5")), "", std::nullopt);
    printRow("bytes 20 71 (decoded)", search(query(Mode::Bytes, "20 71", Field::Decoded)),
             "`find(\"Ġq\")` in the stored tokens", find("\xC4\xA0q"));
    printRow("type byte", search(query(Mode::Text, "", Field::StoredOrDecoded, false, 6)), "", std::nullopt);
}

// The sort orders, a search in one, the merge rules and the merge index, beside sorts of as many keys.
void benchSortsAndMerges(const gguf::Vocabulary &vocab)
{
    const uint64_t n = vocab.size(), merges = vocab.mergeCount();
    const auto search = [&vocab](const gguf::TokenSearch::Query &q, const gguf::TokenSearch::Ids *order,
                                 bool descending) {
        return timeMedian([&] { return gguf::TokenSearch(q).tokens(vocab, order, descending)->size(); });
    };
    const Timed findIng = timeMedian([&vocab, n] {
        return countOnAllCores(n, [&](uint64_t id) { return vocab.token(id).find("ing") != std::string_view::npos; });
    });
    const std::string findIngName = "`find(\"ing\")` in the stored tokens";
    const Timed sortFloor = sortKeys(n);
    const std::string sortFloorName = "`std::sort` of " + std::to_string(n) + " uint32 keys";
    std::optional<gguf::TokenSearch::Ids> byLength;
    printRow("sort by token",
             timeMedian([&vocab] { return gguf::TokenSearch::sortOrder(vocab, SortKey::Token)->size(); }),
             sortFloorName, sortFloor);
    printRow("sort by score",
             timeMedian([&vocab] { return gguf::TokenSearch::sortOrder(vocab, SortKey::Score)->size(); }),
             sortFloorName, sortFloor);
    printRow("sort by length", timeMedian([&vocab, &byLength] {
                 byLength = gguf::TokenSearch::sortOrder(vocab, SortKey::Length);
                 return byLength->size();
             }),
             sortFloorName, sortFloor);
    printRow("substring \"ing\" in length order, descending", search(query(Mode::Text, "ing"), &*byLength, true),
             findIngName, findIng);

    printRow("merge rules: substring \"ing\"",
             timeMedian([&vocab] { return gguf::TokenSearch(query(Mode::Text, "ing")).merges(vocab)->size(); }),
             "`find(\"ing\")` in the stored rules (\"in g\" is not found)", timeMedian([&vocab, merges] {
                 return countOnAllCores(
                     merges, [&](uint64_t rank) { return vocab.merge(rank).find("ing") != std::string_view::npos; });
             }));
    printRow("merge index build", timeMedian([&vocab] { return gguf::MergeIndex::build(vocab)->size(); }),
             "`std::sort` of " + std::to_string(merges) + " uint32 keys", sortKeys(merges));
}

} // namespace

void benchTokens(const std::string &dir, uint32_t tokenCount)
{
    const std::string path = dir + "/bench-tokens.gguf";
    writeTokenVocabulary(path, tokenCount);
    const gguf::OpenResult opened = gguf::GgufFile::open(path);
    std::filesystem::remove(path); // the mapping stays valid without the name
    if (!opened.file) {
        std::printf("\n## Token search: the generated vocabulary did not open\n");
        return;
    }
    const gguf::Vocabulary vocab(*opened.file);
    const uint64_t n = vocab.size(), merges = vocab.mergeCount();
    vocab.token(0); // the offsets index is built once, on first use: not part of any search
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    std::printf("\n## Token search (%llu tokens, GPT-2 style with types and scores, %llu merge rules; searches and "
                "their floors on %u threads = all cores, sorts on one; ms are medians of %d runs; the floor's own "
                "count in brackets)\n\n",
                static_cast<unsigned long long>(n), static_cast<unsigned long long>(merges), cores, kRuns);
    std::printf("| search | ms | matches | floor, same run: plain byte scan (`string_view::find`) of the same "
                "stored bytes, or `std::sort` of as many uint32 keys | floor ms | search / floor |\n");
    std::printf("|---|---:|---:|---|---:|---:|\n");

    benchSearches(vocab);
    benchSortsAndMerges(vocab);
}

} // namespace bench
