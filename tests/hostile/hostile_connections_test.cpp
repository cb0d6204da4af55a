// Rows 4, 5, 8 and 9 of the hardening table: sockets that trickle, idle or
// pile up hold no worker; the connection caps answer at once (503 / 429
// with Retry-After); SIGTERM ends the process promptly even with slow
// clients mid-request.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "hostile/hostile_fixture.hpp"
#include "hostile/hostile_support.hpp"

namespace yuzu::testing::hostile {
namespace {

using nlohmann::json;

// `n` loopback sources 127.0.<block>.1 .. 127.0.<block>.n.
std::vector<std::string> peers(int block, int n) {
    std::vector<std::string> out;
    for (int i = 1; i <= n; ++i) out.push_back(peer(block, i));
    return out;
}

// A response arrived, or the connection was closed.
bool answered_or_closed(const RawConnection& c) {
    const auto r = c.response();
    return c.closed() || (r && r->complete);
}

TEST_F(Hostile, Row04TricklingHeadersHoldNoWorker) {
    constexpr int kHeaderTimeoutS = 2;
    constexpr int kTricklers = 32;
    ASSERT_TRUE(start({"--http-header-timeout", std::to_string(kHeaderTimeoutS)}));
    LivenessProbe probe(port());

    // Spread over four sources, so no per-peer cap is what answers them.
    std::string error;
    const Connections tricklers = open_many(port(), kTricklers, peers(4, 4), &error);
    ASSERT_EQ(tricklers.size(), static_cast<size_t>(kTricklers)) << error;
    const std::string head =
        "GET /api/v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Trickle: " + std::string(1000, 'a');

    // One byte each every 200 ms, until each is answered or closed.
    const auto start_time = Clock::now();
    const auto deadline = start_time + std::chrono::seconds(kHeaderTimeoutS + 4);
    std::vector<double> done_at(tricklers.size(), -1);
    size_t offset = 0;
    auto next_byte = start_time;
    size_t open = tricklers.size();
    while (open > 0 && Clock::now() < deadline) {
        if (Clock::now() >= next_byte && offset < head.size()) {
            for (size_t i = 0; i < tricklers.size(); ++i) {
                if (done_at[i] >= 0) continue;
                tricklers[i]->send_all(std::string_view(&head[offset], 1), milliseconds(0));
            }
            ++offset;
            next_byte += milliseconds(200);
        }
        const auto until = std::min(next_byte, deadline);
        wait_any(tricklers, std::chrono::ceil<milliseconds>(until - Clock::now()));
        for (size_t i = 0; i < tricklers.size(); ++i) {
            if (done_at[i] >= 0) continue;
            tricklers[i]->drain();
            if (answered_or_closed(*tricklers[i])) {
                done_at[i] = ms(Clock::now() - start_time) / 1000.0;
                --open;
            }
        }
    }

    double first = 1e9;
    double last = 0;
    for (size_t i = 0; i < tricklers.size(); ++i) {
        EXPECT_GE(done_at[i], 0) << "trickler " << i << " was neither answered nor closed within "
                                 << kHeaderTimeoutS + 4 << " s";
        if (done_at[i] < 0) continue;
        first = std::min(first, done_at[i]);
        last = std::max(last, done_at[i]);
        const auto r = tricklers[i]->response();
        if (r) {
            EXPECT_EQ(r->status, 408) << "trickler " << i << ": " << describe(r);
        }
    }
    report("trickler_first_answer_s", first, "s");
    report("trickler_last_answer_s", last, "s");
    // Not refused on sight: held until the header timeout.
    EXPECT_GE(first, kHeaderTimeoutS - 1.0);
    EXPECT_LE(last, kHeaderTimeoutS + 3.0);
    expect_stayed_up(probe, "32 sockets trickling headers");
}

TEST_F(Hostile, Row05IdleAgentSocketsHoldNoWorkerCloseWhenIdleAndAreCappedPerPeer) {
    constexpr int kIdleTimeoutS = 1;
    constexpr int kPerPeer = 16;
    ASSERT_TRUE(start({"--http-idle-timeout", std::to_string(kIdleTimeoutS),
                       "--agent-max-connections-per-peer", std::to_string(kPerPeer)}));
    const std::string device = enroll_device("hostile-idle");
    ASSERT_FALSE(device.empty());
    LivenessProbe probe(port());

    // 128 idle sockets from 16 sources, 8 each: under the per-peer cap, so
    // only the idle timeout may close them.
    std::string error;
    const Connections idle = open_many(agent_port(), 128, peers(5, 16), &error);
    ASSERT_EQ(idle.size(), 128u) << error;
    const auto opened = Clock::now();

    // A real agent's heartbeat is answered at once meanwhile.
    const json beat_body = {{"hostname", "hostile-idle"},
                            {"os", "linux"},
                            {"arch", "x86_64"},
                            {"agent_version", "test"}};
    const Exchange beat = roundtrip(agent_port(),
                                    http_request("POST", "/agent/v1/heartbeat", agent_port(),
                                                 json_headers(device), beat_body.dump()),
                                    milliseconds(5000));
    ASSERT_TRUE(beat.response) << beat.error;
    EXPECT_EQ(beat.response->status, 200) << describe(beat.response);
    report("heartbeat_ms", ms(beat.elapsed), "ms");
    EXPECT_LT(ms(beat.elapsed), 500.0) << "a heartbeat beside 128 idle sockets";

    // The idle sockets are closed after --http-idle-timeout.
    const std::vector<double> closed =
        close_times(idle, std::chrono::seconds(kIdleTimeoutS + 4), opened);
    const auto still_open = std::count(closed.begin(), closed.end(), -1.0);
    EXPECT_EQ(still_open, 0) << "idle agent-plane sockets still open " << kIdleTimeoutS + 4
                             << " s after they were opened";
    report("idle_close_last_s", *std::max_element(closed.begin(), closed.end()), "s");
    EXPECT_LE(*std::max_element(closed.begin(), closed.end()), kIdleTimeoutS + 3.0);

    // Per peer: 16 connections from 127.0.0.1 are held, the 17th gets 429.
    EXPECT_TRUE(await_open_connections("agent", 0)) << "the agent plane still counts connections";
    Connections held = open_many(agent_port(), kPerPeer, {kLoopback}, &error);
    ASSERT_EQ(held.size(), static_cast<size_t>(kPerPeer)) << error;
    auto extra = RawConnection::open(agent_port(), kLoopback, milliseconds(2000), &error);
    ASSERT_TRUE(extra) << error;
    const auto refused = answer_without_or_with_request(*extra, agent_port());
    ASSERT_TRUE(refused) << "connection " << kPerPeer + 1 << " from one peer got no answer"
                         << (extra->closed() ? " (closed)" : "");
    EXPECT_EQ(refused->status, 429) << describe(refused);
    for (size_t i = 0; i < held.size(); ++i) {
        held[i]->drain();
        const auto r = held[i]->response();
        EXPECT_FALSE(r && r->status == 429)
            << "connection " << i + 1 << " of " << kPerPeer << " was refused: " << describe(r);
    }
    expect_stayed_up(probe, "128 idle agent-plane sockets");
}

TEST_F(Hostile, Row08IdleManagementSocketsHoldNoWorkerAndTheCapAnswers503) {
    ASSERT_TRUE(start());
    {
        LivenessProbe probe(port());
        std::string error;
        const Connections idle = open_many(port(), 200, peers(8, 8), &error);
        ASSERT_EQ(idle.size(), 200u) << error;
        for (int i = 0; i < 3; ++i) {
            const Exchange ex =
                roundtrip(port(), mcp_request(kToolsList, readonly_token_), milliseconds(5000));
            ASSERT_TRUE(ex.response) << "tools/list beside 200 idle sockets: " << ex.error;
            EXPECT_EQ(ex.response->status, 200) << describe(ex.response);
            const json answer = json::parse(ex.response->body, nullptr, false);
            EXPECT_TRUE(answer.is_object() && answer.contains("result") &&
                        answer["result"].contains("tools"))
                << describe(ex.response);
            report("tools_list_ms_" + std::to_string(i + 1), ms(ex.elapsed), "ms");
            EXPECT_LT(ms(ex.elapsed), 1000.0) << "tools/list beside 200 idle sockets";
        }
        expect_stayed_up(probe, "200 idle management sockets");
    }

    // With --max-connections 100, connections past the hundredth are
    // answered 503 with Retry-After at once.
    ASSERT_TRUE(start({"--max-connections", "100"}));
    // The fixture's own requests must be closed on the server's side too, or
    // they would take places the count below assumes are free.
    EXPECT_TRUE(await_open_connections("management", 1));
    std::string error;
    Connections held = open_many(port(), 100, peers(9, 4), &error);
    ASSERT_EQ(held.size(), 100u) << error;
    for (int i = 0; i < 4; ++i) {
        auto extra = RawConnection::open(port(), peer(9, 20), milliseconds(2000), &error);
        ASSERT_TRUE(extra) << error;
        const auto r = answer_without_or_with_request(*extra, port());
        ASSERT_TRUE(r) << "connection " << 101 + i << " got no answer"
                       << (extra->closed() ? " (closed)" : "");
        EXPECT_EQ(r->status, 503) << "connection " << 101 + i << ": " << describe(r);
        EXPECT_FALSE(r->header("Retry-After").empty()) << "connection " << 101 + i;
    }
    // Closing the held connections frees their places.
    held.clear();
    EXPECT_TRUE(eventually(
        [this] {
            const Exchange ex =
                roundtrip(port(), http_request("GET", "/livez", port()), milliseconds(1000));
            return ex.response && ex.response->status == 200;
        },
        milliseconds(5000)))
        << "/livez still refused after the held connections closed";
}

TEST_F(Hostile, Row09SigtermWithSlowClientsMidHeaderAndMidBodyExitsPromptly) {
    ASSERT_TRUE(start());
    std::string error;
    auto mid_header = RawConnection::open(port(), peer(10, 1), milliseconds(2000), &error);
    ASSERT_TRUE(mid_header) << error;
    auto mid_body = RawConnection::open(port(), peer(10, 2), milliseconds(2000), &error);
    ASSERT_TRUE(mid_body) << error;
    ASSERT_TRUE(mid_header->send_all("POST /mcp/v1/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "));
    ASSERT_TRUE(
        mid_body->send_all(request_head("POST", "/mcp/v1/", port(),
                                        {{"Content-Type", "application/json"},
                                         {"Accept", "application/json, text/event-stream"},
                                         {"Authorization", "Bearer " + readonly_token_},
                                         {"Content-Length", "100000"}}) +
                           R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":")"));

    // Both keep dripping a byte every 100 ms, as slow clients do, until the
    // server is gone. The drip is the attack's pace, not a wait.
    std::atomic<bool> stop_dripping{false};
    std::thread drip([&] {
        while (!stop_dripping.load()) {
            mid_header->send_all("a", milliseconds(0));
            mid_body->send_all("a", milliseconds(0));
            std::this_thread::sleep_for(milliseconds(100));
        }
    });
    // A few drips first, so both requests are in the server's hands.
    std::this_thread::sleep_for(milliseconds(300));

    const auto signalled = Clock::now();
    const int rc = server().signal_and_wait(SIGTERM, std::chrono::seconds(35));
    const double took_s = ms(Clock::now() - signalled) / 1000.0;
    stop_dripping = true;
    drip.join();
    report("sigterm_exit_s", took_s, "s");
    ASSERT_NE(rc, -1) << "yuzu-server still running 35 s after SIGTERM";
    EXPECT_EQ(rc, 0) << "exit code after SIGTERM";
    EXPECT_LT(took_s, 35.0);
}

}  // namespace
}  // namespace yuzu::testing::hostile
