// AgentRuntime end to end against the in-process fake server.
#include "yuzu/agent/agent_runtime.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <set>

#include "agent_harness.hpp"
#include "yuzu/agent/identity_store.hpp"

namespace yuzu::agent::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr const char* kHeartbeat = "/agent/v1/heartbeat";
constexpr const char* kInventory = "/agent/v1/inventory";
constexpr const char* kCommands = "/agent/v1/commands";
constexpr const char* kResults = "/agent/v1/results";
constexpr const char* kGoodbye = "/agent/v1/goodbye";
constexpr const char* kEnroll = "/agent/v1/enroll";

mode_t mode_of(const std::filesystem::path& p) {
    struct stat st {};
    EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
    return st.st_mode & 0777;
}

TEST(AgentRuntime, EnrollsOnceAndReusesIdentityOnRestart) {
    FakeAgentServer server;
    TestPlugins plugins;
    yuzu::testing::TempDir dir;
    const auto identity_dir = dir.path() / "state" / "agent-0";
    {
        RunningAgent agent(options_for(server, dir), plugins.registry);
        ASSERT_TRUE(FakeAgentServer::wait_until([&] { return server.count(kHeartbeat) >= 1; }));
        EXPECT_TRUE(agent.stop().ok());
    }
    ASSERT_EQ(server.enroll_count(), 1);
    EXPECT_EQ(mode_of(identity_dir / "identity.json"), 0600u);
    EXPECT_EQ(mode_of(identity_dir), 0700u);
    auto record = load_identity(identity_dir);
    ASSERT_TRUE(record.ok()) << record.status().to_string();
    EXPECT_EQ(record->agent_id, server.agent_ids()[0]);
    EXPECT_EQ(record->server_url, server.url());
    EXPECT_EQ(record->device_token, server.bearers(kHeartbeat)[0]);
    // Nothing but identity.json and the client key (this server issues no
    // certificate) is left in the directory: no temp files.
    std::set<std::string> entries;
    for (const auto& e : std::filesystem::directory_iterator(identity_dir)) {
        entries.insert(e.path().filename().string());
    }
    EXPECT_EQ(entries, (std::set<std::string>{"identity.json", "client.key"}));

    const size_t heartbeats_before = server.count(kHeartbeat);
    {
        AgentOptions again = options_for(server, dir);
        again.enrollment_token.clear();  // not needed any more
        RunningAgent agent(std::move(again), plugins.registry);
        ASSERT_TRUE(FakeAgentServer::wait_until(
            [&] { return server.count(kHeartbeat) > heartbeats_before; }));
        EXPECT_TRUE(agent.stop().ok());
    }
    EXPECT_EQ(server.enroll_count(), 1);
    EXPECT_EQ(server.bearers(kHeartbeat).back(), record->device_token);
}

TEST(AgentRuntime, HeartbeatCarriesHostFactsAndRepeats) {
    FakeAgentServer server;  // heartbeat_interval_s = 1
    TestPlugins plugins;
    yuzu::testing::TempDir dir;
    RunningAgent agent(options_for(server, dir), plugins.registry);
    ASSERT_TRUE(
        FakeAgentServer::wait_until([&] { return server.count(kHeartbeat) >= 2; }, seconds(5)));
    const auto hb = server.bodies(kHeartbeat)[0];
    EXPECT_EQ(hb["os"], "linux");
    EXPECT_FALSE(hb["hostname"].get<std::string>().empty());
    EXPECT_FALSE(hb["arch"].get<std::string>().empty());
    EXPECT_FALSE(hb["agent_version"].get<std::string>().empty());
    EXPECT_GE(hb["uptime_s"].get<int64_t>(), 0);
    EXPECT_FALSE(hb.contains("enrollment_token"));
    ASSERT_TRUE(hb.contains("perf"));
    EXPECT_TRUE(hb["perf"].contains("mem_used_pct"));
    const auto times = server.arrivals(kHeartbeat);
    EXPECT_GE(times[1] - times[0], milliseconds(800));
}

