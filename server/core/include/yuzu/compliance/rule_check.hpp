// Applying a rule to what one agent reported: compliant, non_compliant or
// unknown, with a short detail for the person reading the result
// ("used_pct 93.5 on /", "reboot_pending unavailable: ...").
//
// Unknown means the server cannot tell: the source was never reported, the
// agent could not read it, the report is older than the staleness bound, or
// a field the rule needs is missing from a selected element.
//
// Thread-safety: pure functions; safe from any thread.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "yuzu/compliance/rule.hpp"
#include "yuzu/fleet/inventory_store.hpp"

namespace yuzu::compliance {

inline constexpr size_t kMaxDetailBytes = 256;

enum class CheckStatus { kCompliant, kNonCompliant, kUnknown };

std::string_view check_status_name(CheckStatus status);  // "compliant", ...
std::optional<CheckStatus> parse_check_status(std::string_view name);

struct CheckOutcome {
    CheckStatus status = CheckStatus::kUnknown;
    std::string detail;
};

// `data` is the source's JSON as the agent reported it.
CheckOutcome apply_rule(const Rule& rule, const nlohmann::json& data);

// The whole judgement for one agent: `item` is its row for rule.source (null
// when it never reported that source). A report received more than
// `stale_after_ms` before `now_ms` is unknown (server time, so a skewed agent
// clock does not matter).
CheckOutcome check_inventory(const Rule& rule, const fleet::InventoryItem* item, int64_t now_ms,
                             int64_t stale_after_ms);

// "45s", "12m", "3h 5m", "2d 4h": for details and logs.
std::string human_duration_ms(int64_t ms);

}  // namespace yuzu::compliance
