// Source "listening_sockets": the LISTEN rows of /proc/net/tcp and tcp6.
#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>

#include "inventory/parsers.hpp"
#include "inventory/text_files.hpp"
#include "yuzu/agent/inventory.hpp"

namespace yuzu::agent {
namespace {

constexpr std::string_view kListenState = "0A";  // TCP_LISTEN as the kernel prints it

}  // namespace

std::optional<std::string> decode_proc_net_address(std::string_view hex, bool ipv6) {
    const size_t words = ipv6 ? 4 : 1;
    if (hex.size() != words * 8) return std::nullopt;
    unsigned char bytes[16] = {};
    for (size_t w = 0; w < words; ++w) {
        // Each 32-bit word was printed from memory as a host-order integer,
        // so its in-memory bytes are the address bytes in network order.
        auto word = parse_u64(hex.substr(w * 8, 8), 16);
        if (!word) return std::nullopt;
        const uint32_t v = static_cast<uint32_t>(*word);
        std::memcpy(bytes + w * 4, &v, 4);
    }
    char text[INET6_ADDRSTRLEN] = {};
    if (::inet_ntop(ipv6 ? AF_INET6 : AF_INET, bytes, text, sizeof text) == nullptr) {
        return std::nullopt;
    }
    return std::string(text);
}

nlohmann::json parse_proc_net_tcp(std::string_view text, bool ipv6) {
    nlohmann::json sockets = nlohmann::json::array();
    const auto lines = split_lines(text);
    for (size_t i = 1; i < lines.size(); ++i) {  // line 0 is the column header
        // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
        const auto fields = split_fields(lines[i]);
        if (fields.size() < 10 || fields[3] != kListenState) continue;
        const std::string_view local = fields[1];
        const size_t colon = local.find(':');
        if (colon == std::string_view::npos) continue;
        auto address = decode_proc_net_address(local.substr(0, colon), ipv6);
        auto port = parse_u64(local.substr(colon + 1), 16);
        auto uid = parse_u64(fields[7]);
        auto inode = parse_u64(fields[9]);
        if (!address || !port || *port > 65535 || !uid || !inode) continue;
        sockets.push_back({{"protocol", ipv6 ? "tcp6" : "tcp"},
                           {"address", *address},
                           {"port", *port},
                           {"inode", *inode},
                           {"uid", *uid}});
    }
    return sockets;
}

SourceReading collect_listening_sockets(const InventoryEnv& env) {
    nlohmann::json sockets = nlohmann::json::array();
    std::string reasons;
    int read_ok = 0;
    for (const bool ipv6 : {false, true}) {
        const std::string path = env.paths.proc_root + (ipv6 ? "/net/tcp6" : "/net/tcp");
        auto text = read_text_file(path);
        if (!text.ok()) {
            // tcp6 is absent when IPv6 is disabled; one table is still a true answer.
            if (!reasons.empty()) reasons += "; ";
            reasons += text.status().message();
            continue;
        }
        ++read_ok;
        for (auto& s : parse_proc_net_tcp(*text, ipv6)) sockets.push_back(std::move(s));
    }
    if (read_ok == 0) return SourceReading::unavailable(reasons);
    return SourceReading::ok(dump_json(sockets));
}

}  // namespace yuzu::agent
