// SPDX-License-Identifier: GPL-3.0-or-later
// The report as one HTML page (docs/REPORT.md §3): styles inline, the type mix drawn as inline SVG,
// nothing fetched, so it opens the same offline. Written as well-formed XML as well (void elements
// closed, only the five character references), so any XML reader can check it.
#include "report_document.h"

#include <algorithm>
#include <cstdio>
#include <string_view>

namespace gguf::report {
namespace {

std::string escapeHtml(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default: out += c;
        }
    }
    return out;
}

constexpr std::string_view kStyle = R"(
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 72em; padding: 0 1em; color: #1f2328; }
h1 { font-size: 1.6em; border-bottom: 1px solid #d0d7de; padding-bottom: .3em; }
h2 { font-size: 1.3em; border-bottom: 1px solid #d0d7de; padding-bottom: .2em; margin-top: 1.6em; }
nav ul { display: flex; flex-wrap: wrap; gap: .3em 1.2em; list-style: none; padding: 0; }
table { border-collapse: collapse; margin: .6em 0; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; vertical-align: top; text-align: left; }
th { background: #f6f8fa; }
td.r, th.r { text-align: right; font-variant-numeric: tabular-nums; }
td { overflow-wrap: break-word; }
td.r { white-space: nowrap; }
pre { background: #f6f8fa; border: 1px solid #d0d7de; padding: .8em; overflow: auto; white-space: pre-wrap; }
.caption { font-weight: 600; margin-bottom: .2em; }
.verdict { font-weight: 600; }
.generator { color: #59636e; }
summary { cursor: pointer; margin: .4em 0; }
svg text { font: 12px system-ui, sans-serif; fill: #1f2328; }
)";

// Colours of the chart's bars, in turn (Okabe–Ito, readable by most colour-blind readers).
constexpr const char *kColours[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                    "#56B4E9", "#D55E00", "#F0E442", "#000000"};

void writeHtmlTable(std::string &out, const Table &t)
{
    if (!t.fold.empty())
        out += "<details open=\"open\"><summary>" + escapeHtml(t.fold) + "</summary>\n";
    const auto cls = [&](size_t i) { return i < t.align.size() && t.align[i] == 'r' ? " class=\"r\"" : ""; };
    out += "<table>\n<thead><tr>";
    for (size_t i = 0; i < t.header.size(); ++i)
        out += std::string("<th") + cls(i) + ">" + escapeHtml(t.header[i]) + "</th>";
    out += "</tr></thead>\n<tbody>\n";
    for (const auto &row : t.rows) {
        out += "<tr>";
        for (size_t i = 0; i < row.size(); ++i)
            out += std::string("<td") + cls(i) + ">" + escapeHtml(row[i]) + "</td>";
        out += "</tr>\n";
    }
    out += "</tbody>\n</table>\n";
    if (!t.fold.empty())
        out += "</details>\n";
}

void writeSvgChart(std::string &out, const TypeMix &mix)
{
    constexpr int kRow = 24, kLabel = 90, kBar = 460, kTop = 8;
    const int height = kTop * 2 + kRow * int(mix.shares.size());
    out += "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"820\" height=\"" + std::to_string(height) +
           "\" viewBox=\"0 0 820 " + std::to_string(height) + "\" id=\"type-mix-chart\">\n";
    out += "<title>Tensor bytes by type</title>\n";
    for (size_t i = 0; i < mix.shares.size(); ++i) {
        const TypeMix::Share &s = mix.shares[i];
        const int y = kTop + kRow * int(i);
        const double share = mix.totalBytes ? double(s.bytes) / double(mix.totalBytes) : 0.0;
        char width[32];
        std::snprintf(width, sizeof width, "%.1f", std::max(1.0, share * kBar));
        const std::string label = s.type + ": " + std::to_string(s.tensors) +
                                  (s.tensors == 1 ? " tensor, " : " tensors, ") + percentText(s.bytes, mix.totalBytes) +
                                  " of the bytes";
        out += "<g class=\"share\" data-type=\"" + escapeHtml(s.type) + "\" data-tensors=\"" +
               std::to_string(s.tensors) + "\" data-bytes=\"" + std::to_string(s.bytes) + "\">";
        out += "<text x=\"0\" y=\"" + std::to_string(y + 16) + "\">" + escapeHtml(s.type) + "</text>";
        out += "<rect x=\"" + std::to_string(kLabel) + "\" y=\"" + std::to_string(y + 3) + "\" width=\"" + width +
               "\" height=\"18\" fill=\"" + kColours[i % std::size(kColours)] + "\"><title>" + escapeHtml(label) +
               "</title></rect>";
        out += "<text x=\"" + std::to_string(kLabel + kBar + 10) + "\" y=\"" + std::to_string(y + 16) + "\">" +
               escapeHtml(percentText(s.bytes, mix.totalBytes) + " · " + std::to_string(s.tensors) +
                          (s.tensors == 1 ? " tensor" : " tensors")) +
               "</text></g>\n";
    }
    out += "</svg>\n";
}

struct HtmlBlock {
    std::string &out;
    void operator()(const Paragraph &p) const
    {
        out += std::string(p.emphasis ? "<p class=\"verdict\">" : "<p>") + escapeHtml(p.text) + "</p>\n";
    }
    void operator()(const Table &t) const { writeHtmlTable(out, t); }
    void operator()(const Code &c) const
    {
        out += "<div class=\"caption\">" + escapeHtml(c.caption) + "</div>\n<pre><code class=\"language-" +
               escapeHtml(c.language) + "\">" + escapeHtml(c.text) + "</code></pre>\n";
    }
    void operator()(const TypeMix &m) const { writeSvgChart(out, m); }
};

} // namespace

std::string renderHtml(const Document &doc)
{
    std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\" />\n"
                      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\" />\n<title>" +
                      escapeHtml(doc.title) + "</title>\n<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n";
    out += "<header>\n<h1>" + escapeHtml(doc.title) + "</h1>\n";
    if (!doc.generator.empty())
        out += "<p class=\"generator\">Made by " + escapeHtml(doc.generator) + "</p>\n";
    out += "<nav><ul>";
    for (const Section &s : doc.sections)
        out += "<li><a href=\"#" + s.id + "\">" + escapeHtml(s.title) + "</a></li>";
    out += "</ul></nav>\n</header>\n";
    for (const Section &s : doc.sections) {
        out += "<section id=\"" + s.id + "\">\n<h2>" + escapeHtml(s.title) + "</h2>\n";
        for (const Block &b : s.blocks)
            std::visit(HtmlBlock{out}, b);
        out += "</section>\n";
    }
    out += "</body>\n</html>\n";
    return out;
}

} // namespace gguf::report
