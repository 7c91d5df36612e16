// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gguf_bench/bench_tokenize.h"

#include "app/gguf_bench/bench_util.h"
#include "core/format/gguf_file.h"
#include "core/vocab/tokenizer.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <vector>

namespace bench {
namespace {

// Sentences in several scripts; the text is these in a pseudo-random order, one per line.
constexpr std::array<std::string_view, 14> kSentences = {
    "The quick brown fox jumps over the lazy dog, doesn't it? It's 3:45 p.m. on 2024-05-17.",
    "    def tokenize(self, text: str) -> list[int]:\n        return [self.vocab[t] for t in text.split()]  # TODO",
    "Größere Flüsse überqueren die Straße bei Köln; Fähren fahren täglich um 06:30 Uhr.",
    "Съешь же ещё этих мягких французских булок, да выпей чаю — сказал он в 1999 году.",
    "我们在北京大学学习自然语言处理，每天阅读大约一万个汉字。",
    "東京の天気は晴れです。カタカナとひらがなを混ぜて書きます。",
    "한국어 텍스트는 음절 단위로 나뉩니다. 오늘은 2024년입니다.",
    "اللغة العربية تكتب من اليمين إلى اليسار، وهذا مثال قصير.",
    "हिन्दी भाषा देवनागरी लिपि में लिखी जाती है और यह एक उदाहरण है।",
    "Ελληνικά: η γρήγορη καφέ αλεπού πηδάει πάνω από τον τεμπέλη σκύλο.",
    "emoji 🦙👨‍👩‍👧‍👦 🇩🇪 ✔️ and symbols ∑ ∫ ≈ ≠ ½ ² ™ © → ⇒",
    "Numbers 123456789 0.000314159 -42 1e-9 3,141,592 ٣٤٥ 一二三",
    "Tiếng Việt có dấu: Cửa Việt, Hà Nội, Thành phố Hồ Chí Minh.",
    "{\"id\": 17, \"name\": \"tokenizer\", \"tags\": [\"bpe\", \"spm\"], \"ok\": true}\r\n\t\t<br/>",
};

std::string mixedText(size_t bytes)
{
    std::string text;
    text.reserve(bytes + 256);
    uint64_t state = 0x9E3779B97F4A7C15ull;
    while (text.size() < bytes) {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        text += kSentences[state % kSentences.size()];
        text += '\n';
    }
    return text;
}

// The floor: one pass that decodes the text's UTF-8 into code points (summed so it is kept).
uint64_t decodeFloor(std::string_view text)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < text.size();) {
        const auto c = static_cast<uint8_t>(text[i]);
        const size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        uint32_t cp = n == 1 ? c : c & (0x7F >> n);
        for (size_t k = 1; k < n && i + k < text.size(); ++k)
            cp = (cp << 6) | (static_cast<uint8_t>(text[i + k]) & 0x3F);
        sum += cp;
        i += n;
    }
    return sum;
}

// The bytes of a file (empty when it cannot be read).
std::vector<uint8_t> readFile(const std::string &path)
{
    std::vector<uint8_t> bytes;
    if (FILE *f = std::fopen(path.c_str(), "rb")) {
        uint8_t buffer[1 << 16];
        for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;)
            bytes.insert(bytes.end(), buffer, buffer + n);
        std::fclose(f);
    }
    return bytes;
}

// A vocabulary file with its tokenizer.ggml.pre string replaced (a vocabulary-only file: nothing
// after the header moves).
std::vector<uint8_t> withPre(const std::vector<uint8_t> &base, std::string_view pre)
{
    static constexpr std::string_view kKey = "tokenizer.ggml.pre";
    std::vector<uint8_t> needle(8, 0);
    needle[0] = static_cast<uint8_t>(kKey.size());
    needle.insert(needle.end(), kKey.begin(), kKey.end());
    const auto at = std::search(base.begin(), base.end(), needle.begin(), needle.end());
    if (at == base.end())
        return {};
    const auto value = at + static_cast<ptrdiff_t>(needle.size()) + 4; // after the type id
    uint64_t length = 0;
    std::memcpy(&length, &*value, sizeof length);
    std::vector<uint8_t> out(base.begin(), value);
    const uint64_t newLength = pre.size();
    const auto *lengthBytes = reinterpret_cast<const uint8_t *>(&newLength);
    out.insert(out.end(), lengthBytes, lengthBytes + 8);
    out.insert(out.end(), pre.begin(), pre.end());
    out.insert(out.end(), value + 8 + static_cast<ptrdiff_t>(length), base.end());
    return out;
}

} // namespace

void benchTokenize(const std::string &dataDir, bool quick)
{
    const std::string text = mixedText(quick ? (1u << 20) : (4u << 20));
    const double mb = static_cast<double>(text.size()) / 1e6;
    uint64_t keep = 0;
    const double floorSeconds = timePerRun([&] { keep += decodeFloor(text); });
    std::printf("\n## Tokenizing %.1f MB of mixed-script text (one thread)\n\n", mb);
    std::printf("UTF-8 decoding floor: %.1f MB/s (sum %llu)\n\n", mb / floorSeconds,
                static_cast<unsigned long long>(keep % 10));
    std::printf("| vocabulary | tokenizer | pre-tokenizer | tokens | seconds | MB/s | tokens/s | × floor |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    const auto row = [&](const std::string &name, const gguf::Tokenizer &tokenizer) {
        std::vector<double> seconds;
        size_t count = 0;
        for (int run = 0; run < 3; ++run) {
            const double t0 = now();
            count = tokenizer.tokenize(text).size();
            seconds.push_back(now() - t0);
        }
        std::sort(seconds.begin(), seconds.end());
        const double s = seconds[1];
        std::printf("| %s | %s | %s | %zu | %.2f | %.2f | %s | %.0f |\n", name.c_str(),
                    std::string(gguf::tokenizerKindName(tokenizer.kind())).c_str(),
                    tokenizer.preType().empty() ? "-" : std::string(tokenizer.preType()).c_str(), count, s, mb / s,
                    formatRate(static_cast<double>(count) / s, "tok/s").c_str(), s / floorSeconds);
    };
    for (const char *name : {"llama-spm", "gpt-2", "deepseek-coder", "deepseek-llm", "falcon", "bert-bge", "qwen35"}) {
        const std::string path = dataDir + "/ggml-vocab-" + name + ".gguf";
        const auto opened = gguf::GgufFile::open(path);
        if (!opened.file) {
            std::printf("| %s | could not open %s | | | | | | |\n", name, path.c_str());
            continue;
        }
        row(name, *gguf::Tokenizer::create(opened.file));
    }
    // the regex sets of newer llama.cpp, each on deepseek-llm's vocabulary with that pre value
    const std::vector<uint8_t> base = readFile(dataDir + "/ggml-vocab-deepseek-llm.gguf");
    for (const char *pre : {"deepseek-v3", "gpt-4o", "qwen35", "kimi-k2", "tiny_aya", "afmoe", "superbpe", "youtu",
                            "exaone-moe", "seed-coder", "bailingmoe", "jais-2", "laguna", "minicpm5",
                            "granite-embed-multi-97m", "spark2_5", "ufakzeka", "gemma4", "whitespace"}) {
        const auto opened = gguf::GgufFile::openBuffer(withPre(base, pre), pre);
        if (!opened.file) {
            std::printf("| deepseek-llm as %s | could not build it | | | | | | |\n", pre);
            continue;
        }
        row(std::string("deepseek-llm as ") + pre, *gguf::Tokenizer::create(opened.file));
    }
}

} // namespace bench
