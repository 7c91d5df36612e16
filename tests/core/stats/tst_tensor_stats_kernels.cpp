// SPDX-License-Identifier: GPL-3.0-or-later
// computeStatistics' fast paths (reductions from the codes of nine quantized types, F32/F16/BF16 in place, each SIMD
// level) against the float path.
#include "core/format/ggml_types.h"
#include "core/quant/dequantize.h"
#include "core/stats/tensor_stats.h"
#include "core/util/cpu_features.h"

#include <QTest>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

using namespace gguf;

// f16 bits with the given sign, biased exponent (0–30) and mantissa.
uint16_t half(uint32_t sign, uint32_t exponent, uint32_t mantissa)
{
    return static_cast<uint16_t>((sign << 15) | (exponent << 10) | (mantissa & 0x3ff));
}

void putHalf(std::vector<uint8_t> &bytes, size_t at, uint16_t h)
{
    bytes[at] = static_cast<uint8_t>(h & 0xff);
    bytes[at + 1] = static_cast<uint8_t>(h >> 8);
}

// The double sum and the count of the finite decoded values of `data`.
std::pair<double, uint64_t> decodedSum(const TensorData &data)
{
    std::vector<float> values(data.elements);
    if (!dequantizeRange(data.typeId, data.bytes, data.elements, 0, values))
        return {std::nan(""), 0};
    double sum = 0;
    uint64_t finite = 0;
    for (const float v : values)
        if (std::isfinite(v)) {
            sum += v;
            ++finite;
        }
    return {sum, finite};
}

class TestTensorStatsKernels : public QObject {
    Q_OBJECT

private slots:
    void codeReductionEqualsTheFloatPath_data();
    void codeReductionEqualsTheFloatPath();
    void inPlaceScanEqualsTheFloatPath_data();
    void inPlaceScanEqualsTheFloatPath();
    void everyKernelLevelGivesTheSameBits_data();
    void everyKernelLevelGivesTheSameBits();
};

void TestTensorStatsKernels::codeReductionEqualsTheFloatPath_data()
{
    QTest::addColumn<uint32_t>("type");
    QTest::addColumn<int>("variant");
    // 0: weight-like scales; 1: edge cases (zero, negative and subnormal scales, zero codes);
    // 2: Q4_K scales binades apart, so that the decoder rounds; 3: a NaN scale in one piece
    for (const uint32_t type : {8u, 2u, 6u, 10u, 12u, 13u, 14u, 11u, 23u})
        for (int variant = 0; variant < 4; ++variant)
            QTest::addRow("%s, variant %d", typeName(type).c_str(), variant) << type << variant;
}

