// Source "network": interfaces and their addresses from getifaddrs(3).
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netpacket/packet.h>

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>

#include "inventory/parsers.hpp"
#include "yuzu/agent/inventory.hpp"

namespace yuzu::agent {
namespace {

int prefix_length(const sockaddr* mask) {
    if (mask == nullptr) return -1;
    int bits = 0;
    const unsigned char* bytes = nullptr;
    size_t len = 0;
    if (mask->sa_family == AF_INET) {
        bytes = reinterpret_cast<const unsigned char*>(
            &reinterpret_cast<const sockaddr_in*>(mask)->sin_addr);
        len = 4;
    } else if (mask->sa_family == AF_INET6) {
        bytes = reinterpret_cast<const sockaddr_in6*>(mask)->sin6_addr.s6_addr;
        len = 16;
    } else {
        return -1;
    }
    for (size_t i = 0; i < len; ++i) bits += std::popcount(static_cast<unsigned>(bytes[i]));
    return bits;
}

std::string mac_address(const sockaddr_ll* ll) {
    std::string mac;
    for (int i = 0; i < ll->sll_halen && i < 8; ++i) {
        char part[4];
        std::snprintf(part, sizeof part, i == 0 ? "%02x" : ":%02x", ll->sll_addr[i]);
        mac += part;
    }
    return mac;
}

}  // namespace

SourceReading collect_network(const InventoryEnv& /*env*/) {
    ifaddrs* list = nullptr;
    if (::getifaddrs(&list) != 0) {
        return SourceReading::unavailable(std::string("getifaddrs failed: ") +
                                          std::strerror(errno));
    }
    std::map<std::string, nlohmann::json> by_name;  // sorted by interface name
    for (const ifaddrs* ifa = list; ifa != nullptr; ifa = ifa->ifa_next) {
        if (ifa->ifa_name == nullptr) continue;
        auto [it, inserted] = by_name.try_emplace(ifa->ifa_name);
        nlohmann::json& iface = it->second;
        if (inserted) {
            iface = {{"name", ifa->ifa_name},
                     {"addresses", nlohmann::json::array()},
                     {"up", (ifa->ifa_flags & IFF_UP) != 0}};
        }
        const sockaddr* addr = ifa->ifa_addr;
        if (addr == nullptr) continue;
        char text[INET6_ADDRSTRLEN] = {};
        if (addr->sa_family == AF_INET) {
            const auto* in = reinterpret_cast<const sockaddr_in*>(addr);
            if (::inet_ntop(AF_INET, &in->sin_addr, text, sizeof text) == nullptr) continue;
            iface["addresses"].push_back({{"family", "inet"},
                                          {"address", text},
                                          {"prefix_len", prefix_length(ifa->ifa_netmask)}});
        } else if (addr->sa_family == AF_INET6) {
            const auto* in6 = reinterpret_cast<const sockaddr_in6*>(addr);
            if (::inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text) == nullptr) continue;
            iface["addresses"].push_back({{"family", "inet6"},
                                          {"address", text},
                                          {"prefix_len", prefix_length(ifa->ifa_netmask)}});
        } else if (addr->sa_family == AF_PACKET) {
            const auto* ll = reinterpret_cast<const sockaddr_ll*>(addr);
            if (ll->sll_halen > 0) iface["mac"] = mac_address(ll);
        }
    }
    ::freeifaddrs(list);
    nlohmann::json interfaces = nlohmann::json::array();
    for (auto& [name, iface] : by_name) interfaces.push_back(std::move(iface));
    return SourceReading::ok(dump_json(interfaces));
}

}  // namespace yuzu::agent
