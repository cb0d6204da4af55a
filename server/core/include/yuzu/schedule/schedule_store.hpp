// ScheduleStore: schedules in schedules.db (WAL, numbered migrations).
// Every write is committed before it returns. The store checks the shape of
// what it keeps (validate_spec) and the cap; who may do what, and whether a
// definition can run, are the service's (schedules.hpp).
//
// Thread-safety: safe to call from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"
#include "yuzu/schedule/schedule.hpp"
#include "yuzu/store/migrations.hpp"

namespace yuzu::store {
class Database;
}

namespace yuzu::schedule {

inline constexpr char kSchedulesDbFile[] = "schedules.db";

std::span<const store::Migration> schedule_migrations();

// What one run attempt leaves on its schedule.
struct RunRecord {
    std::string execution_id;  // "" when the run was refused (or missed)
    std::string error;         // why it did not run; "" after a run
    int64_t ran_at = 0;        // last_run_at when an execution was dispatched
    int64_t next_execution_at = 0;
    bool enabled = true;
};

class ScheduleStore {
  public:
    // Opens and migrates `path` (":memory:" for tests). `clock` outlives the
    // store; `max_schedules` is the cap create() enforces.
    static Result<std::unique_ptr<ScheduleStore>> open(const std::string& path, const Clock& clock,
                                                       size_t max_schedules = kMaxSchedules);
    ~ScheduleStore();
    ScheduleStore(const ScheduleStore&) = delete;
    ScheduleStore& operator=(const ScheduleStore&) = delete;

    // Stores a new schedule with a fresh id, created_at = updated_at = now.
    // InvalidArgument (validate_spec, or no owner); ResourceExhausted at the
    // cap.
    Result<Schedule> create(const ScheduleSpec& spec, const std::string& owner,
                            int64_t next_execution_at);
    Result<Schedule> get(const std::string& id) const;  // NotFound
    // Every schedule, newest first.
    Result<std::vector<Schedule>> list() const;
    // Replaces spec, owner and next_execution_at, bumps updated_at; clears
    // last_error (it described the old version). NotFound; InvalidArgument.
    Result<Schedule> replace(const std::string& id, const ScheduleSpec& spec,
                             const std::string& owner, int64_t next_execution_at);
    // Sets enabled and next_execution_at, bumps updated_at; the rest (the
    // owner, last_error) stays. NotFound.
    Result<Schedule> set_enabled(const std::string& id, bool enabled, int64_t next_execution_at);
    Status remove(const std::string& id);  // NotFound

    // Enabled schedules with 0 < next_execution_at <= now, earliest first,
    // at most `limit`.
    Result<std::vector<Schedule>> due(int64_t now, size_t limit) const;
    // Records a run attempt: run_count and last_run_at / last_execution_id
    // move only when an execution was dispatched. NotFound.
    Status record_run(const std::string& id, const RunRecord& run);

    Status ready() const;
    const std::string& path() const;

  private:
    ScheduleStore(std::unique_ptr<store::Database> db, const Clock& clock, size_t max_schedules);
    std::unique_ptr<store::Database> db_;
    const Clock& clock_;
    const size_t max_schedules_;
};

}  // namespace yuzu::schedule
