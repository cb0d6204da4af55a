#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>

#include "plugin_test_support.hpp"
#include "yuzu/agent/plugin.hpp"

namespace yuzu::agent {
namespace {

using testing::limits_of;
using namespace std::chrono_literals;

PluginOutcome ok_output(std::string json) {
    PluginOutcome out;
    out.status = "success";
    out.output_json = std::move(json);
    return out;
}

PluginRegistry registry_with(const std::string& action, PluginAction handler) {
    PluginRegistry registry;
    registry.add(PluginInfo{"test", action, "test action", false}, std::move(handler));
    return registry;
}

TEST(PluginRegistryTest, AddHasAndList) {
    PluginRegistry registry;
    EXPECT_FALSE(registry.has("test", "echo"));
    registry.add(PluginInfo{"test", "echo", "echoes", false},
                 [](const std::string& p, const PluginLimits&) { return ok_output(p); });
    registry.add(PluginInfo{"test", "zap", "destroys", true},
                 [](const std::string&, const PluginLimits&) { return ok_output("{}"); });
    EXPECT_TRUE(registry.has("test", "echo"));
    EXPECT_FALSE(registry.has("test", "nope"));
    EXPECT_FALSE(registry.has("tes", "t.echo"));
    const auto infos = registry.list();
    ASSERT_EQ(infos.size(), 2u);
    EXPECT_EQ(infos[0].action, "echo");
    EXPECT_FALSE(infos[0].destructive);
    EXPECT_EQ(infos[1].action, "zap");
    EXPECT_TRUE(infos[1].destructive);
}

TEST(PluginRegistryTest, RunPassesParamsAndReturnsOutput) {
    auto registry = registry_with(
        "echo", [](const std::string& p, const PluginLimits&) { return ok_output(p); });
    const auto out = registry.run("test", "echo", R"({"a":1})", PluginLimits{});
    EXPECT_EQ(out.status, "success");
    EXPECT_EQ(nlohmann::json::parse(out.output_json), nlohmann::json({{"a", 1}}));
    EXPECT_TRUE(out.error.empty());
}

TEST(PluginRegistryTest, EmptyOrNullParamsBecomeAnEmptyObject) {
    auto registry = registry_with(
        "echo", [](const std::string& p, const PluginLimits&) { return ok_output(p); });
    EXPECT_EQ(registry.run("test", "echo", "", PluginLimits{}).output_json, "{}");
    EXPECT_EQ(registry.run("test", "echo", "null", PluginLimits{}).output_json, "{}");
}

TEST(PluginRegistryTest, UnknownPluginOrActionFails) {
    const auto registry = PluginRegistry::builtin();
    auto out = registry.run("nope", "info", "{}", PluginLimits{});
    EXPECT_EQ(out.status, "failure");
    EXPECT_EQ(out.error, "unknown plugin action 'nope.info'");
    out = registry.run("os", "explode", "{}", PluginLimits{});
    EXPECT_EQ(out.status, "failure");
    EXPECT_EQ(out.error, "unknown plugin action 'os.explode'");
}

TEST(PluginRegistryTest, MalformedParamsJsonFailsWithoutRunningTheHandler) {
    std::atomic<int> calls{0};
    auto registry = registry_with("count", [&](const std::string&, const PluginLimits&) {
        ++calls;
        return ok_output("{}");
    });
    for (const char* bad : {"{not json", "{\"a\":", "[1,2]", "\"text\"", "42", "true"}) {
        const auto out = registry.run("test", "count", bad, PluginLimits{});
        EXPECT_EQ(out.status, "failure") << bad;
        EXPECT_NE(out.error.find("params"), std::string::npos) << out.error;
    }
    EXPECT_EQ(calls.load(), 0);
    EXPECT_EQ(registry.run("test", "count", "{not json", PluginLimits{}).error,
              "params_json is not valid JSON");
    EXPECT_EQ(registry.run("test", "count", "[1]", PluginLimits{}).error,
              "params must be a JSON object");
}

TEST(PluginRegistryTest, OversizedParamsJsonIsRefused) {
    auto registry = registry_with(
        "echo", [](const std::string& p, const PluginLimits&) { return ok_output(p); });
    const std::string huge = "{\"a\":\"" + std::string(5 * 1024 * 1024, 'x') + "\"}";
    const auto out = registry.run("test", "echo", huge, PluginLimits{});
    EXPECT_EQ(out.status, "failure");
    EXPECT_NE(out.error.find("params exceed"), std::string::npos) << out.error;
}

TEST(PluginRegistryTest, OutputOverTheCapBecomesAFailure) {
    auto registry = registry_with("big", [](const std::string&, const PluginLimits&) {
        return ok_output("\"" + std::string(2000, 'x') + "\"");
    });
    const auto capped = registry.run("test", "big", "{}", limits_of(5s, 1000));
    EXPECT_EQ(capped.status, "failure");
    EXPECT_EQ(capped.error, "output exceeds 1000 bytes");
    EXPECT_EQ(capped.output_json, "null");
    EXPECT_EQ(registry.run("test", "big", "{}", limits_of(5s, 2002)).status, "success");
}

TEST(PluginRegistryTest, BuiltinOutputCapIsEnforced) {
    const auto registry = PluginRegistry::builtin();
    const auto out = registry.run("process", "list", "{}", limits_of(10s, 100));
    EXPECT_EQ(out.status, "failure");
    EXPECT_EQ(out.error, "output exceeds 100 bytes");
    EXPECT_EQ(out.output_json, "null");
}

TEST(PluginRegistryTest, SlowHandlerTimesOut) {
    auto finished = std::make_shared<std::atomic<bool>>(false);
    auto registry = registry_with("slow", [finished](const std::string&, const PluginLimits&) {
        std::this_thread::sleep_for(1500ms);  // ignores its deadline on purpose
        finished->store(true);
        return ok_output("{\"late\":true}");
    });
    const auto start = std::chrono::steady_clock::now();
    const auto out = registry.run("test", "slow", "{}", limits_of(100ms));
    const auto elapsed = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(out.status, "timeout");
    EXPECT_EQ(out.error, "plugin did not finish within 100 ms");
    EXPECT_EQ(out.output_json, "null");
    EXPECT_LT(elapsed, 1200ms);
    EXPECT_FALSE(finished->load());
    // Let the abandoned handler finish before the test's state goes away.
    while (!finished->load()) std::this_thread::sleep_for(20ms);
}

TEST(PluginRegistryTest, ZeroOrHugeTimeoutIsRefused) {
    auto registry = registry_with(
        "echo", [](const std::string& p, const PluginLimits&) { return ok_output(p); });
    for (const std::chrono::milliseconds timeout :
         {std::chrono::milliseconds(0), std::chrono::milliseconds(-5),
          std::chrono::milliseconds(25 * 3600 * 1000)}) {
        const auto out = registry.run("test", "echo", "{}", limits_of(timeout));
        EXPECT_EQ(out.status, "failure");
        EXPECT_EQ(out.error, "timeout must be from 1 ms to 86400000 ms");
    }
}

TEST(PluginRegistryTest, ThrowingHandlerBecomesAFailure) {
    auto registry =
        registry_with("throw", [](const std::string&, const PluginLimits&) -> PluginOutcome {
            throw std::runtime_error("boom");
        });
    const auto out = registry.run("test", "throw", "{}", PluginLimits{});
    EXPECT_EQ(out.status, "failure");
    EXPECT_EQ(out.error, "plugin raised an error: boom");
}

TEST(PluginRegistryTest, ErrorsAreOneCappedLineAndStatusesValidated) {
    auto registry = registry_with("multi", [](const std::string& p, const PluginLimits&) {
        PluginOutcome out;
        out.status = p == "{\"odd\":1}" ? "exploded" : "failure";
        out.error = "line one\nline two\r\n" + std::string(5000, 'e');
        out.output_json = "{\"partial\":1}";
        return out;
    });
    const auto out = registry.run("test", "multi", "{}", PluginLimits{});
    EXPECT_EQ(out.status, "failure");
    EXPECT_EQ(out.error.find('\n'), std::string::npos);
    EXPECT_EQ(out.error.rfind("line one line two", 0), 0u);
    EXPECT_LE(out.error.size(), 1024u);
    EXPECT_EQ(out.output_json, "null");  // no partial output alongside a failure
    EXPECT_EQ(registry.run("test", "multi", R"({"odd":1})", PluginLimits{}).error,
              "plugin reported an invalid status");
}

TEST(PluginRegistryTest, BuiltinListsEveryActionWithDestructiveFlags) {
    const auto infos = PluginRegistry::builtin().list();
    std::map<std::string, bool> destructive;
    for (const auto& info : infos) {
        EXPECT_FALSE(info.description.empty()) << info.plugin << "." << info.action;
        destructive[info.plugin + "." + info.action] = info.destructive;
    }
    const std::map<std::string, bool> expected = {
        {"disk.usage", false},          {"file.exists", false},    {"file.hash", false},
        {"network.connections", false}, {"os.info", false},        {"packages.list", false},
        {"perf.snapshot", false},       {"process.find", false},   {"process.list", false},
        {"reboot.pending", false},      {"service.restart", true}, {"service.status", false},
        {"user.sessions", false},
    };
    EXPECT_EQ(destructive, expected);
}

TEST(PluginRegistryTest, ConcurrentRunsAreIndependent) {
    const auto registry = PluginRegistry::builtin();
    std::atomic<int> successes{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; ++i) {
        threads.emplace_back([&] {
            for (int j = 0; j < 5; ++j) {
                if (registry.run("os", "info", "{}", PluginLimits{}).status == "success") {
                    ++successes;
                }
            }
        });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(successes.load(), 20);
}

}  // namespace
}  // namespace yuzu::agent
