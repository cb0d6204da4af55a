#include "yuzu/schedule/schedule_json.hpp"

#include <array>
#include <nlohmann/json.hpp>
#include <string_view>

#include "yuzu/common/json_parse.hpp"
#include "yuzu/common/json_text.hpp"

namespace yuzu::schedule {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 11> kFields = {
    "name",       "definition_id",  "scope",  "agent_ids",        "params",
    "enabled",    "frequency_type", "run_at", "interval_seconds", "time_of_day",
    "day_of_week"};

Status check_known_fields(const json& body) {
    if (!body.is_object()) return Status::InvalidArgument("the body must be a JSON object");
    for (const auto& [key, value] : body.items()) {
        bool known = false;
        for (std::string_view f : kFields) known = known || f == key;
        if (!known) return Status::InvalidArgument("unknown field '" + key + "'");
    }
    return Status::Ok();
}

// The field when present and not null.
const json* field(const json& body, const char* key) {
    auto it = body.find(key);
    if (it == body.end() || it->is_null()) return nullptr;
    return &*it;
}

Result<std::optional<std::string>> string_field(const json& body, const char* key) {
    const json* v = field(body, key);
    if (v == nullptr) return std::optional<std::string>{};
    if (!v->is_string()) {
        return Status::InvalidArgument(std::string("field '") + key + "' must be a string");
    }
    return std::optional<std::string>{v->get<std::string>()};
}

Result<std::optional<int64_t>> int_field(const json& body, const char* key) {
    const json* v = field(body, key);
    if (v == nullptr) return std::optional<int64_t>{};
    if (!v->is_number_integer()) {
        return Status::InvalidArgument(std::string("field '") + key + "' must be an integer");
    }
    return std::optional<int64_t>{v->get<int64_t>()};
}

Result<std::optional<bool>> bool_field(const json& body, const char* key) {
    const json* v = field(body, key);
    if (v == nullptr) return std::optional<bool>{};
    if (!v->is_boolean()) {
        return Status::InvalidArgument(std::string("field '") + key + "' must be a boolean");
    }
    return std::optional<bool>{v->get<bool>()};
}

// scope and agent_ids as the executions dispatch body reads them; nullopt
// when the body names neither.
Result<std::optional<ScheduleTarget>> target_field(const json& body) {
    auto scope = string_field(body, "scope");
    if (!scope.ok()) return scope.status();
    const json* ids = field(body, "agent_ids");
    if (!*scope && ids == nullptr) return std::optional<ScheduleTarget>{};
    ScheduleTarget target;
    target.scope = scope->value_or("");
    if (ids != nullptr) {
        if (!ids->is_array() || ids->empty()) {
            return Status::InvalidArgument(
                "field 'agent_ids' must be a non-empty array of agent ids");
        }
        std::vector<std::string> list;
        list.reserve(ids->size());
        for (const auto& id : *ids) {
            if (!id.is_string()) {
                return Status::InvalidArgument("field 'agent_ids' must list strings");
            }
            list.push_back(id.get<std::string>());
        }
        target.agent_ids = std::move(list);
    }
    return std::optional<ScheduleTarget>{std::move(target)};
}

Result<std::optional<std::string>> params_field(const json& body) {
    const json* v = field(body, "params");
    if (v == nullptr) return std::optional<std::string>{};
    if (!v->is_object()) return Status::InvalidArgument("field 'params' must be a JSON object");
    return std::optional<std::string>{dump_json(*v)};
}

// Every field of a change, none required.
Result<ScheduleChange> read_change(const json& body) {
    YUZU_RETURN_IF_ERROR(check_known_fields(body));
    ScheduleChange c;
    auto name = string_field(body, "name");
    if (!name.ok()) return name.status();
    c.name = *name;
    auto definition = string_field(body, "definition_id");
    if (!definition.ok()) return definition.status();
    c.definition_id = *definition;
    auto target = target_field(body);
    if (!target.ok()) return target.status();
    c.target = *target;
    auto params = params_field(body);
    if (!params.ok()) return params.status();
    c.params_json = *params;
    auto enabled = bool_field(body, "enabled");
    if (!enabled.ok()) return enabled.status();
    c.enabled = *enabled;

    auto type = string_field(body, "frequency_type");
    if (!type.ok()) return type.status();
    if (*type) {
        auto parsed = parse_frequency_type(**type);
        if (!parsed) {
            return Status::InvalidArgument(
                "frequency_type must be once, interval, daily or weekly");
        }
        c.frequency_type = *parsed;
    }
    auto run_at = int_field(body, "run_at");
    if (!run_at.ok()) return run_at.status();
    c.run_at = *run_at;
    auto interval = int_field(body, "interval_seconds");
    if (!interval.ok()) return interval.status();
    c.interval_seconds = *interval;
    auto time = string_field(body, "time_of_day");
    if (!time.ok()) return time.status();
    c.time_of_day = *time;
    auto day = int_field(body, "day_of_week");
    if (!day.ok()) return day.status();
    if (*day) {
        // Out of range here would wrap in the int; the range check is validate()'s.
        if (**day < 0 || **day > 6) {
            return Status::InvalidArgument("day_of_week must be from 0 (Sunday) to 6 (Saturday)");
        }
        c.day_of_week = static_cast<int>(**day);
    }
    return c;
}

}  // namespace

