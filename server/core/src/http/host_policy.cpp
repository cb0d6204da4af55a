#include "yuzu/http/host_policy.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>
#include <optional>

namespace yuzu::http {
namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

bool is_hex_or_v6_punct(char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) != 0 || c == ':' || c == '.';
}

// A host[:port] authority taken apart. `name` is lower case, keeps an IPv6
// literal's brackets and has lost one trailing dot ("localhost." is
// localhost to DNS); `port` is its digits, "" when absent or empty.
struct Authority {
    std::string name;
    std::string port;
};

std::optional<Authority> split_authority(std::string_view text) {
    if (text.empty()) return std::nullopt;
    // Whitespace, userinfo, a path, a query or a fragment: not a bare
    // authority, whatever a lenient parser might make of it.
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (u <= 0x20 || u == 0x7f || c == '/' || c == '\\' || c == '?' || c == '#' || c == '@') {
            return std::nullopt;
        }
    }
    std::string_view name;
    std::string_view rest;
    if (text.front() == '[') {
        const auto close = text.find(']');
        if (close == std::string_view::npos || close == 1) return std::nullopt;
        const std::string_view inner = text.substr(1, close - 1);
        if (!std::all_of(inner.begin(), inner.end(), is_hex_or_v6_punct)) return std::nullopt;
        name = text.substr(0, close + 1);
        rest = text.substr(close + 1);
    } else {
        const auto colon = text.find(':');
        name = text.substr(0, colon);
        rest = colon == std::string_view::npos ? std::string_view{} : text.substr(colon);
        if (name.find_first_of("[]") != std::string_view::npos) return std::nullopt;
        if (!name.empty() && name.back() == '.') name.remove_suffix(1);
        if (name.empty()) return std::nullopt;
    }
    // RFC 3986: port = *DIGIT. A second colon (a bare IPv6 address) fails here.
    if (!rest.empty()) {
        if (rest.front() != ':' || rest.size() > 6) return std::nullopt;
        rest.remove_prefix(1);
        if (!std::all_of(rest.begin(), rest.end(), is_digit)) return std::nullopt;
    }
    return Authority{lower(name), std::string(rest)};
}

bool name_is_loopback(const std::string& name) {
    if (name == "localhost") return true;
    if (name.size() > 2 && name.front() == '[') {
        const std::string inner = name.substr(1, name.size() - 2);
        in6_addr v6{};
        if (::inet_pton(AF_INET6, inner.c_str(), &v6) != 1) return false;
        return IN6_IS_ADDR_LOOPBACK(&v6) || (IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127);
    }
    in_addr v4{};
    return ::inet_pton(AF_INET, name.c_str(), &v4) == 1 && (ntohl(v4.s_addr) >> 24) == 127;
}

// scheme://name[:port], the scheme's default port written as no port.
std::string origin_text(std::string_view scheme, const Authority& a) {
    std::string out = std::string(scheme) + "://" + a.name;
    const std::string_view default_port = scheme == "https" ? "443" : "80";
    if (!a.port.empty() && a.port != default_port) out += ":" + a.port;
    return out;
}

// An Origin header (or an allow-list entry) in origin_text() form; nullopt
// for "null", other schemes, and anything after the authority.
std::optional<std::string> normalized_origin(std::string_view origin) {
    const std::string text = lower(origin);
    const auto sep = text.find("://");
    if (sep == std::string::npos) return std::nullopt;
    const std::string scheme = text.substr(0, sep);
    if (scheme != "http" && scheme != "https") return std::nullopt;
    auto authority = split_authority(std::string_view(text).substr(sep + 3));
    if (!authority) return std::nullopt;
    return origin_text(scheme, *authority);
}

}  // namespace

std::string host_name_of(std::string_view host_header) {
    auto a = split_authority(host_header);
    return a ? a->name : std::string();
}

bool host_is_loopback(std::string_view host_header) {
    auto a = split_authority(host_header);
    return a && name_is_loopback(a->name);
}

bool host_allowed(const HostPolicy& policy, std::string_view host_header) {
    if (!policy.enforce_loopback_names) return true;
    auto a = split_authority(host_header);
    if (!a) return false;
    if (name_is_loopback(a->name)) return true;
    return std::any_of(policy.allowed_hosts.begin(), policy.allowed_hosts.end(),
                       [&a](const std::string& allowed) {
                           auto entry = split_authority(allowed);
                           return entry && entry->name == a->name;
                       });
}

bool origin_allowed(const HostPolicy& policy, std::string_view origin, std::string_view host_header,
                    bool tls) {
    if (origin.empty()) return true;
    const auto presented = normalized_origin(origin);
    if (!presented) return false;
    if (auto host = split_authority(host_header)) {
        if (*presented == origin_text(tls ? "https" : "http", *host)) return true;
    }
    return std::any_of(policy.allowed_origins.begin(), policy.allowed_origins.end(),
                       [&presented](const std::string& allowed) {
                           return normalized_origin(allowed) == presented;
                       });
}

}  // namespace yuzu::http
