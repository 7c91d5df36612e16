// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Shared by the GgufFile tests (tst_gguf_file*): a sample model, opening a built file, and checks
// that what the reader found is what the builder wrote, field by field and offset by offset.
#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"
#include "tests/support/built_file_metatype.h"
#include "tests/support/gguf_builder.h"

#include <QString>
#include <QtTest>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gguf_file_checks {

using namespace gguf;
using namespace gguf::test;

struct Encoding {
    uint32_t version = 3;
    Endian order = Endian::Little;
};

using Refusal = std::pair<std::string, uint64_t>;

// The findings llama.cpp would refuse the file for, as (code, offset), sorted.
std::vector<Refusal> refusals(const GgufFile &file);

QString describe(const std::vector<Refusal> &list);

std::shared_ptr<const GgufFile> openOk(const BuiltFile &built, const OpenOptions &options = {});

// Empty when `actual` holds exactly what `expected` was built from, else what differs.
std::string compareValue(const Value &actual, const BuildValue &expected, uint64_t lenSize, const std::string &where);

// Checks entry `i` against the builder's record: positions of every part and the value itself.
std::string compareEntry(const GgufFile &file, const Layout &layout, size_t i, const BuildValue &expected);

std::vector<uint8_t> patternBytes(size_t n, uint32_t seed);

inline uint32_t id(GgmlType t)
{
    return static_cast<uint32_t>(t);
}

// A small model: a few keys of several types and tensors of several types with patterned data.
GgufBuilder sampleModel(Encoding enc);

// Every tensor the builder wrote, field by field.
void verifyTensors(const GgufFile &file, const Layout &layout);

} // namespace gguf_file_checks

#define COMPARE_REFUSALS(file, expected)                                                                               \
    do {                                                                                                               \
        auto exp_ = (expected);                                                                                        \
        std::sort(exp_.begin(), exp_.end());                                                                           \
        const auto act_ = gguf_file_checks::refusals(file);                                                            \
        QVERIFY2(act_ == exp_,                                                                                         \
                 qPrintable(QStringLiteral("refusals [%1], expected [%2]")                                             \
                                .arg(gguf_file_checks::describe(act_), gguf_file_checks::describe(exp_))));            \
    } while (false)

Q_DECLARE_METATYPE(gguf_file_checks::Encoding)
