#include <gtest/gtest.h>
#include <sys/stat.h>
#include <utmpx.h>

#include <cstring>

#include "plugin_test_support.hpp"

namespace yuzu::agent {
namespace {

using testing::output_of;
using testing::run;
using testing::write_file;

void append_utmp(const std::string& file, short type, const char* user, const char* line,
                 const char* host, int64_t when) {
    struct utmpx ut {};
    ut.ut_type = type;
    ut.ut_pid = 1234;
    std::strncpy(ut.ut_user, user, sizeof(ut.ut_user));
    std::strncpy(ut.ut_line, line, sizeof(ut.ut_line));
    std::strncpy(ut.ut_host, host, sizeof(ut.ut_host));
    ut.ut_tv.tv_sec = static_cast<int32_t>(when);
    ::updwtmpx(file.c_str(), &ut);
}

TEST(UserSessionsTest, ReadsUserProcessEntriesOnly) {
    yuzu::testing::TempDir dir;
    const std::string file = (dir / "utmp").string();
    write_file(dir / "utmp", "");  // updwtmpx only appends to an existing file
    append_utmp(file, BOOT_TIME, "reboot", "~", "6.1.0", 1699990000);
    append_utmp(file, USER_PROCESS, "alice", "pts/3", "10.0.0.5", 1700000000);
    append_utmp(file, DEAD_PROCESS, "", "pts/4", "", 1700000100);
    append_utmp(file, USER_PROCESS, "bob", "tty1", "", 1700000200);
    plugins::HostPaths paths;
    paths.utmp_file = file;
    PluginRegistry registry;
    plugins::register_user_plugins(registry, paths);
    const auto out = output_of(run(registry, "user", "sessions", nlohmann::json::object()));
    EXPECT_EQ(out, nlohmann::json::parse(R"({"sessions":[
        {"user":"alice","tty":"pts/3","host":"10.0.0.5","login_time":1700000000},
        {"user":"bob","tty":"tty1","host":"","login_time":1700000200}]})"));
}

TEST(UserSessionsTest, MissingUtmpMeansNoSessions) {
    yuzu::testing::TempDir dir;
    plugins::HostPaths paths;
    paths.utmp_file = (dir / "absent").string();
    PluginRegistry registry;
    plugins::register_user_plugins(registry, paths);
    const auto out = output_of(run(registry, "user", "sessions", nlohmann::json::object()));
    EXPECT_EQ(out, nlohmann::json::parse(R"({"sessions":[]})"));
}

TEST(UserSessionsTest, RealHostReturnsAList) {
    const auto registry = PluginRegistry::builtin();
    const auto out = output_of(run(registry, "user", "sessions", nlohmann::json::object()));
    ASSERT_TRUE(out.at("sessions").is_array());
    struct stat st {};
    if (::stat("/var/run/utmp", &st) != 0) {
        EXPECT_TRUE(out.at("sessions").empty());
    }
    for (const auto& s : out.at("sessions")) {
        EXPECT_FALSE(s.at("user").get<std::string>().empty());
        EXPECT_GT(s.at("login_time").get<int64_t>(), 0);
    }
}

TEST(RebootPendingTest, ReadsMarkerAndPackageList) {
    yuzu::testing::TempDir dir;
    plugins::HostPaths paths;
    paths.var_run = dir.str();
    PluginRegistry registry;
    plugins::register_reboot_plugins(registry, paths);
    auto out = output_of(run(registry, "reboot", "pending", nlohmann::json::object()));
    EXPECT_EQ(out, nlohmann::json::parse(R"({"pending":false,"packages":[]})"));

    write_file(dir / "reboot-required", "*** System restart required ***\n");
    out = output_of(run(registry, "reboot", "pending", nlohmann::json::object()));
    EXPECT_EQ(out, nlohmann::json::parse(R"({"pending":true,"packages":[]})"));

    write_file(dir / "reboot-required.pkgs",
               "linux-image-6.1.0-18\nlibc6\n\nlinux-image-6.1.0-18\n");
    out = output_of(run(registry, "reboot", "pending", nlohmann::json::object()));
    EXPECT_EQ(out, nlohmann::json::parse(
                       R"({"pending":true,"packages":["linux-image-6.1.0-18","libc6"]})"));
}

TEST(RebootPendingTest, RealHostMatchesTheMarker) {
    const auto registry = PluginRegistry::builtin();
    const auto out = output_of(run(registry, "reboot", "pending", nlohmann::json::object()));
    struct stat st {};
    EXPECT_EQ(out.at("pending").get<bool>(), ::stat("/var/run/reboot-required", &st) == 0);
    EXPECT_TRUE(out.at("packages").is_array());
}

}  // namespace
}  // namespace yuzu::agent
