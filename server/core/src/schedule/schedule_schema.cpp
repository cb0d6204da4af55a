// schedules.db's migrations.
#include <array>

#include "yuzu/schedule/schedule_store.hpp"

namespace yuzu::schedule {
namespace {

// Times are Unix seconds. agent_ids_json is '' when the target is a scope
// (or every agent), else a JSON array of ids. day_of_week is -1 unless the
// schedule is weekly. next_execution_at 0 means no run is due.
constexpr store::Migration kCreateSchedules{1, "create_schedules",
                                            R"sql(
CREATE TABLE schedules(
    schedule_id       TEXT PRIMARY KEY,
    name              TEXT NOT NULL,
    definition_id     TEXT NOT NULL,
    scope             TEXT NOT NULL DEFAULT '',
    agent_ids_json    TEXT NOT NULL DEFAULT '',
    params_json       TEXT NOT NULL DEFAULT '{}',
    frequency_type    TEXT NOT NULL
                      CHECK (frequency_type IN ('once', 'interval', 'daily', 'weekly')),
    run_at            INTEGER NOT NULL DEFAULT 0,
    interval_seconds  INTEGER NOT NULL DEFAULT 0,
    time_of_day       TEXT NOT NULL DEFAULT '',
    day_of_week       INTEGER NOT NULL DEFAULT -1,
    enabled           INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    owner             TEXT NOT NULL,
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL,
    next_execution_at INTEGER NOT NULL DEFAULT 0,
    last_run_at       INTEGER NOT NULL DEFAULT 0,
    last_execution_id TEXT NOT NULL DEFAULT '',
    run_count         INTEGER NOT NULL DEFAULT 0,
    last_error        TEXT NOT NULL DEFAULT ''
);
CREATE INDEX schedules_due ON schedules(enabled, next_execution_at);
)sql"};

constexpr std::array<store::Migration, 1> kMigrations{kCreateSchedules};

}  // namespace

std::span<const store::Migration> schedule_migrations() {
    return kMigrations;
}

}  // namespace yuzu::schedule
