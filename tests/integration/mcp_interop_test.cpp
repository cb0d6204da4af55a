// Interoperability of /mcp/v1/ over real sockets: a POST without Accept gets
// the JSON answer (RFC 9110), and CORS for pages on an --mcp-allowed-origin
// (preflight and the headers on actual answers, 401s included).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "identity_test_helpers.hpp"
#include "support/server_process.hpp"

namespace yuzu::testing {
namespace {

using identity::kAdminPassword;
using identity::login;
using identity::now_s;
using nlohmann::json;

constexpr char kAllowedOrigin[] = "http://127.0.0.1:6274";
constexpr char kForeignOrigin[] = "http://evil.example.com";
constexpr char kAllowHeaders[] =
    "Authorization, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID, "
    "Mcp-Method, Mcp-Name";
constexpr char kExposeHeaders[] = "Mcp-Session-Id, WWW-Authenticate";

const std::string kInitialize =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
    R"("capabilities":{},"clientInfo":{"name":"interop","version":"1"}}})";

struct RawResponse {
    int status = 0;
    std::map<std::string, std::string> headers;  // lower-case names
    std::string body;
};

// Sends `request` byte for byte (cpp-httplib's client would add an Accept of
// its own) and reads the answer until the server closes.
RawResponse raw_exchange(int port, const std::string& request) {
    RawResponse out;
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return out;
    timeval timeout{10, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    ::inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::send(fd, request.data(), request.size(), 0) != static_cast<ssize_t>(request.size())) {
        ::close(fd);
        return out;
    }
    std::string text;
    char buf[4096];
    ssize_t n;
    while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) text.append(buf, static_cast<size_t>(n));
    ::close(fd);

    const size_t head_end = text.find("\r\n\r\n");
    if (text.rfind("HTTP/1.1 ", 0) != 0 || head_end == std::string::npos) return out;
    out.status = std::stoi(text.substr(9, 3));
    out.body = text.substr(head_end + 4);
    size_t line = text.find("\r\n") + 2;
    while (line < head_end) {
        const size_t eol = text.find("\r\n", line);
        const std::string field = text.substr(line, eol - line);
        const size_t colon = field.find(':');
        if (colon != std::string::npos) {
            std::string name = field.substr(0, colon);
            for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            const size_t value = field.find_first_not_of(' ', colon + 1);
            out.headers[name] = value == std::string::npos ? "" : field.substr(value);
        }
        line = eol + 2;
    }
    return out;
}

// A POST /mcp/v1/ of `body` with exactly these extra header lines.
std::string mcp_post(const std::string& extra_headers, const std::string& body) {
    return "POST /mcp/v1/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
           "Content-Length: " +
           std::to_string(body.size()) + "\r\n" + extra_headers + "Connection: close\r\n\r\n" +
           body;
}

struct InteropFixture {
    explicit InteropFixture(std::vector<std::string> args = {}) {
        auto o = identity::server_options();
        o.args = std::move(args);
        server = std::make_unique<ServerProcess>(o);
        client = std::make_unique<httplib::Client>(server->base_url());
        token = identity::create_token(*client, login(*client, "admin", kAdminPassword), "interop",
                                       "readonly", now_s() + 86400);
    }
    std::string bearer_line() const { return "Authorization: Bearer " + token + "\r\n"; }

