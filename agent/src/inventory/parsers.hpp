// Parsers from the host's text formats to the protocol's inventory JSON.
// Collectors read the files or run the programs; these turn text into data,
// so tests can feed them fixture text.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "yuzu/common/status.hpp"

namespace yuzu::agent {

// JSON text for the wire; bytes that are not UTF-8 (a process name, a mount
// path) become U+FFFD instead of failing the whole source.
inline std::string dump_json(const nlohmann::json& j) {
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// os-release(5): KEY=value lines, values optionally quoted; keys lower-cased.
nlohmann::json parse_os_release(std::string_view text);

// /proc/meminfo: {total_bytes, available_bytes, swap_total_bytes,
// swap_free_bytes}, each present only when its line is.
nlohmann::json parse_meminfo(std::string_view text);

// /proc/net/tcp or tcp6: the LISTEN rows as [{protocol, address, port, inode, uid}].
nlohmann::json parse_proc_net_tcp(std::string_view text, bool ipv6);
// One hex address field of /proc/net/tcp (8 digits) or tcp6 (32 digits),
// as the kernel prints it (each 32-bit word in host byte order).
std::optional<std::string> decode_proc_net_address(std::string_view hex, bool ipv6);

struct MountEntry {
    std::string device;
    std::string mount;
    std::string fstype;
};
// /proc/self/mounts, with the octal escapes (\040 for a space) decoded.
std::vector<MountEntry> parse_mounts(std::string_view text);
// Filesystems that hold no disk data: proc, sysfs, tmpfs, cgroup, ...
bool is_pseudo_filesystem(std::string_view fstype);

// /proc/loadavg: the three load averages.
std::optional<std::vector<double>> parse_loadavg(std::string_view text);
// /proc/uptime: whole seconds since boot.
std::optional<int64_t> parse_uptime(std::string_view text);
// /proc/stat "btime": boot time, seconds since the epoch.
std::optional<int64_t> parse_boot_time(std::string_view text);

// /proc/stat aggregate "cpu" line: busy and total jiffies.
struct CpuJiffies {
    uint64_t busy = 0;
    uint64_t total = 0;
};
std::optional<CpuJiffies> parse_cpu_jiffies(std::string_view text);

// /proc/[pid]/stat (the command name may hold spaces and parentheses).
struct PidStat {
    int64_t pid = 0;
    std::string comm;
    std::string state;
    int64_t ppid = 0;
    int64_t rss_pages = 0;
};
std::optional<PidStat> parse_pid_stat(std::string_view text);
// The real uid from /proc/[pid]/status "Uid:".
std::optional<uint32_t> parse_status_uid(std::string_view text);
// passwd(5): uid -> user name.
std::map<uint32_t, std::string> parse_passwd(std::string_view text);

// dpkg-query -W -f='${Package}\t${Version}\t${Architecture}\t${db:Status-Status}\n':
// the installed packages as [{name, version, arch}].
nlohmann::json parse_dpkg_query(std::string_view text);
// rpm -qa --qf '%{NAME}\t%{EPOCHNUM}:%{VERSION}-%{RELEASE}\t%{ARCH}\n'.
nlohmann::json parse_rpm_query(std::string_view text);

// systemctl list-units --output=json: [{unit, load, active, sub}].
Result<nlohmann::json> parse_systemctl_json(std::string_view text);
// systemctl list-units --plain --no-legend: the same from the columns.
nlohmann::json parse_systemctl_plain(std::string_view text);

// reboot-required.pkgs: the package names, in order, without repeats.
nlohmann::json parse_reboot_packages(std::string_view text);

}  // namespace yuzu::agent
