// packages.list: installed packages from dpkg (dpkg-query) or rpm, spawned
// with fixed argv arrays; the name filter is applied here, never passed on.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "plugins/builtin_plugins.hpp"
#include "plugins/outcome.hpp"
#include "plugins/params.hpp"
#include "plugins/subprocess.hpp"

namespace yuzu::agent::plugins {
namespace {

constexpr size_t kMaxNameChars = 255;
constexpr size_t kMaxManagerOutput = size_t{32} * 1024 * 1024;
// Debian and RPM package names use these besides letters and digits; '*'
// is the wildcard.
constexpr std::string_view kNameChars = ".+-_:@~*";

struct Package {
    std::string name;
    std::string version;
    std::string arch;
};

struct Manager {
    std::string name;               // "dpkg" | "rpm"
    std::vector<std::string> argv;  // argv[0] resolved
};

std::optional<Manager> find_manager(const HostPaths& paths) {
    if (auto dpkg = find_executable(paths, "dpkg-query")) {
        return Manager{
            "dpkg",
            {*dpkg, "-W", "--showformat=${Package}\t${Version}\t${Architecture}\t${Status}\n"}};
    }
    if (auto rpm = find_executable(paths, "rpm")) {
        return Manager{"rpm",
                       {*rpm, "-qa", "--queryformat", "%{NAME}\t%{VERSION}-%{RELEASE}\t%{ARCH}\n"}};
    }
    return std::nullopt;
}

// dpkg also lists removed-but-configured packages; only "installed" counts.
std::vector<Package> parse_packages(const Manager& manager, std::string_view text) {
    std::vector<Package> packages;
    for (const auto line : split_lines(text)) {
        std::vector<std::string_view> cols;
        size_t start = 0;
        for (;;) {
            const auto tab = line.find('\t', start);
            cols.push_back(line.substr(start, tab == std::string_view::npos ? tab : tab - start));
            if (tab == std::string_view::npos) break;
            start = tab + 1;
        }
        if (cols.size() < 3 || cols[0].empty()) continue;
        if (manager.name == "dpkg") {
            const auto status = split_fields(cols.size() > 3 ? cols[3] : std::string_view());
            if (status.size() < 3 || status[2] != "installed") continue;
        }
        packages.push_back(
            Package{std::string(cols[0]), std::string(cols[1]), std::string(trim(cols[2]))});
    }
    std::sort(packages.begin(), packages.end(), [](const Package& a, const Package& b) {
        return a.name != b.name ? a.name < b.name : a.arch < b.arch;
    });
    return packages;
}

PluginOutcome packages_list(const HostPaths& paths, const std::string& params_json,
                            const PluginLimits& limits) {
    auto params = Params::parse(params_json, {"name"});
    if (!params.ok()) return failure_from(params.status());
    auto name = params->text("name", kMaxNameChars);
    if (!name.ok()) return failure_from(name.status());
    if (name->has_value() && !only_chars(**name, kNameChars, /*allow_utf8=*/false)) {
        return failure(
            "parameter 'name' may contain only letters, digits, '*' and "
            ". + - _ : @ ~");
    }
    // Package names start with a letter or digit; a leading '-' would look
    // like an option to anything that ever received it.
    if (name->has_value() && (**name)[0] != '*' &&
        std::isalnum(static_cast<unsigned char>((**name)[0])) == 0) {
        return failure("parameter 'name' must start with a letter, a digit or '*'");
    }

    const auto manager = find_manager(paths);
    if (!manager) return failure("no supported package manager (dpkg or rpm) on this host");
    auto run = run_command(manager->argv, limits.timeout, kMaxManagerOutput);
    if (!run.ok()) return failure_from(run.status());
    if (run->timed_out) return timed_out(manager->name + " did not finish in time");
    if (run->output_capped) return failure(manager->name + " produced too much output");
    if (run->exit_code != 0) {
        std::string detail(trim(run->err));
        if (detail.size() > 512) detail.resize(512);
        return failure(manager->name + " query failed (exit " + std::to_string(run->exit_code) +
                       ")" + (detail.empty() ? "" : ": " + detail));
    }

    nlohmann::json packages = nlohmann::json::array();
    for (auto& p : parse_packages(*manager, run->out)) {
        if (name->has_value() && !wildcard_match(**name, p.name)) continue;
        packages.push_back({{"name", std::move(p.name)},
                            {"version", std::move(p.version)},
                            {"arch", std::move(p.arch)}});
    }
    return success({{"packages", std::move(packages)}, {"manager", manager->name}});
}

}  // namespace

void register_package_plugins(PluginRegistry& registry, const HostPaths& paths) {
    registry.add(
        PluginInfo{"packages", "list",
                   "Installed packages (name, version, architecture) from dpkg or rpm", false},
        [paths](const std::string& params_json, const PluginLimits& limits) {
            return packages_list(paths, params_json, limits);
        });
}

}  // namespace yuzu::agent::plugins
