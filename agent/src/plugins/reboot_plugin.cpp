// reboot.pending: Debian/Ubuntu's /var/run/reboot-required marker and the
// packages listed in reboot-required.pkgs.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "plugins/builtin_plugins.hpp"
#include "plugins/outcome.hpp"
#include "plugins/params.hpp"

namespace yuzu::agent::plugins {
namespace {

constexpr size_t kMaxPkgsFileBytes = size_t{1} * 1024 * 1024;

PluginOutcome reboot_pending(const HostPaths& paths, const std::string& params_json) {
    auto params = Params::parse(params_json, {});
    if (!params.ok()) return failure_from(params.status());

    const std::string marker = paths.var_run + "/reboot-required";
    struct stat st {};
    bool pending = true;
    if (::stat(marker.c_str(), &st) != 0) {
        if (errno != ENOENT && errno != ENOTDIR) {
            return failure("cannot check " + marker + ": " + std::strerror(errno));
        }
        pending = false;
    }
    nlohmann::json packages = nlohmann::json::array();
    auto pkgs = read_host_file(marker + ".pkgs", kMaxPkgsFileBytes);
    if (pkgs.ok()) {
        std::vector<std::string> seen;
        for (const auto line : split_lines(*pkgs)) {
            const std::string name(trim(line));
            if (name.empty() || std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
            seen.push_back(name);
            packages.push_back(name);
        }
    } else if (pkgs.status().code() != StatusCode::kNotFound) {
        return failure("cannot read " + marker + ".pkgs: " + pkgs.status().message());
    }
    return success({{"pending", pending}, {"packages", std::move(packages)}});
}

}  // namespace

void register_reboot_plugins(PluginRegistry& registry, const HostPaths& paths) {
    registry.add(PluginInfo{"reboot", "pending",
                            "Whether the host asks for a reboot, and which packages asked", false},
                 [paths](const std::string& params_json, const PluginLimits&) {
                     return reboot_pending(paths, params_json);
                 });
}

}  // namespace yuzu::agent::plugins
