// Schedules: schedules.db, the changes people make to schedules and the
// engine that runs them. REST routes and MCP tools go through this service;
// none of them reaches into SQL.
//
// Ownership: whoever creates a schedule, or last changes it, owns it, and
// every run uses the owner's rights at run time. So create() and update()
// first check that the caller could dispatch the resulting schedule by hand
// now (authorize_schedule_dispatch); a schedule never runs with the rights
// of someone who did not define what it runs. Enabling and disabling keep
// the owner.
//
// The permission on schedules themselves (Schedule:Read/Write/Delete) is the
// caller's surface's to check; this service checks the dispatch rights.
//
// Thread-safety: safe to call from any thread. Every change holds the
// engine's run lock, so once a change has returned, no run of the old
// version starts.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "yuzu/auth/principal.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"
#include "yuzu/schedule/schedule.hpp"
#include "yuzu/schedule/schedule_engine.hpp"
#include "yuzu/schedule/schedule_store.hpp"

namespace yuzu::audit {
class AuditLog;
}

namespace yuzu::schedule {

struct SchedulesOptions {
    std::string data_dir;  // schedules.db lives here (created 0700 when missing)
    size_t max_schedules = kMaxSchedules;
    EngineOptions engine;
};

class Schedules {
  public:
    // Opens and migrates <data_dir>/schedules.db. Everything passed in must
    // outlive the service. The engine is not started.
    static Result<std::unique_ptr<Schedules>> open(const SchedulesOptions& options,
                                                   DispatchServices services,
                                                   audit::AuditLog& audit, const Clock& clock);
    ~Schedules();  // stops the engine
    Schedules(const Schedules&) = delete;
    Schedules& operator=(const Schedules&) = delete;

    Result<std::vector<Schedule>> list() const;         // newest first
    Result<Schedule> get(const std::string& id) const;  // NotFound

    // Validates `spec`, checks `who` could dispatch it now, and stores it
    // owned by who; the first run is first_run_at(now) when enabled.
    // InvalidArgument (fields, a once run_at in the past, definition,
    // params), NotFound / PermissionDenied / FailedPrecondition (dispatch
    // rights and definition state, as a manual dispatch answers),
    // ResourceExhausted (the cap).
    Result<Schedule> create(const auth::Principal& who, const ScheduleSpec& spec);
    // Applies `change`, re-checks the result for `who` as create() does and
    // makes who the owner. The next run is recomputed from now when the
    // frequency changes or the schedule is enabled again; kept otherwise.
    Result<Schedule> update(const auth::Principal& who, const std::string& id,
                            const ScheduleChange& change);
    // Enabling computes the next run from now (FailedPrecondition for a once
    // schedule whose run_at has passed); disabling clears it. Idempotent.
    // Enabling re-checks that `who` could dispatch the schedule now (as
    // create and update do); the owner stays, and its rights are checked
    // again at every run.
    Result<Schedule> set_enabled(const auth::Principal& who, const std::string& id, bool enabled);
    Status remove(const std::string& id);  // NotFound

    ScheduleEngine& engine() { return *engine_; }
    // For /readyz: schedules.db answers a query.
    Status ready() const;
    const std::string& db_path() const;
    // Stops the engine's thread (before the services its runs use close).
    void shutdown();

  private:
    Schedules(std::unique_ptr<ScheduleStore> store, DispatchServices services,
              audit::AuditLog& audit, const Clock& clock, EngineOptions engine);
    // The next run of `spec` if it is enabled now; InvalidArgument for a
    // once schedule whose run_at has passed.
    Result<int64_t> first_run(const ScheduleSpec& spec, int64_t now) const;

    std::unique_ptr<ScheduleStore> store_;
    const DispatchServices services_;
    const Clock& clock_;
    std::unique_ptr<ScheduleEngine> engine_;
};

}  // namespace yuzu::schedule
