// What lets one process drive 10,000 identities: a source address each
// against a loopback server, scheduler shards, small thread stacks,
// per-identity sleeps, and jittered waits.
#include <gtest/gtest.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>

#include "client/backoff.hpp"
#include "client/http_channel.hpp"
#include "client/identity.hpp"
#include "client/scheduler.hpp"
#include "client/small_thread.hpp"
#include "client/source_address.hpp"
#include "fake_agent_server.hpp"
#include "support/temp_dir.hpp"
#include "yuzu/common/thread_guard.hpp"

namespace yuzu::agent {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

ServerEndpoint endpoint(const std::string& url) {
    auto ep = parse_server_url(url);
    EXPECT_TRUE(ep.ok()) << url;
    return ep.ok() ? *ep : ServerEndpoint{};
}

TEST(VirtualSourceAddress, TwoHundredFiftyIdentitiesPerSubnet) {
    EXPECT_EQ(virtual_source_address(0), "127.100.0.1");
    EXPECT_EQ(virtual_source_address(1), "127.100.0.2");
    EXPECT_EQ(virtual_source_address(249), "127.100.0.250");
    EXPECT_EQ(virtual_source_address(250), "127.100.1.1");
    EXPECT_EQ(virtual_source_address(9999), "127.100.39.250");
    std::set<std::string> all;
    for (int i = 0; i < 10'000; ++i) all.insert(virtual_source_address(i));
    EXPECT_EQ(all.size(), 10'000u);
}

TEST(VirtualSourceAddress, OnlyForSeveralIdentitiesAgainstLoopback) {
    EXPECT_TRUE(is_loopback_host("127.0.0.1"));
    EXPECT_TRUE(is_loopback_host("127.255.3.4"));
    EXPECT_TRUE(is_loopback_host("localhost"));
    EXPECT_TRUE(is_loopback_host("LocalHost"));
    EXPECT_FALSE(is_loopback_host("128.0.0.1"));
    EXPECT_FALSE(is_loopback_host("10.0.0.1"));
    EXPECT_FALSE(is_loopback_host("::1"));  // the source addresses are IPv4
    EXPECT_FALSE(is_loopback_host("127.example.com"));
    EXPECT_FALSE(is_loopback_host("localhost.example.com"));

    const ServerEndpoint loopback = endpoint("http://127.0.0.1:8081");
    EXPECT_EQ(source_address_for(loopback, 7, 100, true), "127.100.0.8");
    EXPECT_EQ(source_address_for(endpoint("https://localhost:8443/p"), 250, 300, true),
              "127.100.1.1");
    EXPECT_EQ(source_address_for(loopback, 0, 1, true), "");     // a single identity never binds
    EXPECT_EQ(source_address_for(loopback, 7, 100, false), "");  // --no-virtual-source-addresses
    EXPECT_EQ(source_address_for(endpoint("http://10.1.2.3:8081"), 7, 100, true), "");
    EXPECT_EQ(source_address_for(endpoint("http://yuzu.example:8081"), 7, 100, true), "");
}

TEST(HttpChannelSource, ConnectsFromTheGivenAddress) {
    testing::FakeAgentServer server;
    const std::string port = server.url().substr(server.url().rfind(':'));
    HttpChannel numeric(endpoint(server.url()), "", HttpTimeouts{}, "127.100.0.7");
    EXPECT_EQ(numeric.post("/agent/v1/goodbye", "unknown", "{}").status, 401);
    // "localhost" may resolve to ::1 first; an IPv4 source needs 127.0.0.1.
    HttpChannel named(endpoint("http://localhost" + port), "", HttpTimeouts{}, "127.100.39.250");
    EXPECT_EQ(named.post("/agent/v1/goodbye", "unknown", "{}").status, 401);
    HttpChannel plain(endpoint(server.url()), "", HttpTimeouts{});
    EXPECT_EQ(plain.post("/agent/v1/goodbye", "unknown", "{}").status, 401);
    EXPECT_EQ(server.remote_addrs("/agent/v1/goodbye"),
              (std::vector<std::string>{"127.100.0.7", "127.100.39.250", "127.0.0.1"}));
}

TEST(SchedulerShards, OnePerFiveHundredIdentitiesUpToTwenty) {
    const auto check = [](size_t identities, size_t shards, size_t largest) {
        const auto ranges = scheduler_shards(identities);
        ASSERT_EQ(ranges.size(), shards) << identities;
        size_t next = 0;
        size_t biggest = 0;
        for (const ShardRange& r : ranges) {
            EXPECT_EQ(r.begin, next) << identities;  // contiguous, in order
            EXPECT_GE(r.end, r.begin);
            biggest = std::max(biggest, r.end - r.begin);
            EXPECT_GE(r.end - r.begin + 1, largest) << identities;  // sizes within one
            next = r.end;
        }
        EXPECT_EQ(next, identities);
        EXPECT_EQ(biggest, largest) << identities;
    };
    check(0, 1, 0);
    check(1, 1, 1);
    check(500, 1, 500);
    check(501, 2, 251);
    check(1000, 2, 500);
    check(1001, 3, 334);
    check(10'000, 20, 500);
    check(10'001, 20, 501);  // at most 20 threads: shards grow instead
    check(20'000, 20, 1000);
}

TEST(RetryAfterDelay, NeverShorterThanAskedAndAtMostHalfAgainLonger) {
    std::mt19937_64 rng(42);
    int64_t lo = INT64_MAX;
    int64_t hi = 0;
    for (int i = 0; i < 2000; ++i) {
        const int64_t d = retry_after_delay(seconds(5), rng).count();
        ASSERT_GE(d, 5000);
        ASSERT_LT(d, 7500);
        lo = std::min(lo, d);
        hi = std::max(hi, d);
    }
    EXPECT_LT(lo, 5100);  // spread over the whole window, not lumped
    EXPECT_GT(hi, 7400);
    EXPECT_EQ(retry_after_delay(seconds(0), rng), milliseconds(0));
    for (int i = 0; i < 100; ++i) {
        const int64_t d = retry_after_delay(seconds(1), rng).count();
        EXPECT_GE(d, 1000);
        EXPECT_LT(d, 1500);
    }
}

TEST(StartDelay, UpToOneTenthMillisecondPerIdentityCappedAtFiveSeconds) {
    EXPECT_EQ(max_start_delay(1), milliseconds(0));
    EXPECT_EQ(max_start_delay(9), milliseconds(0));
    EXPECT_EQ(max_start_delay(10), milliseconds(1));
    EXPECT_EQ(max_start_delay(10'000), milliseconds(1000));
    EXPECT_EQ(max_start_delay(100'000), milliseconds(5000));
    std::mt19937_64 rng(7);
    EXPECT_EQ(start_delay(1, rng), milliseconds(0));
    int64_t hi = 0;
    for (int i = 0; i < 2000; ++i) {
        const int64_t d = start_delay(10'000, rng).count();
        ASSERT_GE(d, 0);
        ASSERT_LE(d, 1000);
        hi = std::max(hi, d);
    }
    EXPECT_GT(hi, 950);
}

TEST(SmallThread, RunsWithTheStackAskedFor) {
    size_t stack = 0;
    SmallThread t;
    ASSERT_TRUE(t.start("agent.test_thread", kIdentityStackBytes, [&stack] {
                     pthread_attr_t attr;
                     ASSERT_EQ(pthread_getattr_np(pthread_self(), &attr), 0);
                     pthread_attr_getstacksize(&attr, &stack);
                     pthread_attr_destroy(&attr);
                 }).ok());
    EXPECT_TRUE(t.joinable());
    t.join();
    EXPECT_FALSE(t.joinable());
    EXPECT_GE(stack, kIdentityStackBytes);
#if !defined(__SANITIZE_THREAD__)
    // ThreadSanitizer enlarges every thread's stack beyond what was asked.
    EXPECT_LT(stack, 2 * kIdentityStackBytes);  // not the 8 MiB default
#endif
}

TEST(SmallThread, WhatTheBodyThrowsIsCountedAndContained) {
    const uint64_t before = thread_exception_count("agent.test_throw");
    SmallThread t;
    ASSERT_TRUE(t.start("agent.test_throw", kIdentityStackBytes, [] {
                     throw std::runtime_error("x");
                 }).ok());
    t.join();
    EXPECT_EQ(thread_exception_count("agent.test_throw"), before + 1);
}

TEST(SmallThread, JoinsOnDestructionAndMoves) {
    std::atomic<bool> ran{false};
    {
        SmallThread t;
        ASSERT_TRUE(t.start("agent.test_thread", kIdentityStackBytes, [&ran] {
                         std::this_thread::sleep_for(milliseconds(50));
                         ran = true;
                     }).ok());
        SmallThread moved = std::move(t);
        EXPECT_FALSE(t.joinable());  // NOLINT(bugprone-use-after-move): moved-from is empty
        EXPECT_TRUE(moved.joinable());
    }
    EXPECT_TRUE(ran.load());
}

class IdentitySleep : public ::testing::Test {
  protected:
    AgentOptions options;
    ServerEndpoint server = endpoint("http://127.0.0.1:9");
    PluginRegistry plugins;
    StopSignal stop;
    RuntimeContext ctx{options, server, plugins, stop};
    yuzu::testing::TempDir dir;
    Identity id{"agent-0", dir.path(), std::nullopt, ctx};

    // Runs sleep_for(30 s) on a thread, calls end(), and returns how long it slept.
    template <typename End>
    milliseconds sleep_ended_by(End end, bool* stopped) {
        std::thread sleeper([&] { *stopped = id.sleep_for(seconds(30)); });
        std::this_thread::sleep_for(milliseconds(50));
        const auto start = std::chrono::steady_clock::now();
        end();
        sleeper.join();
        return std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - start);
    }
};

TEST_F(IdentitySleep, RunsItsCourseUnlessStopped) {
    const auto start = std::chrono::steady_clock::now();
    EXPECT_FALSE(id.sleep_for(milliseconds(30)));
    EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(30));
    stop.notify();  // agent-wide events do not concern a sleeping identity
    EXPECT_FALSE(id.sleep_for(milliseconds(1)));
}

TEST_F(IdentitySleep, EndsWhenTheIdentityHalts) {
    bool stopped = false;
    EXPECT_LT(sleep_ended_by([&] { id.halt(); }, &stopped), seconds(2));
    EXPECT_TRUE(stopped);
}

TEST_F(IdentitySleep, EndsWhenTheAgentStopsAndWakesIt) {
    bool stopped = false;
    EXPECT_LT(sleep_ended_by(
                  [&] {
                      stop.request();
                      id.wake();
                  },
                  &stopped),
              seconds(2));
    EXPECT_TRUE(stopped);
}

}  // namespace
}  // namespace yuzu::agent
