// SPDX-License-Identifier: GPL-3.0-or-later
// Where each tensor's data lies once the tensor infos are read, and ggml's checks on it.
#include "core/format/gguf_parser.h"

#include "parser_text.h"

#include <algorithm>
#include <numeric>

namespace gguf {

void GgufParser::layOutData()
{
    GgufFile &f = m_file;
    auto &tensors = f.m_tensors;
    if (f.m_layout == HeaderLayout::Plain)
        f.m_dataOffset = tensors.empty() ? m_pos : alignUp(m_pos, f.m_alignment);
    else if (f.m_dataOffset < m_pos)
        finding(Severity::Error, "data_offset_inside_header", f.m_headerEnd - 8,
                "the header's data offset " + std::to_string(f.m_dataOffset) +
                    " lies inside the tensor infos (which end at " + std::to_string(m_pos) + ")");
    if (!tensors.empty() && f.m_dataOffset > m_fileSize)
        finding(Severity::Error, "data_offset_past_end", m_pos,
                "the data region would start at " + formatOffset(f.m_dataOffset) + ", past the end of the file (" +
                    std::to_string(m_fileSize) + " bytes)");

    for (TensorInfo &t : tensors)
        t.fileOffset = t.relativeOffset > UINT64_MAX - f.m_dataOffset ? UINT64_MAX : f.m_dataOffset + t.relativeOffset;

    // Sizes of unsized tensors: the gap to the next tensor's data (or to the end of the file).
    // Inferred before the offset check, so the tensor after an unsized one is not misjudged.
    std::vector<uint32_t> order(tensors.size());
    std::iota(order.begin(), order.end(), 0u);
    const auto byOffset = [&](uint32_t a, uint32_t b) { return tensors[a].fileOffset < tensors[b].fileOffset; };
    if (!std::is_sorted(order.begin(), order.end(), byOffset)) // files written by ggml are in order
        std::stable_sort(order.begin(), order.end(), byOffset);
    for (size_t k = 0; k < order.size(); ++k) {
        TensorInfo &t = tensors[order[k]];
        if (t.sizeFromType)
            continue;
        const uint64_t next = k + 1 < order.size() ? tensors[order[k + 1]].fileOffset : m_fileSize;
        if (next >= t.fileOffset && t.fileOffset <= m_fileSize) {
            t.byteSize = std::min(next, m_fileSize) - t.fileOffset;
            t.sizeInferred = true;
        }
    }

    // ggml: each offset must equal the running sum of the previous sizes padded to the alignment
    // (docs/FORMAT.md §1.8)
    uint64_t expected = 0;
    for (const TensorInfo &t : tensors) {
        if (t.relativeOffset != expected)
            finding(Severity::Error, "tensor_offset_mismatch", t.offsetFieldOffset,
                    "tensor " + quoted(t.name) + " has offset " + std::to_string(t.relativeOffset) + "; ggml expects " +
                        std::to_string(expected) + " (the previous tensors' sizes, each padded to the alignment)");
        expected = alignUp(std::max(expected, t.relativeOffset) + t.byteSize, f.m_alignment);
    }

    uint64_t prevEnd = 0;
    const TensorInfo *prev = nullptr;
    for (uint32_t idx : order) {
        TensorInfo &t = tensors[idx];
        t.dataInFile = t.fileOffset <= m_fileSize && t.byteSize <= m_fileSize - t.fileOffset;
        if (!t.dataInFile)
            finding(Severity::Error, "tensor_data_past_end", t.offsetFieldOffset,
                    "tensor " + quoted(t.name) + ": data [" + std::to_string(t.fileOffset) + ", +" +
                        std::to_string(t.byteSize) + ") runs past the end of the file (" + std::to_string(m_fileSize) +
                        " bytes): the file is truncated");
        if (prev && t.fileOffset < prevEnd && t.byteSize > 0)
            finding(Severity::Error, "tensors_overlap", t.offsetFieldOffset,
                    "tensor " + quoted(t.name) + " overlaps the data of tensor " + quoted(prev->name));
        if (t.byteSize > 0 || !prev) {
            const uint64_t end = t.fileOffset > UINT64_MAX - t.byteSize ? UINT64_MAX : t.fileOffset + t.byteSize;
            if (end > prevEnd) {
                prevEnd = end;
                prev = &t;
            }
        }
    }
    // ggml's writer pads the last tensor to the alignment too (docs/FORMAT.md §1.8); only bytes past that are
    // noteworthy
    const uint64_t paddedEnd =
        prevEnd >= f.m_dataOffset ? f.m_dataOffset + alignUp(prevEnd - f.m_dataOffset, f.m_alignment) : prevEnd;
    if (!tensors.empty() && paddedEnd < m_fileSize)
        finding(Severity::Info, "trailing_bytes", paddedEnd,
                std::to_string(m_fileSize - paddedEnd) + " bytes after the last tensor's data and its padding");
}

} // namespace gguf
