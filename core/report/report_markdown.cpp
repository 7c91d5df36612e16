// SPDX-License-Identifier: GPL-3.0-or-later
// The report as GitHub-flavoured Markdown (docs/REPORT.md §2): pipe tables, fenced code, a Mermaid
// pie chart (GitHub draws it; elsewhere it reads as its data), <details> to fold the tensor table.
#include "report_document.h"

#include <algorithm>
#include <cstdio>
#include <string_view>

namespace gguf::report {
namespace {

// Every character CommonMark or GitHub could read as markup inside a line, behind a backslash
// (CommonMark lets any ASCII punctuation be escaped so): emphasis, code, links, HTML and entities,
// table cells, strikethrough, math ($), @mentions, #references, and a colon before anything but a
// space (":emoji:" and autolinks). Lines never start with file text, so list and heading marks at a
// line's start need nothing.
std::string escapeMarkdown(std::string_view text)
{
    static constexpr std::string_view kSpecial = "\\`*_{}[]<>#|~&@$";
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (kSpecial.find(c) != std::string_view::npos || (c == ':' && i + 1 < text.size() && text[i + 1] != ' '))
            out += '\\';
        out += c;
    }
    return out;
}

// Text inside a raw HTML block, where Markdown's backslash escapes do not apply.
std::string escapeInHtmlBlock(std::string_view text)
{
    std::string out;
    for (const char c : text)
        out += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
    return out;
}

void writeMarkdownTable(std::string &out, const Table &t)
{
    if (!t.fold.empty())
        out += "<details><summary>" + escapeInHtmlBlock(t.fold) + "</summary>\n\n";
    const auto row = [&](const std::vector<std::string> &cells) {
        out += '|';
        for (const std::string &c : cells)
            out += ' ' + escapeMarkdown(c) + " |";
        out += '\n';
    };
    row(t.header);
    out += '|';
    for (size_t i = 0; i < t.header.size(); ++i)
        out += i < t.align.size() && t.align[i] == 'r' ? " ---: |" : " --- |";
    out += '\n';
    for (const auto &r : t.rows)
        row(r);
    out += t.fold.empty() ? "\n" : "\n</details>\n\n";
}

// A fence longer than any run of backticks in the text (CommonMark §4.5).
void writeFence(std::string &out, const Code &c)
{
    size_t longest = 0, run = 0;
    for (const char ch : c.text) {
        run = ch == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    const std::string fence(std::max<size_t>(3, longest + 1), '`');
    out += "**" + escapeMarkdown(c.caption) + "**\n\n";
    out += fence + c.language + '\n' + c.text;
    if (!c.text.empty() && c.text.back() != '\n')
        out += '\n';
    out += fence + "\n\n";
}

void writeMermaid(std::string &out, const TypeMix &mix)
{
    out += "```mermaid\npie showData title Tensor bytes by type\n";
    for (const TypeMix::Share &s : mix.shares)
        out += "    \"" + s.type + "\" : " + std::to_string(s.bytes) + '\n';
    out += "```\n\n";
    // the same shares as bars of text, for readers that do not draw Mermaid
    out += "```text\n";
    size_t width = 0;
    for (const TypeMix::Share &s : mix.shares)
        width = std::max(width, s.type.size());
    for (const TypeMix::Share &s : mix.shares) {
        const size_t cells = mix.totalBytes ? size_t((s.bytes * 40 + mix.totalBytes / 2) / mix.totalBytes) : 0;
        std::string bar;
        for (size_t i = 0; i < cells; ++i)
            bar += "█";
        out += s.type + std::string(width - s.type.size() + 1, ' ') + bar + (cells ? " " : "") +
               percentText(s.bytes, mix.totalBytes) + '\n';
    }
    out += "```\n\n";
}

struct MarkdownBlock {
    std::string &out;
    void operator()(const Paragraph &p) const
    {
        out += p.emphasis ? "**" + escapeMarkdown(p.text) + "**\n\n" : escapeMarkdown(p.text) + "\n\n";
    }
    void operator()(const Table &t) const { writeMarkdownTable(out, t); }
    void operator()(const Code &c) const { writeFence(out, c); }
    void operator()(const TypeMix &m) const { writeMermaid(out, m); }
};

} // namespace

std::string percentText(uint64_t part, uint64_t whole)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %%", whole ? 100.0 * double(part) / double(whole) : 0.0);
    return buf;
}

std::string renderMarkdown(const Document &doc)
{
    std::string out = "# " + escapeMarkdown(doc.title) + "\n\n";
    if (!doc.generator.empty())
        out += '*' + escapeMarkdown("Made by " + doc.generator) + "*\n\n";
    for (const Section &s : doc.sections)
        out += "- [" + s.title + "](#" + s.id + ")\n";
    out += '\n';
    for (const Section &s : doc.sections) {
        out += "## " + s.title + "\n\n";
        for (const Block &b : s.blocks)
            std::visit(MarkdownBlock{out}, b);
    }
    return out;
}

} // namespace gguf::report
