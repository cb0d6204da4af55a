#include "yuzu/agent/server_endpoint.hpp"

#include <cctype>
#include <charconv>

namespace yuzu::agent {
namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool valid_host_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
}

}  // namespace

std::string ServerEndpoint::origin() const {
    const bool ipv6 = host.find(':') != std::string::npos;
    return scheme + "://" + (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::string ServerEndpoint::url() const {
    return origin() + base_path;
}

Result<ServerEndpoint> parse_server_url(std::string_view url) {
    const size_t sep = url.find("://");
    if (sep == std::string_view::npos) {
        return Status::InvalidArgument("server URL must start with http:// or https://");
    }
    ServerEndpoint ep;
    ep.scheme = lower(url.substr(0, sep));
    if (ep.scheme != "http" && ep.scheme != "https") {
        return Status::InvalidArgument("server URL scheme must be http or https, not '" +
                                       ep.scheme + "'");
    }
    std::string_view rest = url.substr(sep + 3);
    if (rest.find_first_of("?#") != std::string_view::npos) {
        return Status::InvalidArgument("server URL must not have a query or fragment");
    }
    const size_t slash = rest.find('/');
    std::string_view authority = rest.substr(0, slash);
    std::string_view path = slash == std::string_view::npos ? "" : rest.substr(slash);
    if (authority.find('@') != std::string_view::npos) {
        return Status::InvalidArgument("server URL must not carry user information");
    }
    std::string_view port_text;
    if (!authority.empty() && authority.front() == '[') {
        const size_t close = authority.find(']');
        if (close == std::string_view::npos) {
            return Status::InvalidArgument("server URL has an unclosed '[' in its host");
        }
        ep.host = std::string(authority.substr(1, close - 1));
        const std::string_view after = authority.substr(close + 1);
        if (!after.empty() && after.front() != ':') {
            return Status::InvalidArgument("server URL has text after its IPv6 host");
        }
        if (!after.empty()) {
            port_text = after.substr(1);
            if (port_text.empty()) return Status::InvalidArgument("server URL has an empty port");
        }
        for (char c : ep.host) {
            if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.') {
                return Status::InvalidArgument("server URL has a malformed IPv6 host");
            }
        }
    } else {
        const size_t colon = authority.find(':');
        ep.host = lower(authority.substr(0, colon));
        if (colon != std::string_view::npos) {
            port_text = authority.substr(colon + 1);
            if (port_text.empty()) return Status::InvalidArgument("server URL has an empty port");
        }
        for (char c : ep.host) {
            if (!valid_host_char(c)) {
                return Status::InvalidArgument("server URL host has an invalid character");
            }
        }
    }
    if (ep.host.empty()) return Status::InvalidArgument("server URL has no host");
    if (port_text.empty()) {
        ep.port = ep.tls() ? 443 : 80;
    } else {
        int port = 0;
        const auto r = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
        if (r.ec != std::errc() || r.ptr != port_text.data() + port_text.size() || port < 1 ||
            port > 65535) {
            return Status::InvalidArgument("server URL port must be 1..65535");
        }
        ep.port = port;
    }
    while (!path.empty() && path.back() == '/') path.remove_suffix(1);
    ep.base_path = std::string(path);
    return ep;
}

}  // namespace yuzu::agent
