// process.list and process.find: a scan of /proc/<pid>/stat.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "plugins/builtin_plugins.hpp"
#include "plugins/outcome.hpp"
#include "plugins/params.hpp"

namespace yuzu::agent::plugins {
namespace {

constexpr int64_t kDefaultListLimit = 1000;
constexpr int64_t kMaxListLimit = 10000;
constexpr size_t kMaxNamePatternChars = 255;
constexpr size_t kMaxCmdlineBytes = 64 * 1024;
// Process names may hold spaces, '/', ':' and parentheses ("kworker/0:1",
// "(sd-pam)"); shell metacharacters and other glob syntax are refused.
constexpr std::string_view kNamePatternChars = " ._-:@+/=,~%*()#";

struct ProcessRow {
    int64_t pid = 0;
    int64_t ppid = 0;
    std::string name;
    uid_t uid = 0;
    std::string state;
    uint64_t rss_bytes = 0;
};

std::string state_word(std::string_view letter) {
    static const std::map<std::string_view, std::string_view> kWords = {
        {"R", "running"}, {"S", "sleeping"},     {"D", "disk_sleep"}, {"Z", "zombie"},
        {"T", "stopped"}, {"t", "tracing_stop"}, {"X", "dead"},       {"I", "idle"},
        {"P", "parked"},  {"W", "paging"},       {"K", "wakekill"},
    };
    const auto it = kWords.find(letter);
    return std::string(it == kWords.end() ? letter : it->second);
}

// Parses "pid (comm) state ppid ... rss ..."; comm may hold spaces and ')'
// so it runs to the last ')'.
std::optional<ProcessRow> parse_stat(int64_t pid, std::string_view text) {
    const auto open = text.find('(');
    const auto close = text.rfind(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
        return std::nullopt;
    }
    const auto rest = split_fields(text.substr(close + 1));
    // After comm: state(0) ppid(1) ... vsize(20) rss(21), in pages.
    if (rest.size() < 22) return std::nullopt;
    const auto ppid = parse_u64(rest[1]);
    const auto rss_pages = parse_u64(rest[21]);
    if (!ppid || !rss_pages) return std::nullopt;
    ProcessRow row;
    row.pid = pid;
    row.ppid = static_cast<int64_t>(*ppid);
    row.name = std::string(text.substr(open + 1, close - open - 1));
    row.state = state_word(rest[0]);
    row.rss_bytes = *rss_pages * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    return row;
}

struct DirCloser {
    void operator()(DIR* dir) const { ::closedir(dir); }
};

// Every process readable now, by pid. Processes that exit mid-scan are skipped.
Result<std::vector<ProcessRow>> scan_processes(const HostPaths& paths, const Deadline& deadline) {
    std::unique_ptr<DIR, DirCloser> dir(::opendir(paths.proc.c_str()));
    if (!dir) return Status::Unavailable("cannot open " + paths.proc + ": " + std::strerror(errno));
    std::vector<ProcessRow> rows;
    while (const dirent* entry = ::readdir(dir.get())) {
        if (deadline.passed()) return Status::Unavailable("timed out scanning processes");
        const auto pid = parse_u64(entry->d_name);
        if (!pid) continue;
        const std::string base = paths.proc + "/" + entry->d_name;
        struct stat st {};
        if (::stat(base.c_str(), &st) != 0) continue;
        auto text = read_host_file(base + "/stat", 16 * 1024);
        if (!text.ok()) continue;
        auto row = parse_stat(static_cast<int64_t>(*pid), *text);
        if (!row) continue;
        row->uid = st.st_uid;  // the directory belongs to the effective uid
        rows.push_back(std::move(*row));
    }
    std::sort(rows.begin(), rows.end(),
              [](const ProcessRow& a, const ProcessRow& b) { return a.pid < b.pid; });
    return rows;
}

// Renders rows, resolving each uid once.
class RowWriter {
  public:
    nlohmann::json write(const ProcessRow& row) {
        auto it = users_.find(row.uid);
        if (it == users_.end()) it = users_.emplace(row.uid, user_name(row.uid)).first;
        return {{"pid", row.pid},     {"ppid", row.ppid},   {"name", row.name},
                {"user", it->second}, {"state", row.state}, {"rss_bytes", row.rss_bytes}};
    }

