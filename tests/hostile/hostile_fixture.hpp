// The fixture of the hostile-input suite: per test, a real yuzu-server
// started with the flags its row of the hardening table needs, an admin
// session and tokens, and the checks every row repeats (the server stayed
// up throughout; how far its RSS grew), reported as test properties and on
// stdout.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hostile/hostile_support.hpp"
#include "integration/identity_test_helpers.hpp"
#include "support/server_process.hpp"
#include "support/temp_dir.hpp"

namespace yuzu::testing::hostile {

inline constexpr char kToolsList[] = R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})";

// Content-Type: application/json, and the bearer token when one is given.
HeaderList json_headers(const std::string& bearer_token = "");
// Whether a response sets a (non-empty) yuzu_session cookie.
bool sets_session_cookie(const HttpResponse& r);
// A property of the running test and a line on stdout ("[ hostile  ] ...").
void report(const std::string& key, double value, const std::string& unit);
// A stopped watch's baseline, peak and growth, as `key`_baseline_kib etc.
void report_rss(const RssWatch& rss, const std::string& key);

class Hostile : public ::testing::Test {
  protected:
    void TearDown() override;  // on failure, prints the tail of the server's log

    // Starts yuzu-server on loopback with `args` (a running one is killed
    // first), logs in as the bootstrap admin and creates an admin API token
    // and a readonly MCP token. False, with the server's log in the failure,
    // when it did not come up (for one, a flag it does not know yet).
    [[nodiscard]] bool start(std::vector<std::string> args = {});
    [[nodiscard]] bool start_with(ServerProcess::Options options);

    ServerProcess& server() { return *server_; }
    int port() const { return server_->port(); }
    int agent_port() const { return port_of(server_->agent_url()); }
    pid_t server_pid() const { return server_->pid(); }

    // POST /mcp/v1/ with the MCP Accept header and, when given, the token.
    std::string mcp_request(const std::string& body, const std::string& token) const;
    // POST /login with a JSON body.
    std::string login_request(const std::string& user, const std::string& password,
                              const HeaderList& extra = {}) const;
    // Enrolls a device on the agent plane; its device token ("" on failure).
    std::string enroll_device(const std::string& hostname);

    // Waits until the server's yuzu_http_open_connections{listener} gauge
    // reads `count` (on the management listener the /metrics request itself
    // is one; it returns once the server has closed that one as well), so
    // connections made earlier in the test, the fixture's included, are
    // closed on the server's side too before a test counts connections
    // against a cap. False if it does not within `timeout`.
    bool await_open_connections(const std::string& listener, int count,
                                milliseconds timeout = milliseconds(3000));

    // /livez answers 200 within 100 ms now and the process runs.
    void expect_alive(const std::string& after);
    // Stops `probe`, reports it, and expects no failure and a max latency
    // under 100 ms throughout, then expect_alive().
    void expect_stayed_up(LivenessProbe& probe, const std::string& during);

    TempDir scratch_;  // declared first: outlives the server using it
    std::unique_ptr<ServerProcess> server_;
    std::unique_ptr<httplib::Client> client_;
    identity::Session admin_;
    std::string admin_token_;
    std::string readonly_token_;
};

}  // namespace yuzu::testing::hostile
