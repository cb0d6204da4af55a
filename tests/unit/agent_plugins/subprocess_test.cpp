#include "plugins/subprocess.hpp"

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>

#include "plugin_test_support.hpp"

namespace yuzu::agent::plugins {
namespace {

using namespace std::chrono_literals;

std::string exe(const std::string& name) {
    const auto path = find_executable(HostPaths{}, name);
    EXPECT_TRUE(path.has_value()) << name;
    return path.value_or("/bin/false");
}

TEST(SubprocessTest, CapturesStdoutStderrAndExitCode) {
    auto r = run_command({exe("sh"), "-c", "echo out; echo err >&2; exit 3"}, 5s, 1024);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->out, "out\n");
    EXPECT_EQ(r->err, "err\n");
    EXPECT_EQ(r->exit_code, 3);
    EXPECT_FALSE(r->timed_out);
    EXPECT_FALSE(r->output_capped);
}

TEST(SubprocessTest, ArgumentsAreNeverInterpretedByAShell) {
    auto r = run_command({exe("echo"), "$(id)", "`id`", "; rm -rf /", "|", "&&", "*"}, 5s, 1024);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->out, "$(id) `id` ; rm -rf / | && *\n");
}

TEST(SubprocessTest, ChildGetsAMinimalEnvironmentAndNoStdin) {
    ::setenv("YUZU_SECRET_FOR_TEST", "leak", 1);
    auto r = run_command({exe("env")}, 5s, 64 * 1024);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->out.find("YUZU_SECRET_FOR_TEST"), std::string::npos);
    EXPECT_NE(r->out.find("LC_ALL=C"), std::string::npos);
    auto cat = run_command({exe("cat")}, 5s, 1024);
    ASSERT_TRUE(cat.ok());
    EXPECT_EQ(cat->out, "");  // /dev/null, not the agent's stdin
    EXPECT_EQ(cat->exit_code, 0);
    ::unsetenv("YUZU_SECRET_FOR_TEST");
}

TEST(SubprocessTest, TimeoutKillsTheWholeProcessGroup) {
    const auto start = std::chrono::steady_clock::now();
    // The shell forks a grandchild that holds the pipes open.
    auto r = run_command({exe("sh"), "-c", "sleep 30 & sleep 30"}, 300ms, 1024);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->timed_out);
    EXPECT_EQ(r->signal, SIGKILL);
}

TEST(SubprocessTest, OutputCapKillsTheChild) {
    const auto start = std::chrono::steady_clock::now();
    auto r = run_command({exe("yes")}, 10s, 100 * 1024);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->output_capped);
    EXPECT_FALSE(r->timed_out);
    EXPECT_LE(r->out.size(), 100u * 1024 + 16u * 1024);
}

TEST(SubprocessTest, MissingExecutableIsAnError) {
    auto r = run_command({"/nonexistent/zz9"}, 1s, 1024);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
}

TEST(SubprocessTest, FindExecutableSearchesOnlyTheGivenDirectories) {
    HostPaths paths;
    paths.exec_dirs = {"/nonexistent"};
    EXPECT_FALSE(find_executable(paths, "sh").has_value());
    EXPECT_TRUE(find_executable(HostPaths{}, "sh").has_value());
}

}  // namespace
}  // namespace yuzu::agent::plugins
