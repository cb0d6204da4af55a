// Source "systemd_units": the service units systemctl lists, from its JSON
// output, or from the plain listing when this systemd cannot print JSON.
#include "inventory/command_options.hpp"
#include "inventory/parsers.hpp"
#include "inventory/text_files.hpp"
#include "yuzu/agent/inventory.hpp"
#include "yuzu/agent/subprocess.hpp"
#include "yuzu/common/json_parse.hpp"

namespace yuzu::agent {

Result<nlohmann::json> parse_systemctl_json(std::string_view text) {
    const auto parsed = yuzu::parse_json_or_discarded(text);
    if (!parsed.is_array()) return Status::InvalidArgument("systemctl did not print a JSON array");
    nlohmann::json units = nlohmann::json::array();
    for (const auto& row : parsed) {
        if (!row.is_object() || !row.contains("unit") || !row["unit"].is_string()) continue;
        nlohmann::json unit = {{"unit", row["unit"]}};
        for (const char* key : {"load", "active", "sub"}) {
            if (row.contains(key) && row[key].is_string()) unit[key] = row[key];
        }
        units.push_back(std::move(unit));
    }
    return units;
}

nlohmann::json parse_systemctl_plain(std::string_view text) {
    nlohmann::json units = nlohmann::json::array();
    for (std::string_view line : split_lines(text)) {
        auto fields = split_fields(line);
        // Failed units may be marked with a leading bullet.
        if (!fields.empty() && (fields[0] == "\xe2\x97\x8f" || fields[0] == "*")) {
            fields.erase(fields.begin());
        }
        if (fields.size() < 4) continue;
        units.push_back({{"unit", std::string(fields[0])},
                         {"load", std::string(fields[1])},
                         {"active", std::string(fields[2])},
                         {"sub", std::string(fields[3])}});
    }
    return units;
}

SourceReading collect_systemd_units(const InventoryEnv& env) {
    const SubprocessOptions options = command_options(env);
    const std::vector<std::string> base = {"systemctl", "list-units", "--type=service", "--all",
                                           "--no-pager"};
    std::vector<std::string> as_json = base;
    as_json.emplace_back("--output=json");
    auto run = run_subprocess(as_json, options);
    if (!run.ok()) return SourceReading::unavailable(run.status().message());
    if (run->succeeded()) {
        auto units = parse_systemctl_json(run->output);
        if (units.ok()) return SourceReading::ok(dump_json(*units));
    }
    if (run->timed_out || run->cancelled || run->output_truncated) {
        return SourceReading::unavailable("systemctl " + run->describe_failure());
    }
    // Older systemd rejects --output=json; a host without systemd fails both ways.
    std::vector<std::string> plain = base;
    plain.emplace_back("--plain");
    plain.emplace_back("--no-legend");
    auto listing = run_subprocess(plain, options);
    if (!listing.ok()) return SourceReading::unavailable(listing.status().message());
    if (!listing->succeeded()) {
        return SourceReading::unavailable("systemctl " + listing->describe_failure());
    }
    return SourceReading::ok(dump_json(parse_systemctl_plain(listing->output)));
}

}  // namespace yuzu::agent
