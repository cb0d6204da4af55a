// The progress bridge and streamed POST responses against a real
// yuzu-server with virtual agents: the opt-in table, progress then the
// result on the POST, resuming a lost response on GET with Last-Event-ID
// (and the gap once the ring has moved on), the streamed-call slots and
// their reclaim, a duplicate request id, notifications/cancelled, and the
// GET-channel mode.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "execution_test_helpers.hpp"
#include "mcp_stream_helpers.hpp"

namespace yuzu::testing {
namespace {

using fleet::FleetFixture;
using fleet::wait_for;
using mcp_stream::SseClient;
using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

using Headers = std::vector<std::pair<std::string, std::string>>;

// A fleet of `answering` virtual agents plus `silent` ones that were killed
// without a goodbye: they stay online but never answer, so an execution
// that targets them runs until --execution-timeout.
struct ProgressFixture {
    explicit ProgressFixture(int answering, int silent, std::vector<std::string> args = {})
        : f(with_defaults(std::move(args))) {
        op = f.mcp_tokens["operator"];
        const std::string enroll = f.enrollment_token();
        agents = f.start_agents(answering, enroll);
        EXPECT_TRUE(wait_for([&] { return f.online_count(op) == static_cast<size_t>(answering); },
                             seconds(30)))
            << agents->log();
        if (silent > 0) {
            auto doomed = f.start_agents(silent, enroll);
            EXPECT_TRUE(wait_for(
                [&] { return f.online_count(op) == static_cast<size_t>(answering + silent); },
                seconds(30)))
                << doomed->log();
            EXPECT_EQ(doomed->signal_and_wait(SIGKILL), 128 + SIGKILL);
        }
        httplib::Client c(f.server->base_url());
        session = mcp_stream::open_session(c, op);
        EXPECT_EQ(session.size(), 32u);
    }

    static std::vector<std::string> with_defaults(std::vector<std::string> args) {
        std::vector<std::string> all;
        for (const auto& [flag, value] :
             {std::pair<std::string, std::string>{"--execution-timeout", "4"},
              {"--mcp-stream-tick-ms", "200"}}) {
            if (std::find(args.begin(), args.end(), flag) == args.end()) {
                all.insert(all.end(), {flag, value});
            }
        }
        all.insert(all.end(), args.begin(), args.end());
        return all;
    }

    int port() const { return f.server->port(); }

    Headers post_headers(bool sse = true) const {
        Headers h{{"Authorization", "Bearer " + op}, {"Mcp-Session-Id", session}};
        if (sse) h.emplace_back("Accept", "application/json, text/event-stream");
        return h;
    }

    static std::string call(const json& id, const json& token) {
        json params = {{"name", "execute_instruction"},
                       {"arguments", {{"plugin", "os"}, {"action", "info"}}}};
        if (!token.is_null()) params["_meta"] = {{"progressToken", token}};
        return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"}, {"params", params}}
            .dump();
    }

    double metric(const std::string& series) const {
        return mcp_stream::metric_value(*f.client, series);
    }

    bool metric_reaches(const std::string& series, double want) const {
        return wait_for([&] { return metric(series) == want; }, seconds(10));
    }

    FleetFixture f;
    std::string op;
    std::unique_ptr<ChildProcess> agents;
    std::string session;
};

// What a streamed response carried.
struct Streamed {
    std::vector<json> progress;  // params of each notifications/progress
    std::optional<json> result;  // the JSON-RPC response
    std::optional<uint64_t> last_id;
    std::string closed;  // the stream-closed reason, "" when none
    bool eof = false;
};

Streamed read_streamed(SseClient& s, milliseconds timeout, size_t stop_after_progress = 0) {
    Streamed out;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        auto e = s.next_event(
            std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now()));
        if (!e) break;
        if (e->id) out.last_id = e->id;
        if (e->event == "stream-closed") {
            out.closed = json::parse(e->data)["reason"];
            continue;
        }
        if (e->data.empty()) continue;  // the priming event
        json m = json::parse(e->data);
        if (m.value("method", "") == "notifications/progress") {
            out.progress.push_back(m["params"]);
            if (stop_after_progress > 0 && out.progress.size() >= stop_after_progress) return out;
        } else if (m.contains("id")) {
            out.result = m;
        }
    }
    out.eof = s.wait_eof(milliseconds(2000));
    return out;
}

