// Threads with a stack of a chosen size. Under --virtual 10000 the agent
// runs one thread per identity; std::thread gives each the default 8 MiB
// stack (ulimit -s), which is address space (and page-table and map-count
// budget) the identities never use.
//
// Thread-safety: start() and join() are called by the owner alone.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <functional>
#include <optional>

#include "yuzu/common/status.hpp"

namespace yuzu::agent {

// An identity thread: HTTP requests, replies parsed by yuzu::parse_json (at
// most kMaxJsonDepth levels, iteratively) and result bodies; plugins run on
// threads of their own (PluginRegistry::run).
inline constexpr size_t kIdentityStackBytes = 256 * 1024;
// A scheduler shard also collects the inventory: readers with 64 KiB
// buffers on the stack, child processes, and user lookups through NSS.
inline constexpr size_t kSchedulerStackBytes = 512 * 1024;

class SmallThread {
  public:
    SmallThread() = default;
    SmallThread(SmallThread&& other) noexcept;
    SmallThread& operator=(SmallThread&& other) noexcept;
    SmallThread(const SmallThread&) = delete;
    SmallThread& operator=(const SmallThread&) = delete;
    // Joins a thread still running: its body may use what its owner owns.
    ~SmallThread();

    // Runs body on a new thread with stack_bytes of stack (at least
    // PTHREAD_STACK_MIN). What body throws is counted under `guard` (a
    // fixed name, as for run_guarded) and the thread ends. Unavailable
    // when no thread can be created (the thread or memory limits).
    Status start(const char* guard, size_t stack_bytes, std::function<void()> body);
    bool joinable() const { return thread_.has_value(); }
    void join();

  private:
    std::optional<pthread_t> thread_;
};

}  // namespace yuzu::agent
