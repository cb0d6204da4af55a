// The agent plane's request bodies (docs/agent-protocol.md), from text to
// typed values: what the /agent/v1/ routes do with a body before any store
// sees it. Every failure is InvalidArgument carrying the message the agent
// gets in its 400 answer. These check the shape only; whether the values
// are acceptable is for the services' own checks (check_self_description,
// check_heartbeat, check_inventory_report), as the routes call them.
//
// Thread-safety: pure functions; safe to call from any thread.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "yuzu/common/status.hpp"
#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/fleet/command_result.hpp"
#include "yuzu/fleet/enrollment.hpp"
#include "yuzu/fleet/inventory_store.hpp"

namespace yuzu::agentapi {

using fleet::CommandResult;
using fleet::EnrollRequest;
using fleet::Heartbeat;
using fleet::InventoryItem;
using fleet::PerfSample;

// The body as a JSON object, parsed by parse_json (so never deeper than
// kMaxJsonDepth levels).
Result<nlohmann::json> parse_body_object(std::string_view body);

// POST /agent/v1/enroll. Absent or null fields stay empty; source_ip is
// left empty (it comes from the connection, not the body).
Result<EnrollRequest> read_enroll_body(const nlohmann::json& body);

// Whole-number fields (uptime_s, collected_at, duration_ms) take a JSON
// number truncated toward zero, saturated at the int64 range.

// POST /agent/v1/heartbeat. uptime_s stays -1 unless a number >= 0 is
// given; perf is set when "perf" is an object, with at_ms left 0 for the
// route to stamp.
Result<Heartbeat> read_heartbeat_body(const nlohmann::json& body);

// POST /agent/v1/inventory: one item per entry of "sources", for agent_id,
// received at now_ms. collected_at is the body's when it is a number > 0,
// never later than now_ms; otherwise now_ms.
Result<std::vector<InventoryItem>> read_inventory_body(const nlohmann::json& body,
                                                       const std::string& agent_id, int64_t now_ms);

// POST /agent/v1/inventory's optional "sources_sha256" (the digest of the
// report's sources): empty when absent; InvalidArgument unless it is 64
// lowercase hex digits. With it and without "sources", the report only says
// the sources are unchanged.
Result<std::string> read_inventory_digest(const nlohmann::json& body);
// Whether the inventory body carries "sources" at all.
bool has_inventory_sources(const nlohmann::json& body);
// The body's "collected_at" when it is a number > 0, else 0.
int64_t read_collected_at(const nlohmann::json& body);

// POST /agent/v1/results: command_id is non-empty and status is success,
// failure, refused or timeout; output_json is the "output" value serialised
// ("null" when absent); duration_ms stays 0 unless a number >= 0 is given.
// received_at_ms is left 0 for the route to stamp.
Result<CommandResult> read_result_body(const nlohmann::json& body);

}  // namespace yuzu::agentapi
