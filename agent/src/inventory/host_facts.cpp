#include "yuzu/agent/host_facts.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include "inventory/parsers.hpp"
#include "inventory/text_files.hpp"

namespace yuzu::agent {
namespace {

constexpr const char* kOsName =
#if defined(__linux__)
    "linux";
#elif defined(__APPLE__)
    "darwin";
#else
    "unknown";
#endif

std::string os_version_from(const nlohmann::json& release) {
    auto text = [&](const char* key) -> std::string {
        return release.contains(key) && release[key].is_string() ? release[key].get<std::string>()
                                                                 : std::string();
    };
    if (std::string pretty = text("pretty_name"); !pretty.empty()) return pretty;
    std::string name = text("name");
    const std::string version = text("version");
    if (!name.empty() && !version.empty()) name += " " + version;
    return name;
}

}  // namespace

HostFacts read_host_facts(const HostPaths& paths) {
    HostFacts facts;
    facts.os = kOsName;
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) == 0) facts.hostname = name;
    utsname u{};
    if (::uname(&u) == 0) facts.arch = u.machine;
    if (auto text = read_text_file(paths.etc_root + "/os-release"); text.ok()) {
        facts.os_version = os_version_from(parse_os_release(*text));
    }
    return facts;
}

std::optional<int64_t> read_uptime_s(const HostPaths& paths) {
    auto text = read_text_file(paths.proc_root + "/uptime");
    if (!text.ok()) return std::nullopt;
    return parse_uptime(*text);
}

}  // namespace yuzu::agent
