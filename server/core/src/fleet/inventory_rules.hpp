// What InventoryStore::replace() checks in a report before it opens a
// transaction: source names, statuses, reasons, the per-source size cap and
// that each source's data is JSON within the depth limit; and the
// installed-software rows a "packages" source yields.
//
// Thread-safety: pure functions; safe to call from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "yuzu/common/status.hpp"
#include "yuzu/fleet/inventory_store.hpp"

namespace yuzu::fleet {

inline constexpr size_t kMaxSourceNameBytes = 64;
inline constexpr size_t kMaxSourcesPerReport = 64;
inline constexpr size_t kMaxReasonBytes = 1024;
inline constexpr std::string_view kPackagesSource = "packages";

using Package = std::tuple<std::string, std::string, std::string>;  // name, version, arch

// [a-z0-9_]{1,64}
bool is_source_name(std::string_view s);

// An item checked and ready to store.
struct CheckedItem {
    const InventoryItem* item = nullptr;  // points into the checked report
    std::string data_json;                // "null" when unavailable
    std::string reason;                   // empty unless unavailable
    int64_t collected_at_ms = 0;          // the item's, or now when it gave none
};

struct CheckedReport {
    std::vector<CheckedItem> items;  // in the report's order
    // Set when the report carries "packages": the rows the index should hold.
    std::optional<std::vector<Package>> packages;
};

// The report of `agent_id` checked at now_ms: at most kMaxSourcesPerReport
// items, each source named once. InvalidArgument for a bad source name,
// status, reason or JSON; PayloadTooLarge over kMaxInventorySourceBytes.
// The result points into `items`, which must outlive it.
Result<CheckedReport> check_inventory_report(const std::string& agent_id,
                                             const std::vector<InventoryItem>& items,
                                             int64_t now_ms);

}  // namespace yuzu::fleet
