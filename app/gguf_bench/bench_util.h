// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

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

} // namespace bench
