// Schedule: an instruction definition run on a target at a frequency, as
// its owner. Every run is an ordinary execution, dispatched with the
// owner's rights as they are at run time (schedule_dispatch.hpp).
//
// JSON travels as text (params_json) so this header stays free of nlohmann.
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "yuzu/common/status.hpp"
#include "yuzu/schedule/frequency.hpp"

namespace yuzu::schedule {

inline constexpr size_t kMaxScheduleNameBytes = 128;
inline constexpr size_t kMaxSchedules = 1000;
// The same bounds a manual dispatch has (the MCP execute_instruction schema
// and the tracker's limits).
inline constexpr size_t kMaxScopeBytes = 4096;
inline constexpr size_t kMaxTargetAgents = 10'000;
inline constexpr size_t kMaxAgentIdBytes = 128;
inline constexpr size_t kMaxDefinitionIdBytes = 128;
inline constexpr size_t kMaxLastErrorBytes = 1024;

// What a run targets, as a dispatch request names it: a scope ("" or
// "__all__" = every agent the owner may run instructions on), or explicit
// agent ids, never both. Resolved afresh at every run.
struct ScheduleTarget {
    std::string scope;
    std::optional<std::vector<std::string>> agent_ids;

    bool operator==(const ScheduleTarget&) const = default;
};

// What create() takes and update() replaces.
struct ScheduleSpec {
    std::string name;           // 1..128 bytes, no control characters
    std::string definition_id;  // an instruction definition
    ScheduleTarget target;
    std::string params_json = "{}";  // a JSON object, checked against the definition
    Frequency frequency;
    bool enabled = true;
};

struct Schedule {
    std::string id;  // 32 lowercase hex
    ScheduleSpec spec;
    std::string owner;  // the username whose rights every run uses
    int64_t created_at = 0;
    int64_t updated_at = 0;
    int64_t next_execution_at = 0;  // 0 = none (disabled, or a once that ran)
    int64_t last_run_at = 0;        // the last run that dispatched an execution
    std::string last_execution_id;
    int64_t run_count = 0;   // executions dispatched
    std::string last_error;  // why the last attempt did not run; "" after a run
};

// A partial update: fields left empty keep their value. Giving `target`
// replaces the whole target. Frequency fields merge onto the current
// frequency when the type stays the same; a new frequency_type starts from
// the fields given here alone.
struct ScheduleChange {
    std::optional<std::string> name;
    std::optional<std::string> definition_id;
    std::optional<ScheduleTarget> target;
    std::optional<std::string> params_json;
    std::optional<FrequencyType> frequency_type;
    std::optional<int64_t> run_at;
    std::optional<int64_t> interval_seconds;
    std::optional<std::string> time_of_day;
    std::optional<int> day_of_week;
    std::optional<bool> enabled;

    bool changes_frequency() const {
        return frequency_type || run_at || interval_seconds || time_of_day || day_of_week;
    }
    bool changes_dispatch() const {
        return definition_id || target || params_json || changes_frequency();
    }
};

// `current` with `change` applied (not validated).
ScheduleSpec apply_change(const ScheduleSpec& current, const ScheduleChange& change);

// The checks of the fields on their own (InvalidArgument naming the field):
// name, definition id shape, target bounds, the frequency. Whether the
// definition exists, the params match it and the owner may dispatch it are
// the service's checks (schedule_dispatch.hpp).
Status validate_spec(const ScheduleSpec& spec);

}  // namespace yuzu::schedule
