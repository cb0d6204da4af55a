#include "request_guard.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>

#include "yuzu/http/server.hpp"

namespace yuzu::web {
namespace {

// Exempt from the Host check. Health checkers send whatever Host they were
// configured with: a reverse proxy or sidecar in front of a loopback
// listener forwards the public name, a container check may use its
// hostname. Refusing them would make a healthy server look dead and get it
// restarted. Both routes are read-only, unauthenticated and answer the same
// to anyone who can reach the socket, so a rebinding page learns no more
// than "it is up" and the names of the stores. /metrics is not exempt: it
// describes the fleet and its traffic, and Prometheus is given an address.
constexpr std::string_view kProbePaths[] = {"/livez", "/readyz"};

bool is_probe(const httplib::Request& req) {
    if (req.method != "GET" && req.method != "HEAD") return false;
    return std::find(std::begin(kProbePaths), std::end(kProbePaths), req.path) !=
           std::end(kProbePaths);
}

bool is_mcp(const httplib::Request& req) {
    return req.path.rfind("/mcp/", 0) == 0;
}

bool changes_state(const std::string& method) {
    return method != "GET" && method != "HEAD" && method != "OPTIONS";
}

// The dashboard's pages send Referrer-Policy: no-referrer, and under it a
// browser's plain form POST (the logout button, the sign-in form without
// its script) says `Origin: null` even to its own origin (Fetch standard,
// "append a request Origin header"). Sec-Fetch-Site, which no page script
// can set and no referrer policy changes, tells that apart from a sandboxed
// frame on another site, which is "cross-site".
bool own_page_form_post(const httplib::Request& req, const std::string& origin) {
    return origin == "null" && req.get_header_value("Sec-Fetch-Site") == "same-origin";
}

// At most this much of a header or path goes into a log line.
std::string clipped(const std::string& s) {
    return s.substr(0, 128);
}

}  // namespace

std::function<bool(const httplib::Request&, httplib::Response&)> make_management_request_guard(
    http::HostPolicy policy, bool tls) {
    return [policy = std::move(policy), tls](const httplib::Request& req, httplib::Response& res) {
        if (is_mcp(req)) return true;
        const std::string host = req.get_header_value("Host");
        if (!is_probe(req) && !http::host_allowed(policy, host)) {
            spdlog::warn("correlation_id={} refused Host '{}' on {} {} (DNS rebinding protection)",
                         http::correlation_id_of(res), clipped(host), req.method,
                         clipped(req.path));
            http::write_error(res, 403,
                              "Host header not allowed: connect through a loopback address, or "
                              "add the name with --allowed-host");
            return false;
        }
        if (!changes_state(req.method)) return true;
        const std::string origin = req.get_header_value("Origin");
        if (http::origin_allowed(policy, origin, host, tls) || own_page_form_post(req, origin)) {
            return true;
        }
        spdlog::warn("correlation_id={} refused Origin '{}' on {} {} (cross-site request)",
                     http::correlation_id_of(res), clipped(origin), req.method, clipped(req.path));
        http::write_error(res, 403,
                          "Origin not allowed: a request that changes state must come from this "
                          "server's own pages, or from an origin given with --mcp-allowed-origin");
        return false;
    };
}

}  // namespace yuzu::web
