// Frequency: when a schedule runs, and the arithmetic of its next run.
//
//   once      run_at (Unix s), then never again
//   interval  every interval_seconds (1 s to 30 days), on a grid anchored
//             at the first run: missed slots are skipped, never replayed
//   daily     time_of_day "HH:MM", UTC
//   weekly    time_of_day "HH:MM" UTC on day_of_week (0 = Sunday .. 6)
//
// Times are Unix seconds; wall times are UTC (no time zones, no DST).
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "yuzu/common/status.hpp"

namespace yuzu::schedule {

inline constexpr int64_t kMinIntervalSeconds = 1;
inline constexpr int64_t kMaxIntervalSeconds = 30LL * 86400;
inline constexpr int64_t kSecondsPerDay = 86400;

enum class FrequencyType { kOnce, kInterval, kDaily, kWeekly };

// "once", "interval", "daily", "weekly".
std::string_view frequency_type_name(FrequencyType type);
std::optional<FrequencyType> parse_frequency_type(std::string_view name);

// Only the fields of `type` are meaningful; validate() refuses the others
// when set, so a caller's stray field is never silently ignored.
struct Frequency {
    FrequencyType type = FrequencyType::kInterval;
    int64_t run_at = 0;            // once
    int64_t interval_seconds = 0;  // interval
    std::string time_of_day;       // daily, weekly: "HH:MM"
    int day_of_week = -1;          // weekly: 0 = Sunday .. 6 = Saturday

    bool operator==(const Frequency&) const = default;
};

// Minutes after midnight of "HH:MM" (00:00 to 23:59, two digits each);
// InvalidArgument otherwise.
Result<int> parse_time_of_day(std::string_view text);

// InvalidArgument naming the field: a missing or out-of-range field of the
// type, or a field that belongs to another type.
Status validate(const Frequency& f);

// The first run of a valid frequency set up (or re-enabled) at `now`:
// run_at for once, now + interval, else the next matching wall time
// strictly after now.
int64_t first_run_at(const Frequency& f, int64_t now);

// The run after the one that was due at `slot`, executed at `now`: 0 for
// once; for interval the first slot + k * interval strictly after now (the
// slots missed in between are skipped: one catch-up run, not a burst); for
// daily and weekly the next matching wall time strictly after now.
int64_t next_run_after(const Frequency& f, int64_t slot, int64_t now);

// The next UTC time strictly after `now` at `minutes` past midnight, on
// weekday `day_of_week` (0 = Sunday) or, when it is -1, on any day.
int64_t next_wall_time(int64_t now, int minutes, int day_of_week);

}  // namespace yuzu::schedule
