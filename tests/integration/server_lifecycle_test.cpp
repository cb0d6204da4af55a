// yuzu-server as a process: health routes, correlation ids, body limit,
// metrics exposition (checked by promtool), flag validation and shutdown.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "support/server_process.hpp"

namespace yuzu::testing {
namespace {

using nlohmann::json;

bool looks_like_correlation_id(const std::string& id) {
    // req-<hex>-<hex>, lowercase
    if (id.rfind("req-", 0) != 0) return false;
    const auto dash = id.find('-', 4);
    if (dash == std::string::npos || dash == 4 || dash + 1 == id.size()) return false;
    for (size_t i = 4; i < id.size(); ++i) {
        if (i == dash) continue;
        const char c = id[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    }
    return true;
}

TEST(ServerLifecycle, LivezAndReadyzAnswerJsonWithCorrelationId) {
    ServerProcess server;
    ASSERT_FALSE(server.base_url().empty()) << server.log();
    httplib::Client client(server.base_url());
    auto live = client.Get("/livez");
    ASSERT_TRUE(live);
    EXPECT_EQ(live->status, 200);
    EXPECT_EQ(json::parse(live->body)["status"], "ok");
    EXPECT_TRUE(looks_like_correlation_id(live->get_header_value("X-Correlation-Id")));
    auto ready = client.Get("/readyz");
    ASSERT_TRUE(ready);
    EXPECT_EQ(ready->status, 200) << ready->body;
    EXPECT_EQ(json::parse(ready->body)["status"], "ready");
}

TEST(ServerLifecycle, UnknownRouteIs404JsonWithCorrelationId) {
    ServerProcess server;
    httplib::Client client(server.base_url());
    auto res = client.Get("/no/such/thing");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 404);
    const auto body = json::parse(res->body);
    EXPECT_EQ(body["error"]["code"], 404);
    EXPECT_EQ(body["error"]["correlation_id"], res->get_header_value("X-Correlation-Id"));
}

TEST(ServerLifecycle, CorrelationIdsAreUniqueUnderConcurrencyAndLogged) {
    ServerProcess server;
    std::mutex mu;
    std::set<std::string> ids;
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&] {
            httplib::Client client(server.base_url());
            for (int i = 0; i < 40; ++i) {
                auto res = client.Get("/livez");
                ASSERT_TRUE(res);
                const std::string id = res->get_header_value("X-Correlation-Id");
                EXPECT_TRUE(looks_like_correlation_id(id)) << id;
                std::lock_guard<std::mutex> lock(mu);
                ids.insert(id);
            }
        });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(ids.size(), 320u);
    // The same id is on the server's log line for that request.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const std::string log = server.log();
    EXPECT_NE(log.find("correlation_id=" + *ids.begin()), std::string::npos);
}

TEST(ServerLifecycle, OversizedBodyGets413) {
    ServerProcess server(ServerProcess::Options::with_args({"--max-request-body", "1KiB"}));
    ASSERT_FALSE(server.base_url().empty()) << server.log();
    httplib::Client client(server.base_url());
    auto small = client.Post("/livez", std::string(512, 'a'), "application/json");
    ASSERT_TRUE(small);
    EXPECT_NE(small->status, 413);
    auto big = client.Post("/livez", std::string(4096, 'a'), "application/json");
    ASSERT_TRUE(big);
    EXPECT_EQ(big->status, 413);
    EXPECT_TRUE(looks_like_correlation_id(big->get_header_value("X-Correlation-Id")));
}

TEST(ServerLifecycle, MetricsPassPromtool) {
    ServerProcess server;
    httplib::Client client(server.base_url());
    ASSERT_TRUE(client.Get("/livez"));
    ASSERT_TRUE(client.Get("/nope"));
    auto res = client.Get("/metrics");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
    EXPECT_NE(res->get_header_value("Content-Type").find("text/plain"), std::string::npos);
    EXPECT_NE(
        res->body.find(
            R"(yuzu_http_requests_total{listener="management",method="GET",route="/livez",status="200"})"),
        std::string::npos)
        << res->body;
    EXPECT_NE(res->body.find("yuzu_http_request_duration_seconds_bucket"), std::string::npos);

    const std::string file = server.data_dir() + "/metrics.txt";
    std::ofstream(file) << res->body;
    ASSERT_EQ(access("/usr/bin/promtool", X_OK), 0)
        << "promtool missing: install Debian's prometheus package (scripts/test.sh does)";
    std::string output;
    const int rc =
        run_command({"/bin/sh", "-c", "/usr/bin/promtool check metrics < " + file}, &output);
    EXPECT_EQ(rc, 0) << output;
}

