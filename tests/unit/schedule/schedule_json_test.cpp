// Schedule bodies and the field checks: strict JSON (unknown fields and
// wrong types are named), the shape rules of validate_spec, partial updates,
// and the JSON a schedule reads as on REST and MCP.
#include "yuzu/schedule/schedule_json.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace yuzu::schedule {
namespace {

using nlohmann::json;

json interval_body() {
    return {{"name", "os info"},
            {"definition_id", "os.info"},
            {"frequency_type", "interval"},
            {"interval_seconds", 60}};
}

// The InvalidArgument message of a body that must not become a valid spec.
std::string refusal(const json& body) {
    auto spec = spec_from_json(body);
    Status st = spec.ok() ? validate_spec(*spec) : spec.status();
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << body.dump();
    return st.message();
}

TEST(ScheduleJson, ACreateBodyBecomesASpec) {
    json body = interval_body();
    body["scope"] = "os = \"linux\"";
    body["params"] = json::object();
    auto spec = spec_from_json(body);
    ASSERT_TRUE(spec.ok()) << spec.status().to_string();
    EXPECT_TRUE(validate_spec(*spec).ok());
    EXPECT_EQ(spec->name, "os info");
    EXPECT_EQ(spec->definition_id, "os.info");
    EXPECT_EQ(spec->target.scope, "os = \"linux\"");
    EXPECT_FALSE(spec->target.agent_ids);
    EXPECT_EQ(spec->frequency.type, FrequencyType::kInterval);
    EXPECT_EQ(spec->frequency.interval_seconds, 60);
    EXPECT_TRUE(spec->enabled) << "enabled by default";
    EXPECT_EQ(spec->params_json, "{}");
}

TEST(ScheduleJson, ValidationErrorsNameTheField) {
    json unknown_type = interval_body();
    unknown_type["frequency_type"] = "hourly";
    EXPECT_EQ(refusal(unknown_type), "frequency_type must be once, interval, daily or weekly");

    json bad_time = {{"name", "n"},
                     {"definition_id", "os.info"},
                     {"frequency_type", "daily"},
                     {"time_of_day", "25:00"}};
    EXPECT_NE(refusal(bad_time).find("time_of_day must be \"HH:MM\""), std::string::npos);
    bad_time["time_of_day"] = "9:00";
    EXPECT_NE(refusal(bad_time).find("HH:MM"), std::string::npos);

    json zero = interval_body();
    zero["interval_seconds"] = 0;
    EXPECT_NE(refusal(zero).find("interval_seconds must be from 1"), std::string::npos);

    json misspelt = interval_body();
    misspelt.erase("interval_seconds");
    misspelt["interval"] = 60;
    EXPECT_EQ(refusal(misspelt), "unknown field 'interval'");

    json no_definition = interval_body();
    no_definition.erase("definition_id");
    EXPECT_EQ(refusal(no_definition), "missing field 'definition_id'");
    no_definition["definition_id"] = "";
    EXPECT_NE(refusal(no_definition).find("definition_id"), std::string::npos);

    json no_type = interval_body();
    no_type.erase("frequency_type");
    EXPECT_NE(refusal(no_type).find("missing field 'frequency_type'"), std::string::npos);

    json wrong_type = interval_body();
    wrong_type["interval_seconds"] = "60";
    EXPECT_EQ(refusal(wrong_type), "field 'interval_seconds' must be an integer");

    json both = interval_body();
    both["scope"] = "os = \"linux\"";
    both["agent_ids"] = json::array({"0123456789abcdef0123456789abcdef"});
    EXPECT_EQ(refusal(both), "give either scope or agent_ids, not both");

    json empty_ids = interval_body();
    empty_ids["agent_ids"] = json::array();
    EXPECT_EQ(refusal(empty_ids), "field 'agent_ids' must be a non-empty array of agent ids");

    json params = interval_body();
    params["params"] = json::array();
    EXPECT_EQ(refusal(params), "field 'params' must be a JSON object");

    json long_name = interval_body();
    long_name["name"] = std::string(kMaxScheduleNameBytes + 1, 'n');
    EXPECT_NE(refusal(long_name).find("name: 1 to 128"), std::string::npos);
    long_name["name"] = "tab\there";
    EXPECT_NE(refusal(long_name).find("control characters"), std::string::npos);

    json long_scope = interval_body();
    long_scope["scope"] = std::string(kMaxScopeBytes + 1, 'x');
    EXPECT_NE(refusal(long_scope).find("scope must be at most 4096"), std::string::npos);

    json day = {{"name", "n"},
                {"definition_id", "os.info"},
                {"frequency_type", "weekly"},
                {"time_of_day", "06:00"},
                {"day_of_week", 7}};
    EXPECT_NE(refusal(day).find("day_of_week must be from 0"), std::string::npos);

    EXPECT_EQ(refusal(json::array()), "the body must be a JSON object");
}

TEST(ScheduleJson, AnUpdateMergesTheSameFrequencyAndStartsANewOneAfresh) {
    auto base = spec_from_json({{"name", "weekly"},
                                {"definition_id", "os.info"},
                                {"frequency_type", "weekly"},
                                {"time_of_day", "06:00"},
                                {"day_of_week", 1},
                                {"agent_ids", json::array({"a1"})}});
    ASSERT_TRUE(base.ok()) << base.status().to_string();

    auto later = change_from_json({{"time_of_day", "07:30"}});
    ASSERT_TRUE(later.ok());
    ScheduleSpec merged = apply_change(*base, *later);
    EXPECT_EQ(merged.frequency.time_of_day, "07:30");
    EXPECT_EQ(merged.frequency.day_of_week, 1) << "the same type keeps its other fields";
    EXPECT_TRUE(validate_spec(merged).ok());

    auto to_interval = change_from_json({{"frequency_type", "interval"}, {"interval_seconds", 30}});
    ASSERT_TRUE(to_interval.ok());
    ScheduleSpec switched = apply_change(*base, *to_interval);
    EXPECT_EQ(switched.frequency.type, FrequencyType::kInterval);
    EXPECT_TRUE(switched.frequency.time_of_day.empty()) << "a new type starts afresh";
    EXPECT_EQ(switched.frequency.day_of_week, -1);
    EXPECT_TRUE(validate_spec(switched).ok());

    auto retarget = change_from_json({{"scope", "hostname LIKE \"web-%\""}});
    ASSERT_TRUE(retarget.ok());
    ScheduleSpec scoped = apply_change(*base, *retarget);
    EXPECT_FALSE(scoped.target.agent_ids) << "a target replaces the whole target";
    EXPECT_EQ(scoped.target.scope, "hostname LIKE \"web-%\"");

    EXPECT_EQ(change_from_json(json::object()).status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(change_from_json({{"enabled", "yes"}}).status().message(),
              "field 'enabled' must be a boolean");
    EXPECT_EQ(change_from_json({{"owner", "mallory"}}).status().message(), "unknown field 'owner'");
}

TEST(ScheduleJson, AScheduleReadsWithTheFieldsOfItsFrequencyOnly) {
    Schedule s;
    s.id = std::string(32, 'a');
    s.spec.name = "nightly";
    s.spec.definition_id = "os.info";
    s.spec.params_json = R"({"limit":5})";
    s.spec.frequency.type = FrequencyType::kWeekly;
    s.spec.frequency.time_of_day = "02:00";
    s.spec.frequency.day_of_week = 0;
    s.owner = "olivia";
    s.next_execution_at = 1'700'000'000;
    s.run_count = 2;
    const json j = to_json(s);
    EXPECT_EQ(j["id"], s.id);
    EXPECT_EQ(j["frequency_type"], "weekly");
    EXPECT_EQ(j["time_of_day"], "02:00");
    EXPECT_EQ(j["day_of_week"], 0);
    EXPECT_FALSE(j.contains("interval_seconds"));
    EXPECT_FALSE(j.contains("run_at"));
    EXPECT_EQ(j["params"], json({{"limit", 5}}));
    EXPECT_TRUE(j["agent_ids"].is_null());
    EXPECT_EQ(j["next_execution_at"], 1'700'000'000);
    EXPECT_EQ(j["run_count"], 2);
    EXPECT_EQ(j["owner"], "olivia");
    EXPECT_EQ(j["enabled"], true);
}

}  // namespace
}  // namespace yuzu::schedule