    std::unique_ptr<ServerProcess> server;
    std::unique_ptr<httplib::Client> client;
    std::string token;
};

TEST(McpInterop, PostWithoutAcceptGetsTheJsonAnswer) {
    InteropFixture f;
    ASSERT_FALSE(f.token.empty());
    for (const std::string& accept :
         {std::string(), std::string("Accept:\r\n"), std::string("Accept:   \r\n")}) {
        SCOPED_TRACE(accept.empty() ? "no Accept" : accept);
        auto res = raw_exchange(f.server->port(), mcp_post(f.bearer_line() + accept, kInitialize));
        ASSERT_EQ(res.status, 200) << res.body;
        EXPECT_EQ(res.headers["content-type"].rfind("application/json", 0), 0u);
        auto body = json::parse(res.body);
        EXPECT_EQ(body["id"], 1);
        EXPECT_EQ(body["result"]["protocolVersion"], "2025-06-18") << res.body;
    }
}

TEST(McpInterop, AnAcceptWithoutBothTypesIsStill406) {
    InteropFixture f;
    for (const char* accept : {"text/event-stream", "text/html",
                               "application/json;q=0, text/event-stream", "application/json"}) {
        SCOPED_TRACE(accept);
        auto res =
            raw_exchange(f.server->port(),
                         mcp_post(f.bearer_line() + "Accept: " + accept + "\r\n", kInitialize));
        ASSERT_EQ(res.status, 406) << res.body;
        EXPECT_EQ(json::parse(res.body)["error"]["code"], -32011);
    }
    auto both = raw_exchange(
        f.server->port(),
        mcp_post(f.bearer_line() + "Accept: application/json, text/event-stream\r\n", kInitialize));
    EXPECT_EQ(both.status, 200) << both.body;
}

void expect_no_cors_allow(const httplib::Response& res) {
    for (const char* name : {"Access-Control-Allow-Origin", "Access-Control-Allow-Methods",
                             "Access-Control-Allow-Headers", "Access-Control-Allow-Credentials",
                             "Access-Control-Max-Age", "Access-Control-Expose-Headers"}) {
        EXPECT_FALSE(res.has_header(name)) << name << ": " << res.get_header_value(name);
    }
}

httplib::Headers preflight_headers(const std::string& origin) {
    httplib::Headers h{{"Access-Control-Request-Method", "POST"},
                       {"Access-Control-Request-Headers", "authorization,content-type"}};
    if (!origin.empty()) h.emplace("Origin", origin);
    return h;
}

TEST(McpInterop, PreflightFromAnAllowedOriginIsAnswered) {
    InteropFixture f({"--mcp-allowed-origin", kAllowedOrigin});
    for (const char* path : {"/mcp/v1/", "/mcp/v1"}) {
        SCOPED_TRACE(path);
        auto res = f.client->Options(path, preflight_headers(kAllowedOrigin));
        ASSERT_TRUE(res);
        EXPECT_EQ(res->status, 204) << res->body;
        EXPECT_EQ(res->get_header_value("Access-Control-Allow-Origin"), kAllowedOrigin);
        EXPECT_EQ(res->get_header_value("Vary"), "Origin");
        EXPECT_EQ(res->get_header_value("Access-Control-Allow-Methods"),
                  "GET, POST, DELETE, OPTIONS");
        EXPECT_EQ(res->get_header_value("Access-Control-Allow-Headers"), kAllowHeaders);
        EXPECT_EQ(res->get_header_value("Access-Control-Expose-Headers"), kExposeHeaders);
        EXPECT_EQ(res->get_header_value("Access-Control-Max-Age"), "600");
        EXPECT_FALSE(res->has_header("Access-Control-Allow-Credentials"));
        EXPECT_TRUE(res->body.empty());
    }
    // The server's own origin passes the same way.
    const std::string own = f.server->base_url();
    auto res = f.client->Options("/mcp/v1/", preflight_headers(own));
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 204);
    EXPECT_EQ(res->get_header_value("Access-Control-Allow-Origin"), own);
}

TEST(McpInterop, PreflightFromAForeignOrMissingOriginGetsNoAllowHeaders) {
    InteropFixture f({"--mcp-allowed-origin", kAllowedOrigin});
    auto foreign = f.client->Options("/mcp/v1/", preflight_headers(kForeignOrigin));
    ASSERT_TRUE(foreign);
    EXPECT_EQ(foreign->status, 403);
    EXPECT_EQ(json::parse(foreign->body)["error"]["code"], -32008);
    expect_no_cors_allow(*foreign);

    // Same host, another port: another origin.
    auto other_port = f.client->Options("/mcp/v1/", preflight_headers("http://127.0.0.1:6275"));
    ASSERT_TRUE(other_port);
    EXPECT_EQ(other_port->status, 403);
    expect_no_cors_allow(*other_port);

    auto null_origin = f.client->Options("/mcp/v1/", preflight_headers("null"));
    ASSERT_TRUE(null_origin);
    EXPECT_EQ(null_origin->status, 403);
    expect_no_cors_allow(*null_origin);

    auto missing = f.client->Options("/mcp/v1/", preflight_headers(""));
    ASSERT_TRUE(missing);
    EXPECT_EQ(missing->status, 204);
    EXPECT_EQ(missing->get_header_value("Allow"), "GET, POST, DELETE, OPTIONS");
    expect_no_cors_allow(*missing);

    // DNS rebinding: an allowed Origin does not make a foreign Host pass.
    auto h = preflight_headers(kAllowedOrigin);
    h.emplace("Host", "evil.example.com");
    auto rebinding = f.client->Options("/mcp/v1/", h);
    ASSERT_TRUE(rebinding);
    EXPECT_EQ(rebinding->status, 403);
    expect_no_cors_allow(*rebinding);
}