TEST(AgentRuntime, InventoryCarriesEverySourceOfTheRealHost) {
    FakeAgentServer server;
    TestPlugins plugins;
    yuzu::testing::TempDir dir;
    AgentOptions options = options_for(server, dir);
    options.collect_sources = nullptr;  // the real collectors
    RunningAgent agent(std::move(options), plugins.registry);
    // The digest first; the fake server knows none, so the sources follow.
    ASSERT_TRUE(
        FakeAgentServer::wait_until([&] { return server.count(kInventory) >= 2; }, seconds(20)));
    const auto first = server.bodies(kInventory)[0];
    EXPECT_FALSE(first.contains("sources"));
    ASSERT_TRUE(first["sources_sha256"].is_string());
    EXPECT_EQ(first["sources_sha256"].get<std::string>().size(), 64u);
    const auto inv = server.bodies(kInventory)[1];
    EXPECT_EQ(inv["sources_sha256"], first["sources_sha256"]);
    EXPECT_GT(inv["collected_at"].get<int64_t>(), 1'600'000'000'000);
    for (const auto& name : inventory_source_names()) {
        ASSERT_TRUE(inv["sources"].contains(name)) << name;
        const auto& status = inv["sources"][name]["status"];
        EXPECT_TRUE(status == "ok" || status == "unavailable") << name;
    }
    EXPECT_EQ(inv["sources"]["kernel"]["status"], "ok");
}

TEST(AgentRuntime, CommandResultCarriesThePluginOutput) {
    FakeAgentServer server;
    TestPlugins plugins;
    yuzu::testing::TempDir dir;
    RunningAgent agent(options_for(server, dir), plugins.registry);
    server.push_commands({command("c1", "test", "echo", {{"name", "value"}}),
                          command("c2", "test", "fail"), command("c3", "nope", "missing")});
    ASSERT_TRUE(FakeAgentServer::wait_until([&] { return server.count(kResults) >= 3; }));
    const auto results = server.bodies(kResults);
    EXPECT_EQ(results[0]["command_id"], "c1");
    EXPECT_EQ(results[0]["status"], "success");
    EXPECT_EQ(results[0]["output"]["params"], nlohmann::json({{"name", "value"}}));
    EXPECT_EQ(results[0]["output"]["timeout_ms"], 7000);  // the command's timeout_s
    EXPECT_FALSE(results[0].contains("error"));
    EXPECT_TRUE(results[0]["duration_ms"].is_number_integer());
    EXPECT_EQ(results[1]["status"], "failure");
    EXPECT_EQ(results[1]["error"], "it failed on purpose");
    EXPECT_EQ(results[2]["status"], "failure");
    EXPECT_FALSE(results[2]["error"].get<std::string>().empty());
    ASSERT_TRUE(FakeAgentServer::wait_until([&] { return server.count(kHeartbeat) >= 1; }));
    EXPECT_EQ(server.bearers(kResults)[0], server.bearers(kHeartbeat)[0]);
}

// The last result of a poll carries the next poll: commands queued while
// the agent works arrive as the answer to that result, without a GET.
TEST(AgentRuntime, TheLastResultOfAPollCarriesTheNextPoll) {
    FakeAgentServer server;
    server.set_intervals(1, 300, 5);  // polls held 5 s: the first is still held at the push
    server.set_poll_hold(std::chrono::seconds(5));
    TestPlugins plugins;
    yuzu::testing::TempDir dir;
    RunningAgent agent(options_for(server, dir), plugins.registry);
    ASSERT_TRUE(FakeAgentServer::wait_until([&] { return server.count(kCommands) >= 1; }));
    server.push_commands({command("p1", "test", "echo"), command("p2", "test", "echo")});
    server.push_commands({command("p3", "test", "echo")});
    ASSERT_TRUE(FakeAgentServer::wait_until([&] { return server.count(kResults) >= 3; }));
    EXPECT_EQ(server.count(kCommands), 1u) << "p3 came back with p2's result";
    const auto waits = server.wait_params(kResults);
    ASSERT_EQ(waits.size(), 3u);
    EXPECT_EQ(waits[0], "") << "not the last of its poll";
    EXPECT_EQ(waits[1], "5") << "the enrollment's poll_wait_s";
    EXPECT_EQ(waits[2], "5");
    EXPECT_EQ(plugins.echo_runs.load(), 3);
}

// A server that answers results with 204 only: the agent polls as before.
TEST(AgentRuntime, AServerThatAnswersResultsAloneIsPolled) {
    FakeAgentServer server;
    server.set_results_carry_polls(false);
    TestPlugins plugins;
    yuzu::testing::TempDir dir;
    RunningAgent agent(options_for(server, dir), plugins.registry);
    server.push_commands({command("o1", "test", "echo")});
    server.push_commands({command("o2", "test", "echo")});
    ASSERT_TRUE(FakeAgentServer::wait_until([&] { return server.count(kResults) >= 2; }));
    // Each result asked for the next poll, got 204, and the agent fetched
    // o2 with a GET: without that fallback it would wait on nothing.
    const auto waits = server.wait_params(kResults);
    ASSERT_GE(waits.size(), 2u);
    EXPECT_EQ(waits[0], "1");
    EXPECT_GE(server.count(kCommands), 2u);
    EXPECT_EQ(plugins.echo_runs.load(), 2);
}

