// SPDX-License-Identifier: GPL-3.0-or-later
#include "mapping_guard.h"

#include <atomic>
#include <csignal>
#include <mutex>
#include <sys/mman.h>
#include <unistd.h>

namespace gguf::mapping_guard {
namespace {

constexpr int kSlots = 256;

// Read by the signal handler: only lock-free atomics.
struct Slot {
    std::atomic<uintptr_t> start{0};
    std::atomic<uintptr_t> end{0};
    std::atomic<bool> faulted{false};
};
Slot g_slots[kSlots];
std::mutex g_mutex; // serialises add/remove (never taken by the handler)
struct sigaction g_previous {};

void onSigbus(int signal, siginfo_t *info, void *context)
{
    const auto addr = reinterpret_cast<uintptr_t>(info->si_addr);
    for (Slot &slot : g_slots) {
        const uintptr_t start = slot.start.load(std::memory_order_acquire);
        if (start == 0 || addr < start || addr >= slot.end.load(std::memory_order_acquire))
            continue;
        const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
        void *base = reinterpret_cast<void *>(addr & ~(page - 1));
        // a private zero page in place of the vanished file page; the access is then retried
        if (::mmap(base, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
            slot.faulted.store(true, std::memory_order_release);
            return;
        }
        break;
    }
    // not ours: behave as if we had never been here
    if (g_previous.sa_flags & SA_SIGINFO && g_previous.sa_sigaction) {
        g_previous.sa_sigaction(signal, info, context);
        return;
    }
    if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN && g_previous.sa_handler) {
        g_previous.sa_handler(signal);
        return;
    }
    ::signal(SIGBUS, SIG_DFL);
    ::raise(SIGBUS);
}

void installOnce()
{
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction action {};
        action.sa_sigaction = onSigbus;
        action.sa_flags = SA_SIGINFO | SA_NODEFER;
        sigemptyset(&action.sa_mask);
        ::sigaction(SIGBUS, &action, &g_previous);
    });
}

} // namespace

int add(const void *start, size_t length)
{
    installOnce();
    std::lock_guard<std::mutex> lock(g_mutex);
    for (int i = 0; i < kSlots; ++i) {
        Slot &slot = g_slots[i];
        if (slot.start.load() != 0)
            continue;
        slot.faulted.store(false);
        slot.end.store(reinterpret_cast<uintptr_t>(start) + length);
        slot.start.store(reinterpret_cast<uintptr_t>(start), std::memory_order_release);
        return i;
    }
    return -1;
}

void remove(int slot)
{
    if (slot < 0 || slot >= kSlots)
        return;
    std::lock_guard<std::mutex> lock(g_mutex);
    g_slots[slot].start.store(0, std::memory_order_release);
    g_slots[slot].end.store(0);
}

bool faulted(int slot)
{
    return slot >= 0 && slot < kSlots && g_slots[slot].faulted.load(std::memory_order_acquire);
}

} // namespace gguf::mapping_guard
