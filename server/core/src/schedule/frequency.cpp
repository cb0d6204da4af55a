#include "yuzu/schedule/frequency.hpp"

#include <array>
#include <cassert>

namespace yuzu::schedule {
namespace {

constexpr std::array<std::string_view, 4> kTypeNames = {"once", "interval", "daily", "weekly"};

// 1970-01-01 was a Thursday.
constexpr int kEpochDayOfWeek = 4;

int64_t floor_div(int64_t a, int64_t b) {
    const int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

Status refuse_field(std::string_view field, FrequencyType type) {
    return Status::InvalidArgument(std::string(field) + " does not apply to " +
                                   std::string(frequency_type_name(type)) + " schedules");
}

}  // namespace

std::string_view frequency_type_name(FrequencyType type) {
    return kTypeNames[static_cast<size_t>(type)];
}

std::optional<FrequencyType> parse_frequency_type(std::string_view name) {
    for (size_t i = 0; i < kTypeNames.size(); ++i) {
        if (kTypeNames[i] == name) return static_cast<FrequencyType>(i);
    }
    return std::nullopt;
}

Result<int> parse_time_of_day(std::string_view text) {
    const Status bad =
        Status::InvalidArgument("time_of_day must be \"HH:MM\" (00:00 to 23:59 UTC)");
    if (text.size() != 5 || text[2] != ':') return bad;
    for (size_t i : {0u, 1u, 3u, 4u}) {
        if (!is_digit(text[i])) return bad;
    }
    const int hours = (text[0] - '0') * 10 + (text[1] - '0');
    const int minutes = (text[3] - '0') * 10 + (text[4] - '0');
    if (hours > 23 || minutes > 59) return bad;
    return hours * 60 + minutes;
}

Status validate(const Frequency& f) {
    const bool has_time = !f.time_of_day.empty();
    const bool has_day = f.day_of_week != -1;
    switch (f.type) {
        case FrequencyType::kOnce:
            if (f.run_at <= 0) return Status::InvalidArgument("run_at (Unix seconds) is required");
            if (f.interval_seconds != 0) return refuse_field("interval_seconds", f.type);
            if (has_time) return refuse_field("time_of_day", f.type);
            if (has_day) return refuse_field("day_of_week", f.type);
            return Status::Ok();
        case FrequencyType::kInterval:
            if (f.interval_seconds < kMinIntervalSeconds ||
                f.interval_seconds > kMaxIntervalSeconds) {
                return Status::InvalidArgument("interval_seconds must be from " +
                                               std::to_string(kMinIntervalSeconds) + " to " +
                                               std::to_string(kMaxIntervalSeconds) + " (30 days)");
            }
            if (f.run_at != 0) return refuse_field("run_at", f.type);
            if (has_time) return refuse_field("time_of_day", f.type);
            if (has_day) return refuse_field("day_of_week", f.type);
            return Status::Ok();
        case FrequencyType::kDaily:
        case FrequencyType::kWeekly: {
            if (!has_time)
                return Status::InvalidArgument("time_of_day (\"HH:MM\" UTC) is required");
            auto minutes = parse_time_of_day(f.time_of_day);
            if (!minutes.ok()) return minutes.status();
            if (f.run_at != 0) return refuse_field("run_at", f.type);
            if (f.interval_seconds != 0) return refuse_field("interval_seconds", f.type);
            if (f.type == FrequencyType::kDaily) {
                if (has_day) return refuse_field("day_of_week", f.type);
            } else if (f.day_of_week < 0 || f.day_of_week > 6) {
                return Status::InvalidArgument(
                    "day_of_week must be from 0 (Sunday) to 6 (Saturday)");
            }
            return Status::Ok();
        }
    }
    return Status::InvalidArgument("unknown frequency type");
}

int64_t next_wall_time(int64_t now, int minutes, int day_of_week) {
    const int64_t day = floor_div(now, kSecondsPerDay);
    int64_t candidate_day = day;
    if (day_of_week >= 0) {
        const int64_t today = ((day + kEpochDayOfWeek) % 7 + 7) % 7;
        candidate_day += (day_of_week - today + 7) % 7;
    }
    int64_t candidate = candidate_day * kSecondsPerDay + int64_t{minutes} * 60;
    if (candidate <= now) candidate += (day_of_week >= 0 ? 7 : 1) * kSecondsPerDay;
    return candidate;
}

int64_t first_run_at(const Frequency& f, int64_t now) {
    switch (f.type) {
        case FrequencyType::kOnce:
            return f.run_at;
        case FrequencyType::kInterval:
            return now + f.interval_seconds;
        case FrequencyType::kDaily:
        case FrequencyType::kWeekly:
            break;
    }
    auto minutes = parse_time_of_day(f.time_of_day);
    assert(minutes.ok() && "first_run_at needs a validated frequency");
    if (!minutes.ok()) return 0;
    return next_wall_time(now, *minutes, f.type == FrequencyType::kWeekly ? f.day_of_week : -1);
}

int64_t next_run_after(const Frequency& f, int64_t slot, int64_t now) {
    switch (f.type) {
        case FrequencyType::kOnce:
            return 0;
        case FrequencyType::kInterval: {
            assert(f.interval_seconds > 0);
            if (f.interval_seconds <= 0) return 0;
            if (slot > now) return slot;
            const int64_t k = (now - slot) / f.interval_seconds + 1;
            return slot + k * f.interval_seconds;
        }
        case FrequencyType::kDaily:
        case FrequencyType::kWeekly:
            break;
    }
    return first_run_at(f, now);
}

}  // namespace yuzu::schedule
