// When a schedule runs next: "HH:MM" parsing, the frequency rules, and the
// next-run arithmetic of each type (UTC wall times, the day-of-week
// boundary, interval catch-up that skips missed slots instead of replaying
// them).
#include "yuzu/schedule/frequency.hpp"

#include <gtest/gtest.h>

namespace yuzu::schedule {
namespace {

// 2023-11-14 22:13:20 UTC, a Tuesday (the ManualClock's default start).
constexpr int64_t kTuesday = 1'700'000'000;
constexpr int64_t kTuesdayMidnight = 1'699'920'000;  // 2023-11-14 00:00:00 UTC
constexpr int64_t kDay = 86400;

Frequency daily(const char* time) {
    Frequency f;
    f.type = FrequencyType::kDaily;
    f.time_of_day = time;
    return f;
}

Frequency weekly(const char* time, int day) {
    Frequency f = daily(time);
    f.type = FrequencyType::kWeekly;
    f.day_of_week = day;
    return f;
}

Frequency interval(int64_t seconds) {
    Frequency f;
    f.type = FrequencyType::kInterval;
    f.interval_seconds = seconds;
    return f;
}

TEST(TimeOfDay, ParsesTwoDigitHoursAndMinutesAndNothingElse) {
    EXPECT_EQ(*parse_time_of_day("00:00"), 0);
    EXPECT_EQ(*parse_time_of_day("07:30"), 450);
    EXPECT_EQ(*parse_time_of_day("23:59"), 1439);
    for (const char* bad : {"24:00", "12:60", "7:30", "07:3", "07-30", "", "aa:bb", " 7:30",
                            "07:30 ", "07:30:00", "-1:30"}) {
        SCOPED_TRACE(bad);
        auto parsed = parse_time_of_day(bad);
        ASSERT_FALSE(parsed.ok());
        EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
        EXPECT_NE(parsed.status().message().find("HH:MM"), std::string::npos);
    }
}

TEST(FrequencyType, NamesRoundTripAndUnknownNamesAreRefused) {
    for (auto type : {FrequencyType::kOnce, FrequencyType::kInterval, FrequencyType::kDaily,
                      FrequencyType::kWeekly}) {
        EXPECT_EQ(parse_frequency_type(frequency_type_name(type)), type);
    }
    EXPECT_FALSE(parse_frequency_type("hourly"));
    EXPECT_FALSE(parse_frequency_type("Daily"));
}

TEST(FrequencyValidation, EachTypeNeedsItsFieldsAndRefusesOthers) {
    EXPECT_TRUE(validate(interval(1)).ok());
    EXPECT_TRUE(validate(interval(kMaxIntervalSeconds)).ok());
    EXPECT_TRUE(validate(daily("06:00")).ok());
    EXPECT_TRUE(validate(weekly("06:00", 0)).ok());
    EXPECT_TRUE(validate(weekly("06:00", 6)).ok());

    auto message = [](const Frequency& f) {
        Status st = validate(f);
        EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
        return st.message();
    };
    EXPECT_NE(message(interval(0)).find("interval_seconds"), std::string::npos);
    EXPECT_NE(message(interval(-5)).find("interval_seconds"), std::string::npos);
    EXPECT_NE(message(interval(kMaxIntervalSeconds + 1)).find("30 days"), std::string::npos);
    EXPECT_NE(message(daily("25:00")).find("HH:MM"), std::string::npos);
    EXPECT_NE(message(daily("")).find("time_of_day"), std::string::npos);
    EXPECT_NE(message(weekly("06:00", 7)).find("day_of_week"), std::string::npos);
    EXPECT_NE(message(weekly("06:00", -1)).find("day_of_week"), std::string::npos);

    Frequency once;
    once.type = FrequencyType::kOnce;
    EXPECT_NE(message(once).find("run_at"), std::string::npos);
    once.run_at = kTuesday;
    EXPECT_TRUE(validate(once).ok());
    once.interval_seconds = 60;
    EXPECT_EQ(message(once), "interval_seconds does not apply to once schedules");

    Frequency stray = interval(60);
    stray.time_of_day = "06:00";
    EXPECT_EQ(message(stray), "time_of_day does not apply to interval schedules");
    Frequency daily_with_day = daily("06:00");
    daily_with_day.day_of_week = 3;
    EXPECT_EQ(message(daily_with_day), "day_of_week does not apply to daily schedules");
}

TEST(NextRun, DailyIsTheNextMatchingUtcTimeStrictlyAfterNow) {
    // 22:14 is still ahead today; 22:13 has just passed, so tomorrow.
    EXPECT_EQ(first_run_at(daily("22:14"), kTuesday), kTuesdayMidnight + 22 * 3600 + 14 * 60);
    EXPECT_EQ(first_run_at(daily("22:13"), kTuesday),
              kTuesdayMidnight + kDay + 22 * 3600 + 13 * 60);
    EXPECT_EQ(first_run_at(daily("00:00"), kTuesday), kTuesdayMidnight + kDay);
    // Exactly at the time: the next one is a day later, never now again.
    const int64_t at_six = kTuesdayMidnight + 6 * 3600;
    EXPECT_EQ(next_run_after(daily("06:00"), at_six, at_six), at_six + kDay);
    // After downtime: the next run is counted from now, not from the slot.
    EXPECT_EQ(next_run_after(daily("06:00"), at_six - 3 * kDay, at_six + 60), at_six + kDay);
}

TEST(NextRun, WeeklyFindsTheDayAcrossTheWeekBoundary) {
    // Tuesday 22:13:20: later today, a week on, and each other weekday.
    EXPECT_EQ(first_run_at(weekly("22:14", 2), kTuesday), kTuesdayMidnight + 22 * 3600 + 14 * 60);
    EXPECT_EQ(first_run_at(weekly("22:13", 2), kTuesday),
              kTuesdayMidnight + 7 * kDay + 22 * 3600 + 13 * 60);
    EXPECT_EQ(first_run_at(weekly("09:00", 3), kTuesday), kTuesdayMidnight + kDay + 9 * 3600);
    EXPECT_EQ(first_run_at(weekly("00:00", 1), kTuesday), 1'700'438'400);  // Mon 2023-11-20
    EXPECT_EQ(first_run_at(weekly("23:59", 0), kTuesday),
              kTuesdayMidnight + 5 * kDay + 23 * 3600 + 59 * 60);  // Sun 2023-11-19
    EXPECT_EQ(first_run_at(weekly("12:00", 6), kTuesday),
              kTuesdayMidnight + 4 * kDay + 12 * 3600);  // Sat 2023-11-18

    // Saturday 23:59:30 to Sunday 00:00: the week wraps from 6 to 0.
    const int64_t saturday_late = kTuesdayMidnight + 4 * kDay + 23 * 3600 + 59 * 60 + 30;
    EXPECT_EQ(first_run_at(weekly("00:00", 0), saturday_late), kTuesdayMidnight + 5 * kDay);
    // Sunday 00:00 exactly: next Sunday, not today.
    const int64_t sunday = kTuesdayMidnight + 5 * kDay;
    EXPECT_EQ(next_run_after(weekly("00:00", 0), sunday, sunday), sunday + 7 * kDay);
    // Saturday 23:59 when it is Sunday 00:00: six days on.
    EXPECT_EQ(first_run_at(weekly("23:59", 6), sunday), sunday + 6 * kDay + 23 * 3600 + 59 * 60);
}

TEST(NextRun, IntervalCatchUpSkipsMissedSlotsOnItsGrid) {
    const Frequency every_minute = interval(60);
    EXPECT_EQ(first_run_at(every_minute, kTuesday), kTuesday + 60);
    // On time: the next slot.
    EXPECT_EQ(next_run_after(every_minute, 1000, 1000), 1060);
    EXPECT_EQ(next_run_after(every_minute, 1000, 1001), 1060);
    // Five slots missed: one catch-up run now, then the first slot after
    // now on the same grid (1000 + 6 * 60), not 1060, 1120, ...
    EXPECT_EQ(next_run_after(every_minute, 1000, 1310), 1360);
    // A slot exactly at now has been run by this run: strictly after.
    EXPECT_EQ(next_run_after(every_minute, 1000, 1300), 1360);
    // A week of downtime on a 30-day interval: still one slot ahead.
    const Frequency monthly = interval(kMaxIntervalSeconds);
    EXPECT_EQ(next_run_after(monthly, 1000, 1000 + 7 * kDay), 1000 + kMaxIntervalSeconds);
    // Not yet due: unchanged.
    EXPECT_EQ(next_run_after(every_minute, 2000, 1500), 2000);
}

TEST(NextRun, OnceHasNoRunAfterItsOwn) {
    Frequency once;
    once.type = FrequencyType::kOnce;
    once.run_at = kTuesday + 3600;
    EXPECT_EQ(first_run_at(once, kTuesday), kTuesday + 3600);
    EXPECT_EQ(next_run_after(once, once.run_at, once.run_at), 0);
}

}  // namespace
}  // namespace yuzu::schedule