TEST(AgentRuntime, RepeatedCommandIdIsNotRunTwice) {
    FakeAgentServer server;
    TestPlugins plugins;
    yuzu::testing::TempDir dir;
    RunningAgent agent(options_for(server, dir), plugins.registry);
    server.push_commands({command("same", "test", "echo")});
    server.push_commands({command("same", "test", "echo")});  // delivered at least once
    ASSERT_TRUE(FakeAgentServer::wait_until([&] { return server.count(kResults) >= 2; }));
    EXPECT_EQ(plugins.echo_runs.load(), 1);
    const auto results = server.bodies(kResults);
    EXPECT_EQ(results[0], results[1]);  // the stored result is sent again
}

TEST(AgentRuntime, QuarantinedAgentRefusesEveryCommand) {
    FakeAgentServer server;
    TestPlugins plugins;
    yuzu::testing::TempDir dir;
    server.set_quarantined(true);
    RunningAgent agent(options_for(server, dir), plugins.registry);
    server.push_commands({command("q1", "test", "echo"), command("q2", "test", "fail")});
    ASSERT_TRUE(FakeAgentServer::wait_until([&] { return server.count(kResults) >= 2; }));
    for (const auto& r : server.bodies(kResults)) {
        EXPECT_EQ(r["status"], "refused");
        EXPECT_EQ(r["error"], "agent is quarantined");
    }
    EXPECT_EQ(plugins.echo_runs.load(), 0);
    EXPECT_EQ(plugins.fail_runs.load(), 0);

    // Release: the server clears the flag and the next command runs.
    server.set_quarantined(false);
    ASSERT_TRUE(FakeAgentServer::wait_until([&] { return server.count(kCommands) >= 3; }));
    server.push_commands({command("q3", "test", "echo")});
    ASSERT_TRUE(FakeAgentServer::wait_until([&] { return server.count(kResults) >= 3; }));
    EXPECT_EQ(server.bodies(kResults)[2]["status"], "success");
    EXPECT_EQ(plugins.echo_runs.load(), 1);
}

TEST(AgentRuntime, RefusedDeviceTokenStopsTheIdentity) {
    FakeAgentServer server;
    TestPlugins plugins;
    yuzu::testing::TempDir dir;
    RunningAgent agent(options_for(server, dir), plugins.registry);
    ASSERT_TRUE(FakeAgentServer::wait_until([&] { return server.count(kHeartbeat) >= 1; }));
    server.revoke_all_devices();
    ASSERT_TRUE(agent.wait_finished(seconds(5))) << "the only identity should stop on 401";
    EXPECT_EQ(agent.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(server.count(kGoodbye), 0u);
    EXPECT_EQ(server.enroll_count(), 1);  // no silent re-enrollment
    const size_t polls = server.count(kCommands);
    std::this_thread::sleep_for(milliseconds(300));
    EXPECT_EQ(server.count(kCommands), polls);
}

TEST(AgentRuntime, RefusedEnrollmentTokenStopsWithoutIdentityFile) {
    FakeAgentServer server;
    TestPlugins plugins;
    yuzu::testing::TempDir dir;
    AgentOptions options = options_for(server, dir);
    options.enrollment_token = "yuzu_wrong";
    RunningAgent agent(std::move(options), plugins.registry);
    ASSERT_TRUE(agent.wait_finished(seconds(5)));
    EXPECT_EQ(agent.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(server.count(kEnroll), 1u);
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "state" / "agent-0" / "identity.json"));
}

TEST(AgentRuntime, VirtualIdentitiesEnrollSeparately) {
    FakeAgentServer server;
    TestPlugins plugins;
    yuzu::testing::TempDir dir;
    RunningAgent agent(options_for(server, dir, 3), plugins.registry);
    ASSERT_TRUE(FakeAgentServer::wait_until([&] {
        const auto bearers = server.bearers(kCommands);
        const std::set<std::string> polled(bearers.begin(), bearers.end());
        return server.enroll_count() == 3 && polled.size() == 3;
    }));
    const auto ids = server.agent_ids();
    EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), 3u);
    std::set<std::string> on_disk;
    for (int i = 0; i < 3; ++i) {
        auto record = load_identity(dir.path() / "state" / ("agent-" + std::to_string(i)));
        ASSERT_TRUE(record.ok()) << i << ": " << record.status().to_string();
        on_disk.insert(record->agent_id);
    }
    EXPECT_EQ(on_disk, std::set<std::string>(ids.begin(), ids.end()));
    ASSERT_TRUE(FakeAgentServer::wait_until([&] {
        const auto b = server.bearers(kHeartbeat);
        return std::set<std::string>(b.begin(), b.end()).size() == 3;
    }));
    // Each identity has its own long-poll: a command for "anyone" is answered.
    server.push_commands({command("v1", "test", "echo")});
    ASSERT_TRUE(FakeAgentServer::wait_until([&] { return server.count(kResults) >= 1; }));
    EXPECT_TRUE(agent.stop().ok());
    EXPECT_EQ(server.count(kGoodbye), 3u);
}