json to_json(const Schedule& s) {
    const ScheduleSpec& spec = s.spec;
    json params = parse_json_or_discarded(spec.params_json);
    if (params.is_discarded()) params = json::object();
    json out = {{"id", s.id},
                {"name", spec.name},
                {"definition_id", spec.definition_id},
                {"scope", spec.target.scope},
                {"agent_ids", spec.target.agent_ids ? json(*spec.target.agent_ids) : json()},
                {"params", std::move(params)},
                {"frequency_type", std::string(frequency_type_name(spec.frequency.type))},
                {"enabled", spec.enabled},
                {"owner", s.owner},
                {"created_at", s.created_at},
                {"updated_at", s.updated_at},
                {"next_execution_at", s.next_execution_at},
                {"last_run_at", s.last_run_at},
                {"last_execution_id", s.last_execution_id},
                {"run_count", s.run_count},
                {"last_error", s.last_error}};
    switch (spec.frequency.type) {
        case FrequencyType::kOnce:
            out["run_at"] = spec.frequency.run_at;
            break;
        case FrequencyType::kInterval:
            out["interval_seconds"] = spec.frequency.interval_seconds;
            break;
        case FrequencyType::kWeekly:
            out["day_of_week"] = spec.frequency.day_of_week;
            [[fallthrough]];
        case FrequencyType::kDaily:
            out["time_of_day"] = spec.frequency.time_of_day;
            break;
    }
    return out;
}

Result<ScheduleSpec> spec_from_json(const json& body) {
    auto change = read_change(body);
    if (!change.ok()) return change.status();
    if (!change->name) return Status::InvalidArgument("missing field 'name'");
    if (!change->definition_id) return Status::InvalidArgument("missing field 'definition_id'");
    if (!change->frequency_type) {
        return Status::InvalidArgument(
            "missing field 'frequency_type' (once, interval, daily or weekly)");
    }
    ScheduleSpec spec;
    spec.name = *change->name;
    spec.definition_id = *change->definition_id;
    if (change->target) spec.target = *change->target;
    if (change->params_json) spec.params_json = *change->params_json;
    spec.enabled = change->enabled.value_or(true);
    spec.frequency.type = *change->frequency_type;
    spec.frequency.run_at = change->run_at.value_or(0);
    spec.frequency.interval_seconds = change->interval_seconds.value_or(0);
    spec.frequency.time_of_day = change->time_of_day.value_or("");
    spec.frequency.day_of_week = change->day_of_week.value_or(-1);
    return spec;
}

Result<ScheduleChange> change_from_json(const json& body) {
    auto change = read_change(body);
    if (!change.ok()) return change.status();
    if (!change->name && !change->enabled && !change->changes_dispatch()) {
        return Status::InvalidArgument("nothing to change: give at least one schedule field");
    }
    return change;
}

}  // namespace yuzu::schedule