void expect_increasing(const std::vector<json>& progress) {
    for (size_t i = 1; i < progress.size(); ++i) {
        EXPECT_GT(progress[i]["progress"].get<double>(), progress[i - 1]["progress"].get<double>());
    }
}

TEST(McpProgress, AStreamedCallSendsProgressThenItsResultThenEnds) {
    ProgressFixture p(3, 0);
    SseClient s;
    ASSERT_TRUE(s.post(p.port(), p.post_headers(), ProgressFixture::call(7, "tok-1")));
    ASSERT_EQ(s.status, 200) << s.body;
    EXPECT_EQ(s.headers["content-type"], "text/event-stream");
    EXPECT_EQ(s.headers["x-accel-buffering"], "no");
    const Streamed got = read_streamed(s, seconds(20));
    ASSERT_TRUE(got.result) << "the JSON-RPC result is the last message";
    EXPECT_EQ((*got.result)["id"], 7);
    const json sc = (*got.result)["result"]["structuredContent"];
    ASSERT_TRUE(sc.contains("execution_id")) << got.result->dump();
    ASSERT_FALSE(got.progress.empty());
    expect_increasing(got.progress);
    const json& last = got.progress.back();
    EXPECT_EQ(last["progress"], 3);
    EXPECT_EQ(last["total"], 3);
    EXPECT_EQ(last["progressToken"], "tok-1");
    EXPECT_EQ(last["_meta"]["execution_id"], sc["execution_id"]);
    EXPECT_EQ(got.closed, "") << "a delivered result just ends the stream";
    EXPECT_TRUE(got.eof);
    EXPECT_TRUE(p.metric_reaches("yuzu_mcp_stream_closes_total{reason=\"completed\"}", 1));
    EXPECT_TRUE(p.metric_reaches("yuzu_mcp_post_streams_active", 0));
    EXPECT_TRUE(p.metric_reaches("yuzu_mcp_bridge_records_active", 0));
}

TEST(McpProgress, TheOptInTableDecidesTheAnswersShape) {
    ProgressFixture p(1, 0);
    httplib::Client c(p.f.server->base_url());
    // SSE Accept without a token: plain JSON.
    auto plain = c.Post("/mcp/v1/", mcp_stream::mcp_headers(p.op, p.session),
                        ProgressFixture::call(1, nullptr), "application/json");
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->status, 200);
    EXPECT_EQ(plain->get_header_value("Content-Type"), "application/json");
    // A token without a session: plain JSON, counted as a degrade.
    auto sessionless = c.Post("/mcp/v1/", mcp_stream::mcp_headers(p.op),
                              ProgressFixture::call(2, "t"), "application/json");
    ASSERT_TRUE(sessionless);
    EXPECT_EQ(sessionless->get_header_value("Content-Type"), "application/json");
    EXPECT_EQ(p.metric("yuzu_mcp_bridge_degrade_total{reason=\"no_session\"}"), 1);
    // A token that is not a string or an integer: plain JSON, degraded.
    auto bad = c.Post("/mcp/v1/", mcp_stream::mcp_headers(p.op, p.session),
                      ProgressFixture::call(3, json::object()), "application/json");
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->get_header_value("Content-Type"), "application/json");
    EXPECT_EQ(p.metric("yuzu_mcp_bridge_degrade_total{reason=\"invalid_token\"}"), 1);
    // q=0 on text/event-stream refuses a POST without a progress token...
    httplib::Headers q0{{"Authorization", "Bearer " + p.op},
                        {"Mcp-Session-Id", p.session},
                        {"Accept", "application/json, text/event-stream;q=0"}};
    auto refused = c.Post("/mcp/v1/", q0, ProgressFixture::call(5, nullptr), "application/json");
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 406);
    // ...and still opts in when a token is sent.
    SseClient s;
    Headers h = p.post_headers(false);
    h.emplace_back("Accept", "application/json, text/event-stream;q=0");
    ASSERT_TRUE(s.post(p.port(), h, ProgressFixture::call(4, 44)));
    EXPECT_EQ(s.headers["content-type"], "text/event-stream");
    const Streamed got = read_streamed(s, seconds(20));
    ASSERT_TRUE(got.result);
    EXPECT_EQ(got.progress.back()["progressToken"], 44);
}

