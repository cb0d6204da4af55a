// service.status and service.restart: systemd units through systemctl,
// spawned with an argv array (never a shell).
#include <sys/stat.h>

#include <array>
#include <map>
#include <string>
#include <vector>

#include "plugins/builtin_plugins.hpp"
#include "plugins/outcome.hpp"
#include "plugins/params.hpp"
#include "plugins/subprocess.hpp"

namespace yuzu::agent::plugins {
namespace {

constexpr size_t kMaxUnitChars = 255;
constexpr size_t kMaxSystemctlOutput = 64 * 1024;
constexpr size_t kMaxErrorDetailChars = 512;
constexpr std::string_view kUnitChars = "@._:-";
constexpr std::array<std::string_view, 11> kUnitSuffixes = {
    ".service", ".socket", ".device", ".mount", ".automount", ".swap",
    ".target",  ".path",   ".timer",  ".slice", ".scope"};
constexpr std::string_view kNoSystemd = "systemd is not available on this host";

bool has_unit_suffix(std::string_view unit) {
    for (const auto suffix : kUnitSuffixes) {
        if (unit.size() > suffix.size() && unit.substr(unit.size() - suffix.size()) == suffix) {
            return true;
        }
    }
    return false;
}

// The "unit" parameter: [A-Za-z0-9@._:-]{1,255}, not starting with '-' or
// '.' (it would read as an option or a hidden name), ".service" appended
// when it has no unit-type suffix.
Result<std::string> unit_param(const Params& params) {
    auto unit = params.required_text("unit", kMaxUnitChars);
    if (!unit.ok()) return unit.status();
    if (!only_chars(*unit, kUnitChars, /*allow_utf8=*/false)) {
        return Status::InvalidArgument(
            "parameter 'unit' may contain only letters, digits and @ . _ : -");
    }
    if (unit->front() == '-' || unit->front() == '.') {
        return Status::InvalidArgument("parameter 'unit' must not start with '-' or '.'");
    }
    std::string name = std::move(*unit);
    if (!has_unit_suffix(name)) name += ".service";
    if (name.size() > kMaxUnitChars) {
        return Status::InvalidArgument("parameter 'unit' exceeds " + std::to_string(kMaxUnitChars) +
                                       " characters with its .service suffix");
    }
    return name;
}

// systemctl only works where systemd is PID 1 (it creates the marker dir).
Result<std::string> systemctl_path(const HostPaths& paths) {
    auto exe = find_executable(paths, "systemctl");
    struct stat st {};
    if (!exe || ::stat(paths.systemd_marker.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        return Status::FailedPrecondition(std::string(kNoSystemd));
    }
    return std::move(*exe);
}

std::string short_detail(const std::string& text) {
    std::string detail(trim(text));
    for (char& c : detail) {
        if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    }
    if (detail.size() > kMaxErrorDetailChars)
        detail = detail.substr(0, kMaxErrorDetailChars) + "...";
    return detail;
}

// A command outcome that is not a clean exit, as a plugin outcome; nullopt
// when the command exited 0.
std::optional<PluginOutcome> command_problem(const CommandResult& r, const std::string& what) {
    if (r.timed_out) return timed_out(what + " did not finish in time");
    if (r.output_capped) return failure(what + " produced too much output");
    if (r.exit_code == 0) return std::nullopt;
    std::string message = what + " failed";
    if (r.exit_code > 0) message += " (exit " + std::to_string(r.exit_code) + ")";
    if (r.signal != 0) message += " (signal " + std::to_string(r.signal) + ")";
    const std::string detail = short_detail(r.err.empty() ? r.out : r.err);
    if (!detail.empty()) message += ": " + detail;
    return failure(message);
}

PluginOutcome service_status(const HostPaths& paths, const std::string& params_json,
                             const PluginLimits& limits) {
    auto params = Params::parse(params_json, {"unit"});
    if (!params.ok()) return failure_from(params.status());
    auto unit = unit_param(*params);
    if (!unit.ok()) return failure_from(unit.status());
    auto systemctl = systemctl_path(paths);
    if (!systemctl.ok()) return failure_from(systemctl.status());

    auto run = run_command(
        {*systemctl, "show", "--property=LoadState,ActiveState,SubState,MainPID", "--", *unit},
        limits.timeout, kMaxSystemctlOutput);
    if (!run.ok()) return failure_from(run.status());
    if (auto problem = command_problem(*run, "systemctl show")) return *problem;

    std::map<std::string, std::string> props;
    for (const auto line : split_lines(run->out)) {
        const auto eq = line.find('=');
        if (eq != std::string_view::npos) {
            props[std::string(line.substr(0, eq))] = std::string(trim(line.substr(eq + 1)));
        }
    }
    for (const char* key : {"LoadState", "ActiveState", "SubState", "MainPID"}) {
        if (props.count(key) == 0) {
            return failure(std::string("systemctl show did not report ") + key);
        }
    }
    const auto main_pid = parse_u64(props["MainPID"]);
    if (!main_pid) return failure("systemctl show reported a malformed MainPID");
    return success({{"unit", *unit},
                    {"load_state", props["LoadState"]},
                    {"active_state", props["ActiveState"]},
                    {"sub_state", props["SubState"]},
                    {"main_pid", *main_pid}});
}

PluginOutcome service_restart(const HostPaths& paths, const std::string& params_json,
                              const PluginLimits& limits) {
    auto params = Params::parse(params_json, {"unit"});
    if (!params.ok()) return failure_from(params.status());
    auto unit = unit_param(*params);
    if (!unit.ok()) return failure_from(unit.status());
    auto systemctl = systemctl_path(paths);
    if (!systemctl.ok()) return failure_from(systemctl.status());

    auto run =
        run_command({*systemctl, "restart", "--", *unit}, limits.timeout, kMaxSystemctlOutput);
    if (!run.ok()) return failure_from(run.status());
    if (auto problem = command_problem(*run, "systemctl restart")) return *problem;
    return success({{"unit", *unit}, {"restarted", true}});
}

}  // namespace

void register_service_plugins(PluginRegistry& registry, const HostPaths& paths) {
    registry.add(PluginInfo{"service", "status",
                            "Load, active and sub state and main PID of a systemd unit", false},
                 [paths](const std::string& params_json, const PluginLimits& limits) {
                     return service_status(paths, params_json, limits);
                 });
    registry.add(PluginInfo{"service", "restart", "Restart a systemd unit", true},
                 [paths](const std::string& params_json, const PluginLimits& limits) {
                     return service_restart(paths, params_json, limits);
                 });
}

}  // namespace yuzu::agent::plugins
