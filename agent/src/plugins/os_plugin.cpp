// os.info: identity of the host from uname(2), os-release(5) and /proc.
#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "plugins/builtin_plugins.hpp"
#include "plugins/outcome.hpp"
#include "plugins/params.hpp"

namespace yuzu::agent::plugins {
namespace {

// Seconds since boot, from the first field of /proc/uptime ("12345.67 ...").
Result<int64_t> read_uptime(const HostPaths& paths) {
    auto text = read_host_file(paths.proc + "/uptime");
    if (!text.ok()) return text.status();
    const auto fields = split_fields(trim(*text));
    if (fields.empty()) return Status::Internal("cannot parse /proc/uptime");
    const std::string first(fields[0]);
    char* end = nullptr;
    const double seconds = std::strtod(first.c_str(), &end);
    if (end == first.c_str() || !std::isfinite(seconds) || seconds < 0) {
        return Status::Internal("cannot parse /proc/uptime");
    }
    return static_cast<int64_t>(seconds);
}

// Boot time in Unix seconds, from the "btime" line of /proc/stat.
Result<int64_t> read_boot_time(const HostPaths& paths) {
    auto text = read_host_file(paths.proc + "/stat");
    if (!text.ok()) return text.status();
    for (const auto line : split_lines(*text)) {
        const auto fields = split_fields(line);
        if (fields.size() == 2 && fields[0] == "btime") {
            if (auto v = parse_u64(fields[1])) return static_cast<int64_t>(*v);
        }
    }
    return Status::Internal("no btime in /proc/stat");
}

nlohmann::json value_or_null(const std::map<std::string, std::string>& fields,
                             const std::string& key) {
    const auto it = fields.find(key);
    if (it == fields.end() || it->second.empty()) return nullptr;
    return it->second;
}

PluginOutcome os_info(const HostPaths& paths, const std::string& params_json) {
    auto params = Params::parse(params_json, {});
    if (!params.ok()) return failure_from(params.status());

    struct utsname uts {};
    if (::uname(&uts) != 0) return failure(std::string("uname failed: ") + std::strerror(errno));
    std::array<char, HOST_NAME_MAX + 1> host{};
    if (::gethostname(host.data(), host.size() - 1) != 0) {
        return failure(std::string("gethostname failed: ") + std::strerror(errno));
    }
    std::map<std::string, std::string> release;
    for (const auto& file : paths.os_release_files) {
        auto text = read_host_file(file, 64 * 1024);
        if (text.ok()) {
            release = parse_os_release(*text);
            break;
        }
    }
    auto uptime = read_uptime(paths);
    if (!uptime.ok()) return failure("cannot read uptime: " + uptime.status().message());
    auto boot = read_boot_time(paths);
    if (!boot.ok()) return failure("cannot read boot time: " + boot.status().message());

    nlohmann::json version = value_or_null(release, "VERSION_ID");
    if (version.is_null()) version = value_or_null(release, "VERSION");
    return success({
        {"hostname", host.data()},
        {"os", "linux"},
        {"os_name", value_or_null(release, "NAME")},
        {"pretty_name", value_or_null(release, "PRETTY_NAME")},
        {"os_version", version},
        {"kernel", uts.release},
        {"kernel_version", uts.version},
        {"arch", uts.machine},
        {"uptime_s", *uptime},
        {"boot_time", *boot},
    });
}

}  // namespace

void register_os_plugins(PluginRegistry& registry, const HostPaths& paths) {
    registry.add(
        PluginInfo{"os", "info",
                   "Host name, OS release, kernel, architecture, uptime and boot time", false},
        [paths](const std::string& params_json, const PluginLimits&) {
            return os_info(paths, params_json);
        });
}

}  // namespace yuzu::agent::plugins
