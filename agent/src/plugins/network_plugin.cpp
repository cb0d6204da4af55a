// network.connections: TCP and UDP sockets from /proc/net/{tcp,tcp6,udp,udp6}.
#include <arpa/inet.h>
#include <netinet/in.h>

#include <array>
#include <charconv>
#include <cstring>
#include <optional>
#include <string>

#include "plugins/builtin_plugins.hpp"
#include "plugins/outcome.hpp"
#include "plugins/params.hpp"

namespace yuzu::agent::plugins {
namespace {

// A busy host holds thousands of sockets (TIME_WAIT alone); at about 200
// bytes a row, the maximum stays well under the 1 MiB output cap.
constexpr int64_t kDefaultConnectionLimit = 1000;
constexpr int64_t kMaxConnectionLimit = 4000;

struct SocketTable {
    const char* file;      // under <proc>/net/
    const char* protocol;  // reported protocol
    bool tcp;
    bool required;  // IPv6 tables are absent on hosts without IPv6
};

constexpr std::array<SocketTable, 4> kTables = {{
    {"tcp", "tcp", true, true},
    {"tcp6", "tcp6", true, false},
    {"udp", "udp", false, true},
    {"udp6", "udp6", false, false},
}};

// TCP states as numbered in the kernel's tcp_states.h.
std::string tcp_state(unsigned code) {
    static constexpr std::array<const char*, 12> kNames = {
        "unknown",   "established", "syn_sent",   "syn_recv", "fin_wait1", "fin_wait2",
        "time_wait", "close",       "close_wait", "last_ack", "listen",    "closing"};
    return code < kNames.size() ? kNames[code] : "unknown";
}

// UDP has no handshake: 1 is a connected socket, 7 a bound, unconnected one.
std::string udp_state(unsigned code) {
    if (code == 1) return "established";
    if (code == 7) return "unconnected";
    return tcp_state(code);
}

std::optional<uint32_t> parse_hex32(std::string_view text) {
    uint32_t value = 0;
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value, 16);
    if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
    return value;
}

struct Endpoint {
    std::string address;
    uint32_t port = 0;
};

// "0100007F:0035" (IPv4) or 32 hex digits ":port" (IPv6). Each 8-digit group
// is one 32-bit word of the address as the kernel holds it in memory, so
// copying the parsed word back into the address restores the byte order.
std::optional<Endpoint> parse_endpoint(std::string_view text) {
    const auto colon = text.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    const auto hex = text.substr(0, colon);
    const auto port = parse_hex32(text.substr(colon + 1));
    if (!port || *port > 0xffff) return std::nullopt;
    std::array<char, INET6_ADDRSTRLEN> buf{};
    if (hex.size() == 8) {
        const auto word = parse_hex32(hex);
        if (!word) return std::nullopt;
        in_addr addr{};
        std::memcpy(&addr, &*word, sizeof(*word));
        if (::inet_ntop(AF_INET, &addr, buf.data(), buf.size()) == nullptr) return std::nullopt;
    } else if (hex.size() == 32) {
        in6_addr addr{};
        for (size_t i = 0; i < 4; ++i) {
            const auto word = parse_hex32(hex.substr(i * 8, 8));
            if (!word) return std::nullopt;
            std::memcpy(reinterpret_cast<unsigned char*>(&addr) + i * 4, &*word, 4);
        }
        if (::inet_ntop(AF_INET6, &addr, buf.data(), buf.size()) == nullptr) return std::nullopt;
    } else {
        return std::nullopt;
    }
    return Endpoint{buf.data(), *port};
}

bool wanted(const std::string& filter, const std::string& state) {
    if (filter == "all") return true;
    if (filter == "listen") return state == "listen" || state == "unconnected";
    return state == "established";
}

// Appends the table's wanted rows to `out` while it holds fewer than
// `max_rows`; `*matched` counts every wanted row, kept or not.
Status append_table(const HostPaths& paths, const SocketTable& table, const std::string& filter,
                    size_t max_rows, nlohmann::json& out, size_t* matched) {
    const std::string file = paths.proc + "/net/" + table.file;
    auto text = read_host_file(file);
    if (!text.ok()) {
        if (!table.required && text.status().code() == StatusCode::kNotFound) return Status::Ok();
        return Status::Unavailable("cannot read " + file + ": " + text.status().message());
    }
    const auto lines = split_lines(*text);
    for (size_t i = 1; i < lines.size(); ++i) {  // line 0 is the column header
        const auto fields = split_fields(lines[i]);
        if (fields.size() < 4) continue;
        const auto local = parse_endpoint(fields[1]);
        const auto remote = parse_endpoint(fields[2]);
        const auto code = parse_hex32(fields[3]);
        if (!local || !remote || !code) {
            return Status::Internal("cannot parse line " + std::to_string(i + 1) + " of " + file);
        }
        std::string state = table.tcp ? tcp_state(*code) : udp_state(*code);
        if (!wanted(filter, state)) continue;
        ++*matched;
        if (out.size() >= max_rows) continue;
        out.push_back({{"protocol", table.protocol},
                       {"local_address", local->address},
                       {"local_port", local->port},
                       {"remote_address", remote->address},
                       {"remote_port", remote->port},
                       {"state", std::move(state)}});
    }
    return Status::Ok();
}

PluginOutcome network_connections(const HostPaths& paths, const std::string& params_json) {
    auto params = Params::parse(params_json, {"state", "limit"});
    if (!params.ok()) return failure_from(params.status());
    auto state = params->choice("state", {"listen", "established", "all"});
    if (!state.ok()) return failure_from(state.status());
    const std::string filter = state->value_or("all");
    auto limit = params->integer("limit", 1, kMaxConnectionLimit);
    if (!limit.ok()) return failure_from(limit.status());
    const auto max_rows = static_cast<size_t>(limit->value_or(kDefaultConnectionLimit));

    nlohmann::json connections = nlohmann::json::array();
    size_t matched = 0;
    for (const auto& table : kTables) {
        if (auto s = append_table(paths, table, filter, max_rows, connections, &matched); !s.ok()) {
            return failure_from(s);
        }
    }
    return success({{"connections", std::move(connections)},
                    {"truncated", matched > max_rows},
                    {"matched", matched}});
}

}  // namespace

void register_network_plugins(PluginRegistry& registry, const HostPaths& paths) {
    registry.add(PluginInfo{"network", "connections",
                            "TCP and UDP sockets with local/remote endpoints and state", false},
                 [paths](const std::string& params_json, const PluginLimits&) {
                     return network_connections(paths, params_json);
                 });
}

}  // namespace yuzu::agent::plugins
