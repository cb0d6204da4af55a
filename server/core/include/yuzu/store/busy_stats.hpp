// BusyStats: how often SQLite lock contention made a statement wait, and how
// often it gave up, per database file name (audit.db, fleet.db, ...).
//
// Every Database installs a busy handler that sleeps with a short back-off
// up to its busy timeout (as sqlite3_busy_timeout does) and counts each
// retry here; a statement that still finds the lock taken at the timeout
// fails with SQLITE_BUSY and counts as a timeout. /metrics exports these as
// yuzu_store_busy_retries_total and yuzu_store_busy_timeouts_total.
//
// Thread-safety: safe to call from any thread; counters are atomics.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace yuzu::store {

struct BusyCounts {
    std::string db;  // the file's name, e.g. "audit.db"; ":memory:" for in-memory
    uint64_t retries = 0;
    uint64_t timeouts = 0;
};

// Every database file opened so far in this process, sorted by name.
std::vector<BusyCounts> busy_counts();

namespace internal {

// The per-connection context SQLite hands to the busy handler.
struct BusyContext {
    int timeout_ms = 0;
    void* counter = nullptr;  // the file name's counters (busy_stats.cpp)
};

// Binds `ctx` to the counters for `path`'s file name.
void bind_busy_context(BusyContext& ctx, const std::string& path, int timeout_ms);
// The sqlite3_busy_handler callback: sleeps and returns 1 to retry, or
// counts a timeout and returns 0 once `prior_calls` have used the timeout.
int busy_handler(void* ctx, int prior_calls);

}  // namespace internal
}  // namespace yuzu::store
