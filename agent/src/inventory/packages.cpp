// Source "packages": installed packages from dpkg-query, else rpm, run
// without a shell.
#include "inventory/command_options.hpp"
#include "inventory/parsers.hpp"
#include "inventory/text_files.hpp"
#include "yuzu/agent/inventory.hpp"
#include "yuzu/agent/subprocess.hpp"

namespace yuzu::agent {
namespace {

std::vector<std::string_view> split_tabs(std::string_view line) {
    std::vector<std::string_view> parts;
    size_t start = 0;
    for (;;) {
        const size_t tab = line.find('\t', start);
        parts.push_back(line.substr(start, tab == std::string_view::npos ? tab : tab - start));
        if (tab == std::string_view::npos) return parts;
        start = tab + 1;
    }
}

// Runs argv and parses its output, or says why there is nothing to parse.
// NotFound (the program is missing) is passed back so the caller can try
// the next package manager.
Result<nlohmann::json> query(const std::vector<std::string>& argv, const InventoryEnv& env,
                             nlohmann::json (*parse)(std::string_view)) {
    auto run = run_subprocess(argv, command_options(env));
    if (!run.ok()) return run.status();
    if (run->output_truncated) {
        return Status::Unavailable(argv[0] + " printed more than " +
                                   std::to_string(env.command_output_cap) + " bytes");
    }
    if (!run->succeeded()) return Status::Unavailable(argv[0] + " " + run->describe_failure());
    return parse(run->output);
}

}  // namespace

nlohmann::json parse_dpkg_query(std::string_view text) {
    nlohmann::json packages = nlohmann::json::array();
    for (std::string_view line : split_lines(text)) {
        const auto parts = split_tabs(line);
        if (parts.size() < 4 || parts[0].empty()) continue;
        // ${Status} is "want error state"; only "... installed" is on disk.
        const auto status = split_fields(parts[3]);
        if (status.empty() || status.back() != "installed") continue;
        packages.push_back({{"name", std::string(parts[0])},
                            {"version", std::string(parts[1])},
                            {"arch", std::string(parts[2])}});
    }
    return packages;
}

nlohmann::json parse_rpm_query(std::string_view text) {
    nlohmann::json packages = nlohmann::json::array();
    for (std::string_view line : split_lines(text)) {
        const auto parts = split_tabs(line);
        if (parts.size() < 3 || parts[0].empty()) continue;
        packages.push_back({{"name", std::string(parts[0])},
                            {"version", std::string(parts[1])},
                            {"arch", std::string(parts[2])}});
    }
    return packages;
}

SourceReading collect_packages(const InventoryEnv& env) {
    auto dpkg =
        query({"dpkg-query", "-W", "-f=${Package}\t${Version}\t${Architecture}\t${Status}\n"}, env,
              parse_dpkg_query);
    if (dpkg.ok()) return SourceReading::ok(dump_json(*dpkg));
    if (dpkg.status().code() != StatusCode::kNotFound) {
        return SourceReading::unavailable(dpkg.status().message());
    }
    auto rpm = query(
        {"rpm", "-qa", "--qf", "%{NAME}\t%|EPOCH?{%{EPOCH}:}:{}|%{VERSION}-%{RELEASE}\t%{ARCH}\n"},
        env, parse_rpm_query);
    if (rpm.ok()) return SourceReading::ok(dump_json(*rpm));
    if (rpm.status().code() != StatusCode::kNotFound) {
        return SourceReading::unavailable(rpm.status().message());
    }
    return SourceReading::unavailable("neither dpkg-query nor rpm found");
}

}  // namespace yuzu::agent
