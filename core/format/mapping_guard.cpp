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
    std::atomic<bool> unreadable{false}; ///< SIGSEGV here too: a reserved range read where nothing is mapped
};
Slot g_slots[kSlots];
std::mutex g_mutex; // serialises add/remove (never taken by the handler)
struct sigaction g_previous {};
struct sigaction g_previousSegv {};

void onFault(int signal, siginfo_t *info, void *context)
{
    const auto addr = reinterpret_cast<uintptr_t>(info->si_addr);
    for (Slot &slot : g_slots) {
        const uintptr_t start = slot.start.load(std::memory_order_acquire);
        if (start == 0 || addr < start || addr >= slot.end.load(std::memory_order_acquire))
            continue;
        if (signal == SIGSEGV && !slot.unreadable.load(std::memory_order_acquire))
            break;
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
    const struct sigaction &previous = signal == SIGSEGV ? g_previousSegv : g_previous;
    if (previous.sa_flags & SA_SIGINFO && previous.sa_sigaction) {
        previous.sa_sigaction(signal, info, context);
        return;
    }
    if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN && previous.sa_handler) {
        previous.sa_handler(signal);
        return;
    }
    ::signal(signal, SIG_DFL);
    ::raise(signal);
}

void install(int signal, struct sigaction *previous)
{
    struct sigaction action {};
    action.sa_sigaction = onFault;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    ::sigaction(signal, &action, previous);
}

void installOnce()
{
    static std::once_flag once;
    std::call_once(once, [] { install(SIGBUS, &g_previous); });
}

// only once a reserved range is registered: a program that reads local files alone keeps its own SIGSEGV
void installSegvOnce()
{
    static std::once_flag once;
    std::call_once(once, [] { install(SIGSEGV, &g_previousSegv); });
}

} // namespace

int add(const void *start, size_t length, bool unreadableParts)
{
    installOnce();
    if (unreadableParts)
        installSegvOnce();
    std::lock_guard<std::mutex> lock(g_mutex);
    for (int i = 0; i < kSlots; ++i) {
        Slot &slot = g_slots[i];
        if (slot.start.load() != 0)
            continue;
        slot.faulted.store(false);
        slot.unreadable.store(unreadableParts);
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
