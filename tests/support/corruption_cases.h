// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Shared by the corruption tests (tst_corruption*): the outcome a damaged file must have, the base
// file the damage is done to, and the check that opens one case and compares.
#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"
#include "tests/support/built_file_metatype.h"
#include "tests/support/gguf_builder.h"

#include <QtTest>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace corruption_cases {

using namespace gguf;
using namespace gguf::test;

using Refusal = std::pair<std::string, uint64_t>;

struct Expect {
    ErrorKind errorKind = ErrorKind::None;
    std::string errorCode;
    uint64_t errorOffset = 0;
    bool fileNull = false;
    std::vector<Refusal> findings;        ///< each must be reported, at that offset
    std::vector<std::string> absentCodes; ///< must not be reported at all
    bool accepts = false;
};

struct Case {
    std::vector<uint8_t> bytes;
    Expect expect;
};

inline uint32_t id(GgmlType t)
{
    return static_cast<uint32_t>(t);
}

Case fatal(const BuiltFile &f, ErrorKind kind, std::string code, uint64_t offset, std::vector<Refusal> also = {});
Case refused(const BuiltFile &f, std::vector<Refusal> findings, std::vector<std::string> absent = {});
Case accepted(const BuiltFile &f, std::vector<Refusal> infos = {});
BuiltFile cut(BuiltFile f, uint64_t size);
BuiltFile padded(BuiltFile f, uint64_t size);

// Keys of several types, all 8 characters long so they can be duplicated in place.
GgufBuilder &addBaseKvs(GgufBuilder &b);
// Tensors whose sizes are not all multiples of 32, so alignment matters.
GgufBuilder &addBaseTensors(GgufBuilder &b);
GgufBuilder base();

// The tensors the file holds no complete data for.
std::vector<Refusal> dataPastEnd(const Layout &L, uint64_t fileSize);

bool hasFinding(const GgufFile &file, const std::string &code, uint64_t offset);

// The rows of the corruption matrix (corruption_matrix.cpp), as one column "testCase" of Case:
// llama.cpp's handcrafted modes, and a file for every finding the reader reports.
void addLlamaCppRows();
void addFindingRows();

// Runs one case: the error, the findings, llama.cpp's verdict, and a byte map that covers the file.
void checkCase(const Case &c);

} // namespace corruption_cases

Q_DECLARE_METATYPE(corruption_cases::Case)
