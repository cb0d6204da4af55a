#include "client/source_address.hpp"

#include <arpa/inet.h>

#include <cctype>

namespace yuzu::agent {
namespace {

constexpr int kPerSubnet = 250;  // .1 .. .250: no .0 or .255 in any /24

}  // namespace

bool is_loopback_host(std::string_view host) {
    std::string h(host);
    for (char& c : h) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (h == "localhost") return true;
    in_addr addr{};
    return ::inet_pton(AF_INET, h.c_str(), &addr) == 1 && (ntohl(addr.s_addr) >> 24) == 127;
}

std::string virtual_source_address(int index) {
    return "127.100." + std::to_string(index / kPerSubnet) + "." +
           std::to_string(index % kPerSubnet + 1);
}

std::string source_address_for(const ServerEndpoint& endpoint, int index, int identities,
                               bool enabled) {
    if (!enabled || identities <= 1 || !is_loopback_host(endpoint.host)) return {};
    return virtual_source_address(index);
}

}  // namespace yuzu::agent
