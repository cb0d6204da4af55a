// The SSE event stream of an execution end to end: live events in seq
// order after a replay of what already happened, the end after
// `completed`, the stream cap and a clean server stop with streams open.
#include <gtest/gtest.h>
#include <signal.h>

#include <thread>

#include "execution_test_helpers.hpp"

namespace yuzu::testing::fleet {
namespace {

using identity::bearer;
using std::chrono::milliseconds;
using std::chrono::seconds;
using std::chrono::steady_clock;

TEST(ExecutionEvents, TheEventStreamDeliversDispatchedThroughCompletedAndEnds) {
    FleetFixture f({"--execution-timeout", "5"});
    const std::string& op = f.mcp_tokens["operator"];
    const std::string token = f.enrollment_token();
    auto agents = f.start_agents(2, token);
    ASSERT_TRUE(wait_for([&] { return f.online_count(op) == 2; }, seconds(30))) << agents->log();
    const auto answering = agent_ids(f, op);
    auto doomed = f.start_agents(1, token);
    ASSERT_TRUE(wait_for([&] { return f.online_count(op) == 3; }, seconds(30))) << doomed->log();
    std::string silent;
    for (const auto& id : agent_ids(f, op)) {
        if (!answering.count(id)) silent = id;
    }
    // Killed without a goodbye, so the execution stays running until its
    // 5 s timeout and the stream sees live events, not only the replay.
    ASSERT_EQ(doomed->signal_and_wait(SIGKILL), 128 + SIGKILL);

    json created = rest_json(
        f.client->Post("/api/v1/executions", bearer(f.admin_token),
                       json{{"plugin", "perf"}, {"action", "snapshot"}}.dump(), "application/json"),
        201);
    const std::string execution_id = created["execution_id"];
    ASSERT_EQ(created["agents_targeted"], 3);

    const auto opened = steady_clock::now();
    const StreamRead live = read_event_stream(f, execution_id);
    ASSERT_TRUE(live.completed) << "the stream ends by itself after `completed`";
    EXPECT_EQ(live.status, 200);
    EXPECT_EQ(live.content_type, "text/event-stream");
    const std::string& text = live.text;
    EXPECT_LT(steady_clock::now() - opened, seconds(15));

    const auto events = parse_sse(text);
    ASSERT_GE(events.size(), 5u) << text;
    EXPECT_EQ(events.front().type, "dispatched") << text;
    EXPECT_EQ(events.back().type, "completed") << text;
    EXPECT_EQ(events.back().data["status"], "completed_with_errors") << text;
    std::set<std::string> responded;
    std::string silent_event;
    uint64_t last_seq = 0;
    for (const auto& e : events) {
        EXPECT_EQ(e.data["execution_id"], execution_id) << text;
        if (e.type == "agent_responded") responded.insert(e.data["agent_id"].get<std::string>());
        if (e.data.value("agent_id", "") == silent) silent_event = e.type;
        if (!e.data.value("replayed", false)) {
            ASSERT_FALSE(e.id.empty()) << text;
            EXPECT_GT(std::stoull(e.id), last_seq) << "live events arrive in seq order";
            last_seq = std::stoull(e.id);
        }
    }
    EXPECT_EQ(responded, answering) << text;
    EXPECT_TRUE(silent_event == "agent_timed_out" || silent_event == "agent_offline") << text;
    EXPECT_GT(last_seq, 0u) << "the completion arrived live: " << text;

    // Opened after the end, the stream replays the whole story and ends.
    const StreamRead again = read_event_stream(f, execution_id);
    ASSERT_TRUE(again.completed);
    const std::string& replay = again.text;
    const auto replayed = parse_sse(replay);
    ASSERT_EQ(replayed.size(), 5u) << replay;
    EXPECT_EQ(replayed.front().type, "dispatched");
    EXPECT_EQ(replayed.back().type, "completed");
    EXPECT_TRUE(replayed.back().data["replayed"].get<bool>());

    auto missing =
        f.client->Get("/api/v1/events?execution_id=" + std::string(32, 'f'), bearer(f.admin_token));
    ASSERT_TRUE(missing);
    EXPECT_EQ(missing->status, 404);
    auto no_id = f.client->Get("/api/v1/events", bearer(f.admin_token));
    ASSERT_TRUE(no_id);
    EXPECT_EQ(no_id->status, 400);
    auto readonly = f.client->Get("/api/v1/events?execution_id=" + execution_id,
                                  bearer(f.mcp_tokens["readonly"]));
    ASSERT_TRUE(readonly);
    EXPECT_EQ(readonly->status, 200) << "Execution:Read is a read";
}

TEST(ExecutionEvents, EventStreamsAreCappedAndDoNotHoldUpServerShutdown) {
    // 6 workers: at most 3 streams may be open at once (a pool that small
    // keeps half of itself for short requests).
    FleetFixture f({"--http-worker-threads", "6"});
    const std::string& op = f.mcp_tokens["operator"];
    auto agents = f.start_agents(1, f.enrollment_token());
    ASSERT_TRUE(wait_for([&] { return f.online_count(op) == 1; }, seconds(30))) << agents->log();
    // Frozen, it still counts as online for a few seconds but never answers:
    // the execution keeps running (120 s default timeout).
    ASSERT_EQ(::kill(agents->pid(), SIGSTOP), 0);
    json created = rest_json(
        f.client->Post("/api/v1/executions", bearer(f.admin_token),
                       json{{"plugin", "os"}, {"action", "info"}}.dump(), "application/json"),
        201);
    ASSERT_EQ(created["agents_reached"], 1) << created.dump();
    const std::string execution_id = created["execution_id"];

    std::vector<StreamRead> reads(3);
    std::vector<std::thread> readers;
    for (auto& read : reads) {
        readers.emplace_back(
            [&f, &read, execution_id] { read = read_event_stream(f, execution_id); });
    }
    std::this_thread::sleep_for(milliseconds(1000));
    httplib::Client extra(f.server->base_url());
    auto refused = extra.Get("/api/v1/events?execution_id=" + execution_id, bearer(f.admin_token));
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 429) << refused->body;
    EXPECT_EQ(refused->get_header_value("Retry-After"), "5");

    const auto stopping = steady_clock::now();
    EXPECT_EQ(f.server->signal_and_wait(SIGTERM, seconds(15)), 0) << f.server->log();
    EXPECT_LT(steady_clock::now() - stopping, seconds(5));
    for (auto& t : readers) t.join();
    for (const auto& read : reads) {
        const auto events = parse_sse(read.text);
        ASSERT_FALSE(events.empty()) << read.text;
        EXPECT_EQ(events.front().type, "dispatched");
    }
}

}  // namespace
}  // namespace yuzu::testing::fleet
