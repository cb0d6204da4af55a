// Sources "kernel" (uname), "host" (hostname, uptime, boot time) and "cpu"
// (processor count, load averages): each a few fields from one call or file.
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "inventory/parsers.hpp"
#include "inventory/text_files.hpp"
#include "yuzu/agent/inventory.hpp"

namespace yuzu::agent {

std::optional<std::vector<double>> parse_loadavg(std::string_view text) {
    const auto fields = split_fields(trim(text));
    if (fields.size() < 3) return std::nullopt;
    std::vector<double> loads;
    for (size_t i = 0; i < 3; ++i) {
        auto v = parse_double(fields[i]);
        if (!v) return std::nullopt;
        loads.push_back(*v);
    }
    return loads;
}

std::optional<int64_t> parse_uptime(std::string_view text) {
    const auto fields = split_fields(trim(text));
    if (fields.empty()) return std::nullopt;
    auto v = parse_double(fields[0]);
    if (!v || *v < 0) return std::nullopt;
    return static_cast<int64_t>(*v);
}

std::optional<int64_t> parse_boot_time(std::string_view text) {
    for (std::string_view line : split_lines(text)) {
        const auto fields = split_fields(line);
        if (fields.size() == 2 && fields[0] == "btime") return parse_i64(fields[1]);
    }
    return std::nullopt;
}

SourceReading collect_kernel(const InventoryEnv& /*env*/) {
    utsname u{};
    if (::uname(&u) != 0) {
        return SourceReading::unavailable(std::string("uname failed: ") + std::strerror(errno));
    }
    const nlohmann::json data = {{"sysname", u.sysname},
                                 {"release", u.release},
                                 {"version", u.version},
                                 {"machine", u.machine}};
    return SourceReading::ok(dump_json(data));
}

SourceReading collect_host(const InventoryEnv& env) {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0) {
        return SourceReading::unavailable(std::string("gethostname failed: ") +
                                          std::strerror(errno));
    }
    nlohmann::json data = {{"hostname", name}};
    // Uptime and boot time are reported only when their files could be read.
    if (auto text = read_text_file(env.paths.proc_root + "/uptime"); text.ok()) {
        if (auto up = parse_uptime(*text)) data["uptime_s"] = *up;
    }
    if (auto text = read_text_file(env.paths.proc_root + "/stat"); text.ok()) {
        if (auto bt = parse_boot_time(*text)) data["boot_time"] = *bt;
    }
    return SourceReading::ok(dump_json(data));
}

SourceReading collect_cpu(const InventoryEnv& env) {
    const long count = ::sysconf(_SC_NPROCESSORS_ONLN);
    if (count < 1) return SourceReading::unavailable("sysconf(_SC_NPROCESSORS_ONLN) failed");
    nlohmann::json data = {{"count", count}};
    if (auto text = read_text_file(env.paths.proc_root + "/loadavg"); text.ok()) {
        if (auto loads = parse_loadavg(*text)) {
            data["load1"] = (*loads)[0];
            data["load5"] = (*loads)[1];
            data["load15"] = (*loads)[2];
        }
    }
    // The model name is an extra the protocol allows; x86 and most ARM kernels print it.
    if (auto text = read_text_file(env.paths.proc_root + "/cpuinfo"); text.ok()) {
        for (std::string_view line : split_lines(*text)) {
            const size_t colon = line.find(':');
            if (colon == std::string_view::npos) continue;
            if (trim(line.substr(0, colon)) == "model name") {
                data["model"] = std::string(trim(line.substr(colon + 1)));
                break;
            }
        }
    }
    return SourceReading::ok(dump_json(data));
}

}  // namespace yuzu::agent
