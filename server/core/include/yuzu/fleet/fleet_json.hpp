// JSON shapes of fleet objects, shared by the REST routes and their MCP
// twins so both surfaces answer with the same fields. Times are epoch
// seconds, as in the rest of the API.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/fleet/enrollment.hpp"
#include "yuzu/fleet/inventory_store.hpp"
#include "yuzu/fleet/tag_store.hpp"

namespace yuzu::fleet {

// {agent_id, hostname, os, os_version, arch, version, online, last_seen,
//  first_seen, enrolled_at, uptime_s, quarantined, quarantine?{reason, by, at},
//  perf?{cpu_pct, mem_used_pct, disk_used_pct, load1, at}}
nlohmann::json to_json(const AgentRecord& agent);
// {id, note, created_by, created_at, expires_at, max_uses, uses, revoked}
nlohmann::json to_json(const EnrollmentToken& token);
// {agent_id, source, status, reason?, data, collected_at}
nlohmann::json to_json(const InventoryItem& item);
// {source, agent_count, last_collected}
nlohmann::json to_json(const InventoryTable& table);
// {agent_id, name, version, arch}
nlohmann::json to_json(const InstalledSoftware& software);
// {key, value, source, updated_at}
nlohmann::json to_json(const Tag& tag);

}  // namespace yuzu::fleet