TEST(McpProgress, ATokenWithoutSseAcceptAnswersNowAndSendsProgressOnTheGetStream) {
    ProgressFixture p(2, 0);
    SseClient get;
    ASSERT_TRUE(get.open(p.port(), mcp_stream::get_headers(p.op, p.session)));
    ASSERT_EQ(get.status, 200);
    ASSERT_TRUE(get.next_event(seconds(5)));  // priming
    httplib::Client c(p.f.server->base_url());
    httplib::Headers h{{"Authorization", "Bearer " + p.op}, {"Mcp-Session-Id", p.session}};
    auto res = c.Post("/mcp/v1/", h, ProgressFixture::call(9, "get-mode"), "application/json");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200);
    EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
    const std::string execution_id =
        json::parse(res->body)["result"]["structuredContent"]["execution_id"];
    std::vector<json> progress;
    const auto deadline = std::chrono::steady_clock::now() + seconds(20);
    while (std::chrono::steady_clock::now() < deadline &&
           (progress.empty() || progress.back()["progress"] != 2)) {
        auto e = get.next_event(seconds(5));
        if (!e) break;
        if (e->data.empty()) continue;
        json m = json::parse(e->data);
        if (m.value("method", "") == "notifications/progress") progress.push_back(m["params"]);
    }
    ASSERT_FALSE(progress.empty());
    expect_increasing(progress);
    EXPECT_EQ(progress.back()["progress"], 2);
    EXPECT_EQ(progress.back()["total"], 2);
    EXPECT_EQ(progress.back()["_meta"]["execution_id"], execution_id);
}

TEST(McpProgress, ALostResponseResumesOnGetAndTheRingMovingOnIsAGap) {
    ProgressFixture p(1, 1, {"--mcp-replay-ring-frames", "8"});
    std::optional<uint64_t> cursor;
    {
        SseClient s;
        ASSERT_TRUE(s.post(p.port(), p.post_headers(), ProgressFixture::call(5, "lost")));
        ASSERT_EQ(s.status, 200);
        // The answering agent's progress, then the client dies mid-stream.
        const Streamed first = read_streamed(s, seconds(10), 1);
        ASSERT_EQ(first.progress.size(), 1u);
        EXPECT_FALSE(first.result);
        cursor = first.last_id;
    }
    ASSERT_TRUE(cursor);
    // The server notices the client left (within a tick); the execution is
    // still running (the silent agent has not timed out yet).
    ASSERT_TRUE(p.metric_reaches("yuzu_mcp_post_streams_active", 0));
    EXPECT_EQ(p.metric("yuzu_mcp_bridge_records_active"), 1);
    SseClient resume;
    ASSERT_TRUE(
        resume.open(p.port(), mcp_stream::get_headers(p.op, p.session, std::to_string(*cursor))));
    ASSERT_EQ(resume.status, 200);
    std::optional<json> result;
    std::vector<json> progress;
    for (int i = 0; i < 20 && !result; ++i) {
        auto e = resume.next_event(seconds(10));
        if (!e) break;
        if (e->data.empty()) continue;
        json m = json::parse(e->data);
        if (m.contains("id")) result = m;
        if (m.value("method", "") == "notifications/progress") progress.push_back(m["params"]);
    }
    ASSERT_TRUE(result) << "the result arrives on the resumed GET stream";
    EXPECT_EQ((*result)["id"], 5);
    ASSERT_FALSE(progress.empty());
    EXPECT_EQ(progress.back()["progress"], 2);
    resume.close();
    EXPECT_TRUE(p.metric_reaches("yuzu_mcp_bridge_records_active", 0));

    // Enough frames to push everything after the old cursor out of an
    // 8-frame ring: a resume from it now is a gap.
    httplib::Client c(p.f.server->base_url());
    for (int i = 0; i < 12; ++i) mcp_stream::failing_call(c, p.op, p.session, 100 + i);
    SseClient late;
    ASSERT_TRUE(
        late.open(p.port(), mcp_stream::get_headers(p.op, p.session, std::to_string(*cursor))));
    ASSERT_EQ(late.status, 200);
    EXPECT_EQ(late.read_until_closed(seconds(5)), "replay_gap");
}

