// The MCP GET stream over real sockets: priming and live frames, resume with
// Last-Event-ID, the replay gap, takeover, credential revocation, the
// per-principal stream cap, and /livez under held streams.
#include <gtest/gtest.h>

#include <thread>

#include "mcp_stream_helpers.hpp"

namespace yuzu::testing::mcp_stream {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

std::string tool_of(const SseEvent& e) {
    return json::parse(e.data)["params"]["data"]["tool"];
}

TEST(McpStream, PrimingThenLiveFramesWithStreamHeaders) {
    StreamFixture f;
    const std::string id = open_session(*f.client, f.token);
    SseClient get;
    ASSERT_TRUE(get.open(f.server->port(), get_headers(f.token, id)));
    ASSERT_EQ(get.status, 200);
    EXPECT_EQ(get.headers["content-type"], "text/event-stream");
    EXPECT_EQ(get.headers["cache-control"], "no-cache");
    EXPECT_EQ(get.headers["x-accel-buffering"], "no");
    EXPECT_EQ(get.headers["x-content-type-options"], "nosniff");
    EXPECT_FALSE(get.headers["x-correlation-id"].empty());
    auto priming = get.next_event(seconds(5));
    ASSERT_TRUE(priming);
    EXPECT_EQ(priming->id, 0u);
    EXPECT_TRUE(priming->data.empty());

    for (int i = 1; i <= 3; ++i) EXPECT_EQ(failing_call(*f.client, f.token, id, i), 200);
    for (uint64_t i = 1; i <= 3; ++i) {
        auto e = get.next_event(seconds(5));
        ASSERT_TRUE(e);
        EXPECT_EQ(e->id, i);
        const json message = json::parse(e->data);
        EXPECT_EQ(message["method"], "notifications/message");
        EXPECT_EQ(message["params"]["level"], "warning");
        EXPECT_EQ(tool_of(*e), "no_such_tool_" + std::to_string(i));
    }
    EXPECT_EQ(f.metric("yuzu_mcp_streams_active"), 1);
    EXPECT_EQ(f.metric("yuzu_mcp_sessions_active"), 1);
}

TEST(McpStream, LoggingLevelGatesWhatTheStreamCarries) {
    StreamFixture f;
    const std::string id = open_session(*f.client, f.token);
    const std::string quiet =
        R"({"jsonrpc":"2.0","id":90,"method":"logging/setLevel","params":{"level":"error"}})";
    EXPECT_EQ(
        f.client->Post("/mcp/v1/", mcp_headers(f.token, id), quiet, "application/json")->status,
        200);
    EXPECT_EQ(failing_call(*f.client, f.token, id, 1), 200);  // a warning: filtered out
    const std::string loud =
        R"({"jsonrpc":"2.0","id":91,"method":"logging/setLevel","params":{"level":"info"}})";
    f.client->Post("/mcp/v1/", mcp_headers(f.token, id), loud, "application/json");
    EXPECT_EQ(failing_call(*f.client, f.token, id, 2), 200);
    SseClient get;
    ASSERT_TRUE(get.open(f.server->port(), get_headers(f.token, id, "0")));
    get.next_event(seconds(5));  // priming
    auto e = get.next_event(seconds(5));
    ASSERT_TRUE(e);
    EXPECT_EQ(e->id, 1u);
    EXPECT_EQ(tool_of(*e), "no_such_tool_2");
}

TEST(McpStream, ResumeReplaysExactlyTheFramesAfterLastEventId) {
    StreamFixture f;
    const std::string id = open_session(*f.client, f.token);
    for (int i = 1; i <= 5; ++i) failing_call(*f.client, f.token, id, i);
    SseClient get;
    ASSERT_TRUE(get.open(f.server->port(), get_headers(f.token, id, "3")));
    ASSERT_EQ(get.status, 200);
    auto priming = get.next_event(seconds(5));
    ASSERT_TRUE(priming);
    EXPECT_EQ(priming->id, 3u);
    for (uint64_t want : {4u, 5u}) {
        auto e = get.next_event(seconds(5));
        ASSERT_TRUE(e);
        EXPECT_EQ(e->id, want);
    }
    failing_call(*f.client, f.token, id, 6);
    auto live = get.next_event(seconds(5));
    ASSERT_TRUE(live);
    EXPECT_EQ(live->id, 6u);
    // Resuming from the newest id replays nothing.
    SseClient again;
    ASSERT_TRUE(again.open(f.server->port(), get_headers(f.token, id, "6")));
    auto primed = again.next_event(seconds(5));
    ASSERT_TRUE(primed);
    EXPECT_EQ(primed->id, 6u);
    EXPECT_FALSE(again.next_event(milliseconds(300)).has_value());
}

TEST(McpStream, ACursorTheRingHasPassedGetsReplayGapAndEndsTheSession) {
    StreamFixture f({"--mcp-replay-ring-frames", "4"});
    const std::string id = open_session(*f.client, f.token);
    for (int i = 1; i <= 10; ++i) failing_call(*f.client, f.token, id, i);
    // 7..10 are held: a cursor of 6 is whole, 5 is not.
    {
        SseClient whole;
        ASSERT_TRUE(whole.open(f.server->port(), get_headers(f.token, id, "6")));
        whole.next_event(seconds(5));
        auto first = whole.next_event(seconds(5));
        ASSERT_TRUE(first);
        EXPECT_EQ(first->id, 7u);
    }
    SseClient gap;
    ASSERT_TRUE(gap.open(f.server->port(), get_headers(f.token, id, "5")));
    ASSERT_EQ(gap.status, 200);
    std::vector<SseEvent> frames;
    EXPECT_EQ(gap.read_until_closed(seconds(5), &frames), "replay_gap");
    EXPECT_TRUE(frames.empty()) << "never a shortened replay";
    EXPECT_TRUE(gap.wait_eof(seconds(5)));
    auto after = f.client->Post("/mcp/v1/", mcp_headers(f.token, id),
                                R"({"jsonrpc":"2.0","id":1,"method":"ping"})", "application/json");
    EXPECT_EQ(after->status, 404);
    EXPECT_GE(f.metric("yuzu_mcp_stream_replay_ring_evictions_total"), 6);
    EXPECT_EQ(f.wait_metric("yuzu_mcp_stream_closes_total{reason=\"replay_gap\"}", 1), 1);
}

TEST(McpStream, ASecondGetTakesTheStreamOver) {
    StreamFixture f({"--mcp-max-streams-per-principal", "1"});
    const std::string id = open_session(*f.client, f.token);
    SseClient first;
    ASSERT_TRUE(first.open(f.server->port(), get_headers(f.token, id)));
    first.next_event(seconds(5));
    // The per-principal cap is 1: the takeover reuses the first one's slot.
    SseClient second;
    ASSERT_TRUE(second.open(f.server->port(), get_headers(f.token, id)));
    ASSERT_EQ(second.status, 200);
    EXPECT_EQ(first.read_until_closed(seconds(5)), "superseded");
    second.next_event(seconds(5));
    failing_call(*f.client, f.token, id, 1);
    auto e = second.next_event(seconds(5));
    ASSERT_TRUE(e);
    EXPECT_EQ(e->id, 1u);
    EXPECT_EQ(f.wait_metric("yuzu_mcp_streams_handover_pending", 0), 0);
    EXPECT_EQ(f.metric("yuzu_mcp_streams_active"), 1);
}

TEST(McpStream, ARevokedTokenClosesItsStreamWithinATick) {
    StreamFixture f({"--mcp-stream-tick-ms", "1000"});
    const std::string id = open_session(*f.client, f.token);
    SseClient get;
    ASSERT_TRUE(get.open(f.server->port(), get_headers(f.token, id)));
    get.next_event(seconds(5));
    auto listed = f.client->Get("/api/v1/tokens", f.admin.headers());
    ASSERT_TRUE(listed);
    std::string token_id;
    const json tokens = json::parse(listed->body)["tokens"];
    for (const auto& t : tokens) {
        if (t["name"] == "stream") token_id = t["id"];
    }
    ASSERT_FALSE(token_id.empty()) << listed->body;
    const auto revoked_at = Clock::now();
    auto revoke = f.client->Delete("/api/v1/tokens/" + token_id, f.admin.headers());
    ASSERT_TRUE(revoke);
    ASSERT_EQ(revoke->status, 204) << revoke->body;
    EXPECT_EQ(get.read_until_closed(seconds(10)), "credential_revoked");
    EXPECT_LE(Clock::now() - revoked_at, seconds(3));
    EXPECT_EQ(f.wait_metric("yuzu_mcp_stream_closes_total{reason=\"credential_revoked\"}", 1), 1);
    EXPECT_EQ(f.metric("yuzu_mcp_sessions_active"), 0);
}

TEST(McpStream, TheFifthStreamOfOnePrincipalIs429) {
    StreamFixture f;  // 4 streams per principal by default
    std::vector<SseClient> streams(4);
    for (auto& s : streams) {
        const std::string id = open_session(*f.client, f.token);
        ASSERT_TRUE(s.open(f.server->port(), get_headers(f.token, id)));
        ASSERT_EQ(s.status, 200);
        s.next_event(seconds(5));
    }
    const std::string fifth_id = open_session(*f.client, f.token);
    SseClient fifth;
    ASSERT_TRUE(fifth.open(f.server->port(), get_headers(f.token, fifth_id)));
    EXPECT_EQ(fifth.status, 429);
    EXPECT_EQ(fifth.headers["retry-after"], "5");
    const json body = json::parse(fifth.body);
    EXPECT_EQ(body["error"]["code"], -32012);
    EXPECT_EQ(body["error"]["data"]["retry_after_ms"], 5000);
    EXPECT_EQ(f.metric("yuzu_mcp_stream_rejects_total{reason=\"per_principal_stream_cap\"}"), 1);
    // A stream that ends frees its place.
    streams[0].close();
    const auto deadline = Clock::now() + seconds(10);
    int status = 0;
    while (status != 200 && Clock::now() < deadline) {
        SseClient retry;
        ASSERT_TRUE(retry.open(f.server->port(), get_headers(f.token, fifth_id)));
        status = retry.status;
        if (status != 200) std::this_thread::sleep_for(milliseconds(200));
    }
    EXPECT_EQ(status, 200);
}

// A raw keep-alive connection that served one /livez and stays open, idle.
int idle_keep_alive(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    ::inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return -1;
    const std::string req = "GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    ::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
    char buf[1024];
    (void)::recv(fd, buf, sizeof buf, 0);
    return fd;
}

TEST(McpStream, HeldStreamsAndIdleClientsDoNotDelayLivez) {
    StreamFixture f({"--mcp-max-streams-per-principal", "100", "--mcp-max-sessions-per-principal",
                     "100", "--http-idle-timeout", "60"});
    std::vector<int> idle;
    for (int i = 0; i < 64; ++i) idle.push_back(idle_keep_alive(f.server->port()));
    std::vector<SseClient> streams(100);
    for (auto& s : streams) {
        const std::string id = open_session(*f.client, f.token);
        ASSERT_TRUE(s.open(f.server->port(), get_headers(f.token, id)));
        ASSERT_EQ(s.status, 200);
    }
    ASSERT_EQ(f.metric("yuzu_mcp_streams_active"), 100);
    auto worst = milliseconds(0);
    for (int i = 0; i < 30; ++i) {
        httplib::Client fresh(f.server->base_url());
        const auto start = Clock::now();
        auto res = fresh.Get("/livez");
        const auto took = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
        ASSERT_TRUE(res);
        EXPECT_EQ(res->status, 200);
        worst = std::max(worst, took);
    }
    EXPECT_LT(worst, milliseconds(100));
    for (int fd : idle) ::close(fd);
}

}  // namespace
}  // namespace yuzu::testing::mcp_stream
