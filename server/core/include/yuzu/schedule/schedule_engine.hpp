// ScheduleEngine: runs due schedules. One background thread ticks every
// EngineOptions::tick; each tick is run_due(clock.now_s()), which tests call
// directly with a ManualClock instead of starting the thread.
//
// A run dispatches one ordinary execution as the schedule's owner, resolved
// and re-authorised at run time (schedule_dispatch.hpp), and writes one
// audit row `schedule.run` (target_type schedule, target_id the schedule id,
// principal the owner, detail `schedule_id=<id> execution_id=<id> ...`),
// whether it ran or was refused. A refused run leaves last_error and the
// schedule otherwise as it is, moved on to its next slot.
//
// Missed runs (documented policy): a schedule whose next_execution_at has
// passed, after downtime or a busy tick, runs once — never one run per
// missed slot — and its next run is computed from now (next_run_after). A
// once schedule more than once_grace_s (24 h) late is not run: it is
// disabled with last_error "missed: more than 24 h late". A once schedule is
// disabled after its attempt, whatever the outcome.
//
// Bounded: at most max_runs_per_tick schedules run per tick, earliest due
// first; the rest wait for the next tick.
//
// Thread-safety: safe to call from any thread. Every run holds the engine's
// run lock (hold_runs()), so a change made under it is never overtaken by a
// run of the version it replaced.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/periodic_task.hpp"
#include "yuzu/common/status.hpp"
#include "yuzu/schedule/schedule_dispatch.hpp"
#include "yuzu/schedule/schedule_store.hpp"

namespace yuzu::audit {
class AuditLog;
}

namespace yuzu::schedule {

struct EngineOptions {
    std::chrono::milliseconds tick{1000};  // real time between ticks of the thread
    size_t max_runs_per_tick = 64;
    int64_t once_grace_s = kSecondsPerDay;  // a once schedule later than this is missed
};

// What one run_due() did.
struct TickReport {
    size_t ran = 0;         // executions dispatched
    size_t refused = 0;     // runs refused (owner gone, rights, definition, targets)
    size_t missed = 0;      // once schedules disabled as too late
    bool more_due = false;  // the tick hit max_runs_per_tick; the rest run next tick
};

class ScheduleEngine {
  public:
    // Everything passed in must outlive the engine.
    ScheduleEngine(ScheduleStore& store, DispatchServices services, audit::AuditLog& audit,
                   const Clock& clock, EngineOptions options = {});
    ~ScheduleEngine();  // stop()
    ScheduleEngine(const ScheduleEngine&) = delete;
    ScheduleEngine& operator=(const ScheduleEngine&) = delete;

    // Runs the schedules due at `now` (Unix s), as described above. A store
    // failure on one schedule is logged and does not stop the others; the
    // first such failure is returned after the tick.
    Result<TickReport> run_due(int64_t now);

    // The thread. start() twice is a no-op; stop() joins and is idempotent.
    void start();
    void stop();

    // Blocks until no run is in flight and holds off runs while it lives.
    std::unique_lock<std::mutex> hold_runs() { return std::unique_lock<std::mutex>(run_mu_); }

    const EngineOptions& options() const { return options_; }
    uint64_t runs() const { return runs_.load(); }
    uint64_t refusals() const { return refusals_.load(); }
    uint64_t failed_ticks() const { return failed_ticks_.load(); }

  private:
    // Runs one due schedule; caller holds run_mu_.
    Status run_one(const std::string& id, int64_t now, TickReport& report);

    ScheduleStore& store_;
    const DispatchServices services_;
    audit::AuditLog& audit_;
    const Clock& clock_;
    const EngineOptions options_;

    std::mutex run_mu_;                   // held for each run, and by the service for each change
    std::mutex lifecycle_mu_;             // serialises start()/stop(); guards task_
    std::unique_ptr<PeriodicTask> task_;  // guarded by lifecycle_mu_
    std::atomic<uint64_t> runs_{0};
    std::atomic<uint64_t> refusals_{0};
    std::atomic<uint64_t> failed_ticks_{0};
};

}  // namespace yuzu::schedule