TEST(McpProgress, AResultNobodyCollectedStaysPinnedForALaterResume) {
    ProgressFixture p(1, 1);
    std::optional<uint64_t> cursor;
    {
        SseClient s;
        ASSERT_TRUE(s.post(p.port(), p.post_headers(), ProgressFixture::call(6, "later")));
        const Streamed first = read_streamed(s, seconds(10), 1);
        ASSERT_EQ(first.progress.size(), 1u);
        cursor = first.last_id;
    }
    ASSERT_TRUE(cursor);
    // The execution completes with nobody connected: the result waits,
    // pinned, in the ring.
    ASSERT_TRUE(p.metric_reaches("yuzu_mcp_bridge_records_active", 0));
    SseClient resume;
    ASSERT_TRUE(
        resume.open(p.port(), mcp_stream::get_headers(p.op, p.session, std::to_string(*cursor))));
    ASSERT_EQ(resume.status, 200);
    std::optional<json> result;
    for (int i = 0; i < 20 && !result; ++i) {
        auto e = resume.next_event(seconds(5));
        if (!e) break;
        if (!e->data.empty() && json::parse(e->data).contains("id")) result = json::parse(e->data);
    }
    ASSERT_TRUE(result) << "the pinned result is replayed";
    EXPECT_EQ((*result)["id"], 6);
    EXPECT_EQ((*result)["result"]["structuredContent"]["agents_targeted"], 2);
}

TEST(McpProgress, FourSlotsPerSessionADuplicateIdAndTheReclaimOfUncollectedResults) {
    ProgressFixture p(1, 1, {"--mcp-max-streams-per-principal", "8"});
    std::vector<std::unique_ptr<SseClient>> calls;
    for (int i = 0; i < 4; ++i) {
        calls.push_back(std::make_unique<SseClient>());
        ASSERT_TRUE(
            calls.back()->post(p.port(), p.post_headers(),
                               ProgressFixture::call(200 + i, "slot-" + std::to_string(i))));
        ASSERT_EQ(calls.back()->status, 200) << calls.back()->body;
    }
    // The fifth: every slot is a call in flight.
    SseClient fifth;
    ASSERT_TRUE(fifth.post(p.port(), p.post_headers(), ProgressFixture::call(300, "slot-5")));
    EXPECT_EQ(fifth.status, 429) << fifth.body;
    EXPECT_EQ(fifth.headers["retry-after"], "30");
    const json refused = json::parse(fifth.body);
    EXPECT_EQ(refused["error"]["code"], -32012);
    EXPECT_EQ(refused["error"]["data"]["retry_after_ms"], 30000);
    EXPECT_EQ(p.metric("yuzu_mcp_stream_rejects_total{reason=\"post_pin_slots\"}"), 1);
    // An id already in flight on the session.
    SseClient dup;
    ASSERT_TRUE(dup.post(p.port(), p.post_headers(), ProgressFixture::call(201, "dup")));
    EXPECT_EQ(dup.status, 409) << dup.body;
    EXPECT_EQ(json::parse(dup.body)["error"]["code"], -32600);

    // Every client goes away before its result; the results are committed
    // and pinned, and nobody collects them.
    for (auto& c : calls) c->close();
    ASSERT_TRUE(p.metric_reaches("yuzu_mcp_bridge_records_active", 0));
    ASSERT_TRUE(p.metric_reaches("yuzu_mcp_post_streams_active", 0));
    // A new call takes the oldest uncollected result's slot.
    SseClient again;
    ASSERT_TRUE(again.post(p.port(), p.post_headers(), ProgressFixture::call(400, "again")));
    EXPECT_EQ(again.status, 200) << again.body;
    EXPECT_EQ(p.metric("yuzu_mcp_bridge_pin_displaced_for_admission_total"), 1);
    auto audit = p.f.client->Get("/api/v1/audit?action=mcp.bridge.pin_displaced_for_admission",
                                 identity::bearer(p.f.admin_token));
    ASSERT_TRUE(audit);
    EXPECT_NE(audit->body.find("mcp.bridge.pin_displaced_for_admission"), std::string::npos)
        << audit->body;
}

