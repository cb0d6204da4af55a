// Step 8 of a tools/call: the mcp.<tool> audit row. SqliteAuditLog::record
// returns once its row is fsynced (synchronous=FULL, group commit); with 8
// callers the fsyncs are shared. MemoryAuditLog is the floor it is measured by.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <string>

#include "bench_support.hpp"
#include "yuzu/audit/audit_event.hpp"
#include "yuzu/audit/memory_audit_log.hpp"
#include "yuzu/audit/sqlite_audit_log.hpp"

namespace yuzu::bench {
namespace {

// The row write_audit() (mcp/pipeline/pipeline.cpp) records for a successful
// validate_scope call. record() takes it by value: each call copies it, as
// the pipeline builds a fresh one.
audit::AuditEvent tool_call_event() {
    audit::AuditEvent ev;
    ev.principal = "bench-owner";
    ev.principal_kind = "mcp_token";
    ev.action = "mcp.validate_scope";
    ev.target_type = "mcp_tool";
    ev.target_id = "validate_scope";
    ev.source_ip = "127.0.0.1";
    ev.user_agent = "bench-client/1.0";
    ev.result = audit::AuditResult::kSuccess;
    ev.correlation_id = "5f0c2a9e-7b1d-4c8e-9a3f-2d6b8e1c4a70";
    return ev;
}

// One audit.db per run of the benchmark, shared by its threads. Thread 0
// replaces it before the start barrier (the previous run's threads have all
// been joined by then) and drops it after the stop barrier.
struct SqliteRun {
    TempDir dir;
    std::unique_ptr<audit::SqliteAuditLog> log;
};
std::unique_ptr<SqliteRun> g_run;
audit::SqliteAuditLog* g_log = nullptr;  // written by thread 0 outside the timed loop only

// Real time: a caller spends most of record() waiting for an fsync, off-CPU.
void BM_SqliteAuditRecord(benchmark::State& state) {
    if (state.thread_index() == 0) {
        g_log = nullptr;
        g_run = std::make_unique<SqliteRun>();
        if (!g_run->dir.ok()) {
            state.SkipWithError("cannot create a temp dir for audit.db");
        } else if (auto opened = audit::SqliteAuditLog::open(g_run->dir.str()); !opened.ok()) {
            state.SkipWithError(opened.status().to_string().c_str());
        } else {
            g_run->log = std::move(opened).value();
            g_log = g_run->log.get();
        }
    }
    const audit::AuditEvent event = tool_call_event();
    bool completed = true;
    for (auto _ : state) {
        audit::SqliteAuditLog* log = g_log;
        if (log == nullptr) {
            state.SkipWithError("audit.db was not opened");
            completed = false;
            break;
        }
        Status s = log->record(event);
        if (!s.ok()) {
            state.SkipWithError(s.to_string().c_str());
            completed = false;
            break;
        }
    }
    // If thread 0 broke out early, others may still be recording: the log then
    // lives until the next run's set-up (or exit).
    if (state.thread_index() == 0 && completed && g_log != nullptr) {
        const auto stats = g_log->group_commit_stats();
        if (stats.commits > 0) {
            state.counters["rows_per_commit"] =
                static_cast<double>(stats.rows) / static_cast<double>(stats.commits);
        }
        g_log = nullptr;
        g_run.reset();
    }
}
BENCHMARK(BM_SqliteAuditRecord)->Threads(1)->Threads(8)->UseRealTime();

// Rows are kept in memory: the log is replaced every kMemoryRowsPerLog rows
// (outside the timed region) so a long run does not grow without bound.
constexpr int64_t kMemoryRowsPerLog = 1 << 16;

void BM_MemoryAuditRecord(benchmark::State& state) {
    const audit::AuditEvent event = tool_call_event();
    auto log = std::make_unique<audit::MemoryAuditLog>();
    int64_t rows = 0;
    for (auto _ : state) {
        Status s = log->record(event);
        benchmark::DoNotOptimize(s);
        if (++rows == kMemoryRowsPerLog) {
            state.PauseTiming();
            log = std::make_unique<audit::MemoryAuditLog>();
            rows = 0;
            state.ResumeTiming();
        }
    }
}
BENCHMARK(BM_MemoryAuditRecord);

// 8 callers on one log's mutex, for comparison with the SQLite rows above. A
// fixed iteration count bounds the rows kept (8 x 20000).
audit::MemoryAuditLog* g_memory_log = nullptr;

void BM_MemoryAuditRecord_Threads(benchmark::State& state) {
    std::unique_ptr<audit::MemoryAuditLog> owned;
    if (state.thread_index() == 0) {
        owned = std::make_unique<audit::MemoryAuditLog>();
        g_memory_log = owned.get();
    }
    const audit::AuditEvent event = tool_call_event();
    for (auto _ : state) {
        Status s = g_memory_log->record(event);
        benchmark::DoNotOptimize(s);
    }
    // After the stop barrier every thread is done with the log.
    if (state.thread_index() == 0) g_memory_log = nullptr;
}
BENCHMARK(BM_MemoryAuditRecord_Threads)->Threads(8)->Iterations(20000)->UseRealTime();

}  // namespace
}  // namespace yuzu::bench
