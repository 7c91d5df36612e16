// SPDX-License-Identifier: GPL-3.0-or-later
// The rows of the corruption matrix (tst_corruption checks the reader on them, tst_damaged_window the
// window): every handcrafted mode of llama.cpp's tests/test-gguf.cpp and every finding the reader
// reports. Each row names the error or finding code, its byte offset (taken from where the builder
// wrote the field) and whether llama.cpp would accept the file.
#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"
#include "tests/support/corruption_cases.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/test_printers.h"

#include <QtTest>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace corruption_cases {
namespace {

// The first tensor whose offset is not what ggml computes with `alignment` (running padded sum).
size_t firstMisplaced(const Layout &L, uint64_t alignment)
{
    uint64_t expected = 0;
    for (size_t i = 0; i < L.tensors.size(); ++i) {
        if (L.tensors[i].relativeOffset != expected)
            return i;
        expected += L.tensors[i].dataSize;
        expected = (expected + alignment - 1) / alignment * alignment;
    }
    return L.tensors.size();
}

} // namespace

void addLlamaCppRows()
{
    QTest::addColumn<Case>("testCase");
    const GgufBuilder header;
    const BuiltFile empty = padded(header.build(), 32);
    const Layout &H = empty.layout();

    // HEADER_*: the header alone, padded to 32 bytes like test-gguf.cpp
    QTest::newRow("HEADER_BAD_MAGIC (FUGG: read as byte-swapped magic)")
        << refused(padded(GgufBuilder().magic("FUGG").build(), 32), {{"swapped_magic", 0}});
    QTest::newRow("HEADER_BAD_VERSION_0")
        << fatal(BuiltFile(empty).setVersion(0), ErrorKind::UnsupportedVersion, "unsupported_version", H.versionOffset);
    // a version-1 header followed by v3-sized (u64) zero counts still reads as zero tensors and keys
    QTest::newRow("HEADER_BAD_VERSION_1") << refused(BuiltFile(empty).setVersion(1), {{"version_1", H.versionOffset}});
    QTest::newRow("HEADER_BAD_VERSION_FUTURE")
        << fatal(BuiltFile(empty).setVersion(4), ErrorKind::UnsupportedVersion, "unsupported_version", H.versionOffset);
    QTest::newRow("HEADER_BAD_N_TENSORS") << fatal(BuiltFile(empty).setTensorCount(UINT64_MAX), ErrorKind::Malformed,
                                                   "tensor_count_too_large", H.tensorCountOffset);
    QTest::newRow("HEADER_BAD_N_KV") << fatal(BuiltFile(empty).setKvCount(UINT64_MAX), ErrorKind::Malformed,
                                              "kv_count_too_large", H.kvCountOffset);
    QTest::newRow("HEADER_EMPTY") << accepted(empty);

    // KV_*: keys only
    GgufBuilder kvOnly;
    addBaseKvs(kvOnly);
    const BuiltFile kvs = kvOnly.build();
    const Layout &K = kvs.layout();
    QTest::newRow("KV_BAD_KEY_SIZE") << fatal(BuiltFile(kvs).setKeyLength(0, UINT64_MAX), ErrorKind::Malformed,
                                              "key_past_end", K.kvs[0].offset);
    {
        GgufBuilder b;
        b.kv("", V::u32(1));
        addBaseKvs(b);
        const BuiltFile f = b.build();
        QTest::newRow("KV_EMPTY_KEY") << refused(f, {{"empty_key", f.layout().kvs[0].offset}});
    }
    QTest::newRow("KV_BAD_TYPE") << fatal(BuiltFile(kvs).setValueType(0, kValueTypeCount), ErrorKind::UnsupportedType,
                                          "invalid_value_type", K.kvs[0].typeOffset);
    QTest::newRow("KV_DUPLICATE_KEY") << refused(BuiltFile(kvs).duplicateKey(0, 1),
                                                 {{"duplicate_key", K.kvs[1].offset}});
    {
        GgufBuilder b;
        addBaseKvs(b).alignment(13);
        const BuiltFile f = b.build();
        QTest::newRow("KV_BAD_ALIGN") << refused(
            f, {{"alignment_not_power_of_two", f.layout().kv("general.alignment")->valueOffset}});
    }
    {
        GgufBuilder b;
        addBaseKvs(b).kv("general.alignment", V::i32(1));
        const BuiltFile f = b.build();
        QTest::newRow("KV_WRONG_TYPE_ALIGN")
            << refused(f, {{"alignment_type", f.layout().kv("general.alignment")->typeOffset}});
    }
    QTest::newRow("KV_SUCCESS") << accepted(kvs);

    // TENSORS_*: keys and tensor infos, the file ending where the data region would start (as in
    // test-gguf.cpp). ggml's reader alone accepts the good ones; llama.cpp refuses the missing data.
    const BuiltFile full = base().build();
    const Layout &F = full.layout();
    const BuiltFile infos = cut(full, F.dataOffset);
    {
        GgufBuilder b;
        addBaseKvs(b).tensor("my_tensor_0_with_a_very_long_name_which_is_longer_than_what_is_allowed_for_ggml_tensors",
                             {32}, id(GgmlType::F32));
        const BuiltFile f = b.build();
        QTest::newRow("TENSORS_BAD_NAME_SIZE")
            << refused(cut(f, f.layout().dataOffset), {{"tensor_name_too_long", f.layout().tensors[0].infoOffset}});
    }
    {
        GgufBuilder b;
        addBaseKvs(b).tensor("my_tensor_0", {32, 1, 1, 1, 2}, id(GgmlType::F32));
        const BuiltFile f = b.build();
        QTest::newRow("TENSORS_BAD_N_DIMS")
            << refused(cut(f, f.layout().dataOffset), {{"too_many_dims", f.layout().tensors[0].nDimsOffset}});
    }
    QTest::newRow("TENSORS_BAD_SHAPE") << refused(BuiltFile(infos).setTensorDim(0, 0, UINT64_MAX),
                                                  {{"negative_dim", F.tensors[0].dimsOffset}});
    {
        GgufBuilder b;
        addBaseKvs(b)
            .tensor("my_tensor_0", {3, 0}, id(GgmlType::F32))
            .tensor("my_tensor_1", {64, 0}, id(GgmlType::Q4_0))
            .tensor("my_tensor_2", {256, 0}, id(GgmlType::Q4_K));
        const BuiltFile f = b.build();
        QTest::newRow("TENSORS_ZERO_DIM") << accepted(cut(f, f.layout().dataOffset));
    }
    {
        const uint64_t big = 4 * uint64_t(INT32_MAX);
        GgufBuilder b;
        addBaseKvs(b).tensor("my_tensor_0", {big, big}, id(GgmlType::F32));
        const BuiltFile f = b.build();
        QTest::newRow("TENSORS_NE_TOO_BIG")
            << refused(cut(f, f.layout().dataOffset), {{"dims_overflow", f.layout().tensors[0].dimsOffset}});
    }
    {
        // element count fits int64, byte count does not fit 64 bits
        const uint64_t elements = UINT64_MAX / 8 + 1;
        GgufBuilder b;
        addBaseKvs(b).tensor("my_tensor_0", {uint64_t(1) << 31, elements >> 31}, id(GgmlType::I64));
        const BuiltFile f = b.build();
        QTest::newRow("TENSORS_NBYTES_TOO_BIG")
            << refused(cut(f, f.layout().dataOffset), {{"tensor_size_overflow", f.layout().tensors[0].dimsOffset}});
    }
    QTest::newRow("TENSORS_BAD_TYPE") << refused(BuiltFile(infos).setTensorType(0, kGgmlTypeCount),
                                                 {{"unknown_tensor_type", F.tensors[0].typeOffset}});
    QTest::newRow("TENSORS_BAD_OFFSET") << refused(BuiltFile(infos).setTensorOffset(0, UINT64_MAX),
                                                   {{"tensor_offset_mismatch", F.tensors[0].offsetFieldOffset},
                                                    {"tensor_data_past_end", F.tensors[0].offsetFieldOffset}});
    QTest::newRow("TENSORS_DUPLICATE_NAME")
        << refused(BuiltFile(infos).duplicateTensorName(0, 1), {{"duplicate_tensor_name", F.tensors[1].infoOffset}});
    {
        GgufBuilder b = base();
        b.alignment(13);
        const BuiltFile f = b.build();
        QTest::newRow("TENSORS_BAD_ALIGN")
            << refused(cut(f, f.layout().dataOffset),
                       {{"alignment_not_power_of_two", f.layout().kv("general.alignment")->valueOffset}});
    }
    {
        const BuiltFile f = base().layoutAlignment(1).build();
        const size_t i = firstMisplaced(f.layout(), 32);
        QVERIFY(i < f.layout().tensors.size());
        QTest::newRow("TENSORS_INCONSISTENT_ALIGN") << refused(
            cut(f, f.layout().dataOffset), {{"tensor_offset_mismatch", f.layout().tensors[i].offsetFieldOffset}});
    }
    QTest::newRow("TENSORS_SUCCESS (no data: llama.cpp refuses)") << refused(infos, dataPastEnd(F, F.dataOffset));
    {
        GgufBuilder b = base();
        b.alignment(1);
        const BuiltFile f = b.build();
        QTest::newRow("TENSORS_CUSTOM_ALIGN (no data: llama.cpp refuses)")
            << refused(cut(f, f.layout().dataOffset), dataPastEnd(f.layout(), f.layout().dataOffset));
    }

    // DATA_*: complete files
    {
        const TensorLayout &last = F.tensors.back();
        QTest::newRow("DATA_NOT_ENOUGH_DATA") << refused(cut(full, last.dataOffset + last.dataSize - 1),
                                                         {{"tensor_data_past_end", last.offsetFieldOffset}});
    }
    {
        GgufBuilder b = base();
        b.alignment(13);
        const BuiltFile f = b.build();
        QTest::newRow("DATA_BAD_ALIGN") << refused(
            f, {{"alignment_not_power_of_two", f.layout().kv("general.alignment")->valueOffset}});
    }
    {
        const BuiltFile f = base().layoutAlignment(1).build();
        const size_t i = firstMisplaced(f.layout(), 32);
        QTest::newRow("DATA_INCONSISTENT_ALIGN")
            << refused(f, {{"tensor_offset_mismatch", f.layout().tensors[i].offsetFieldOffset}});
    }
    {
        // two tensors whose sizes only overflow when added; 32 bytes of data
        GgufBuilder b;
        addBaseKvs(b)
            .tensor("my_tensor_0", {0x7FFFFFFFFFFFFFC0ull}, id(GgmlType::I8))
            .tensor("my_tensor_1", {0x7FFFFFFFFFFFFFC0ull}, id(GgmlType::I8))
            .trailingBytes(32);
        const BuiltFile f = b.build();
        QTest::newRow("DATA_MEM_SIZE_OVERFLOW") << refused(f, dataPastEnd(f.layout(), f.size()));
    }
    QTest::newRow("DATA_SUCCESS") << accepted(full);
    {
        GgufBuilder b = base();
        b.alignment(1);
        QTest::newRow("DATA_CUSTOM_ALIGN") << accepted(b.build());
    }
}

