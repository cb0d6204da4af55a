#include "yuzu/schedule/schedule.hpp"

#include <string_view>

namespace yuzu::schedule {
namespace {

bool has_control_chars(std::string_view s) {
    for (char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) return true;
    }
    return false;
}

Status validate_target(const ScheduleTarget& target) {
    if (target.agent_ids && !target.scope.empty()) {
        return Status::InvalidArgument("give either scope or agent_ids, not both");
    }
    if (target.scope.size() > kMaxScopeBytes || has_control_chars(target.scope)) {
        return Status::InvalidArgument("scope must be at most " + std::to_string(kMaxScopeBytes) +
                                       " bytes without control characters");
    }
    if (!target.agent_ids) return Status::Ok();
    if (target.agent_ids->empty() || target.agent_ids->size() > kMaxTargetAgents) {
        return Status::InvalidArgument("agent_ids must list 1 to " +
                                       std::to_string(kMaxTargetAgents) + " agent ids");
    }
    for (const auto& id : *target.agent_ids) {
        if (id.empty() || id.size() > kMaxAgentIdBytes || has_control_chars(id)) {
            return Status::InvalidArgument(
                "agent ids must be 1 to 128 characters without control characters");
        }
    }
    return Status::Ok();
}

}  // namespace

ScheduleSpec apply_change(const ScheduleSpec& current, const ScheduleChange& change) {
    ScheduleSpec out = current;
    if (change.name) out.name = *change.name;
    if (change.definition_id) out.definition_id = *change.definition_id;
    if (change.target) out.target = *change.target;
    if (change.params_json) out.params_json = *change.params_json;
    if (change.enabled) out.enabled = *change.enabled;
    if (change.changes_frequency()) {
        if (change.frequency_type && *change.frequency_type != current.frequency.type) {
            out.frequency = Frequency{};
            out.frequency.type = *change.frequency_type;
        }
        if (change.run_at) out.frequency.run_at = *change.run_at;
        if (change.interval_seconds) out.frequency.interval_seconds = *change.interval_seconds;
        if (change.time_of_day) out.frequency.time_of_day = *change.time_of_day;
        if (change.day_of_week) out.frequency.day_of_week = *change.day_of_week;
    }
    return out;
}

Status validate_spec(const ScheduleSpec& spec) {
    if (spec.name.empty() || spec.name.size() > kMaxScheduleNameBytes ||
        has_control_chars(spec.name)) {
        return Status::InvalidArgument("name: 1 to " + std::to_string(kMaxScheduleNameBytes) +
                                       " characters without control characters");
    }
    if (spec.definition_id.empty() || spec.definition_id.size() > kMaxDefinitionIdBytes ||
        has_control_chars(spec.definition_id)) {
        return Status::InvalidArgument("definition_id: 1 to " +
                                       std::to_string(kMaxDefinitionIdBytes) +
                                       " characters naming an instruction definition");
    }
    YUZU_RETURN_IF_ERROR(validate_target(spec.target));
    return validate(spec.frequency);
}

}  // namespace yuzu::schedule