// Large tensors of Q8_0, Q4_0, Q5_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K and IQ4_XS are reduced from their integer codes;
// every figure
// must equal the float path's (mean and std to rounding).
void TestTensorStatsKernels::codeReductionEqualsTheFloatPath()
{
    QFETCH(uint32_t, type);
    QFETCH(int, variant);
    const TypeTraits &t = typeTraits(type);
    // three whole pieces and a part whose blocks end ragged: an odd K-quant block after the pairs;
    // for 32-element blocks two 16-block runs, one run of 8 and 3 more
    const uint64_t elements = 3 * 16384 + 1024 + (t.blockSize == 256 ? 3 * 256 : 11 * 32);
    const uint64_t blocks = elements / t.blockSize;
    std::vector<uint8_t> bytes(blocks * t.typeSize);
    std::mt19937 rng(1234 + variant);
    for (uint8_t &b : bytes)
        b = static_cast<uint8_t>(rng());
    const auto scale = [&](size_t block, bool isMin) -> uint16_t {
        switch (variant) {
        case 0: return half(isMin ? 0 : rng() % 2, 8 + rng() % 3, rng()); // about 2^-7 … 2^-5
        case 1: {
            switch (rng() % 6) {
            case 0: return half(0, 0, 0);                  // zero
            case 1: return half(1, 0, 0);                  // negative zero
            case 2: return half(0, 0, rng());              // subnormal
            case 3: return half(1, 10 + rng() % 4, rng()); // negative
            default: return half(0, 10, rng());
            }
        }
        case 2: return isMin ? half(0, 20 + rng() % 4, rng()) : half(0, 1 + rng() % 3, rng());
        default: return block == blocks / 2 ? half(0, 31, 1) : half(0, 9, rng()); // one NaN
        }
    };
    for (size_t i = 0; i < blocks; ++i) {
        const size_t at = i * t.typeSize;
        if (type == 14) { // Q6_K: d at byte 208; zero values from zero codes (q = 32) and zero scales
            putHalf(bytes, at + 208, scale(i, false));
            if (variant == 1 && i % 5 == 0) {
                std::fill_n(bytes.begin() + static_cast<ptrdiff_t>(at), 16, uint8_t{0});
                std::fill_n(bytes.begin() + static_cast<ptrdiff_t>(at + 128), 16, uint8_t{0xaa});
                bytes[at + 192 + i % 16] = 0;
            }
            continue;
        }
        if (type == 11) { // Q3_K: d at byte 108; zero codes (two low bits 0, hmask bit set)
            putHalf(bytes, at + 108, scale(i, false));
            if (variant == 1 && i % 5 == 0) {
                std::fill_n(bytes.begin() + static_cast<ptrdiff_t>(at), 32, uint8_t{0xff});
                std::fill_n(bytes.begin() + static_cast<ptrdiff_t>(at + 32), 16, uint8_t{0});
            }
            continue;
        }
        if (type == 23) { // IQ4_XS: d at byte 0; zero values only from zero scales (6-bit scale 32 is 0)
            putHalf(bytes, at, scale(i, false));
            if (variant == 1 && i % 5 == 0) {
                bytes[at + 2] = static_cast<uint8_t>((bytes[at + 2] & 0xf0) | 0x0a); // sub-blocks 0, 1: high bits 2
                bytes[at + 4] = 0;                                                   // and low bits 0
            }
            continue;
        }
        if (type == 10) { // Q2_K: d at byte 80, dmin at 82; zero values where a min is 0 and codes are 0
            putHalf(bytes, at + 80, scale(i, false));
            putHalf(bytes, at + 82, scale(i, true));
            if (variant == 1 && i % 5 == 0) {
                for (size_t s = 0; s < 4; ++s)
                    bytes[at + s] &= 0x0f;
                std::fill_n(bytes.begin() + static_cast<ptrdiff_t>(at + 16), 8, uint8_t{0});
            }
            if (variant == 1 && i % 5 == 1) { // dmin = d: min m over scale c zeroes code m / c
                bytes[at + 82] = bytes[at + 80];
                bytes[at + 83] = bytes[at + 81];
                const uint8_t scaleMin[4] = {0x11, 0x21, 0x31, 0x62}; // codes 1, 2, 3, 3
                std::copy_n(scaleMin, 4, bytes.begin() + static_cast<ptrdiff_t>(at));
            }
            continue;
        }
        if (type == 6) { // Q5_0: d, then qh; zero codes are 16 (fifth bit set, nibble 0)
            putHalf(bytes, at, scale(i, false));
            if (variant == 1 && i % 5 == 0) {
                std::fill_n(bytes.begin() + static_cast<ptrdiff_t>(at + 2), 4, uint8_t{0xff});
                std::fill_n(bytes.begin() + static_cast<ptrdiff_t>(at + 6), 8, uint8_t{0});
            }
            continue;
        }
        putHalf(bytes, at, scale(i, false));
        if (type == 12 || type == 13)
            putHalf(bytes, at + 2, scale(i, true));
        if (variant == 1 && i % 5 == 0) // runs of zero codes (Q5_K: their fifth bits at 16, nibbles at 48)
            std::fill_n(bytes.begin() + static_cast<ptrdiff_t>(at + (type == 12 || type == 13 ? 16 : 2)), 16,
                        uint8_t{0});
        if (variant == 1 && i % 5 == 0 && type == 13)
            std::fill_n(bytes.begin() + static_cast<ptrdiff_t>(at + 48), 16, uint8_t{0});
        if (variant == 1 && i % 5 == 1 && (type == 12 || type == 13)) {
            // dmin = d: min m over scale s zeroes code m / s in sub-blocks 0-3 (codes 5, 7, 15 and 31 or 2)
            bytes[at + 2] = bytes[at];
            bytes[at + 3] = bytes[at + 1];
            const uint8_t scales[4] = {1, 2, 1, static_cast<uint8_t>(type == 13 ? 1 : 3)};
            const uint8_t mins[4] = {5, 14, 15, static_cast<uint8_t>(type == 13 ? 31 : 6)};
            std::copy_n(scales, 4, bytes.begin() + static_cast<ptrdiff_t>(at + 4));
            std::copy_n(mins, 4, bytes.begin() + static_cast<ptrdiff_t>(at + 8));
        }
    }
    TensorData data;
    data.typeId = type;
    data.bytes = bytes;
    data.elements = elements;
    StatsOptions opt;
    opt.exactKeyElements = 1024; // sampled: one in 64
    opt.threads = 2;
    // even variants: a chunk per piece, so each worker carries its extremes from chunk to chunk
    opt.chunkElements = variant % 2 == 0 ? 16384 : 0;
    TensorStatistics fused, plain;
    QCOMPARE(computeStatistics(data, opt, fused), StatsStatus::Ok);
    opt.fused = false;
    QCOMPARE(computeStatistics(data, opt, plain), StatsStatus::Ok);
    QCOMPARE(fused.keySampleStride, 64u);
    QCOMPARE(fused.count, plain.count);
    QCOMPARE(fused.finite, plain.finite);
    QCOMPARE(fused.zeros, plain.zeros);
    QCOMPARE(fused.nan, plain.nan);
    QCOMPARE(fused.posInf + fused.negInf, plain.posInf + plain.negInf);
    QCOMPARE(fused.min, plain.min);
    QCOMPARE(fused.max, plain.max);
    QCOMPARE(fused.keysCounted, plain.keysCounted);
    QCOMPARE(fused.percentiles, plain.percentiles);
    QCOMPARE(fused.histogram.counts, plain.histogram.counts);
    const double tolerance = 1e-12 * std::max(plain.std, std::fabs(plain.mean)) + 1e-300;
    QVERIFY2(std::fabs(fused.mean - plain.mean) <= tolerance,
             qPrintable(QString("mean %1 vs %2").arg(fused.mean, 0, 'g', 17).arg(plain.mean, 0, 'g', 17)));
    QVERIFY2(std::fabs(fused.std - plain.std) <= 1e-12 * plain.std + 1e-300,
             qPrintable(QString("std %1 vs %2").arg(fused.std, 0, 'g', 17).arg(plain.std, 0, 'g', 17)));
    // and both against a plain double sum of the decoded values
    const auto [sum, finite] = decodedSum(data);
    QCOMPARE(plain.finite, finite);
    QVERIFY(std::fabs(fused.mean - sum / static_cast<double>(finite)) <= 1e-9 * std::max(1.0, plain.std));
}

