// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// `diff`'s findings, shared by its text report (cli_diff.cpp) and its JSON document (cli_diff_json.cpp).

#include "app/gguf_inspect/cli_common.h"
#include "core/compare/checkpoint_pairing.h"
#include "core/compare/metadata_diff.h"
#include "core/compare/tensor_diff.h"
#include "core/compare/tokenizer_diff.h"
#include "core/format/split_model.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cli {

/// One of the two models compared, as given.
struct DiffSide {
    std::string path;
    std::shared_ptr<const gguf::SplitModel> model;
};

// What diff found, for its report.
struct DiffFindings {
    const DiffSide &a, &b;
    const gguf::MetadataDiff &metadata;
    const gguf::TokenizerDiff &tokenizer;
    const std::vector<gguf::TensorPair> &pairs;
    bool values = false;
    bool differ = false;
    uint64_t notCompared = 0; ///< pairs of the same type and shape whose data was not looked at
};

class JsonWriter;

// A measure for a table: "-" for NaN (undefined), "∞"/"-∞", else `format`.
std::string measureText(double v, const char *format);
// The six measures as table cells (RMSE, max |a-b|, mean |a-b|/mean |a|, cosine, SNR dB, rel L2).
void addMeasureCells(std::vector<std::string> &row, const gguf::DiffMeasures &m);
// Their six column headers.
void addMeasureColumns(std::vector<TextTable::Column> &columns);
// A measure as a JSON field: null where it is not finite (strict JSON).
void writeMeasure(JsonWriter &json, const char *key, double v);
// The six measures as JSON fields (rmse … rel_l2), each null when `m` is not set.
void writeMeasures(JsonWriter &json, const std::optional<gguf::DiffMeasures> &m);

// --tensor NAME…: the items of `all` that hold each NAME (`holds(item, name)`), in the order asked,
// each once; nullopt after a message naming one that none holds.
template <typename T, typename Holds>
std::optional<std::vector<T>> chosenTensors(const std::vector<std::string> &names, const std::vector<T> &all,
                                            const Holds &holds)
{
    std::vector<T> chosen;
    std::vector<size_t> taken;
    for (const std::string &name : names) {
        const auto it = std::find_if(all.begin(), all.end(), [&](const T &item) { return holds(item, name); });
        if (it == all.end()) {
            std::fprintf(stderr, "gguf-inspect: diff: no tensor named '%s' in either file\n",
                         printable(name, 80).c_str());
            return std::nullopt;
        }
        const auto at = static_cast<size_t>(it - all.begin());
        if (std::find(taken.begin(), taken.end(), at) == taken.end()) {
            taken.push_back(at);
            chosen.push_back(*it);
        }
    }
    return chosen;
}

// `diff` with a Hugging Face checkpoint on one side (cli_diff_checkpoint.cpp): the GGUF's tensors
// paired with the checkpoint's by llama.cpp's conversion, undone (#43). `checkpointIsA` when the
// first FILE is the checkpoint.
int runCheckpointDiff(const CommandArgs &args, bool checkpointIsA);
// A checkpoint pair's measures (with `values`: null where not compared), differing and non-finite
// counts, and its problem, as JSON fields of the open object.
void writeOutcomeJson(JsonWriter &json, const gguf::CheckpointPairOutcome &out, bool values);
// `diff` of two checkpoints (cli_diff_checkpoints.cpp): tensors paired by name, config.json and
// __metadata__ key by key.
int runTwoCheckpointsDiff(const CommandArgs &args);

// How a file is written, apart from what it holds: "GGUF v3, little-endian, alignment 32".
std::string formatText(const gguf::GgufFile &f);

// identical: the same bytes or the same values, everywhere looked at, and nothing left unlooked at;
// without --values, tensors of the same type and shape are not compared, so "no difference found"
// is all that can be said (identical null, status 0).
bool writeDiffJson(const DiffFindings &d);

} // namespace cli
