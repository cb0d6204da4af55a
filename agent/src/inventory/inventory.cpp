// The source table and the "sources" object of an inventory report.
#include "yuzu/agent/inventory.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "yuzu/common/json_text.hpp"

namespace yuzu::agent {
namespace {

using Collector = SourceReading (*)(const InventoryEnv&);

const std::vector<std::pair<std::string, Collector>>& source_table() {
    static const std::vector<std::pair<std::string, Collector>> table = {
        {"os_release", collect_os_release},
        {"kernel", collect_kernel},
        {"host", collect_host},
        {"cpu", collect_cpu},
        {"memory", collect_memory},
        {"disks", collect_disks},
        {"network", collect_network},
        {"packages", collect_packages},
        {"listening_sockets", collect_listening_sockets},
        {"processes", collect_processes},
        {"reboot_pending", collect_reboot_pending},
        {"systemd_units", collect_systemd_units},
    };
    return table;
}

std::string over_budget_reason(size_t bytes, size_t limit, const char* what) {
    return "data is " + std::to_string(bytes) + " bytes, over the " + what + " of " +
           std::to_string(limit) + " bytes";
}

}  // namespace

SourceReading SourceReading::ok(std::string data_json) {
    SourceReading r;
    r.available = true;
    r.data_json = std::move(data_json);
    return r;
}

SourceReading SourceReading::unavailable(std::string reason) {
    SourceReading r;
    r.reason = std::move(reason);
    return r;
}

std::string SourceReading::to_json() const {
    // data_json is already JSON text; splicing it avoids parsing large sources again.
    if (available) return R"({"status":"ok","data":)" + data_json + "}";
    return nlohmann::json({{"status", "unavailable"}, {"reason", reason}})
        .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

const std::vector<std::string>& inventory_source_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        for (const auto& [name, collector] : source_table()) out.push_back(name);
        return out;
    }();
    return names;
}

SourceReading collect_source(const std::string& name, const InventoryEnv& env) {
    for (const auto& [source, collector] : source_table()) {
        if (source == name) return collector(env);
    }
    return SourceReading::unavailable("unknown source " + name);
}

std::string collect_inventory_sources(const InventoryEnv& env, const InventoryBudget& budget) {
    std::vector<std::pair<std::string, std::string>> parts;  // name, reading as JSON
    size_t total = 0;
    for (const auto& [name, collector] : source_table()) {
        SourceReading reading = collector(env);
        if (reading.available && reading.data_json.size() > budget.max_source_bytes) {
            reading = SourceReading::unavailable(over_budget_reason(
                reading.data_json.size(), budget.max_source_bytes, "per-source limit"));
        }
        parts.emplace_back(name, reading.to_json());
        total += parts.back().second.size();
    }
    // Still too big: replace the largest readings until the whole fits.
    while (total > budget.max_total_bytes) {
        auto largest = std::max_element(
            parts.begin(), parts.end(),
            [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); });
        const size_t size = largest->second.size();
        std::string replacement =
            SourceReading::unavailable(
                over_budget_reason(size, budget.max_total_bytes, "inventory size limit"))
                .to_json();
        if (replacement.size() >= size) break;  // nothing left to shrink
        total = total - size + replacement.size();
        largest->second = std::move(replacement);
    }
    std::string out = "{";
    for (const auto& [name, json] : parts) {
        if (out.size() > 1) out += ',';
        out += dump_json(nlohmann::json(name));
        out += ':';
        out += json;
    }
    out += '}';
    return out;
}

}  // namespace yuzu::agent