void TestTensorStatsKernels::inPlaceScanEqualsTheFloatPath_data()
{
    QTest::addColumn<uint32_t>("type");
    QTest::addColumn<int>("variant");
    // 0: weight-like values; 1: ±0, subnormals, extremes and runs of zeros; 2: as 0 plus a NaN in
    // one piece and infinities in another; 3: values far from the first of each piece; 4: as 0,
    // one in 128 sampled, in chunks of 4,864 elements (pieces that start inside a run of 8 groups)
    for (const uint32_t type : {0u, 1u, 30u})
        for (int variant = 0; variant < 5; ++variant)
            QTest::addRow("%s, variant %d", type == 0 ? "F32" : type == 1 ? "F16" : "BF16", variant) << type << variant;
}

// Large F32, F16 and BF16 tensors are scanned where they lie, without a decode buffer; every
// figure must be the float path's, bit for bit (same lanes, same operations).
void TestTensorStatsKernels::inPlaceScanEqualsTheFloatPath()
{
    QFETCH(uint32_t, type);
    QFETCH(int, variant);
    const size_t width = type == 0 ? 4 : 2;
    const uint64_t elements = 5 * 16384 + 2048 + 777; // pieces, a whole batch and a ragged end
    std::vector<uint8_t> bytes(elements * width);
    std::mt19937 rng(77 + variant + 10 * type);
    const auto put = [&](size_t i, uint32_t bits) {
        if (width == 4)
            std::memcpy(bytes.data() + 4 * i, &bits, 4);
        else
            putHalf(bytes, 2 * i, static_cast<uint16_t>(bits));
    };
    // a random pattern of the type: sign, exponent (biased, of the type's width) and mantissa
    const auto pattern = [&](uint32_t sign, uint32_t exponent, uint32_t mantissa) -> uint32_t {
        switch (type) {
        case 0: return sign << 31 | exponent << 23 | (mantissa & 0x7fffff);
        case 1: return half(sign, exponent, mantissa);
        default: return sign << 15 | exponent << 7 | (mantissa & 0x7f);
        }
    };
    const uint32_t bias = type == 1 ? 15 : 127, maxExponent = type == 1 ? 30 : 254;
    for (size_t i = 0; i < elements; ++i) {
        const uint32_t r = static_cast<uint32_t>(rng());
        uint32_t exponent = bias - 8 + r % 4; // about 2^-8 … 2^-5
        if (variant == 1) {
            switch (r % 7) {
            case 0: exponent = 0; break;                      // zero or subnormal
            case 1: put(i, pattern(r >> 31, 0, 0)); continue; // ±0
            case 2: exponent = maxExponent; break;            // the largest
            case 3: exponent = 1; break;                      // the smallest normal
            default: break;
            }
            if (i % 4096 < 64) {
                put(i, 0); // runs of zeros
                continue;
            }
        }
        if (variant == 3)
            exponent = (i % 16384 == 0) ? bias + 10 : bias - 2; // each piece starts with an outlier
        put(i, pattern(r >> 31, exponent, static_cast<uint32_t>(rng())));
    }
    if (variant == 2) {
        const uint32_t nanExponent = type == 1 ? 31 : 255;
        put(3 * 16384 + 5, pattern(0, nanExponent, 1)); // NaN
        put(16384 + 100, pattern(0, nanExponent, 0));   // +Inf
        put(16384 + 2000, pattern(1, nanExponent, 0));  // -Inf
    }
    TensorData data;
    data.typeId = type;
    data.bytes = bytes;
    data.elements = elements;
    StatsOptions opt;
    opt.exactKeyElements = variant == 4 ? 1024 : 4096; // sampled: one in 128 or 32
    opt.chunkElements = variant == 4 ? 4864 : 0;
    opt.threads = 2;
    TensorStatistics inPlace, plain;
    QCOMPARE(computeStatistics(data, opt, inPlace), StatsStatus::Ok);
    opt.fused = false;
    QCOMPARE(computeStatistics(data, opt, plain), StatsStatus::Ok);
    QCOMPARE(inPlace.keySampleStride, variant == 4 ? 128u : 32u);
    const auto sameBits = [](double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; };
    QCOMPARE(inPlace.count, plain.count);
    QCOMPARE(inPlace.finite, plain.finite);
    QCOMPARE(inPlace.zeros, plain.zeros);
    QCOMPARE(inPlace.nan, plain.nan);
    QCOMPARE(inPlace.posInf, plain.posInf);
    QCOMPARE(inPlace.negInf, plain.negInf);
    QVERIFY(sameBits(inPlace.min, plain.min));
    QVERIFY(sameBits(inPlace.max, plain.max));
    QVERIFY2(sameBits(inPlace.mean, plain.mean),
             qPrintable(QString("mean %1 vs %2").arg(inPlace.mean, 0, 'g', 17).arg(plain.mean, 0, 'g', 17)));
    QVERIFY2(sameBits(inPlace.std, plain.std),
             qPrintable(QString("std %1 vs %2").arg(inPlace.std, 0, 'g', 17).arg(plain.std, 0, 'g', 17)));
    QCOMPARE(inPlace.keysCounted, plain.keysCounted);
    for (size_t q = 0; q < inPlace.percentiles.size(); ++q)
        QVERIFY(sameBits(inPlace.percentiles[q], plain.percentiles[q]));
    QCOMPARE(inPlace.histogram.counts, plain.histogram.counts);
    // and the moments against a plain double sum of the decoded values
    const auto [sum, finite] = decodedSum(data);
    QCOMPARE(inPlace.finite, finite);
    QCOMPARE(inPlace.nan + inPlace.posInf + inPlace.negInf, variant == 2 ? uint64_t(3) : uint64_t(0));
    QVERIFY(std::fabs(inPlace.mean - sum / static_cast<double>(finite)) <= 1e-9 * std::max(1.0, inPlace.std));
}

