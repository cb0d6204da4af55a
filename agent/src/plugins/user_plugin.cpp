// user.sessions: logged-in users from the utmp database (getutxent).
#include <sys/stat.h>
#include <unistd.h>
#include <utmpx.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>

#include "plugins/builtin_plugins.hpp"
#include "plugins/outcome.hpp"
#include "plugins/params.hpp"

namespace yuzu::agent::plugins {
namespace {

// The utmpx API keeps one process-wide cursor and file name; serialise it.
std::mutex& utmp_mutex() {
    static std::mutex mutex;
    return mutex;
}

template <size_t N>
std::string fixed_field(const char (&field)[N]) {
    return std::string(field, ::strnlen(field, N));
}

Result<nlohmann::json> read_sessions(const std::string& utmp_file) {
    nlohmann::json sessions = nlohmann::json::array();
    struct stat st {};
    if (::stat(utmp_file.c_str(), &st) != 0) {
        // No utmp database means nobody is recorded as logged in.
        if (errno == ENOENT) return sessions;
        return Status::Unavailable("cannot read " + utmp_file + ": " + std::strerror(errno));
    }
    if (::access(utmp_file.c_str(), R_OK) != 0) {
        return Status::Unavailable("cannot read " + utmp_file + ": " + std::strerror(errno));
    }
    std::lock_guard lock(utmp_mutex());
    if (::utmpxname(utmp_file.c_str()) != 0) {
        return Status::Unavailable("cannot select " + utmp_file);
    }
    ::setutxent();
    while (const struct utmpx* entry = ::getutxent()) {
        if (entry->ut_type != USER_PROCESS) continue;
        sessions.push_back({
            {"user", fixed_field(entry->ut_user)},
            {"tty", fixed_field(entry->ut_line)},
            {"host", fixed_field(entry->ut_host)},
            {"login_time", static_cast<int64_t>(entry->ut_tv.tv_sec)},
        });
    }
    ::endutxent();
    ::utmpxname(_PATH_UTMPX);
    return sessions;
}

PluginOutcome user_sessions(const HostPaths& paths, const std::string& params_json) {
    auto params = Params::parse(params_json, {});
    if (!params.ok()) return failure_from(params.status());
    auto sessions = read_sessions(paths.utmp_file);
    if (!sessions.ok()) return failure_from(sessions.status());
    return success({{"sessions", std::move(*sessions)}});
}

}  // namespace

void register_user_plugins(PluginRegistry& registry, const HostPaths& paths) {
    registry.add(PluginInfo{"user", "sessions",
                            "Logged-in user sessions (user, tty, remote host, login time)", false},
                 [paths](const std::string& params_json, const PluginLimits&) {
                     return user_sessions(paths, params_json);
                 });
}

}  // namespace yuzu::agent::plugins
