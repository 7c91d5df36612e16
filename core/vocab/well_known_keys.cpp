// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/vocab/well_known_keys.h"

#include "core/vocab/vocabulary.h"

#include <algorithm>
#include <array>
#include <utility>

namespace gguf {

namespace {

using NamedValue = std::pair<int64_t, std::string_view>;

// llama.cpp include/llama.h, enum llama_ftype (values 5 and 6 were retired; 4 is still defined;
// docs/FORMAT.md §7.5).
constexpr std::array kFileTypes{
    NamedValue{0, "ALL_F32"},
    NamedValue{1, "MOSTLY_F16"},
    NamedValue{2, "Q4_0"},
    NamedValue{3, "Q4_1"},
    NamedValue{4, "MOSTLY_Q4_1_SOME_F16"},
    NamedValue{7, "Q8_0"},
    NamedValue{8, "Q5_0"},
    NamedValue{9, "Q5_1"},
    NamedValue{10, "Q2_K"},
    NamedValue{11, "Q3_K_S"},
    NamedValue{12, "Q3_K_M"},
    NamedValue{13, "Q3_K_L"},
    NamedValue{14, "Q4_K_S"},
    NamedValue{15, "Q4_K_M"},
    NamedValue{16, "Q5_K_S"},
    NamedValue{17, "Q5_K_M"},
    NamedValue{18, "Q6_K"},
    NamedValue{19, "IQ2_XXS"},
    NamedValue{20, "IQ2_XS"},
    NamedValue{21, "Q2_K_S"},
    NamedValue{22, "IQ3_XS"},
    NamedValue{23, "IQ3_XXS"},
    NamedValue{24, "IQ1_S"},
    NamedValue{25, "IQ4_NL"},
    NamedValue{26, "IQ3_S"},
    NamedValue{27, "IQ3_M"},
    NamedValue{28, "IQ2_S"},
    NamedValue{29, "IQ2_M"},
    NamedValue{30, "IQ4_XS"},
    NamedValue{31, "IQ1_M"},
    NamedValue{32, "BF16"},
    NamedValue{36, "TQ1_0"},
    NamedValue{37, "TQ2_0"},
    NamedValue{38, "MXFP4_MOE"},
    NamedValue{39, "NVFP4"},
    NamedValue{40, "Q1_0"},
    NamedValue{41, "Q2_0"},
    NamedValue{1024, "GUESSED"}, // "not specified in the model file"
};

// llama.cpp include/llama.h, enum llama_pooling_type (docs/FORMAT.md §7.5).
constexpr std::array kPoolingTypes{
    NamedValue{-1, "UNSPECIFIED"}, NamedValue{0, "NONE"}, NamedValue{1, "MEAN"},
    NamedValue{2, "CLS"},          NamedValue{3, "LAST"}, NamedValue{4, "RANK"},
};

// llama.cpp include/llama.h, enum llama_rope_scaling_type (docs/FORMAT.md §7.5).
constexpr std::array kRopeScalingTypes{
    NamedValue{-1, "UNSPECIFIED"}, NamedValue{0, "NONE"},     NamedValue{1, "LINEAR"},
    NamedValue{2, "YARN"},         NamedValue{3, "LONGROPE"},
};

// llama.cpp src/llama-hparams.h, enum llm_expert_gating_func_type (docs/FORMAT.md §7.5).
constexpr std::array kExpertGatingFuncs{
    NamedValue{0, "NONE"},
    NamedValue{1, "SOFTMAX"},
    NamedValue{2, "SIGMOID"},
    NamedValue{3, "SOFTMAX_WEIGHT"},
};

template <size_t N> std::optional<std::string_view> lookUp(const std::array<NamedValue, N> &table, int64_t value)
{
    const auto it =
        std::find_if(table.begin(), table.end(), [value](const NamedValue &nv) { return nv.first == value; });
    if (it == table.end())
        return std::nullopt;
    return it->second;
}

bool endsWith(std::string_view text, std::string_view suffix)
{
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

} // namespace

std::optional<std::string_view> fileTypeName(uint64_t fileType)
{
    if (fileType > static_cast<uint64_t>(kFileTypes.back().first))
        return std::nullopt;
    return lookUp(kFileTypes, static_cast<int64_t>(fileType));
}

std::optional<std::string_view> poolingTypeName(int64_t value)
{
    return lookUp(kPoolingTypes, value);
}

std::optional<std::string_view> ropeScalingTypeName(int64_t value)
{
    return lookUp(kRopeScalingTypes, value);
}

std::optional<std::string_view> expertGatingFuncName(int64_t value)
{
    return lookUp(kExpertGatingFuncs, value);
}

std::optional<std::string> enumValueName(std::string_view key, int64_t value)
{
    std::optional<std::string_view> name;
    if (key == "general.file_type")
        name = value >= 0 ? fileTypeName(static_cast<uint64_t>(value)) : std::nullopt;
    else if (key == "tokenizer.ggml.token_type")
        // tokenTypeName answers "undefined" for ids it does not know; only 0 is really undefined
        name = value >= 0 && value <= static_cast<int64_t>(TokenType::Byte)
                   ? std::optional(tokenTypeName(static_cast<int32_t>(value)))
                   : std::nullopt;
    else if (endsWith(key, ".pooling_type"))
        name = poolingTypeName(value);
    else if (endsWith(key, ".rope.scaling.type"))
        name = ropeScalingTypeName(value);
    else if (endsWith(key, ".expert_gating_func"))
        name = expertGatingFuncName(value);
    if (!name)
        return std::nullopt;
    return std::string(*name);
}

std::optional<int64_t> enumValueOfName(std::string_view key, std::string_view name)
{
    const auto upper = [](std::string_view text) {
        std::string out(text);
        for (char &c : out)
            c = (c >= 'a' && c <= 'z') ? char(c - 'a' + 'A') : c;
        return out;
    };
    std::string wanted = upper(name);
    if (wanted.starts_with("LLAMA_FTYPE_"))
        wanted.erase(0, 12);
    if (wanted.empty())
        return std::nullopt;
    // every enum here is small: file types below 64, the others below 8 (and -1)
    for (int64_t value = -1; value < 256; ++value) {
        const std::optional<std::string> known = enumValueName(key, value);
        if (known &&
            (upper(*known) == wanted || upper(*known) == "MOSTLY_" + wanted || "MOSTLY_" + upper(*known) == wanted))
            return value;
    }
    return std::nullopt;
}

bool isTokenIdKey(std::string_view key)
{
    return key.starts_with("tokenizer.ggml.") && endsWith(key, "_token_id");
}

std::string_view keyNamespace(std::string_view key)
{
    const size_t dot = key.rfind('.');
    return dot == std::string_view::npos ? std::string_view{} : key.substr(0, dot);
}

} // namespace gguf
