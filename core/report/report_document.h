// SPDX-License-Identifier: GPL-3.0-or-later
// The report as a document of sections and blocks, built once from the model and written out as
// Markdown or HTML, so that both forms say the same things.
#pragma once

#include "core/format/errors.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace gguf {
class SplitModel;
}

namespace gguf::report {

/// Text for people: already printable (no control characters, valid UTF-8); each writer escapes it.
struct Paragraph {
    std::string text;
    bool emphasis = false;
};

struct Table {
    std::vector<std::string> header;
    std::string align; ///< per column: 'l' or 'r'
    std::vector<std::vector<std::string>> rows;
    /// When set, the table folds under this line (HTML and GitHub's <details>).
    std::string fold;
};

/// Text shown exactly as it is, in a monospaced block (a chat template).
struct Code {
    std::string caption;
    std::string language;
    std::string text;
};

/// The chart of tensor bytes by type.
struct TypeMix {
    struct Share {
        std::string type;
        uint64_t tensors = 0, parameters = 0, bytes = 0;
    };
    std::vector<Share> shares; ///< largest first
    uint64_t totalBytes = 0;
};

using Block = std::variant<Paragraph, Table, Code, TypeMix>;

struct Section {
    std::string id;    ///< the anchor: GitHub's own for the title (lower case, spaces as '-')
    std::string title; ///< letters and spaces only
    std::vector<Block> blocks;
};

struct Document {
    std::string title;
    std::string generator;
    std::vector<Section> sections;
};

std::string renderMarkdown(const Document &doc);
std::string renderHtml(const Document &doc);

/// "12.3 %" of a share.
std::string percentText(uint64_t part, uint64_t whole);

/// A chat template as it is, line breaks and tabs kept; other control characters and ill-formed
/// bytes shown escaped (a document stays valid UTF-8).
std::string codeText(std::string_view text);
/// The type mix of `shares` (any order) into `s`: a line with the total, the chart (largest
/// first) and its table; a line saying there is none when `shares` is empty.
void appendTypeMix(std::vector<TypeMix::Share> shares, Section &s);
/// The Verdict section: `line` (the reader's verdict), then a table of every finding with the file
/// it is about (severity, file, offset, code, message; no file column unless `withFile`), or
/// `none` when there is none.
Section verdictSection(const std::string &line, const std::vector<std::pair<const Finding *, std::string>> &findings,
                       bool withFile, const std::string &none);
/// The Memory section of `model`: at the trained context, on the CPU alone and all on one GPU.
Section memorySection(const SplitModel &model);

} // namespace gguf::report