TEST(McpInterop, AnswersToAnAllowedOriginCarryCorsHeadersIncluding401) {
    InteropFixture f({"--mcp-allowed-origin", kAllowedOrigin});
    httplib::Headers h{{"Origin", kAllowedOrigin},
                       {"Accept", "application/json, text/event-stream"},
                       {"Authorization", "Bearer " + f.token}};
    auto ok = f.client->Post("/mcp/v1/", h, kInitialize, "application/json");
    ASSERT_TRUE(ok);
    ASSERT_EQ(ok->status, 200) << ok->body;
    EXPECT_EQ(ok->get_header_value("Access-Control-Allow-Origin"), kAllowedOrigin);
    EXPECT_EQ(ok->get_header_value("Vary"), "Origin");
    EXPECT_EQ(ok->get_header_value("Access-Control-Expose-Headers"), kExposeHeaders);
    EXPECT_FALSE(ok->has_header("Access-Control-Allow-Credentials"));
    EXPECT_EQ(json::parse(ok->body)["result"]["protocolVersion"], "2025-06-18");

    httplib::Headers anonymous{{"Origin", kAllowedOrigin},
                               {"Accept", "application/json, text/event-stream"}};
    auto unauthorized = f.client->Post("/mcp/v1/", anonymous, kInitialize, "application/json");
    ASSERT_TRUE(unauthorized);
    EXPECT_EQ(unauthorized->status, 401);
    EXPECT_EQ(unauthorized->get_header_value("Access-Control-Allow-Origin"), kAllowedOrigin);
    EXPECT_EQ(unauthorized->get_header_value("Access-Control-Expose-Headers"), kExposeHeaders);
    EXPECT_EQ(unauthorized->get_header_value("WWW-Authenticate"), R"(Bearer realm="yuzu")");

    auto not_json = f.client->Post("/mcp/v1/", h, kInitialize, "text/plain");
    ASSERT_TRUE(not_json);
    EXPECT_EQ(not_json->status, 415);
    EXPECT_EQ(not_json->get_header_value("Access-Control-Allow-Origin"), kAllowedOrigin);

    // A refused GET (here: no session header) is readable cross-origin too.
    auto get = f.client->Get("/mcp/v1/", h);
    ASSERT_TRUE(get);
    EXPECT_EQ(get->status, 400);
    EXPECT_EQ(get->get_header_value("Access-Control-Allow-Origin"), kAllowedOrigin);
}

TEST(McpInterop, WithoutStreamingGetAndDeleteAre405AndNoSessionIsMinted) {
    InteropFixture f({"--mcp-no-streaming"});
    httplib::Headers h{{"Accept", "application/json, text/event-stream"},
                       {"Authorization", "Bearer " + f.token}};
    auto init = f.client->Post("/mcp/v1/", h, kInitialize, "application/json");
    ASSERT_TRUE(init);
    EXPECT_EQ(init->status, 200);
    EXPECT_FALSE(init->has_header("Mcp-Session-Id"));
    h.emplace("Mcp-Session-Id", "0123456789abcdef0123456789abcdef");
    for (const char* method : {"GET", "DELETE"}) {
        SCOPED_TRACE(method);
        auto res = std::string(method) == "GET" ? f.client->Get("/mcp/v1/", h)
                                                : f.client->Delete("/mcp/v1/", h);
        ASSERT_TRUE(res);
        EXPECT_EQ(res->status, 405);
        EXPECT_EQ(res->get_header_value("Allow"), "POST, OPTIONS");
    }
    // The header is ignored, not checked, when sessions are off.
    auto ping = f.client->Post("/mcp/v1/", h, R"({"jsonrpc":"2.0","id":2,"method":"ping"})",
                               "application/json");
    ASSERT_TRUE(ping);
    EXPECT_EQ(ping->status, 200);
    auto plain = f.client->Options("/mcp/v1/");
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->get_header_value("Allow"), "POST, OPTIONS");
}

TEST(McpInterop, AnswersToAForeignOrNoOriginCarryNoAllowOrigin) {
    InteropFixture f({"--mcp-allowed-origin", kAllowedOrigin});
    httplib::Headers foreign{{"Origin", kForeignOrigin},
                             {"Accept", "application/json, text/event-stream"},
                             {"Authorization", "Bearer " + f.token}};
    auto refused = f.client->Post("/mcp/v1/", foreign, kInitialize, "application/json");
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 403);
    expect_no_cors_allow(*refused);

    httplib::Headers none{{"Accept", "application/json, text/event-stream"},
                          {"Authorization", "Bearer " + f.token}};
    auto plain = f.client->Post("/mcp/v1/", none, kInitialize, "application/json");
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->status, 200);
    expect_no_cors_allow(*plain);
    EXPECT_EQ(plain->get_header_value("Vary"), "Origin");
}

TEST(McpInterop, WithoutTheFlagOnlyTheOwnOriginGetsCorsHeaders) {
    InteropFixture f;
    auto res = f.client->Options("/mcp/v1/", preflight_headers(kAllowedOrigin));
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 403);
    expect_no_cors_allow(*res);
}

}  // namespace
}  // namespace yuzu::testing
