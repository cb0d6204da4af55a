#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <fstream>

#include "plugin_test_support.hpp"

namespace yuzu::agent {
namespace {

using testing::output_of;
using testing::run;
using testing::write_file;

std::string own_comm() {
    std::ifstream in("/proc/self/comm");
    std::string comm;
    std::getline(in, comm);
    return comm;
}

const nlohmann::json* find_pid(const nlohmann::json& rows, int64_t pid) {
    for (const auto& row : rows) {
        if (row.at("pid") == pid) return &row;
    }
    return nullptr;
}

TEST(ProcessListTest, RealHostIncludesThisProcess) {
    const auto registry = PluginRegistry::builtin();
    const auto out = output_of(run(registry, "process", "list", {{"limit", 10000}}));
    const auto& rows = out.at("processes");
    ASSERT_GT(rows.size(), 1u);
    EXPECT_FALSE(out.at("truncated").get<bool>());
    const auto* self = find_pid(rows, ::getpid());
    ASSERT_NE(self, nullptr);
    EXPECT_EQ(self->at("ppid"), ::getppid());
    EXPECT_EQ(self->at("name"), own_comm());
    // The main thread waits for the handler thread, so it is usually "sleeping".
    EXPECT_FALSE(self->at("state").get<std::string>().empty());
    EXPECT_GT(self->at("rss_bytes").get<uint64_t>(), 0u);
    const passwd* pw = ::getpwuid(::geteuid());
    ASSERT_NE(pw, nullptr);
    EXPECT_EQ(self->at("user"), pw->pw_name);
    int64_t last = 0;
    for (const auto& row : rows) {
        EXPECT_GT(row.at("pid").get<int64_t>(), last);
        last = row.at("pid");
        for (const char* key : {"pid", "ppid", "name", "user", "state", "rss_bytes"}) {
            EXPECT_TRUE(row.contains(key)) << key;
        }
    }
}

TEST(ProcessListTest, LimitTruncates) {
    const auto registry = PluginRegistry::builtin();
    const auto out = output_of(run(registry, "process", "list", {{"limit", 1}}));
    EXPECT_EQ(out.at("processes").size(), 1u);
    EXPECT_TRUE(out.at("truncated").get<bool>());
    const auto dflt = output_of(run(registry, "process", "list", nlohmann::json::object()));
    EXPECT_LE(dflt.at("processes").size(), 1000u);
}

TEST(ProcessListTest, ParsesInjectedProcWithOddNames) {
    yuzu::testing::TempDir dir;
    // comm may hold spaces and ')'; fields after it are positional.
    const std::string tail = " 0 0 0 0 0 0 0 0 0 0 0 0 0 20 0 1 0 100 4096 3";
    write_file(dir / "proc" / "42" / "stat", "42 (we ird) proc) S 7" + tail + " 0 0\n");
    write_file(dir / "proc" / "7" / "stat", "7 (init) Z 0" + tail + " 0 0\n");
    write_file(dir / "proc" / "99" / "stat", "garbage\n");      // skipped, not fatal
    write_file(dir / "proc" / "self" / "stat", "1 (x) S 0\n");  // not a pid: ignored
    write_file(dir / "proc" / "stat", "cpu 1 1 1 1\n");
    plugins::HostPaths paths;
    paths.proc = (dir / "proc").string();
    PluginRegistry registry;
    plugins::register_process_plugins(registry, paths);
    const auto out = output_of(run(registry, "process", "list", nlohmann::json::object()));
    const auto& rows = out.at("processes");
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].at("pid"), 7);
    EXPECT_EQ(rows[0].at("state"), "zombie");
    EXPECT_EQ(rows[1].at("pid"), 42);
    EXPECT_EQ(rows[1].at("ppid"), 7);
    EXPECT_EQ(rows[1].at("name"), "we ird) proc");
    EXPECT_EQ(rows[1].at("state"), "sleeping");
    EXPECT_EQ(rows[1].at("rss_bytes"), 3 * ::sysconf(_SC_PAGESIZE));
}

TEST(ProcessFindTest, FindsThisProcessExactlyAndByPattern) {
    const auto registry = PluginRegistry::builtin();
    const std::string comm = own_comm();
    for (const std::string& pattern : {comm, comm.substr(0, 4) + "*", "*" + comm.substr(2)}) {
        const auto out = output_of(run(registry, "process", "find", {{"name", pattern}}));
        EXPECT_NE(find_pid(out.at("matches"), ::getpid()), nullptr) << pattern;
        for (const auto& m : out.at("matches")) {
            EXPECT_TRUE(m.contains("user") && m.contains("rss_bytes"));
        }
    }
}

TEST(ProcessFindTest, NoMatchIsAnEmptyList) {
    const auto registry = PluginRegistry::builtin();
    const auto out =
        output_of(run(registry, "process", "find", {{"name", "no-such-process-zz9-plural"}}));
    EXPECT_TRUE(out.at("matches").is_array());
    EXPECT_TRUE(out.at("matches").empty());
}

TEST(ProcessFindTest, MatchesArgv0BeyondTheTruncatedComm) {
    yuzu::testing::TempDir dir;
    const std::string tail = " 0 0 0 0 0 0 0 0 0 0 0 0 0 20 0 1 0 100 4096 3 0 0\n";
    write_file(dir / "proc" / "50" / "stat", "50 (a-very-long-da) S 1" + tail);
    write_file(dir / "proc" / "50" / "cmdline",
               std::string("/usr/sbin/a-very-long-daemon-name\0--flag\0", 41));
    write_file(dir / "proc" / "51" / "stat", "51 (other) S 1" + tail);
    plugins::HostPaths paths;
    paths.proc = (dir / "proc").string();
    PluginRegistry registry;
    plugins::register_process_plugins(registry, paths);
    auto out = output_of(run(registry, "process", "find", {{"name", "a-very-long-daemon-name"}}));
    ASSERT_EQ(out.at("matches").size(), 1u);
    EXPECT_EQ(out.at("matches")[0].at("pid"), 50);
    out = output_of(run(registry, "process", "find", {{"name", "*daemon*"}}));
    EXPECT_EQ(out.at("matches").size(), 1u);
    out = output_of(run(registry, "process", "find", {{"name", "--flag"}}));
    EXPECT_TRUE(out.at("matches").empty());
}

}  // namespace
}  // namespace yuzu::agent
