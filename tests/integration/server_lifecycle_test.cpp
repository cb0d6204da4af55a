// yuzu-server as a process: health routes, correlation ids, body limit,
// metrics exposition (checked by promtool), flag validation, start-up
// failures (address in use, bad TLS files) and shutdown.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

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

// Start-up failures an operator fixes in the configuration (an address in
// use, an unusable TLS certificate or key) are found before the first
// start's side effects: one line on stderr, exit 2, and neither the
// bootstrap password file nor the first admin left behind.
namespace yuzu::testing {
namespace {

// Holds a listening socket on 127.0.0.1 (port chosen by the kernel).
class HeldPort {
  public:
    HeldPort() {
        fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        ::inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
        if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
            ::listen(fd_, 1) != 0) {
            return;
        }
        socklen_t len = sizeof addr;
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
        port_ = ntohs(addr.sin_port);
    }
    ~HeldPort() {
        if (fd_ >= 0) ::close(fd_);
    }
    HeldPort(const HeldPort&) = delete;
    HeldPort& operator=(const HeldPort&) = delete;
    int port() const { return port_; }

  private:
    int fd_ = -1;
    int port_ = 0;
};

struct StartupOutcome {
    int rc = -1;
    std::string output;  // stdout and stderr
};

// Runs yuzu-server on a fresh data dir until it exits by itself.
StartupOutcome start_server(const std::string& data_dir, const std::vector<std::string>& args) {
    std::vector<std::string> argv = {bin_path("yuzu-server"), "--data-dir", data_dir};
    const auto given = [&args](const char* flag) {
        return std::find(args.begin(), args.end(), flag) != args.end();
    };
    for (const char* flag : {"--listen", "--agent-listen"}) {
        if (!given(flag)) argv.insert(argv.end(), {flag, "127.0.0.1:0"});
    }
    argv.insert(argv.end(), args.begin(), args.end());
    StartupOutcome out;
    out.rc = run_command(argv, &out.output);
    return out;
}

void expect_one_line(const StartupOutcome& o, const std::string& needle) {
    EXPECT_EQ(o.rc, 2) << o.output;
    EXPECT_EQ(std::count(o.output.begin(), o.output.end(), '\n'), 1) << o.output;
    EXPECT_EQ(o.output.rfind("yuzu-server: ", 0), 0u) << o.output;
    EXPECT_NE(o.output.find(needle), std::string::npos) << o.output;
}

// No bootstrap password file, and no user (the admin) in the user store.
void expect_no_first_start_side_effects(const std::string& data_dir) {
    EXPECT_FALSE(std::filesystem::exists(data_dir + "/initial-admin-password"));
    const std::string auth_db = data_dir + "/auth.db";
    if (!std::filesystem::exists(auth_db)) return;  // not even created: no admin
    std::string out;
    ASSERT_EQ(run_command({"/usr/bin/sqlite3", auth_db, "SELECT count(*) FROM users;"}, &out), 0)
        << out;
    EXPECT_EQ(out, "0\n") << "the admin was bootstrapped before the failure";
}

TEST(ServerStartup, PortInUseExitsTwoWithOneLineBeforeBootstrappingTheAdmin) {
    HeldPort held;
    ASSERT_GT(held.port(), 0);
    const std::string address = "127.0.0.1:" + std::to_string(held.port());
    for (const char* flag : {"--listen", "--agent-listen"}) {
        TempDir dir;
        const std::string data_dir = (dir.path() / "data").string();
        const StartupOutcome o = start_server(data_dir, {flag, address});
        expect_one_line(o, "cannot listen on " + address + ": Address already in use");
        EXPECT_EQ(o.output,
                  "yuzu-server: cannot listen on " + address + ": Address already in use\n")
            << flag;
        expect_no_first_start_side_effects(data_dir);
    }
}

TEST(ServerStartup, MissingTlsCertificateExitsTwoWithOneLineBeforeBootstrappingTheAdmin) {
    TempDir dir;
    const std::string data_dir = (dir.path() / "data").string();
    const std::string missing = (dir.path() / "no-such-cert.pem").string();
    const std::string key = (dir.path() / "key.pem").string();
    std::ofstream(key) << "not a key\n";
    for (const char* flag : {"--tls-cert", "--agent-tls-cert"}) {
        const std::string key_flag =
            std::string(flag) == "--tls-cert" ? "--tls-key" : "--agent-tls-key";
        const StartupOutcome o = start_server(data_dir, {flag, missing, key_flag, key});
        expect_one_line(o, missing);
        expect_no_first_start_side_effects(data_dir);
    }
}

TEST(ServerStartup, GarbageTlsCertificateExitsTwoWithOneLineBeforeBootstrappingTheAdmin) {
    TempDir dir;
    const std::string cert = (dir.path() / "cert.pem").string();
    const std::string key = (dir.path() / "key.pem").string();
    std::ofstream(cert) << "this is not a certificate\n";
    std::ofstream(key) << "nor is this a key\n";
    for (const auto& [cert_flag, key_flag] :
         {std::pair{"--tls-cert", "--tls-key"}, std::pair{"--agent-tls-cert", "--agent-tls-key"}}) {
        TempDir data;
        const std::string data_dir = (data.path() / "data").string();
        const StartupOutcome o = start_server(data_dir, {cert_flag, cert, key_flag, key});
        expect_one_line(o, "TLS certificate " + cert + ": no start line");
        expect_no_first_start_side_effects(data_dir);
    }
}

TEST(ServerStartup, TlsKeyThatIsNotTheCertificatesExitsTwoWithOneLine) {
    TempDir dir;
    const std::string cert = (dir.path() / "cert.pem").string();
    const std::string key = (dir.path() / "key.pem").string();
    const std::string other_key = (dir.path() / "other-key.pem").string();
    std::string out;
    ASSERT_EQ(run_command({"/usr/bin/openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                           "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", cert,
                           "-days", "1", "-subj", "/CN=localhost"},
                          &out),
              0)
        << out;
    ASSERT_EQ(run_command({"/usr/bin/openssl", "genpkey", "-algorithm", "EC", "-pkeyopt",
                           "ec_paramgen_curve:P-256", "-out", other_key},
                          &out),
              0)
        << out;
    const std::string data_dir = (dir.path() / "data").string();
    const StartupOutcome o = start_server(data_dir, {"--tls-cert", cert, "--tls-key", other_key});
    expect_one_line(o, "TLS key " + other_key + ": ");
    expect_no_first_start_side_effects(data_dir);
}

}  // namespace
}  // namespace yuzu::testing