std::set<std::string> addresses_of(const FakeAgentServer& server, const std::string& path) {
    const auto a = server.remote_addrs(path);
    return {a.begin(), a.end()};
}

TEST(AgentRuntime, VirtualIdentitiesConnectFromAnAddressEach) {
    FakeAgentServer server;  // on 127.0.0.1: a loopback server
    TestPlugins plugins;
    yuzu::testing::TempDir dir;
    RunningAgent agent(options_for(server, dir, 3), plugins.registry);
    const std::set<std::string> expected{"127.100.0.1", "127.100.0.2", "127.100.0.3"};
    ASSERT_TRUE(FakeAgentServer::wait_until([&] {
        return addresses_of(server, kCommands) == expected &&
               addresses_of(server, kHeartbeat) == expected;
    }));
    EXPECT_EQ(addresses_of(server, kEnroll), expected);
    EXPECT_TRUE(agent.stop().ok());
    EXPECT_EQ(addresses_of(server, kGoodbye), expected);  // the goodbye channel too
}

TEST(AgentRuntime, SourceAddressesCanBeTurnedOffAndOneIdentityNeverBinds) {
    FakeAgentServer server;
    TestPlugins plugins;
    yuzu::testing::TempDir dir;
    {
        AgentOptions options = options_for(server, dir, 2);
        options.virtual_source_addresses = false;
        RunningAgent agent(std::move(options), plugins.registry);
        ASSERT_TRUE(FakeAgentServer::wait_until([&] { return server.count(kHeartbeat) >= 2; }));
    }
    EXPECT_EQ(addresses_of(server, kHeartbeat), std::set<std::string>{"127.0.0.1"});
    FakeAgentServer single;
    yuzu::testing::TempDir dir1;
    RunningAgent agent(options_for(single, dir1, 1), plugins.registry);
    ASSERT_TRUE(FakeAgentServer::wait_until([&] { return single.count(kHeartbeat) >= 1; }));
    EXPECT_EQ(addresses_of(single, kHeartbeat), std::set<std::string>{"127.0.0.1"});
}

TEST(AgentRuntime, ResultIsRetriedWhileTheServerIsBusyOrFailing) {
    FakeAgentServer server;
    TestPlugins plugins;
    yuzu::testing::TempDir dir;
    server.fail_next(kResults, 503, 2, "0");
    RunningAgent agent(options_for(server, dir), plugins.registry);
    server.push_commands({command("r1", "test", "echo")});
    ASSERT_TRUE(FakeAgentServer::wait_until([&] { return server.count(kResults) >= 3; }));
    server.fail_next(kResults, 500, 2);
    server.push_commands({command("r2", "test", "echo")});
    ASSERT_TRUE(FakeAgentServer::wait_until([&] { return server.count(kResults) >= 6; }));
    std::this_thread::sleep_for(milliseconds(200));
    const auto results = server.bodies(kResults);
    ASSERT_EQ(results.size(), 6u);  // accepted on the third try: not sent again
    for (int i = 0; i < 3; ++i) EXPECT_EQ(results[i]["command_id"], "r1") << i;
    for (int i = 3; i < 6; ++i) EXPECT_EQ(results[i]["command_id"], "r2") << i;
    EXPECT_EQ(plugins.echo_runs.load(), 2);  // retried, not run again
}

TEST(AgentRuntime, ResultRefusedWithAClientErrorIsNotRetried) {
    FakeAgentServer server;
    TestPlugins plugins;
    yuzu::testing::TempDir dir;
    server.fail_next(kResults, 409, 1);
    RunningAgent agent(options_for(server, dir), plugins.registry);
    server.push_commands({command("x1", "test", "echo")});
    ASSERT_TRUE(FakeAgentServer::wait_until([&] { return server.count(kResults) >= 1; }));
    server.push_commands({command("x2", "test", "echo")});  // the identity goes on
    ASSERT_TRUE(FakeAgentServer::wait_until([&] { return server.count(kResults) >= 2; }));
    std::this_thread::sleep_for(milliseconds(300));
    const auto results = server.bodies(kResults);
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(results[0]["command_id"], "x1");
    EXPECT_EQ(results[1]["command_id"], "x2");
}

