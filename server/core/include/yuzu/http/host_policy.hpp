// HostPolicy: which Host and Origin headers a listener accepts. One set of
// rules for the MCP transport (answered as JSON-RPC errors) and the
// management listener's request guard (answered as REST errors).
//
// Host (DNS rebinding): a page on attacker.example whose name is re-pointed
// at 127.0.0.1 reaches a loopback listener as same-origin to the browser, but
// its requests still say `Host: attacker.example`. So on loopback only
// loopback names and the operator's --allowed-host names pass. Off loopback
// every Host passes: the listener is reachable under names it cannot know.
//
// Origin (cross-site requests): absent passes (curl, SDKs, agents send
// none); "null" (sandboxed frames, file: pages) and anything unparsable are
// refused; the listener's own origin — its scheme with the request's Host —
// and the operator's --mcp-allowed-origin entries pass. Scheme and host
// compare case-insensitively and a scheme's default port (80, 443) equals no
// port, as browsers omit it.
//
// Pure functions of their arguments; safe from any thread. No HTTP library
// types, so the rules are testable on their own.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace yuzu::http {

struct HostPolicy {
    // True when the listener is on a loopback address: Host is checked.
    bool enforce_loopback_names = true;
    // Host names accepted besides loopback names (no port; --allowed-host).
    std::vector<std::string> allowed_hosts;
    // Origins accepted besides the listener's own (scheme://host:port;
    // --mcp-allowed-origin).
    std::vector<std::string> allowed_origins;
};

// The name part of a Host header (or any host[:port] authority): lower case,
// the port and one trailing dot removed, an IPv6 literal kept in brackets.
// "" when it is empty or malformed (a port that is not 0-5 digits, a bare
// IPv6 address, userinfo, a path, whitespace).
std::string host_name_of(std::string_view host_header);

// localhost, 127.0.0.0/8, or an IPv6 loopback literal ([::1], also written
// out, or IPv4-mapped 127.x), with or without a port.
bool host_is_loopback(std::string_view host_header);

bool host_allowed(const HostPolicy& policy, std::string_view host_header);

// `tls` is the listener's scheme (https when true). `host_header` is the
// request's Host, which the caller has already judged with host_allowed().
bool origin_allowed(const HostPolicy& policy, std::string_view origin, std::string_view host_header,
                    bool tls);

}  // namespace yuzu::http
