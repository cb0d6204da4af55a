#include "yuzu/fleet/fleet_json.hpp"

#include <nlohmann/json.hpp>

#include "yuzu/common/json_parse.hpp"

namespace yuzu::fleet {
namespace {

void put_optional(nlohmann::json& out, const char* key, const std::optional<double>& v) {
    if (v) out[key] = *v;
}

}  // namespace

nlohmann::json to_json(const AgentRecord& a) {
    nlohmann::json out = {{"agent_id", a.agent_id},
                          {"hostname", a.hostname},
                          {"os", a.os},
                          {"os_version", a.os_version},
                          {"arch", a.arch},
                          {"version", a.version},
                          {"online", a.online},
                          {"last_seen", a.last_seen_ms / 1000},
                          {"first_seen", a.first_seen_ms / 1000},
                          {"enrolled_at", a.enrolled_at_ms / 1000},
                          {"quarantined", a.quarantined}};
    out["uptime_s"] = a.uptime_s >= 0 ? nlohmann::json(a.uptime_s) : nlohmann::json(nullptr);
    if (a.device_revoked) out["device_revoked"] = true;
    if (a.quarantined) {
        out["quarantine"] = {{"reason", a.quarantine_reason},
                             {"by", a.quarantined_by},
                             {"at", a.quarantined_at_ms / 1000}};
    }
    if (a.perf) {
        nlohmann::json perf = nlohmann::json::object();
        put_optional(perf, "cpu_pct", a.perf->cpu_pct);
        put_optional(perf, "mem_used_pct", a.perf->mem_used_pct);
        put_optional(perf, "disk_used_pct", a.perf->disk_used_pct);
        put_optional(perf, "load1", a.perf->load1);
        perf["at"] = a.perf->at_ms / 1000;
        out["perf"] = std::move(perf);
    }
    return out;
}

nlohmann::json to_json(const EnrollmentToken& t) {
    return {{"id", t.id},
            {"note", t.note},
            {"created_by", t.created_by},
            {"created_at", t.created_at_ms / 1000},
            {"expires_at", t.expires_at_ms / 1000},
            {"max_uses", t.max_uses},
            {"uses", t.uses},
            {"revoked", t.revoked}};
}

nlohmann::json to_json(const InventoryItem& item) {
    nlohmann::json data = parse_json_or_discarded(item.data_json);
    if (data.is_discarded()) data = nullptr;
    nlohmann::json out = {{"agent_id", item.agent_id},
                          {"source", item.source},
                          {"status", item.status},
                          {"data", std::move(data)},
                          {"collected_at", item.collected_at_ms / 1000}};
    if (!item.reason.empty()) out["reason"] = item.reason;
    return out;
}

nlohmann::json to_json(const InventoryTable& t) {
    return {{"source", t.source},
            {"agent_count", t.agent_count},
            {"last_collected", t.last_collected_ms / 1000}};
}

nlohmann::json to_json(const InstalledSoftware& s) {
    return {{"agent_id", s.agent_id}, {"name", s.name}, {"version", s.version}, {"arch", s.arch}};
}

nlohmann::json to_json(const Tag& t) {
    return {{"key", t.key},
            {"value", t.value},
            {"source", t.source},
            {"updated_at", t.updated_at_ms / 1000}};
}

}  // namespace yuzu::fleet
