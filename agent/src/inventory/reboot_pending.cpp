// Source "reboot_pending": Debian's /var/run/reboot-required marker, or
// needs-restarting -r on the RPM family.
#include <sys/stat.h>

#include <set>

#include "inventory/command_options.hpp"
#include "inventory/parsers.hpp"
#include "inventory/text_files.hpp"
#include "yuzu/agent/inventory.hpp"
#include "yuzu/agent/subprocess.hpp"

namespace yuzu::agent {
namespace {

bool exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

// needs-restarting -r exits 1 when a reboot is needed and 0 when not.
SourceReading from_needs_restarting(const InventoryEnv& env) {
    SubprocessOptions options = command_options(env);
    options.max_output_bytes = 64 * 1024;
    auto run = run_subprocess({"needs-restarting", "-r"}, options);
    if (!run.ok()) {
        return SourceReading::unavailable(
            "no reboot-required marker on this host family and needs-restarting was not found");
    }
    if (run->timed_out || run->cancelled || run->output_truncated || run->exit_code < 0 ||
        run->exit_code > 1) {
        return SourceReading::unavailable("needs-restarting -r " + run->describe_failure());
    }
    const nlohmann::json data = {{"pending", run->exit_code == 1},
                                 {"packages", nlohmann::json::array()}};
    return SourceReading::ok(dump_json(data));
}

}  // namespace

nlohmann::json parse_reboot_packages(std::string_view text) {
    nlohmann::json packages = nlohmann::json::array();
    std::set<std::string, std::less<>> seen;
    for (std::string_view line : split_lines(text)) {
        line = trim(line);
        if (line.empty() || !seen.insert(std::string(line)).second) continue;
        packages.push_back(std::string(line));
    }
    return packages;
}

SourceReading collect_reboot_pending(const InventoryEnv& env) {
    const std::string marker = env.paths.run_root + "/reboot-required";
    if (exists(marker)) {
        nlohmann::json data = {{"pending", true}, {"packages", nlohmann::json::array()}};
        if (auto pkgs = read_text_file(marker + ".pkgs"); pkgs.ok()) {
            data["packages"] = parse_reboot_packages(*pkgs);
        }
        return SourceReading::ok(dump_json(data));
    }
    // The marker's absence means "no reboot needed" only where something writes it.
    if (exists(env.paths.etc_root + "/debian_version")) {
        const nlohmann::json data = {{"pending", false}, {"packages", nlohmann::json::array()}};
        return SourceReading::ok(dump_json(data));
    }
    return from_needs_restarting(env);
}

}  // namespace yuzu::agent