  private:
    std::map<uid_t, std::string> users_;
};

PluginOutcome scan_failure(const Status& status) {
    if (status.code() == StatusCode::kUnavailable && status.message().rfind("timed out", 0) == 0) {
        return timed_out(status.message());
    }
    return failure_from(status);
}

PluginOutcome process_list(const HostPaths& paths, const std::string& params_json,
                           const PluginLimits& limits) {
    auto params = Params::parse(params_json, {"limit"});
    if (!params.ok()) return failure_from(params.status());
    auto limit = params->integer("limit", 1, kMaxListLimit);
    if (!limit.ok()) return failure_from(limit.status());
    const auto max_rows = static_cast<size_t>(limit->value_or(kDefaultListLimit));

    auto rows = scan_processes(paths, Deadline(limits.timeout));
    if (!rows.ok()) return scan_failure(rows.status());
    RowWriter writer;
    nlohmann::json processes = nlohmann::json::array();
    for (size_t i = 0; i < rows->size() && i < max_rows; ++i) {
        processes.push_back(writer.write((*rows)[i]));
    }
    return success({{"processes", std::move(processes)}, {"truncated", rows->size() > max_rows}});
}

// The basename of argv[0], for names longer than the 15-byte comm.
std::string argv0_basename(const HostPaths& paths, int64_t pid) {
    auto text =
        read_host_file(paths.proc + "/" + std::to_string(pid) + "/cmdline", kMaxCmdlineBytes);
    if (!text.ok() || text->empty()) return {};
    std::string_view argv0(text->c_str());  // up to the first NUL
    const auto slash = argv0.rfind('/');
    if (slash != std::string_view::npos) argv0 = argv0.substr(slash + 1);
    return std::string(argv0);
}

PluginOutcome process_find(const HostPaths& paths, const std::string& params_json,
                           const PluginLimits& limits) {
    auto params = Params::parse(params_json, {"name"});
    if (!params.ok()) return failure_from(params.status());
    auto name = params->required_text("name", kMaxNamePatternChars);
    if (!name.ok()) return failure_from(name.status());
    if (!only_chars(*name, kNamePatternChars, /*allow_utf8=*/true)) {
        return failure(
            "parameter 'name' may contain only letters, digits, spaces, "
            "'*' and . _ - : @ + / = "
            ", ~ % ( ) #");
    }

    const Deadline deadline(limits.timeout);
    auto rows = scan_processes(paths, deadline);
    if (!rows.ok()) return scan_failure(rows.status());
    RowWriter writer;
    nlohmann::json matches = nlohmann::json::array();
    for (const auto& row : *rows) {
        if (deadline.passed()) return timed_out("timed out matching processes");
        if (wildcard_match(*name, row.name) ||
            wildcard_match(*name, argv0_basename(paths, row.pid))) {
            matches.push_back(writer.write(row));
        }
    }
    return success({{"matches", std::move(matches)}});
}

}  // namespace

void register_process_plugins(PluginRegistry& registry, const HostPaths& paths) {
    registry.add(
        PluginInfo{"process", "list",
                   "Running processes (pid, parent, name, user, state, resident memory)", false},
        [paths](const std::string& params_json, const PluginLimits& limits) {
            return process_list(paths, params_json, limits);
        });
    registry.add(PluginInfo{"process", "find",
                            "Processes whose name (or argv[0] basename) matches a name or "
                            "'*' pattern",
                            false},
                 [paths](const std::string& params_json, const PluginLimits& limits) {
                     return process_find(paths, params_json, limits);
                 });
}

}  // namespace yuzu::agent::plugins
