#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>

#include "plugin_test_support.hpp"

namespace yuzu::agent {
namespace {

using testing::FakeBin;
using testing::limits_of;
using testing::output_of;
using testing::run;
using testing::write_file;
using namespace std::chrono_literals;

class ServicePluginTest : public ::testing::Test {
  protected:
    // A registry whose systemctl is `body` and whose systemd marker exists.
    PluginRegistry with_systemctl(const std::string& body) {
        fake_.add("systemctl", body);
        auto paths = fake_.paths();
        paths.systemd_marker = fake_.bin_dir();
        PluginRegistry registry;
        plugins::register_service_plugins(registry, paths);
        return registry;
    }
    std::string calls() const { return testing::read_file(fake_.calls_log()); }

    FakeBin fake_;
};

TEST_F(ServicePluginTest, StatusParsesSystemctlShow) {
    const auto registry = with_systemctl(
        "printf 'LoadState=loaded\\nActiveState=active\\nSubState=running\\nMainPID=4321\\n'");
    const auto out = output_of(run(registry, "service", "status", {{"unit", "nginx"}}));
    EXPECT_EQ(out, nlohmann::json({{"unit", "nginx.service"},
                                   {"load_state", "loaded"},
                                   {"active_state", "active"},
                                   {"sub_state", "running"},
                                   {"main_pid", 4321}}));
    EXPECT_EQ(calls(), "show --property=LoadState,ActiveState,SubState,MainPID -- nginx.service\n");
}

TEST_F(ServicePluginTest, UnitSuffixesAreKeptAndTemplatesAccepted) {
    const auto registry = with_systemctl(
        "printf 'LoadState=loaded\\nActiveState=inactive\\nSubState=dead\\nMainPID=0\\n'");
    for (const auto& [given, used] : std::vector<std::pair<std::string, std::string>>{
             {"apt-daily.timer", "apt-daily.timer"},
             {"getty@tty1.service", "getty@tty1.service"},
             {"my_app:1.2", "my_app:1.2.service"},
             {"sys-kernel.mount", "sys-kernel.mount"}}) {
        const auto out = output_of(run(registry, "service", "status", {{"unit", given}}));
        EXPECT_EQ(out.at("unit"), used);
        EXPECT_EQ(out.at("main_pid"), 0);
    }
}

TEST_F(ServicePluginTest, StatusFailureCarriesSystemctlError) {
    const auto registry = with_systemctl("echo 'Failed to connect to bus' >&2; exit 1");
    const auto out = run(registry, "service", "status", {{"unit", "nginx"}});
    EXPECT_EQ(out.status, "failure");
    EXPECT_EQ(out.error, "systemctl show failed (exit 1): Failed to connect to bus");
}

TEST_F(ServicePluginTest, StatusWithMissingPropertiesFails) {
    const auto registry = with_systemctl("printf 'LoadState=loaded\\n'");
    const auto out = run(registry, "service", "status", {{"unit", "nginx"}});
    EXPECT_EQ(out.status, "failure");
    EXPECT_EQ(out.error, "systemctl show did not report ActiveState");
}

TEST_F(ServicePluginTest, RestartRunsSystemctlRestart) {
    const auto registry = with_systemctl("exit 0");
    const auto out = output_of(run(registry, "service", "restart", {{"unit", "cron"}}));
    EXPECT_EQ(out, nlohmann::json({{"unit", "cron.service"}, {"restarted", true}}));
    EXPECT_EQ(calls(), "restart -- cron.service\n");
}

TEST_F(ServicePluginTest, RestartFailureIsTrimmedAndCapped) {
    const auto registry = with_systemctl(
        "printf '\\n  Job for x.service failed.\\nSee journal.\\n' >&2; "
        "head -c 5000 /dev/zero | tr '\\0' e >&2; exit 5");
    const auto out = run(registry, "service", "restart", {{"unit", "x"}});
    EXPECT_EQ(out.status, "failure");
    EXPECT_EQ(out.error.rfind("systemctl restart failed (exit 5): Job for x.service failed. See "
                              "journal.",
                              0),
              0u)
        << out.error;
    EXPECT_LT(out.error.size(), 600u);
    EXPECT_EQ(out.error.find('\n'), std::string::npos);
}

TEST_F(ServicePluginTest, RestartTimeoutKillsSystemctl) {
    const auto registry = with_systemctl("exec sleep 30");
    const auto start = std::chrono::steady_clock::now();
    const auto out = registry.run("service", "restart", R"({"unit":"slow"})", limits_of(300ms));
    EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
    EXPECT_EQ(out.status, "timeout");
    EXPECT_EQ(out.error, "systemctl restart did not finish in time");
}

TEST_F(ServicePluginTest, NoSystemctlMeansNoSystemd) {
    plugins::HostPaths paths = fake_.paths();  // empty bin dir
    paths.systemd_marker = fake_.bin_dir();
    PluginRegistry registry;
    plugins::register_service_plugins(registry, paths);
    for (const char* action : {"status", "restart"}) {
        const auto out = run(registry, "service", action, {{"unit", "nginx"}});
        EXPECT_EQ(out.status, "failure");
        EXPECT_EQ(out.error, "systemd is not available on this host");
    }
}

TEST_F(ServicePluginTest, SystemctlWithoutRunningSystemdIsRefusedBeforeRunning) {
    fake_.add("systemctl", "exit 0");
    plugins::HostPaths paths = fake_.paths();
    paths.systemd_marker = fake_.bin_dir() + "/no-such-marker";
    PluginRegistry registry;
    plugins::register_service_plugins(registry, paths);
    const auto out = run(registry, "service", "restart", {{"unit", "nginx"}});
    EXPECT_EQ(out.error, "systemd is not available on this host");
    EXPECT_FALSE(fake_.ran());
}

TEST_F(ServicePluginTest, RealHostStatusIsTruthful) {
    const auto registry = PluginRegistry::builtin();
    const auto out = run(registry, "service", "status", {{"unit", "zz9-no-such-unit"}});
    struct stat st {};
    if (::stat("/run/systemd/system", &st) != 0) {
        EXPECT_EQ(out.status, "failure");
        EXPECT_EQ(out.error, "systemd is not available on this host");
    } else {
        const auto output = output_of(out);
        EXPECT_EQ(output.at("load_state"), "not-found");
        EXPECT_EQ(output.at("unit"), "zz9-no-such-unit.service");
    }
}

TEST(PackagesListTest, RealHostListsInstalledPackages) {
    const auto registry = PluginRegistry::builtin();
    const auto out = run(registry, "packages", "list", nlohmann::json::object());
    struct stat st {};
    const bool dpkg = ::stat("/usr/bin/dpkg-query", &st) == 0;
    const bool rpm = ::stat("/usr/bin/rpm", &st) == 0;
    if (!dpkg && !rpm) {
        EXPECT_EQ(out.error, "no supported package manager (dpkg or rpm) on this host");
        return;
    }
    const auto output = output_of(out);
    EXPECT_EQ(output.at("manager"), dpkg ? "dpkg" : "rpm");
    ASSERT_GT(output.at("packages").size(), 10u);
    for (const auto& p : output.at("packages")) {
        EXPECT_FALSE(p.at("name").get<std::string>().empty());
        EXPECT_FALSE(p.at("version").get<std::string>().empty());
        EXPECT_TRUE(p.contains("arch"));
    }
    if (dpkg) {
        const auto libc = output_of(run(registry, "packages", "list", {{"name", "libc6"}}));
        ASSERT_GE(libc.at("packages").size(), 1u);
        EXPECT_EQ(libc.at("packages")[0].at("name"), "libc6");
        const auto pattern = output_of(run(registry, "packages", "list", {{"name", "libc*"}}));
        EXPECT_GT(pattern.at("packages").size(), libc.at("packages").size());
    }
}

TEST(PackagesListTest, ParsesFakeDpkgAndSkipsRemovedPackages) {
    FakeBin fake;
    fake.add("dpkg-query",
             "printf 'zlib1g\\t1:1.2.13\\tamd64\\tinstall ok installed\\n"
             "gone\\t1.0\\tall\\tdeinstall ok config-files\\n"
             "bash\\t5.2.15\\tamd64\\thold ok installed\\n'");
    PluginRegistry registry;
    plugins::register_package_plugins(registry, fake.paths());
    auto out = output_of(run(registry, "packages", "list", nlohmann::json::object()));
    EXPECT_EQ(out, nlohmann::json::parse(R"({"manager":"dpkg","packages":[
        {"name":"bash","version":"5.2.15","arch":"amd64"},
        {"name":"zlib1g","version":"1:1.2.13","arch":"amd64"}]})"));
    EXPECT_EQ(testing::read_file(fake.calls_log()),
              "-W --showformat=${Package}\t${Version}\t${Architecture}\t${Status}\n\n");
    out = output_of(run(registry, "packages", "list", {{"name", "z*"}}));
    ASSERT_EQ(out.at("packages").size(), 1u);
    EXPECT_EQ(out.at("packages")[0].at("name"), "zlib1g");
}

TEST(PackagesListTest, FallsBackToRpm) {
    FakeBin fake;
    fake.add("rpm", "printf 'openssl\\t3.0.7-27.el9\\tx86_64\\n'");
    PluginRegistry registry;
    plugins::register_package_plugins(registry, fake.paths());
    const auto out = output_of(run(registry, "packages", "list", nlohmann::json::object()));
    EXPECT_EQ(out.at("manager"), "rpm");
    EXPECT_EQ(
        out.at("packages"),
        nlohmann::json::parse(R"([{"name":"openssl","version":"3.0.7-27.el9","arch":"x86_64"}])"));
}

TEST(PackagesListTest, NoManagerIsAFailure) {
    FakeBin fake;
    PluginRegistry registry;
    plugins::register_package_plugins(registry, fake.paths());
    const auto out = run(registry, "packages", "list", nlohmann::json::object());
    EXPECT_EQ(out.status, "failure");
    EXPECT_EQ(out.error, "no supported package manager (dpkg or rpm) on this host");
}

TEST(PackagesListTest, ManagerErrorIsAFailureNotPartialOutput) {
    FakeBin fake;
    fake.add("dpkg-query",
             "printf 'bash\\t5\\tamd64\\tinstall ok installed\\n'; "
             "echo 'database locked' >&2; exit 2");
    PluginRegistry registry;
    plugins::register_package_plugins(registry, fake.paths());
    const auto out = run(registry, "packages", "list", nlohmann::json::object());
    EXPECT_EQ(out.status, "failure");
    EXPECT_EQ(out.error, "dpkg query failed (exit 2): database locked");
    EXPECT_EQ(out.output_json, "null");
}

}  // namespace
}  // namespace yuzu::agent
