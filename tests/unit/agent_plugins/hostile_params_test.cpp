// Every plugin that takes parameters, fed hostile values: each must come
// back as a clean "failure" naming the parameter, and nothing may run.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "plugin_test_support.hpp"

namespace yuzu::agent {
namespace {

using testing::FakeBin;
using testing::run;

struct Target {
    std::string plugin;
    std::string action;
    std::string key;      // the parameter under attack
    nlohmann::json base;  // other (valid) parameters
};

// A registry whose systemctl/dpkg-query/rpm are fakes that log any call.
class HostileParamsTest : public ::testing::Test {
  protected:
    HostileParamsTest() {
        for (const char* tool : {"systemctl", "dpkg-query", "rpm"}) fake_.add(tool, "exit 0");
        auto paths = fake_.paths();
        paths.systemd_marker = fake_.bin_dir();  // any existing directory: "systemd is up"
        plugins::register_builtin_plugins(registry_, paths);
    }

    void expect_refused(const Target& t, const nlohmann::json& value, const std::string& label) {
        nlohmann::json params = t.base;
        params[t.key] = value;
        const auto out = run(registry_, t.plugin, t.action, params);
        EXPECT_EQ(out.status, "failure")
            << t.plugin << "." << t.action << " " << t.key << "=" << label;
        EXPECT_NE(out.error.find("'" + t.key + "'"), std::string::npos)
            << t.plugin << "." << t.action << " " << label << ": " << out.error;
        EXPECT_EQ(out.output_json, "null");
        EXPECT_FALSE(fake_.ran()) << t.plugin << "." << t.action << " ran a command for " << label;
    }

    FakeBin fake_;
    PluginRegistry registry_;
};

const std::vector<Target> kStringTargets = {
    {"file", "exists", "path", nlohmann::json::object()},
    {"file", "hash", "path", nlohmann::json::object()},
    {"disk", "usage", "path", nlohmann::json::object()},
    {"service", "status", "unit", nlohmann::json::object()},
    {"service", "restart", "unit", nlohmann::json::object()},
    {"process", "find", "name", nlohmann::json::object()},
    {"packages", "list", "name", nlohmann::json::object()},
    {"network", "connections", "state", nlohmann::json::object()},
};

const std::vector<Target> kPathTargets = {
    {"file", "exists", "path", nlohmann::json::object()},
    {"file", "hash", "path", nlohmann::json::object()},
    {"disk", "usage", "path", nlohmann::json::object()},
};

const std::vector<Target> kUnitTargets = {
    {"service", "status", "unit", nlohmann::json::object()},
    {"service", "restart", "unit", nlohmann::json::object()},
};

const std::vector<Target> kNumberTargets = {
    {"process", "list", "limit", nlohmann::json::object()},
    {"file", "hash", "max_size_bytes", {{"path", "/etc/hostname"}}},
};

const std::vector<std::string> kShellMeta = {"; rm -rf /", "$(id)", "`id`", "|", "&&"};

TEST_F(HostileParamsTest, PathTraversalAndRelativePathsAreRefused) {
    for (const auto& t : kPathTargets) {
        for (const char* v : {"/etc/../etc/shadow", "relative/path", "/a/./b/..", "..", "/etc/",
                              "//etc/passwd", "~root/.ssh"}) {
            expect_refused(t, v, v);
        }
    }
}

TEST_F(HostileParamsTest, TraversalLikeUnitsAndPackageNamesAreRefused) {
    std::vector<Target> targets = kUnitTargets;
    targets.push_back({"packages", "list", "name", nlohmann::json::object()});
    for (const auto& t : targets) {
        for (const char* v :
             {"/etc/../etc/shadow", "relative/path", "/a/./b/..", "--help", "-H root@evil"}) {
            expect_refused(t, v, v);
        }
    }
}

TEST_F(HostileParamsTest, NulAndControlBytesAreRefused) {
    for (const auto& t : kStringTargets) {
        expect_refused(t, std::string("/etc/passwd\0x", 13), "NUL");
        expect_refused(t, std::string("sshd\nrm"), "newline");
    }
}

TEST_F(HostileParamsTest, MegabyteStringsAreRefused) {
    for (const auto& t : kStringTargets) {
        expect_refused(t, "/" + std::string(1024 * 1024, 'a'), "1MB");
    }
}

TEST_F(HostileParamsTest, ShellMetacharactersAreRefused) {
    for (const auto& t : kStringTargets) {
        for (const auto& v : kShellMeta) expect_refused(t, v, v);
        expect_refused(t, "sshd; reboot", "embedded ;");
        expect_refused(t, "a>b", ">");
    }
}

TEST_F(HostileParamsTest, WrongTypesAreRefused) {
    for (const auto& t : kStringTargets) {
        for (const auto& v : {nlohmann::json(42), nlohmann::json(true), nlohmann::json(nullptr),
                              nlohmann::json::array({"/etc"}), nlohmann::json({{"p", "/"}})}) {
            expect_refused(t, v, v.dump());
        }
    }
    for (const auto& t : kNumberTargets) {
        for (const auto& v : {nlohmann::json("10"), nlohmann::json(true), nlohmann::json(1.5),
                              nlohmann::json(nullptr), nlohmann::json::array({1})}) {
            expect_refused(t, v, v.dump());
        }
    }
}

TEST_F(HostileParamsTest, NegativeAndHugeNumbersAreRefused) {
    for (const auto& t : kNumberTargets) {
        for (const auto& v :
             {nlohmann::json(-1), nlohmann::json(0),
              nlohmann::json(std::numeric_limits<int64_t>::min()),
              nlohmann::json(std::numeric_limits<uint64_t>::max()), nlohmann::json(1e30)}) {
            expect_refused(t, v, v.dump());
        }
    }
    expect_refused(kNumberTargets[0], 10001, "10001");
    expect_refused(kNumberTargets[1], (int64_t{1} << 40) + 1, "2^40+1");
}

TEST_F(HostileParamsTest, MissingRequiredParametersAreRefused) {
    for (const auto& [plugin, action, key] :
         std::vector<std::tuple<std::string, std::string, std::string>>{
             {"file", "exists", "path"},
             {"file", "hash", "path"},
             {"service", "status", "unit"},
             {"service", "restart", "unit"},
             {"process", "find", "name"}}) {
        const auto out = run(registry_, plugin, action, nlohmann::json::object());
        EXPECT_EQ(out.status, "failure");
        EXPECT_EQ(out.error, "parameter '" + key + "' is required") << plugin << "." << action;
    }
    EXPECT_FALSE(fake_.ran());
}

TEST_F(HostileParamsTest, UnknownKeysAreRefusedByEveryAction) {
    for (const auto& info : registry_.list()) {
        const auto out = run(registry_, info.plugin, info.action, {{"bogus", 1}});
        EXPECT_EQ(out.status, "failure") << info.plugin << "." << info.action;
        EXPECT_EQ(out.error, "unknown parameter 'bogus'") << info.plugin << "." << info.action;
    }
    EXPECT_FALSE(fake_.ran());
}

TEST_F(HostileParamsTest, ValidParametersDoRunTheFakes) {
    // The control: the same registry does reach systemctl for a good unit,
    // so the refusals above are the validation at work.
    const auto out = run(registry_, "service", "restart", {{"unit", "nginx"}});
    EXPECT_EQ(out.status, "success") << out.error;
    EXPECT_TRUE(fake_.ran());
}

}  // namespace
}  // namespace yuzu::agent
