// InventoryStore::count_condition: fleet-wide readings of one source (a
// pending reboot, a failed service) computed by SQLite's JSON functions, so
// a posture read never pulls every agent's blob into the server.
#include <nlohmann/json.hpp>

#include "yuzu/common/json_text.hpp"
#include "yuzu/fleet/inventory_store.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::fleet {
namespace {

// One row per agent that reported the source: whether it had data, whether
// the condition holds, and what was seen (a JSON array of failed unit
// names). The data is agent-reported JSON of any shape: an element is read
// only when it is an object, and a name only when it is a string, cut to
// kMaxConditionUnitChars characters, so no payload can fail the statement
// or grow the answer.
constexpr std::string_view kRebootPendingSql =
    "SELECT agent_id, status = 'ok', "
    "status = 'ok' AND json_type(data_json) = 'object' "
    "  AND coalesce(json_extract(data_json, '$.pending'), 0) = 1, '[]' "
    "FROM inventory WHERE source = 'reboot_pending'";
constexpr std::string_view kFailedServiceSql =
    "SELECT agent_id, status = 'ok', "
    "CASE WHEN status = 'ok' AND json_type(data_json) = 'array' THEN "
    "  EXISTS (SELECT 1 FROM json_each(data_json) WHERE "
    "    (CASE WHEN type = 'object' THEN json_extract(value, '$.active') END) = 'failed') "
    "ELSE 0 END, "
    "CASE WHEN status = 'ok' AND json_type(data_json) = 'array' THEN "
    "  (SELECT json_group_array(u) FROM (SELECT substr(json_extract(value, '$.unit'), 1, :chars) "
    "AS u "
    "     FROM json_each(data_json) WHERE "
    "     (CASE WHEN type = 'object' THEN json_extract(value, '$.active') END) = 'failed' "
    "     AND (CASE WHEN type = 'object' THEN json_type(value, '$.unit') END) = 'text' "
    "     LIMIT :units)) "
    "ELSE '[]' END "
    "FROM inventory WHERE source = 'systemd_units'";

}  // namespace

Result<ConditionCount> InventoryStore::count_condition(
    InventoryCondition condition, const std::optional<std::set<std::string>>& only_agents,
    int sample) const {
    if (sample < 0 || sample > 100) {
        return Status::InvalidArgument("sample must be between 0 and 100");
    }
    ConditionCount out;
    if (only_agents && only_agents->empty()) return out;
    std::string sql(condition == InventoryCondition::kRebootPending ? kRebootPendingSql
                                                                    : kFailedServiceSql);
    if (only_agents) sql += " AND agent_id IN (SELECT value FROM json_each(:only))";
    sql += " ORDER BY agent_id";

    auto conn = reader_.lock();
    auto stmt = conn.prepare(sql);
    if (!stmt.ok()) return stmt.status();
    if (only_agents) stmt->bind(":only", dump_json(nlohmann::json(*only_agents)));
    if (condition == InventoryCondition::kFailedService) {
        stmt->bind(":chars", kMaxConditionUnitChars).bind(":units", kMaxConditionUnits);
    }
    for (;;) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        if (stmt->column_int64(1) == 0) {
            ++out.unavailable;
            continue;
        }
        ++out.reporting;
        if (stmt->column_int64(2) == 0) continue;
        ++out.affected;
        if (out.first_affected.size() < static_cast<size_t>(sample)) {
            ConditionAgent agent{stmt->column_text(0), {}};
            // Our own statement's json_group_array: an array of strings.
            auto units = nlohmann::json::parse(stmt->column_text(3), nullptr, false);
            if (units.is_array()) {
                for (const auto& u : units) {
                    if (u.is_string()) agent.units.push_back(u.get<std::string>());
                }
            }
            out.first_affected.push_back(std::move(agent));
        }
    }
    return out;
}

}  // namespace yuzu::fleet