TEST(McpProgress, CancelledDetachesTheResponseAndTheExecutionStillCompletes) {
    ProgressFixture p(1, 1);
    SseClient s;
    ASSERT_TRUE(s.post(p.port(), p.post_headers(), ProgressFixture::call("req-c", "cancel-me")));
    ASSERT_EQ(s.status, 200);
    const Streamed first = read_streamed(s, seconds(10), 1);
    ASSERT_EQ(first.progress.size(), 1u);
    const std::string execution_id = first.progress[0]["_meta"]["execution_id"];

    httplib::Client c(p.f.server->base_url());
    const json cancel = {{"jsonrpc", "2.0"},
                         {"method", "notifications/cancelled"},
                         {"params", {{"requestId", "req-c"}, {"reason", "user gave up"}}}};
    auto res = c.Post("/mcp/v1/", mcp_stream::mcp_headers(p.op, p.session), cancel.dump(),
                      "application/json");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 202);
    const Streamed rest = read_streamed(s, seconds(10));
    EXPECT_EQ(rest.closed, "cancelled");
    EXPECT_FALSE(rest.result);
    EXPECT_TRUE(rest.eof);
    EXPECT_EQ(p.metric("yuzu_mcp_cancel_notifications_total{outcome=\"detached\"}"), 1);
    // A second cancel finds nothing in flight.
    c.Post("/mcp/v1/", mcp_stream::mcp_headers(p.op, p.session), cancel.dump(), "application/json");
    EXPECT_EQ(p.metric("yuzu_mcp_cancel_notifications_total{outcome=\"not_in_flight\"}"), 1);

    // The work ran on: the answering agent's response is there.
    const json status = fleet::poll_until_ready(p.f, p.op, "get_execution_status",
                                                {{"execution_id", execution_id}});
    EXPECT_EQ(status["agents_targeted"], 2);
    const json responses =
        fleet::poll_until_ready(p.f, p.op, "query_responses", {{"execution_id", execution_id}});
    ASSERT_TRUE(responses.contains("rows")) << responses.dump();
    EXPECT_GE(responses["rows"].size(), 1u) << responses.dump();
}

TEST(McpProgress, ShutdownEndsAStreamedResponseWithSessionTerminatedAndExitsZero) {
    // A minute's tick: only the shutdown's wake can end the response in time.
    ProgressFixture p(1, 1, {"--mcp-stream-tick-ms", "60000", "--execution-timeout", "60"});
    SseClient s;
    ASSERT_TRUE(s.post(p.port(), p.post_headers(), ProgressFixture::call(1, "stop")));
    ASSERT_EQ(s.status, 200);
    ASSERT_EQ(read_streamed(s, seconds(10), 1).progress.size(), 1u);
    const auto start = std::chrono::steady_clock::now();
    ASSERT_EQ(::kill(p.f.server->pid(), SIGTERM), 0);
    const Streamed rest = read_streamed(s, seconds(5));
    EXPECT_EQ(rest.closed, "session_terminated");
    EXPECT_TRUE(rest.eof);
    EXPECT_EQ(p.f.server->wait_exit(seconds(5)), 0) << p.f.server->log();
    EXPECT_LE(std::chrono::steady_clock::now() - start, seconds(5));
}

}  // namespace
}  // namespace yuzu::testing
