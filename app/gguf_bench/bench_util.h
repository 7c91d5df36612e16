// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace bench {

/// Seconds since an arbitrary epoch (monotonic).
inline double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// Runs `body` until at least `minSeconds` have passed (at least once); returns seconds per run.
double timePerRun(const std::function<void()> &body, double minSeconds = 0.3);

/// Runs `body` in a forked child and returns the child's peak resident memory in MiB (ru_maxrss),
/// or a negative number when the child failed. What the child prints goes to our stdout.
double peakMemoryOfChild(const std::function<void()> &body);

/// A run of `body` in a fresh forked child: its wall-clock seconds and the child's peak resident
/// memory in MiB (negative when the child failed). A fresh process maps files anew, so page faults
/// are part of every figure and nothing the parent touched is counted in the child's memory.
struct ChildRun {
    double seconds = -1;
    double peakMiB = -1;            ///< peak resident memory of the run (VmHWM, reset at its start)
    double residentAtStartMiB = -1; ///< what the child had resident from the parent at its start
};
ChildRun runInChild(const std::function<void()> &body);

/// Deterministic pseudo-random bytes (xorshift), so runs are comparable.
void fillRandom(uint8_t *data, uint64_t size, uint64_t seed);

/// Like fillRandom, but every aligned 16-bit word is a normal half-precision number of modest size,
/// as block scales in real files are (random bits would make many scales subnormal or NaN).
void fillWeightLike(uint8_t *data, uint64_t size, uint64_t seed);

/// A floor: the time to read `size` bytes (sum of 64-bit words) and to memcpy them.
struct Floors {
    double readSeconds = 0;
    double memcpySeconds = 0;
};
Floors measureFloors(const uint8_t *data, uint64_t size, unsigned threads);
/// One read of `size` bytes (the sum of its 64-bit words, returned so it is not optimized away).
uint64_t measureFloorOnce(const uint8_t *data, uint64_t size, unsigned threads);

std::string formatRate(double perSecond, const char *unit);

/// The middle element of `v` after sorting (the upper one of an even count).
double medianOf(std::vector<double> v);

/// Decodes all of `bytes` (elements of `type`) piece by piece into small buffers, on `threads`: the
/// "dequantization pass" floor.
void decodeAll(uint32_t type, std::span<const uint8_t> bytes, uint64_t elements, unsigned threads);

/// decodeAll, and each decoded value placed in one of 256 bins (a 32-bit counter incremented,
/// four interleaved tables per worker): the "count floor", the least an exact histogram that places
/// every value costs. Returns how many values were counted.
uint64_t countAll(uint32_t type, std::span<const uint8_t> bytes, uint64_t elements, unsigned threads);

/// Rounds of fresh-process runs: each round runs every body once, in turn, so that the machine's
/// slow and fast moments fall on all of them alike.
inline constexpr int kRounds = 7;

struct Rounds {
    std::vector<std::vector<ChildRun>> runs; // [body][round]

    double median(size_t body) const;
    double peakMiB(size_t body) const;
    /// The ratio body a / body b of each round: median, lowest and highest.
    std::array<double, 3> ratio(size_t a, size_t b) const;
};

/// Runs kRounds rounds of `bodies`; false when a run failed.
bool runRounds(const std::vector<std::function<void()>> &bodies, Rounds &out);

} // namespace bench