void addFindingRows()
{
    QTest::addColumn<Case>("testCase");
    const BuiltFile full = base().build();
    const Layout &F = full.layout();

    // not GGUF at all
    QTest::newRow("bad_magic_GGML") << fatal(BuiltFile(full).setMagic("GGML"), ErrorKind::InvalidMagic, "invalid_magic",
                                             0);
    QTest::newRow("bad_magic_png") << fatal(BuiltFile(full).setMagic("\x89PNG"), ErrorKind::InvalidMagic,
                                            "invalid_magic", 0);
    QTest::newRow("empty_file") << fatal(cut(full, 0), ErrorKind::InvalidMagic, "invalid_magic", 0);
    QTest::newRow("three_bytes") << fatal(cut(full, 3), ErrorKind::InvalidMagic, "invalid_magic", 0);

    // versions
    for (uint32_t v : {0u, 4u, 0x7FFFFFFFu, 0xFFFFFFFFu})
        QTest::addRow("version_%u", v) << fatal(BuiltFile(full).setVersion(v), ErrorKind::UnsupportedVersion,
                                                "unsupported_version", F.versionOffset);
    // 00 00 00 04 reads as byte-swapped version 4
    QTest::newRow("version_4_byte_swapped")
        << fatal(BuiltFile(full).overwrite(F.versionOffset, {0, 0, 0, 4}), ErrorKind::UnsupportedVersion,
                 "unsupported_version", F.versionOffset);
    {
        const BuiltFile f = base().version(1).build();
        QTest::newRow("version_1") << refused(f, {{"version_1", f.layout().versionOffset}});
    }
    {
        const BuiltFile f = base().byteOrder(Endian::Big).build();
        QTest::newRow("big_endian") << refused(f, {{"byte_swapped", f.layout().versionOffset}});
    }
    QTest::newRow("swapped_magic") << refused(BuiltFile(full).setMagic("FUGG"), {{"swapped_magic", 0}});

    // the extended header
    {
        const BuiltFile f = base().extendedHeader().build();
        const Layout &L = f.layout();
        QTest::newRow("extended_header") << refused(f, {{"extended_header", L.headerAlignmentOffset}});
        QTest::newRow("extended_header_data_offset_inside_tensor_infos") << refused(
            BuiltFile(f).patchU64(L.headerDataOffsetOffset, L.tensorInfoEnd - 8),
            {{"extended_header", L.headerAlignmentOffset}, {"data_offset_inside_header", L.headerDataOffsetOffset}});
    }

    // metadata values
    {
        GgufBuilder b;
        addBaseKvs(b).kv("nested", V::array(ValueType::Array, {V::array(ValueType::Uint8, {V::u8(1)})}));
        addBaseTensors(b);
        const BuiltFile f = b.build();
        QTest::newRow("nested_array") << refused(f, {{"nested_array", f.layout().kv("nested")->valueOffset}});
    }
    {
        // arrays of arrays eight levels deep: the walk stops at the eighth header
        BuildValue v = V::array(ValueType::Array, {});
        for (int level = 0; level < 7; ++level)
            v = V::array(ValueType::Array, {v});
        GgufBuilder b;
        addBaseKvs(b).kv("deep", v);
        const BuiltFile f = b.build();
        const uint64_t header = 4 + f.layout().lenSize;
        QTest::newRow("nesting_too_deep")
            << fatal(f, ErrorKind::Malformed, "nesting_too_deep", f.layout().kv("deep")->valueOffset + 7 * header,
                     {{"nested_array", f.layout().kv("deep")->valueOffset}});
    }
    for (uint32_t t : {kValueTypeCount, 255u, UINT32_MAX})
        QTest::addRow("invalid_value_type_%u", t) << fatal(
            BuiltFile(full).setValueType(2, t), ErrorKind::UnsupportedType, "invalid_value_type", F.kvs[2].typeOffset);
    {
        // a value of an undefined type written with its would-be payload
        GgufBuilder b;
        addBaseKvs(b).kv("raw", V::raw(13, {1, 2, 3, 4})).kv("after", V::u32(1));
        const BuiltFile f = b.build();
        QTest::newRow("raw_value_type_13")
            << fatal(f, ErrorKind::UnsupportedType, "invalid_value_type", f.layout().kv("raw")->typeOffset);
    }
    QTest::newRow("invalid_array_element_type")
        << fatal(BuiltFile(full).setArrayElementType(3, kValueTypeCount), ErrorKind::UnsupportedType,
                 "invalid_value_type", F.kvs[3].valueOffset);
    {
        GgufBuilder b;
        addBaseKvs(b).kv("general.name", V::str("a")).kv("general.name", V::str("b"));
        const BuiltFile f = b.build();
        QTest::newRow("duplicate_key") << refused(f, {{"duplicate_key", f.layout().kvs.back().offset}});
    }
    {
        GgufBuilder b;
        addBaseKvs(b).kv("", V::str("no key"));
        addBaseTensors(b);
        const BuiltFile f = b.build();
        QTest::newRow("empty_key") << refused(f, {{"empty_key", f.layout().kvs.back().offset}});
    }
    QTest::newRow("string_past_end") << fatal(
        BuiltFile(full).setStringLength(2, F.fileSize - F.kvs[2].valueOffset - F.lenSize + 1), ErrorKind::Malformed,
        "string_past_end", F.kvs[2].valueOffset);
    QTest::newRow("key_past_end") << fatal(BuiltFile(full).setKeyLength(5, F.fileSize - F.kvs[5].keyOffset + 1),
                                           ErrorKind::Malformed, "key_past_end", F.kvs[5].offset);
    QTest::newRow("array_count_past_end") << fatal(BuiltFile(full).setArrayCount(3, F.fileSize), ErrorKind::Malformed,
                                                   "array_count_too_large", F.kvs[3].countOffset);
    QTest::newRow("string_array_count_past_end")
        << fatal(BuiltFile(full).setArrayCount(4, F.fileSize / 8), ErrorKind::Malformed, "array_count_too_large",
                 F.kvs[4].countOffset);
    // (late pairs, so the counts in the header are still backed by the bytes left)
    QTest::newRow("truncated_in_value") << fatal(cut(full, F.kvs[7].valueOffset + 3), ErrorKind::Malformed, "truncated",
                                                 F.kvs[7].valueOffset);
    QTest::newRow("truncated_in_value_type")
        << fatal(cut(full, F.kvs[6].typeOffset + 2), ErrorKind::Malformed, "truncated", F.kvs[6].typeOffset);

    // general.alignment
    for (const auto &[name, value] :
         std::vector<std::pair<const char *, BuildValue>>{{"alignment_int32", V::i32(32)},
                                                          {"alignment_uint64", V::u64(32)},
                                                          {"alignment_uint8", V::u8(32)},
                                                          {"alignment_string", V::str("32")}}) {
        GgufBuilder b;
        addBaseKvs(b).kv("general.alignment", value);
        addBaseTensors(b);
        const BuiltFile f = b.build();
        QTest::newRow(name) << refused(f, {{"alignment_type", f.layout().kv("general.alignment")->typeOffset}});
    }
    for (uint32_t a : {0u, 48u, 13u, 0x80000001u}) {
        GgufBuilder b;
        addBaseKvs(b).alignment(a);
        const BuiltFile f = b.build();
        QTest::addRow("alignment_not_power_of_two_%u", a)
            << refused(f, {{"alignment_not_power_of_two", f.layout().kv("general.alignment")->valueOffset}});
    }
    {
        // ggml's reader checks only that the alignment is a power of two: a large one is a warning
        GgufBuilder b;
        addBaseKvs(b).alignment(1u << 21);
        addBaseTensors(b);
        const BuiltFile f = b.build();
        QTest::newRow("alignment_large_accepted")
            << accepted(f, {{"alignment_large", f.layout().kv("general.alignment")->valueOffset}});
    }
    {
        GgufBuilder b;
        addBaseKvs(b).alignment(1u << 20);
        addBaseTensors(b);
        const BuiltFile f = b.build();
        Case quiet = accepted(f);
        quiet.expect.absentCodes = {"alignment_large"};
        QTest::newRow("alignment_1MiB_allowed") << quiet;
    }

    // tensor infos
    {
        GgufBuilder b;
        addBaseKvs(b).tensor(std::string(64, 'n'), {4}, id(GgmlType::F32));
        const BuiltFile f = b.build();
        QTest::newRow("tensor_name_64_bytes")
            << refused(f, {{"tensor_name_too_long", f.layout().tensors[0].infoOffset}});
        GgufBuilder ok;
        addBaseKvs(ok).tensor(std::string(63, 'n'), {4}, id(GgmlType::F32));
        QTest::newRow("tensor_name_63_bytes_allowed") << accepted(ok.build());
    }
    {
        GgufBuilder b = base();
        b.tensor("my_tensor_1", {8}, id(GgmlType::F32));
        const BuiltFile f = b.build();
        QTest::newRow("duplicate_tensor_name")
            << refused(f, {{"duplicate_tensor_name", f.layout().tensors.back().infoOffset}});
    }
    QTest::newRow("tensor_name_past_end")
        << fatal(BuiltFile(full).setTensorNameLength(2, F.fileSize - F.tensors[2].nameOffset + 1), ErrorKind::Malformed,
                 "tensor_name_past_end", F.tensors[2].infoOffset);
    for (const std::vector<uint64_t> &dims : {std::vector<uint64_t>{8, 1, 1, 1, 2}, std::vector<uint64_t>(8, 1)}) {
        GgufBuilder b;
        addBaseKvs(b).tensor("five_or_more", dims, id(GgmlType::F32));
        const BuiltFile f = b.build();
        QTest::addRow("too_many_dims_%zu", dims.size())
            << refused(f, {{"too_many_dims", f.layout().tensors[0].nDimsOffset}});
    }
    QTest::newRow("negative_dim") << refused(BuiltFile(full).setTensorDim(1, 1, uint64_t(-5)),
                                             {{"negative_dim", F.tensors[1].dimsOffset}});
    {
        GgufBuilder b;
        addBaseKvs(b).tensor("huge", {uint64_t(1) << 32, uint64_t(1) << 32, uint64_t(1) << 32}, id(GgmlType::F32));
        const BuiltFile f = b.build();
        QTest::newRow("dims_overflow") << refused(f, {{"dims_overflow", f.layout().tensors[0].dimsOffset}});
    }
    for (const auto &[type, ne0] :
         {std::pair{id(GgmlType::Q4_0), uint64_t(48)}, std::pair{id(GgmlType::Q4_K), uint64_t(128)},
          std::pair{id(GgmlType::IQ4_NL), uint64_t(16)}}) {
        GgufBuilder b;
        addBaseKvs(b).tensor("odd_row", {ne0, 2}, type, std::vector<uint8_t>(64, 0));
        const BuiltFile f = b.build();
        QTest::addRow("row_not_multiple_of_block_%s", typeName(type).c_str())
            << refused(f, {{"row_not_multiple_of_block", f.layout().tensors[0].dimsOffset}});
    }
    {
        // BitNet's I2_S packs rows in blocks of 128 too
        GgufBuilder b;
        addBaseKvs(b).tensor("odd_row", {64, 2}, id(GgmlType::I2_S), std::vector<uint8_t>(64, 0));
        const BuiltFile f = b.build();
        QTest::newRow("row_not_multiple_of_block_I2_S")
            << refused(f,
                       {{"fork_tensor_type", f.layout().tensors[0].typeOffset},
                        {"row_not_multiple_of_block", f.layout().tensors[0].dimsOffset}},
                       {"tensor_size_overflow"});
    }
    {
        // like ggml's gguf_find_key, the first general.alignment counts; the second is only a duplicate
        GgufBuilder b;
        addBaseKvs(b).kv("general.alignment", V::u32(64)).kv("general.alignment", V::u32(7));
        const BuiltFile f = b.build();
        QTest::newRow("duplicate_alignment_first_counts")
            << refused(f, {{"duplicate_key", f.layout().kvs.back().offset}}, {"alignment_not_power_of_two"});
    }
    for (uint32_t t : {77u, kGgmlTypeCount, UINT32_MAX})
        QTest::addRow("unknown_tensor_type_%u", t)
            << refused(BuiltFile(full).setTensorType(1, t), {{"unknown_tensor_type", F.tensors[1].typeOffset}},
                       {"tensor_offset_mismatch", "tensor_data_past_end", "tensors_overlap"});
    for (uint32_t t : {4u, 31u, 38u})
        QTest::addRow("removed_tensor_type_%u", t)
            << refused(BuiltFile(full).setTensorType(1, t), {{"removed_tensor_type", F.tensors[1].typeOffset}},
                       {"tensor_offset_mismatch", "tensor_data_past_end", "tensors_overlap"});
    {
        GgufBuilder b = base();
        b.tensor("bitnet", {128, 2}, id(GgmlType::I2_S));
        const BuiltFile f = b.build();
        QTest::newRow("fork_tensor_type_i2_s")
            << refused(f, {{"fork_tensor_type", f.layout().tensors.back().typeOffset}}, {"tensor_offset_mismatch"});
    }

    // tensor data
    {
        const TensorLayout &last = F.tensors.back();
        QTest::newRow("tensor_data_past_end") << refused(
            BuiltFile(full).setTensorOffset(F.tensors.size() - 1, F.fileSize - F.dataOffset),
            {{"tensor_data_past_end", last.offsetFieldOffset}, {"tensor_offset_mismatch", last.offsetFieldOffset}});
    }
    QTest::newRow("tensors_overlap") << refused(BuiltFile(full).setTensorOffset(1, F.tensors[0].relativeOffset + 16),
                                                {{"tensors_overlap", F.tensors[1].offsetFieldOffset},
                                                 {"tensor_offset_mismatch", F.tensors[1].offsetFieldOffset}});
    {
        // the last tensor moved one alignment further, still inside the file: misplaced, nothing else
        GgufBuilder b = base();
        b.trailingBytes(F.alignment);
        BuiltFile f = b.build();
        const size_t last = f.layout().tensors.size() - 1;
        f.setTensorOffset(last, f.layout().tensors[last].relativeOffset + f.layout().alignment);
        QTest::newRow("tensor_offset_mismatch")
            << refused(f, {{"tensor_offset_mismatch", f.layout().tensors[last].offsetFieldOffset}},
                       {"tensor_data_past_end", "tensors_overlap"});
    }
    {
        // cut between the tensor infos and the aligned start of the data
        GgufBuilder b = base();
        b.alignment(4096);
        const BuiltFile f = b.build();
        QVERIFY(f.layout().dataOffset > f.layout().tensorInfoEnd + 1);
        QTest::newRow("data_offset_past_end")
            << refused(cut(f, f.layout().tensorInfoEnd + 1), {{"data_offset_past_end", f.layout().tensorInfoEnd}});
    }
    {
        GgufBuilder b = base();
        b.trailingBytes(100);
        const BuiltFile f = b.build();
        // the last tensor's padding to the alignment is the writer's; the extra bytes start after it
        const uint64_t align = f.layout().alignment;
        const uint64_t paddedEnd = (f.layout().dataEnd + align - 1) / align * align;
        QTest::newRow("trailing_bytes_info") << accepted(f, {{"trailing_bytes", paddedEnd}});
    }
}

} // namespace corruption_cases