TEST(ServerLifecycle, JsonLogFormatWritesOneObjectPerLine) {
    ServerProcess server(ServerProcess::Options::with_args({"--log-format", "json"}));
    httplib::Client client(server.base_url());
    auto res = client.Get("/livez");
    ASSERT_TRUE(res);
    const std::string id = res->get_header_value("X-Correlation-Id");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::istringstream lines(server.log());
    std::string line;
    bool found = false;
    int parsed = 0;
    while (std::getline(lines, line)) {
        if (line.empty()) continue;
        const auto j = json::parse(line);  // every line must be JSON
        ++parsed;
        if (j.contains("correlation_id") && j["correlation_id"] == id) found = true;
    }
    EXPECT_GT(parsed, 1);
    EXPECT_TRUE(found) << server.log();
}

TEST(ServerLifecycle, BadFlagExitsTwoWithOneLine) {
    std::string output;
    const int rc = run_command({bin_path("yuzu-server"), "--log-level", "loud"}, &output);
    EXPECT_EQ(rc, 2);
    EXPECT_NE(output.find("--log-level"), std::string::npos) << output;
    EXPECT_EQ(std::count(output.begin(), output.end(), '\n'), 1) << output;
}

TEST(ServerLifecycle, SigtermWithRequestInFlightCompletesItAndExitsZero) {
    ServerProcess server;
    // Start a request and leave it half-sent, so it is in flight when the
    // signal arrives.
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(server.port()));
    ::inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    const std::string head = "GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    ASSERT_EQ(::send(fd, head.data(), head.size(), 0), static_cast<ssize_t>(head.size()));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));

    const auto start = std::chrono::steady_clock::now();
    ASSERT_EQ(::kill(server.pid(), SIGTERM), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const std::string tail = "Connection: close\r\n\r\n";
    ASSERT_EQ(::send(fd, tail.data(), tail.size(), 0), static_cast<ssize_t>(tail.size()));
    std::string response;
    char buf[4096];
    ssize_t n;
    while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) response.append(buf, static_cast<size_t>(n));
    ::close(fd);
    EXPECT_EQ(response.rfind("HTTP/1.1 200", 0), 0u) << response;

    const int rc = server.wait_exit(std::chrono::seconds(5));
    const auto elapsed = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(rc, 0) << server.log();
    EXPECT_LT(elapsed, std::chrono::seconds(5));
    // New connections are refused once it has stopped accepting.
    httplib::Client client(server.base_url());
    client.set_connection_timeout(1);
    EXPECT_FALSE(client.Get("/livez"));
}

}  // namespace
}  // namespace yuzu::testing

namespace yuzu::testing {
namespace {

TEST(ServerLifecycle, RefusesToStartOnAStoreNewerThanTheBinary) {
    TempDir dir;
    const std::string data_dir = (dir.path() / "data").string();
    {
        // First start creates and migrates the stores.
        ServerProcess::Options o;
        o.data_dir = data_dir;
        ServerProcess first(o);
        ASSERT_FALSE(first.base_url().empty()) << first.log();
        EXPECT_EQ(first.signal_and_wait(SIGTERM), 0);
    }
    std::string out;
    ASSERT_EQ(
        run_command({"/usr/bin/sqlite3", data_dir + "/audit.db", "PRAGMA user_version=99;"}, &out),
        0)
        << out;
    ServerProcess::Options o;
    o.data_dir = data_dir;
    o.wait_until_ready = false;
    ServerProcess second(o);
    const int rc = second.wait_exit(std::chrono::seconds(20));
    EXPECT_NE(rc, 0);
    EXPECT_NE(rc, -1) << "server kept running on a newer store";
    EXPECT_NE(second.log().find("newer"), std::string::npos) << second.log();
}

}  // namespace
}  // namespace yuzu::testing
