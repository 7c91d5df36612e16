// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gguf_inspect/cli_common.h"

#include "app/gguf_inspect/json_writer.h"
#include "core/format/ggml_types.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <unistd.h>
#include <utility>

namespace cli {

std::shared_ptr<const gguf::GgufFile> openFile(const std::string &path)
{
    gguf::OpenResult result = gguf::GgufFile::open(path);
    if (!result.file || result.error) {
        reportError(path, result.error);
        return nullptr;
    }
    return result.file;
}

void reportError(const std::string &path, const gguf::Error &error)
{
    std::string line = "gguf-inspect: ";
    // Open errors already start with the path; parse errors do not.
    if (error.message.compare(0, path.size() + 2, path + ": ") != 0)
        line += printable(path) + ": ";
    line += printable(error.message);
    // Not-found and unreadable files have no byte to point at; most parse messages name it already.
    const bool hasOffset = error.kind != gguf::ErrorKind::NotFound && error.kind != gguf::ErrorKind::Unreadable &&
                           error.kind != gguf::ErrorKind::Network && error.kind != gguf::ErrorKind::Cancelled;
    if (hasOffset && error.message.find("offset " + std::to_string(error.offset)) == std::string::npos)
        line += " (offset " + std::to_string(error.offset) + ")";
    line += '\n';
    std::fflush(stdout);
    std::fputs(line.c_str(), stderr);
}

void print(std::string_view text)
{
    std::fwrite(text.data(), 1, text.size(), stdout);
}

bool namesOneOf(const std::vector<std::string> &files, const std::string &path)
{
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        return false;
    return std::any_of(files.begin(), files.end(),
                       [&](const std::string &f) { return std::filesystem::equivalent(path, f, ec); });
}

std::string shapeText(const gguf::TensorInfo &tensor)
{
    std::string out = "[";
    const uint32_t shown = std::min<uint32_t>(tensor.nDims, 4);
    for (uint32_t d = 0; d < shown; ++d) {
        if (d != 0)
            out += ", ";
        out += std::to_string(tensor.ne[d]);
    }
    if (tensor.nDims > shown)
        out += ", …";
    return out + "]";
}

namespace {

// Code points, which is what a terminal advances by for the text we print (no wide-glyph tables).
size_t displayWidth(std::string_view text)
{
    size_t n = 0;
    for (unsigned char c : text)
        if ((c & 0xC0) != 0x80)
            ++n;
    return n;
}

} // namespace

TextTable::TextTable(std::vector<Column> columns) : m_columns(std::move(columns)) {}

void TextTable::addRow(std::vector<std::string> cells)
{
    cells.resize(m_columns.size());
    m_rows.push_back(std::move(cells));
}

void TextTable::print(size_t indent, bool header) const
{
    std::vector<size_t> widths(m_columns.size());
    for (size_t c = 0; c < m_columns.size(); ++c) {
        widths[c] = header ? displayWidth(m_columns[c].header) : 0;
        for (const auto &row : m_rows)
            widths[c] = std::max(widths[c], displayWidth(row[c]));
    }
    const auto line = [&](const std::vector<std::string> &cells) {
        std::string out(indent, ' ');
        for (size_t c = 0; c < cells.size(); ++c) {
            const size_t pad = widths[c] - displayWidth(cells[c]);
            const bool last = c + 1 == cells.size();
            if (m_columns[c].align == Align::Right)
                out.append(pad, ' ').append(cells[c]);
            else
                out.append(cells[c]).append(last ? 0 : pad, ' ');
            if (!last)
                out += "  ";
        }
        out += '\n';
        cli::print(out);
    };
    if (header) {
        std::vector<std::string> titles;
        std::vector<std::string> rule;
        for (size_t c = 0; c < m_columns.size(); ++c) {
            titles.push_back(m_columns[c].header);
            rule.push_back(std::string(widths[c], '-'));
        }
        line(titles);
        line(rule);
    }
    for (const auto &row : m_rows)
        line(row);
}

namespace {

volatile std::sig_atomic_t g_interrupted = 0;

extern "C" void onInterrupt(int)
{
    g_interrupted = 1;
}

} // namespace

InterruptWatch::InterruptWatch()
{
    g_interrupted = 0;
    m_previous = std::signal(SIGINT, onInterrupt);
}

InterruptWatch::~InterruptWatch()
{
    if (m_previous != SIG_ERR)
        std::signal(SIGINT, m_previous);
}

bool InterruptWatch::interrupted() const
{
    return g_interrupted != 0;
}

ProgressPrinter::ProgressPrinter(std::string label) : m_label(std::move(label)), m_tty(::isatty(2) != 0) {}

ProgressPrinter::~ProgressPrinter()
{
    if (m_shown)
        std::fputs("\r\033[K", stderr);
}

bool ProgressPrinter::operator()(uint64_t done, uint64_t total)
{
    if (!m_tty || total < 8)
        return true;
    const int percent = static_cast<int>(done * 100 / total);
    if (percent != m_last) {
        m_last = percent;
        m_shown = true;
        std::fprintf(stderr, "\r%s %3d%%", m_label.c_str(), percent);
    }
    return true;
}

std::shared_ptr<const gguf::SplitModel> openModel(const std::string &path)
{
    gguf::Error error;
    auto model = gguf::SplitModel::open(path, error);
    if (!model || error) {
        reportError(path, error);
        return nullptr;
    }
    // the shard that cannot be read, named once (its message starts with its path)
    for (const gguf::SplitModel::Shard &shard : model->shards())
        if (!shard.file || shard.error) {
            reportError(shard.path,
                        shard.error ? shard.error
                                    : gguf::Error{gguf::ErrorKind::Unreadable, "unreadable", 0, "could not be read"});
            return nullptr;
        }
    return model;
}

std::shared_ptr<const gguf::SplitModel> openModelAsFarAsItParses(const std::string &path)
{
    gguf::Error error;
    auto model = gguf::SplitModel::open(path, error);
    if (gguf::SplitModel::outcome(model.get(), error) == gguf::SplitModel::Outcome::Refused) {
        reportError(path, error);
        return nullptr;
    }
    return model;
}

MetadataFile openMetadataFile(const std::string &path)
{
    gguf::Error error;
    const auto model = gguf::SplitModel::open(path, error);
    if (!model || error) {
        reportError(path, error);
        return {path, nullptr};
    }
    const gguf::SplitModel::Shard &first = model->shards().front();
    if (!first.file || first.file->error()) {
        reportError(first.path, first.file ? first.file->error() : first.error);
        return {first.path, nullptr};
    }
    return {first.path, first.file};
}

void printTensorTable(const gguf::SplitModel &model, size_t first, size_t count, size_t indent)
{
    std::vector<TextTable::Column> columns{{"#", TextTable::Align::Right},
                                           {"name"},
                                           {"type"},
                                           {"shape"},
                                           {"elements", TextTable::Align::Right},
                                           {"bytes", TextTable::Align::Right},
                                           {"data offset", TextTable::Align::Right},
                                           {"file offset", TextTable::Align::Right}};
    if (model.isSplit())
        columns.insert(columns.begin() + 1, {"shard", TextTable::Align::Right});
    TextTable table(std::move(columns));
    const std::vector<gguf::SplitModel::TensorRef> &tensors = model.tensors();
    for (size_t i = first; i < std::min(tensors.size(), first + count); ++i) {
        const gguf::TensorInfo &t = *tensors[i].info;
        const gguf::GgufFile &file = *model.shards()[tensors[i].shard].file;
        std::string bytes = groupDigits(t.byteSize);
        if (t.sizeInferred)
            bytes += " (inferred)";
        // where the data starts is unknown in a file whose tensor infos broke off
        std::vector<std::string> row{std::to_string(i),
                                     printable(t.name, 64),
                                     gguf::typeName(t.typeId),
                                     shapeText(t),
                                     groupDigits(t.elements),
                                     bytes,
                                     groupDigits(t.relativeOffset),
                                     file.tensorInfoEnd() != 0 ? groupDigits(t.fileOffset) : "?"};
        if (model.isSplit())
            row.insert(row.begin() + 1, std::to_string(tensors[i].shard + 1));
        table.addRow(std::move(row));
    }
    table.print(indent);
}

const gguf::GgufFile *printShardHeading(const gguf::SplitModel &model, size_t index)
{
    const gguf::SplitModel::Shard &shard = model.shards()[index];
    print(std::string(index ? "\n" : "") + "== shard " + std::to_string(index + 1) + " of " +
          std::to_string(model.shards().size()) + ": " + printable(shard.path) + "\n");
    if (!shard.file)
        print("not read: " + printable(shard.error.message) + "\n");
    return shard.file.get();
}

bool reportModelProblem(const gguf::SplitModel &model)
{
    for (const gguf::SplitModel::Shard &shard : model.shards()) {
        if (!shard.file) {
            reportError(shard.path, shard.error);
            return true;
        }
        if (shard.file->breakage()) {
            reportError(shard.path, shard.file->error());
            return true;
        }
    }
    return false;
}

int usageError(std::string_view command, const std::string &message)
{
    std::fprintf(stderr, "gguf-inspect: %.*s: %s\nTry 'gguf-inspect --help'.\n", int(command.size()), command.data(),
                 printable(message).c_str());
    return kExitUsage;
}

void printLayoutTable(const std::vector<LayoutRow> &rows)
{
    TextTable table({{"offset", TextTable::Align::Right},
                     {"hex", TextTable::Align::Right},
                     {"size", TextTable::Align::Right},
                     {"kind"},
                     {"label"}});
    char hex[24];
    for (const LayoutRow &r : rows) {
        std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(r.offset));
        table.addRow(
            {std::to_string(r.offset), hex, groupDigits(r.size), std::string(r.kind), printable(r.label, 120)});
    }
    table.print();
}

} // namespace cli
