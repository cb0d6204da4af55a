// Source "processes": one row per /proc/[pid] (command lines are left out:
// they can carry secrets).
#include <dirent.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "inventory/parsers.hpp"
#include "inventory/text_files.hpp"
#include "yuzu/agent/inventory.hpp"

namespace yuzu::agent {
namespace {

constexpr size_t kRssField = 21;  // field 24 of stat(5), counted from the state field

}  // namespace

std::optional<PidStat> parse_pid_stat(std::string_view text) {
    const size_t open = text.find('(');
    const size_t close = text.rfind(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
        return std::nullopt;
    }
    PidStat st;
    auto pid = parse_i64(trim(text.substr(0, open)));
    if (!pid) return std::nullopt;
    st.pid = *pid;
    st.comm = std::string(text.substr(open + 1, close - open - 1));
    const auto rest = split_fields(text.substr(close + 1));
    if (rest.size() <= kRssField) return std::nullopt;
    st.state = std::string(rest[0]);
    auto ppid = parse_i64(rest[1]);
    auto rss = parse_i64(rest[kRssField]);
    if (!ppid || !rss) return std::nullopt;
    st.ppid = *ppid;
    st.rss_pages = *rss;
    return st;
}

std::optional<uint32_t> parse_status_uid(std::string_view text) {
    for (std::string_view line : split_lines(text)) {
        if (line.substr(0, 4) != "Uid:") continue;
        const auto fields = split_fields(line.substr(4));
        if (fields.empty()) return std::nullopt;
        auto uid = parse_u64(fields[0]);
        if (!uid || *uid > UINT32_MAX) return std::nullopt;
        return static_cast<uint32_t>(*uid);
    }
    return std::nullopt;
}

std::map<uint32_t, std::string> parse_passwd(std::string_view text) {
    std::map<uint32_t, std::string> users;
    for (std::string_view line : split_lines(text)) {
        // name:password:uid:gid:gecos:home:shell
        const size_t c1 = line.find(':');
        if (c1 == std::string_view::npos || c1 == 0) continue;
        const size_t c2 = line.find(':', c1 + 1);
        if (c2 == std::string_view::npos) continue;
        const size_t c3 = line.find(':', c2 + 1);
        if (c3 == std::string_view::npos) continue;
        auto uid = parse_u64(line.substr(c2 + 1, c3 - c2 - 1));
        if (!uid || *uid > UINT32_MAX) continue;
        users.try_emplace(static_cast<uint32_t>(*uid), std::string(line.substr(0, c1)));
    }
    return users;
}

SourceReading collect_processes(const InventoryEnv& env) {
    DIR* dir = ::opendir(env.paths.proc_root.c_str());
    if (dir == nullptr) {
        return SourceReading::unavailable("cannot list " + env.paths.proc_root + ": " +
                                          std::strerror(errno));
    }
    std::map<uint32_t, std::string> users;
    if (auto passwd = read_text_file(env.paths.etc_root + "/passwd"); passwd.ok()) {
        users = parse_passwd(*passwd);
    }
    const long page = ::sysconf(_SC_PAGESIZE);
    const int64_t page_bytes = page > 0 ? page : 4096;
    nlohmann::json processes = nlohmann::json::array();
    while (const dirent* entry = ::readdir(dir)) {
        const std::string name = entry->d_name;
        if (!parse_u64(name)) continue;
        // A process may exit between readdir and the reads; it is then simply absent.
        const std::string base = env.paths.proc_root + "/" + name;
        auto stat_text = read_text_file(base + "/stat");
        if (!stat_text.ok()) continue;
        auto st = parse_pid_stat(*stat_text);
        if (!st) continue;
        nlohmann::json row = {{"pid", st->pid},
                              {"ppid", st->ppid},
                              {"name", st->comm},
                              {"state", st->state},
                              {"rss_bytes", st->rss_pages * page_bytes}};
        if (auto status_text = read_text_file(base + "/status"); status_text.ok()) {
            if (auto uid = parse_status_uid(*status_text)) {
                const auto it = users.find(*uid);
                row["uid"] = *uid;
                row["user"] = it != users.end() ? it->second : std::to_string(*uid);
            }
        }
        processes.push_back(std::move(row));
    }
    ::closedir(dir);
    return SourceReading::ok(dump_json(processes));
}

}  // namespace yuzu::agent
