#include "yuzu/compliance/compliance_json.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

namespace yuzu::compliance {
namespace {

using nlohmann::json;

int64_t seconds(int64_t ms) {
    return ms / 1000;
}

double round2(double v) {
    return std::round(v * 100.0) / 100.0;
}

json stats_json(const std::optional<MetricStats>& s) {
    if (!s) return nullptr;
    return json{
        {"avg", round2(s->avg)}, {"p50", s->p50}, {"p90", s->p90}, {"max", s->max}, {"n", s->n}};
}

Status check_keys(const json& body, std::initializer_list<const char*> allowed) {
    for (auto it = body.begin(); it != body.end(); ++it) {
        bool known = false;
        for (const char* a : allowed) known = known || it.key() == a;
        if (!known) return Status::InvalidArgument("unknown field '" + it.key() + "'");
    }
    return Status::Ok();
}

// body[key] as a string: absent or null leaves `out` empty.
Status read_text(const json& body, const char* key, std::optional<std::string>& out) {
    auto it = body.find(key);
    if (it == body.end() || it->is_null()) return Status::Ok();
    if (!it->is_string()) return Status::InvalidArgument(std::string(key) + " must be a string");
    out = it->get<std::string>();
    return Status::Ok();
}

Status read_flag(const json& body, const char* key, std::optional<bool>& out) {
    auto it = body.find(key);
    if (it == body.end() || it->is_null()) return Status::Ok();
    if (!it->is_boolean()) return Status::InvalidArgument(std::string(key) + " must be a boolean");
    out = it->get<bool>();
    return Status::Ok();
}

}  // namespace

json to_json(const Policy& p) {
    return json{{"id", p.id},
                {"name", p.name},
                {"description", p.description},
                {"enabled", p.enabled},
                {"scope_expression", p.scope_expression},
                {"rule", to_json(p.rule)},
                {"created_by", p.created_by},
                {"created_at", seconds(p.created_at_ms)},
                {"updated_at", seconds(p.updated_at_ms)}};
}

json to_json(const CheckResult& r) {
    return json{{"policy_id", r.policy_id},
                {"agent_id", r.agent_id},
                {"status", check_status_name(r.status)},
                {"detail", r.detail},
                {"evaluated_at", seconds(r.evaluated_at_ms)}};
}

json to_json(const PolicySummary& s) {
    return json{{"policy_id", s.policy_id},
                {"name", s.name},
                {"enabled", s.enabled},
                {"compliant", s.compliant},
                {"non_compliant", s.non_compliant},
                {"unknown", s.unknown},
                {"total", s.total},
                {"last_evaluated",
                 s.last_evaluated_ms == 0 ? json(nullptr) : json(seconds(s.last_evaluated_ms))}};
}

json to_json(const FleetCompliance& f) {
    return json{{"total_checks", f.total_checks},
                {"compliant", f.compliant},
                {"non_compliant", f.non_compliant},
                {"unknown", f.unknown},
                {"compliance_pct", f.compliance_pct ? json(*f.compliance_pct) : json(nullptr)},
                {"policies", f.policies}};
}

json to_json(const EvaluationReport& r) {
    return json{{"evaluated_at", seconds(r.evaluated_at_ms)},
                {"policies", r.policies},
                {"checks", r.checks},
                {"compliant", r.compliant},
                {"non_compliant", r.non_compliant},
                {"unknown", r.unknown}};
}

json to_json(const PerfFleetStats& s) {
    return json{{"cpu_pct", stats_json(s.cpu_pct)},
                {"mem_used_pct", stats_json(s.mem_used_pct)},
                {"disk_used_pct", stats_json(s.disk_used_pct)},
                {"load1", stats_json(s.load1)},
                {"reporting", s.reporting},
                {"online", s.online}};
}

json to_json(const PerfDevice& d) {
    json out = {{"agent_id", d.agent_id},
                {"hostname", d.hostname},
                {"online", d.online},
                {"sample_at", seconds(d.sample.at_ms)},
                {"fleet_pctile", d.fleet_pctile}};
    if (d.sample.cpu_pct) out["cpu_pct"] = *d.sample.cpu_pct;
    if (d.sample.mem_used_pct) out["mem_used_pct"] = *d.sample.mem_used_pct;
    if (d.sample.disk_used_pct) out["disk_used_pct"] = *d.sample.disk_used_pct;
    if (d.sample.load1) out["load1"] = *d.sample.load1;
    return out;
}

json to_json(const SilentDevice& d) {
    return json{
        {"agent_id", d.agent_id}, {"hostname", d.hostname}, {"last_seen", seconds(d.last_seen_ms)}};
}

Result<NewPolicy> new_policy_from_json(const json& body, const std::string& created_by) {
    if (!body.is_object()) return Status::InvalidArgument("the policy must be a JSON object");
    YUZU_RETURN_IF_ERROR(
        check_keys(body, {"name", "description", "enabled", "scope_expression", "rule"}));
    std::optional<std::string> name, description, scope;
    std::optional<bool> enabled;
    YUZU_RETURN_IF_ERROR(read_text(body, "name", name));
    YUZU_RETURN_IF_ERROR(read_text(body, "description", description));
    YUZU_RETURN_IF_ERROR(read_text(body, "scope_expression", scope));
    YUZU_RETURN_IF_ERROR(read_flag(body, "enabled", enabled));
    if (!name) return Status::InvalidArgument("name: missing");
    auto rule_it = body.find("rule");
    if (rule_it == body.end() || rule_it->is_null()) {
        return Status::InvalidArgument("rule: missing");
    }
    auto rule = parse_rule(*rule_it);
    if (!rule.ok()) return rule.status();
    NewPolicy spec;
    spec.name = *name;
    spec.description = description.value_or("");
    spec.enabled = enabled.value_or(true);
    spec.scope_expression = scope.value_or("");
    spec.rule = std::move(rule).value();
    spec.created_by = created_by;
    return spec;
}

Result<PolicyUpdate> policy_update_from_json(const json& body) {
    if (!body.is_object()) return Status::InvalidArgument("the update must be a JSON object");
    YUZU_RETURN_IF_ERROR(
        check_keys(body, {"name", "description", "enabled", "scope_expression", "rule"}));
    PolicyUpdate u;
    YUZU_RETURN_IF_ERROR(read_text(body, "name", u.name));
    YUZU_RETURN_IF_ERROR(read_text(body, "description", u.description));
    YUZU_RETURN_IF_ERROR(read_text(body, "scope_expression", u.scope_expression));
    YUZU_RETURN_IF_ERROR(read_flag(body, "enabled", u.enabled));
    if (auto it = body.find("rule"); it != body.end() && !it->is_null()) {
        auto rule = parse_rule(*it);
        if (!rule.ok()) return rule.status();
        u.rule = std::move(rule).value();
    }
    return u;
}

}  // namespace yuzu::compliance