TEST(AgentRuntime, StopDuringALongPollIsPromptAndSaysGoodbye) {
    FakeAgentServer server;
    server.set_intervals(10, 300, 25);  // the agent asks to be held 25 s
    server.set_poll_hold(seconds(25));
    TestPlugins plugins;
    yuzu::testing::TempDir dir;
    RunningAgent agent(options_for(server, dir), plugins.registry);
    ASSERT_TRUE(FakeAgentServer::wait_until([&] { return server.count(kCommands) >= 1; }));
    std::this_thread::sleep_for(milliseconds(200));  // the poll is now held by the server
    const auto start = std::chrono::steady_clock::now();
    EXPECT_TRUE(agent.stop().ok());
    EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(2));
    ASSERT_EQ(server.count(kGoodbye), 1u);
    EXPECT_EQ(server.bearers(kGoodbye)[0], server.bearers(kCommands)[0]);
}

TEST(AgentRuntime, RetryAfterIsHonoured) {
    FakeAgentServer server;
    server.fail_next(kHeartbeat, 503, 1, "1");
    TestPlugins plugins;
    yuzu::testing::TempDir dir;
    RunningAgent agent(options_for(server, dir), plugins.registry);
    ASSERT_TRUE(
        FakeAgentServer::wait_until([&] { return server.count(kHeartbeat) >= 2; }, seconds(5)));
    const auto times = server.arrivals(kHeartbeat);
    EXPECT_GE(times[1] - times[0], milliseconds(950));
}

TEST(AgentRuntime, ServerFaultsAreRetriedWithBackOff) {
    FakeAgentServer server;
    server.fail_next(kEnroll, 500, 3);
    TestPlugins plugins;
    yuzu::testing::TempDir dir;
    RunningAgent agent(options_for(server, dir), plugins.registry);
    ASSERT_TRUE(FakeAgentServer::wait_until([&] { return server.count(kHeartbeat) >= 1; }));
    EXPECT_EQ(server.count(kEnroll), 4u);
    const auto times = server.arrivals(kEnroll);
    // 20 ms doubling (jittered to 75..100%): at least 15 + 30 + 60 ms in all.
    EXPECT_GE(times[3] - times[0], milliseconds(100));
}

TEST(AgentRuntime, MissingEnrollmentTokenFailsBeforeStarting) {
    FakeAgentServer server;
    TestPlugins plugins;
    yuzu::testing::TempDir dir;
    AgentOptions options = options_for(server, dir);
    options.enrollment_token.clear();
    AgentRuntime runtime(std::move(options), plugins.registry);
    const Status status = runtime.run();
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(status.message().find("agent-0"), std::string::npos) << status.message();
    EXPECT_NE(status.message().find("enrollment token"), std::string::npos) << status.message();
    EXPECT_EQ(server.count(kEnroll), 0u);
}

TEST(AgentRuntime, IdentityOfAnotherServerIsNotReused) {
    FakeAgentServer server;
    TestPlugins plugins;
    yuzu::testing::TempDir dir;
    const auto identity_dir = prepare_identity_dir(dir.path() / "state", "agent-0");
    ASSERT_TRUE(identity_dir.ok());
    IdentityRecord other{"http://elsewhere.example:8081", std::string(32, 'a'), "yuzu_x", 1};
    ASSERT_TRUE(save_identity(*identity_dir, other).ok());
    AgentRuntime runtime(options_for(server, dir), plugins.registry);
    const Status status = runtime.run();
    EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(status.message().find("elsewhere.example"), std::string::npos);
    EXPECT_EQ(server.count(kEnroll), 0u);
}

TEST(AgentRuntime, BadOptionsAreRefusedBeforeStarting) {
    TestPlugins plugins;
    yuzu::testing::TempDir dir;
    FakeAgentServer server;
    AgentOptions bad_url = options_for(server, dir);
    bad_url.server_url = "ftp://example";
    EXPECT_EQ(AgentRuntime(bad_url, plugins.registry).run().code(), StatusCode::kInvalidArgument);
    AgentOptions bad_count = options_for(server, dir, 0);
    EXPECT_EQ(AgentRuntime(bad_count, plugins.registry).run().code(), StatusCode::kInvalidArgument);
    AgentOptions bad_ca = options_for(server, dir);
    bad_ca.ca_file = (dir.path() / "missing.pem").string();
    EXPECT_EQ(AgentRuntime(bad_ca, plugins.registry).run().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace yuzu::agent::testing
