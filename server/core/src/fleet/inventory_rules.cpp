#include "fleet/inventory_rules.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "fleet/field_rules.hpp"
#include "yuzu/common/json_parse.hpp"

namespace yuzu::fleet {
namespace {

// The {name, version, arch} entries of a "packages" array. Entries without a
// string name are skipped: the index serves lookups by name.
std::vector<Package> packages_of(const nlohmann::json& data) {
    std::vector<Package> out;
    auto text = [](const nlohmann::json& entry, const char* key) {
        auto it = entry.find(key);
        return it != entry.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    for (const auto& entry : data) {
        if (!entry.is_object()) continue;
        std::string name = text(entry, "name");
        if (name.empty()) continue;
        out.emplace_back(std::move(name), text(entry, "version"), text(entry, "arch"));
    }
    return out;
}

Result<CheckedItem> check_item(const std::string& agent_id, const InventoryItem& item,
                               int64_t now_ms, std::optional<std::vector<Package>>& packages) {
    if (!is_source_name(item.source)) {
        return Status::InvalidArgument("inventory source name must match [a-z0-9_]{1,64}");
    }
    const std::string label = "inventory source '" + item.source + "'";
    if (!item.agent_id.empty() && item.agent_id != agent_id) {
        return Status::InvalidArgument(label + " names another agent");
    }
    if (item.collected_at_ms < 0) {
        return Status::InvalidArgument(label + ": collected_at must not be negative");
    }
    CheckedItem out;
    out.item = &item;
    out.collected_at_ms = item.collected_at_ms == 0 ? now_ms : item.collected_at_ms;
    if (item.status == "unavailable") {
        YUZU_RETURN_IF_ERROR(
            check_text_field(label + " reason", item.reason, 0, kMaxReasonBytes, true));
        out.reason = item.reason;
        out.data_json = "null";
        if (item.source == kPackagesSource) packages.emplace();  // nothing is known now
        return out;
    }
    if (item.status != "ok") {
        return Status::InvalidArgument(label + ": status must be \"ok\" or \"unavailable\"");
    }
    if (item.data_json.size() > kMaxInventorySourceBytes) {
        return Status::PayloadTooLarge(label + " is " + std::to_string(item.data_json.size()) +
                                       " bytes; the cap per source is " +
                                       std::to_string(kMaxInventorySourceBytes) + " bytes");
    }
    auto parsed = parse_json_or_discarded(item.data_json);
    if (parsed.is_discarded()) return Status::InvalidArgument(label + ": data is not valid JSON");
    if (item.source == kPackagesSource) {
        packages = parsed.is_array() ? packages_of(parsed) : std::vector<Package>{};
    }
    out.data_json = item.data_json;
    return out;
}

}  // namespace

bool is_source_name(std::string_view s) {
    return !s.empty() && s.size() <= kMaxSourceNameBytes &&
           std::all_of(s.begin(), s.end(), [](char c) {
               return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
           });
}

Result<CheckedReport> check_inventory_report(const std::string& agent_id,
                                             const std::vector<InventoryItem>& items,
                                             int64_t now_ms) {
    if (items.size() > kMaxSourcesPerReport) {
        return Status::InvalidArgument("an inventory report carries at most " +
                                       std::to_string(kMaxSourcesPerReport) + " sources");
    }
    CheckedReport report;
    std::set<std::string> seen;
    for (const InventoryItem& item : items) {
        auto ok = check_item(agent_id, item, now_ms, report.packages);
        if (!ok.ok()) return ok.status();
        if (!seen.insert(item.source).second) {
            return Status::InvalidArgument("inventory source '" + item.source +
                                           "' appears twice in one report");
        }
        report.items.push_back(std::move(ok).value());
    }
    return report;
}

}  // namespace yuzu::fleet
