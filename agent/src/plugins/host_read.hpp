// Small readers of /proc, /etc and friends for the plugins, with every root
// injectable so tests can point them at a fixture tree. Private to
// yuzu_agent_plugins (the inventory library has its own readers).
// Thread-safety: all functions are safe to call concurrently.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "yuzu/common/status.hpp"

namespace yuzu::agent::plugins {

// Where the plugins look on the host. The defaults are the real host.
struct HostPaths {
    std::string proc = "/proc";
    std::vector<std::string> os_release_files = {"/etc/os-release", "/usr/lib/os-release"};
    std::string var_run = "/var/run";                    // reboot-required(.pkgs)
    std::string systemd_marker = "/run/systemd/system";  // exists when systemd is PID 1
    std::string utmp_file = "/var/run/utmp";
    std::string root_fs = "/";  // perf.snapshot's disk_used_pct
    // Executables are resolved only here, never from the agent's PATH.
    std::vector<std::string> exec_dirs = {"/usr/local/sbin", "/usr/local/bin", "/usr/sbin",
                                          "/usr/bin",        "/sbin",          "/bin"};
};

// Files larger than this are refused rather than read partially.
inline constexpr size_t kMaxHostFileBytes = size_t{64} * 1024 * 1024;

// Reads a whole file (works for /proc files that report size 0). NotFound
// when it does not exist; ResourceExhausted when over max_bytes.
Result<std::string> read_host_file(const std::string& path, size_t max_bytes = kMaxHostFileBytes);

// KEY=VALUE lines of os-release(5); quotes and backslash escapes removed.
std::map<std::string, std::string> parse_os_release(std::string_view text);

// The absolute path of an executable named `name` in paths.exec_dirs.
std::optional<std::string> find_executable(const HostPaths& paths, std::string_view name);

// The login name for uid, or the uid in decimal when it has none.
std::string user_name(uid_t uid);

// Splits text into lines (no terminators); a final empty line is dropped.
std::vector<std::string_view> split_lines(std::string_view text);
// Splits on runs of spaces and tabs.
std::vector<std::string_view> split_fields(std::string_view line);
// Strips leading/trailing whitespace.
std::string_view trim(std::string_view text);
// Parses a whole decimal unsigned number; nullopt on anything else.
std::optional<uint64_t> parse_u64(std::string_view text);

// One line of /proc/<pid>/mounts.
struct MountEntry {
    std::string device;
    std::string mount_point;
    std::string fstype;
};
// Parses /proc mounts text, decoding the octal escapes (\040 for space).
std::vector<MountEntry> parse_mounts(std::string_view text);

}  // namespace yuzu::agent::plugins
