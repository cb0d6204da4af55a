// The management listener's request guard (web/request_guard.hpp) on
// hand-built requests: which routes the Host check covers, which requests
// the Origin check covers, and what a refusal looks like.
#include "web/request_guard.hpp"

#include <gtest/gtest.h>
#include <httplib.h>

#include <functional>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

namespace yuzu::web {
namespace {

using Guard = std::function<bool(const httplib::Request&, httplib::Response&)>;

constexpr char kOwnHost[] = "127.0.0.1:8080";
constexpr char kOwnOrigin[] = "http://127.0.0.1:8080";

Guard loopback_guard(bool tls = false) {
    http::HostPolicy policy;
    policy.enforce_loopback_names = true;
    return make_management_request_guard(policy, tls);
}

httplib::Request request(const std::string& method, const std::string& path,
                         const httplib::Headers& headers) {
    httplib::Request req;
    req.method = method;
    req.path = path;
    req.headers = headers;
    return req;
}

// Runs the guard; on a refusal checks the shape every refusal has.
bool passes(const Guard& guard, const httplib::Request& req, std::string* message = nullptr) {
    httplib::Response res;
    if (guard(req, res)) return true;
    EXPECT_EQ(res.status, 403) << req.method << " " << req.path;
    EXPECT_EQ(res.get_header_value("Cache-Control"), "no-store");
    const auto body = nlohmann::json::parse(res.body);
    EXPECT_EQ(body["error"]["code"], 403);
    EXPECT_FALSE(body["error"]["correlation_id"].get<std::string>().empty());
    if (message != nullptr) *message = body["error"]["message"].get<std::string>();
    return false;
}

TEST(RequestGuard, AForeignHostIsRefusedOnEveryBrowserReachableRoute) {
    const Guard guard = loopback_guard();
    for (const char* path :
         {"/", "/login", "/metrics", "/api/v1/me", "/approvals", "/ui/app.js", "/no/such/route"}) {
        std::string message;
        EXPECT_FALSE(passes(guard, request("GET", path, {{"Host", "evil.example"}}), &message))
            << path;
        EXPECT_NE(message.find("--allowed-host"), std::string::npos) << message;
    }
    EXPECT_FALSE(passes(guard, request("POST", "/login", {{"Host", "evil.example:8080"}})));
    EXPECT_FALSE(passes(guard, request("GET", "/metrics", {})));  // no Host at all
}

TEST(RequestGuard, LoopbackHostsPass) {
    const Guard guard = loopback_guard();
    for (const char* host : {kOwnHost, "localhost:8080", "[::1]:8080", "LOCALHOST"}) {
        EXPECT_TRUE(passes(guard, request("GET", "/metrics", {{"Host", host}}))) << host;
        EXPECT_TRUE(passes(guard, request("POST", "/login", {{"Host", host}}))) << host;
    }
}

TEST(RequestGuard, AllowedHostsPass) {
    http::HostPolicy policy;
    policy.allowed_hosts = {"yuzu.internal"};
    const Guard guard = make_management_request_guard(policy, false);
    EXPECT_TRUE(passes(guard, request("GET", "/login", {{"Host", "yuzu.internal:8080"}})));
    EXPECT_FALSE(passes(guard, request("GET", "/login", {{"Host", "other.internal:8080"}})));
}

TEST(RequestGuard, HealthProbesAnswerWhateverTheHost) {
    const Guard guard = loopback_guard();
    for (const char* path : {"/livez", "/readyz"}) {
        EXPECT_TRUE(passes(guard, request("GET", path, {{"Host", "10.1.2.3:8080"}}))) << path;
        EXPECT_TRUE(passes(guard, request("HEAD", path, {{"Host", "evil.example"}}))) << path;
        EXPECT_FALSE(passes(guard, request("POST", path, {{"Host", "evil.example"}}))) << path;
    }
    EXPECT_FALSE(passes(guard, request("GET", "/livez/", {{"Host", "evil.example"}})));
    EXPECT_FALSE(passes(guard, request("GET", "/readyz/x", {{"Host", "evil.example"}})));
}

TEST(RequestGuard, McpRoutesAreLeftToTheTransport) {
    const Guard guard = loopback_guard();
    EXPECT_TRUE(
        passes(guard, request("POST", "/mcp/v1/",
                              {{"Host", "evil.example"}, {"Origin", "http://evil.example"}})));
    EXPECT_TRUE(passes(guard, request("POST", "/mcp/v1", {{"Host", "evil.example"}})));
    EXPECT_FALSE(passes(guard, request("POST", "/mcpx", {{"Host", "evil.example"}})));
}

TEST(RequestGuard, AForeignOriginIsRefusedOnLoginAndEveryOtherWrite) {
    const Guard guard = loopback_guard();
    for (const auto& [method, path] : std::initializer_list<std::pair<const char*, const char*>>{
             {"POST", "/login"},
             {"POST", "/logout"},
             {"POST", "/api/v1/tokens"},
             {"PUT", "/api/v1/definitions/x"},
             {"DELETE", "/api/v1/tokens/x"},
             {"PATCH", "/api/v1/users/x"}}) {
        for (const char* origin :
             {"http://evil.example", "http://127.0.0.1:9999", "https://127.0.0.1:8080", "null"}) {
            std::string message;
            EXPECT_FALSE(passes(
                guard, request(method, path, {{"Host", kOwnHost}, {"Origin", origin}}), &message))
                << method << " " << path << " from " << origin;
            EXPECT_NE(message.find("Origin not allowed"), std::string::npos) << message;
        }
        EXPECT_TRUE(passes(guard, request(method, path, {{"Host", kOwnHost}})))
            << method << " " << path << " without Origin";
        EXPECT_TRUE(
            passes(guard, request(method, path, {{"Host", kOwnHost}, {"Origin", kOwnOrigin}})))
            << method << " " << path << " from its own origin";
    }
}

TEST(RequestGuard, ReadsAreNotJudgedByOrigin) {
    const Guard guard = loopback_guard();
    for (const char* method : {"GET", "HEAD", "OPTIONS"}) {
        EXPECT_TRUE(passes(guard, request(method, "/api/v1/me",
                                          {{"Host", kOwnHost}, {"Origin", "http://evil.example"}})))
            << method;
    }
}

TEST(RequestGuard, ANullOriginPassesOnlyFromTheServersOwnPage) {
    const Guard guard = loopback_guard();
    // A plain form POST from a dashboard page (Referrer-Policy: no-referrer).
    EXPECT_TRUE(passes(
        guard,
        request("POST", "/logout",
                {{"Host", kOwnHost}, {"Origin", "null"}, {"Sec-Fetch-Site", "same-origin"}})));
    // A sandboxed frame on another site, or an old browser that says nothing.
    for (const char* site : {"cross-site", "same-site", "none", ""}) {
        EXPECT_FALSE(passes(
            guard, request("POST", "/login",
                           {{"Host", kOwnHost}, {"Origin", "null"}, {"Sec-Fetch-Site", site}})))
            << site;
    }
    // same-origin does not excuse a real foreign Origin.
    EXPECT_FALSE(passes(guard, request("POST", "/login",
                                       {{"Host", kOwnHost},
                                        {"Origin", "http://evil.example"},
                                        {"Sec-Fetch-Site", "same-origin"}})));
}

TEST(RequestGuard, OffLoopbackHostsPassButForeignOriginsStillDoNot) {
    http::HostPolicy policy;
    policy.enforce_loopback_names = false;
    const Guard guard = make_management_request_guard(policy, false);
    EXPECT_TRUE(passes(guard, request("GET", "/metrics", {{"Host", "yuzu.example.com:8080"}})));
    EXPECT_TRUE(passes(guard, request("POST", "/login",
                                      {{"Host", "yuzu.example.com:8080"},
                                       {"Origin", "http://yuzu.example.com:8080"}})));
    EXPECT_FALSE(passes(
        guard, request("POST", "/login",
                       {{"Host", "yuzu.example.com:8080"}, {"Origin", "http://evil.example"}})));
}

TEST(RequestGuard, TlsListenersCompareHttpsOriginsAndHonourTheAllowList) {
    http::HostPolicy policy;
    policy.allowed_origins = {"https://yuzu.example.com:443"};
    const Guard tls = make_management_request_guard(policy, true);
    EXPECT_TRUE(
        passes(tls, request("POST", "/login",
                            {{"Host", "127.0.0.1:8443"}, {"Origin", "https://127.0.0.1:8443"}})));
    EXPECT_FALSE(
        passes(tls, request("POST", "/login",
                            {{"Host", "127.0.0.1:8443"}, {"Origin", "http://127.0.0.1:8443"}})));
    // A TLS-terminating proxy in front: the browser's origin is the proxy's.
    EXPECT_TRUE(
        passes(tls, request("POST", "/login",
                            {{"Host", "127.0.0.1:8443"}, {"Origin", "https://yuzu.example.com"}})));
}

}  // namespace
}  // namespace yuzu::web
