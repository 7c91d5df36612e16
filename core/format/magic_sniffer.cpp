// SPDX-License-Identifier: GPL-3.0-or-later
#include "magic_sniffer.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <string_view>

namespace gguf {
namespace {

struct KnownMagic {
    std::string_view bytes;
    const char *what;
};

// Formats a user might drop on the window by mistake, and GGUF's predecessors.
constexpr KnownMagic kKnown[] = {
    {"\x89PNG", "a PNG image"},
    {"\xFF\xD8\xFF", "a JPEG image"},
    {"GIF8", "a GIF image"},
    {"%PDF", "a PDF document"},
    {"PK\x03\x04", "a ZIP archive (a PyTorch .pt/.bin checkpoint is one)"},
    {"\x1F\x8B", "a gzip archive"},
    {"\x7F"
     "ELF",
     "an ELF executable"},
    {"\x80\x02", "a Python pickle (an old PyTorch checkpoint?)"},
    {"lmgg", "a legacy GGML model (pre-GGUF); convert it with llama.cpp"},
    {"fmgg", "a legacy GGMF model (pre-GGUF); convert it with llama.cpp"},
    {"tjgg", "a legacy GGJT model (pre-GGUF); convert it with llama.cpp"},
    {"\x89HDF", "an HDF5 file (Keras weights?)"},
};

} // namespace

ForeignFile classifyForeign(const uint8_t *data, uint64_t size)
{
    if (size == 0)
        return ForeignFile::Empty;
    const std::string_view head(reinterpret_cast<const char *>(data),
                                static_cast<size_t>(std::min<uint64_t>(size, 64)));
    if (head.substr(0, 23) == "version https://git-lfs")
        return ForeignFile::GitLfsPointer;
    const size_t start = head.find_first_not_of(" \t\r\n");
    std::string lower(start == std::string_view::npos ? std::string_view() : head.substr(start, 14));
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (lower.rfind("<!doctype html", 0) == 0 || lower.rfind("<html", 0) == 0)
        return ForeignFile::HtmlPage;
    return ForeignFile::Other;
}

std::string describeMagic(const uint8_t *data, uint64_t size)
{
    const size_t n = static_cast<size_t>(std::min<uint64_t>(size, 4));
    std::string printable;
    for (size_t i = 0; i < n; ++i)
        printable += (data[i] >= 0x20 && data[i] < 0x7f) ? static_cast<char>(data[i]) : '.';
    std::string head = "starts with ";
    for (size_t i = 0; i < n; ++i) {
        char b[4];
        std::snprintf(b, sizeof b, "%02X", data[i]);
        head += (i ? " " : "") + std::string(b);
    }
    head += " ('" + printable + "')";
    const std::string_view file(reinterpret_cast<const char *>(data),
                                static_cast<size_t>(std::min<uint64_t>(size, 64)));
    switch (classifyForeign(data, size)) {
    case ForeignFile::GitLfsPointer:
        return head + ": a Git LFS pointer, not the model itself: fetch it with git lfs pull";
    case ForeignFile::HtmlPage: return head + ": an HTML page (a failed download?)";
    case ForeignFile::Empty:
    case ForeignFile::Other: break;
    }
    for (const KnownMagic &m : kKnown)
        if (file.substr(0, m.bytes.size()) == m.bytes)
            return head + ": " + m.what;
    // safetensors: u64 little-endian header length, then a JSON object
    if (size >= 9 && data[8] == '{')
        return head + ": looks like a safetensors file";
    if (std::all_of(data, data + n, [](uint8_t c) { return c == 0; }))
        return head + ": the file begins with zero bytes (an incomplete or pre-allocated download?)";
    return head;
}

} // namespace gguf