void TestTensorStatsKernels::everyKernelLevelGivesTheSameBits_data()
{
    QTest::addColumn<uint32_t>("type");
    QTest::addColumn<bool>("sampled");
    // in place (F32, F16, BF16), from the codes (Q8_0, Q5_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_XS) and decoded (Q5_1)
    for (const uint32_t type : {0u, 1u, 30u, 8u, 6u, 10u, 12u, 13u, 14u, 11u, 23u, 7u})
        for (const bool sampled : {false, true})
            QTest::addRow("%s, %s", typeName(type).c_str(), sampled ? "sampled" : "every key") << type << sampled;
}

// The AVX-512, AVX2 and portable kernels (on this machine, whichever it has) give the same bits.
void TestTensorStatsKernels::everyKernelLevelGivesTheSameBits()
{
    QFETCH(uint32_t, type);
    QFETCH(bool, sampled);
    const TypeTraits &t = typeTraits(type);
    const uint64_t elements = 4 * 16384 + 2048 + (t.blockSize == 1 ? 333 : 0);
    std::vector<uint8_t> bytes(elements / t.blockSize * t.typeSize);
    std::mt19937 rng(4321 + type);
    for (uint8_t &b : bytes)
        b = static_cast<uint8_t>(rng());
    const auto r = [&] { return static_cast<uint32_t>(rng()); };
    for (uint64_t i = 0; i < elements / t.blockSize; ++i) {
        const size_t at = i * t.typeSize;
        switch (type) {
        case 0: { // sign, exponent about 2^-10 … 2^-3 (and some zeros), random mantissa
            const uint32_t bits = i % 97 == 0 ? 0u : (r() & 0x807fffffu) | (117u + r() % 8) << 23;
            std::memcpy(bytes.data() + at, &bits, 4);
            break;
        }
        case 1: putHalf(bytes, at, i % 97 == 0 ? 0 : half(r() % 2, 5 + r() % 8, r())); break;
        case 30:
            putHalf(bytes, at, i % 97 == 0 ? 0 : static_cast<uint16_t>((r() & 0x807f) | (117u + r() % 8) << 7));
            break;
        case 8: putHalf(bytes, at, i % 50 == 0 ? 0 : half(r() % 2, 8 + r() % 3, r())); break;
        case 12: // d and dmin, some blocks with them far apart (the decoder rounds: the float path)
            putHalf(bytes, at, half(r() % 2, 8 + r() % 3, r()));
            putHalf(bytes, at + 2, i % 7 == 3 ? half(0, 24, r()) : half(0, 8 + r() % 3, r()));
            break;
        case 11: // Q3_K's d, and zero codes in some blocks
            putHalf(bytes, at + 108, half(r() % 2, 8 + r() % 3, r()));
            if (i % 9 == 4) {
                std::fill_n(bytes.begin() + static_cast<ptrdiff_t>(at), 32, uint8_t{0xff});
                std::fill_n(bytes.begin() + static_cast<ptrdiff_t>(at + 32), 16, uint8_t{0});
            }
            break;
        case 6: // Q5_0's d, and zero codes (fifth bit set, nibble 0) in some blocks
            putHalf(bytes, at, half(r() % 2, 8 + r() % 3, r()));
            if (i % 9 == 4) {
                std::fill_n(bytes.begin() + static_cast<ptrdiff_t>(at + 2), 4, uint8_t{0xff});
                std::fill_n(bytes.begin() + static_cast<ptrdiff_t>(at + 10), 4, uint8_t{0});
            }
            break;
        case 23: // IQ4_XS's d, and zero scales (sub-blocks 2 and 3) in some blocks
            putHalf(bytes, at, half(r() % 2, 8 + r() % 3, r()));
            if (i % 9 == 4) {
                bytes[at + 2] = static_cast<uint8_t>((bytes[at + 2] & 0x0f) | 0xa0);
                bytes[at + 5] = 0;
            }
            break;
        case 13: // Q5_K: d and dmin, some blocks with them far apart (the decoder rounds: the float path)
            putHalf(bytes, at, half(r() % 2, 8 + r() % 3, r()));
            putHalf(bytes, at + 2, i % 7 == 3 ? half(0, 24, r()) : half(0, 8 + r() % 3, r()));
            break;
        case 10: // Q2_K: d and dmin, some blocks with them far apart (the float path), some with zero mins
            putHalf(bytes, at + 80, half(r() % 2, 8 + r() % 3, r()));
            putHalf(bytes, at + 82, i % 7 == 3 ? half(0, 24, r()) : half(0, 8 + r() % 3, r()));
            if (i % 9 == 4)
                bytes[at + 3] &= 0x0f;
            break;
        case 7: // Q5_1: d and m; in some blocks m = 0 and zero codes
            putHalf(bytes, at, half(r() % 2, 8 + r() % 3, r()));
            putHalf(bytes, at + 2, i % 9 == 4 ? 0 : half(r() % 2, 8 + r() % 3, r()));
            if (i % 9 == 4)
                std::fill_n(bytes.begin() + static_cast<ptrdiff_t>(at + 4), 12, uint8_t{0});
            break;
        default: // Q6_K's d, and zero codes (q = 32: low nibble 0, high bits 2) in some blocks
            putHalf(bytes, at + 208, half(r() % 2, 8 + r() % 3, r()));
            if (i % 9 == 4) {
                std::fill_n(bytes.begin() + static_cast<ptrdiff_t>(at), 16, uint8_t{0});
                std::fill_n(bytes.begin() + static_cast<ptrdiff_t>(at + 128), 16, uint8_t{0xaa});
            }
            break;
        }
    }
    TensorData data;
    data.typeId = type;
    data.bytes = bytes;
    data.elements = elements;
    StatsOptions opt;
    opt.threads = 2;
    if (sampled)
        opt.exactKeyElements = 4096;
    const int ceiling = detail::simdCeiling();
    std::vector<TensorStatistics> results;
    for (int level = 2; level >= 0; --level) {
        detail::setSimdCeiling(level);
        results.emplace_back();
        QCOMPARE(computeStatistics(data, opt, results.back()), StatsStatus::Ok);
    }
    detail::setSimdCeiling(ceiling);
    const auto bits = [](double x) { return std::bit_cast<uint64_t>(x); };
    const TensorStatistics &best = results[0];
    QCOMPARE(best.keySampleStride, sampled ? 32u : 1u);
    QVERIFY(best.zeros > 0);
    for (size_t i = 1; i < results.size(); ++i) {
        const TensorStatistics &s = results[i];
        QCOMPARE(s.finite, best.finite);
        QCOMPARE(s.zeros, best.zeros);
        QCOMPARE(bits(s.min), bits(best.min));
        QCOMPARE(bits(s.max), bits(best.max));
        QCOMPARE(bits(s.mean), bits(best.mean));
        QCOMPARE(bits(s.std), bits(best.std));
        QCOMPARE(s.keysCounted, best.keysCounted);
        for (size_t q = 0; q < s.percentiles.size(); ++q)
            QCOMPARE(bits(s.percentiles[q]), bits(best.percentiles[q]));
        QCOMPARE(s.histogram.counts, best.histogram.counts);
    }
}

QTEST_GUILESS_MAIN(TestTensorStatsKernels)
#include "tst_tensor_stats_kernels.moc"
