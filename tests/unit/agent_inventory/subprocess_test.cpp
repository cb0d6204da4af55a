#include "yuzu/agent/subprocess.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <thread>

namespace yuzu::agent {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

SubprocessOptions with_timeout(milliseconds timeout) {
    SubprocessOptions options;
    options.timeout = timeout;
    return options;
}

TEST(Subprocess, CapturesStdoutAndExitStatus) {
    auto run = run_subprocess({"printf", "%s|%s", "a b", "c"}, with_timeout(milliseconds(5000)));
    ASSERT_TRUE(run.ok()) << run.status().to_string();
    EXPECT_TRUE(run->succeeded());
    EXPECT_EQ(run->output, "a b|c");
    EXPECT_EQ(run->exit_code, 0);
}

TEST(Subprocess, ArgumentsAreNeverInterpretedByAShell) {
    auto run = run_subprocess({"echo", "$(id) ; `uname` | cat > /tmp/x"},
                              with_timeout(milliseconds(5000)));
    ASSERT_TRUE(run.ok());
    EXPECT_EQ(run->output, "$(id) ; `uname` | cat > /tmp/x\n");
}

TEST(Subprocess, NonZeroExitKeepsStderrForTheReason) {
    auto run = run_subprocess({"ls", "/definitely/not/here"}, with_timeout(milliseconds(5000)));
    ASSERT_TRUE(run.ok());
    EXPECT_FALSE(run->succeeded());
    EXPECT_NE(run->exit_code, 0);
    EXPECT_NE(run->error_output.find("/definitely/not/here"), std::string::npos);
    EXPECT_NE(run->describe_failure().find("exited with status"), std::string::npos);
}

TEST(Subprocess, TimeoutKillsTheChild) {
    const auto start = steady_clock::now();
    auto run = run_subprocess({"sleep", "10"}, with_timeout(milliseconds(300)));
    const auto elapsed = steady_clock::now() - start;
    ASSERT_TRUE(run.ok());
    EXPECT_TRUE(run->timed_out);
    EXPECT_FALSE(run->succeeded());
    EXPECT_EQ(run->term_signal, SIGKILL);
    EXPECT_LT(elapsed, milliseconds(3000));
    EXPECT_EQ(run->describe_failure(), "timed out");
}

TEST(Subprocess, TimeoutAlsoKillsWhatTheChildStarted) {
    // The grandchild keeps the pipe open; only a group kill ends the read.
    const auto start = steady_clock::now();
    auto run = run_subprocess({"sh", "-c", "sleep 10 & sleep 10"}, with_timeout(milliseconds(300)));
    ASSERT_TRUE(run.ok());
    EXPECT_TRUE(run->timed_out);
    EXPECT_LT(steady_clock::now() - start, milliseconds(3000));
}

TEST(Subprocess, OutputOverTheCapStopsTheChild) {
    SubprocessOptions options = with_timeout(milliseconds(10000));
    options.max_output_bytes = 1000;
    const auto start = steady_clock::now();
    auto run = run_subprocess({"yes"}, options);  // writes forever
    ASSERT_TRUE(run.ok());
    EXPECT_TRUE(run->output_truncated);
    EXPECT_FALSE(run->succeeded());
    EXPECT_EQ(run->output.size(), 1000u);
    EXPECT_EQ(run->output.substr(0, 4), "y\ny\n");
    EXPECT_LT(steady_clock::now() - start, milliseconds(5000));
}

TEST(Subprocess, MissingBinaryIsNotFound) {
    auto run = run_subprocess({"yuzu-no-such-program-xyz"}, with_timeout(milliseconds(1000)));
    ASSERT_FALSE(run.ok());
    EXPECT_EQ(run.status().code(), StatusCode::kNotFound);
    EXPECT_NE(run.status().message().find("yuzu-no-such-program-xyz"), std::string::npos);
}

TEST(Subprocess, CancelFlagStopsTheChild) {
    std::atomic<bool> cancel{false};
    SubprocessOptions options = with_timeout(milliseconds(10000));
    options.cancel = &cancel;
    std::thread canceller([&] {
        std::this_thread::sleep_for(milliseconds(200));
        cancel = true;
    });
    const auto start = steady_clock::now();
    auto run = run_subprocess({"sleep", "10"}, options);
    canceller.join();
    ASSERT_TRUE(run.ok());
    EXPECT_TRUE(run->cancelled);
    EXPECT_LT(steady_clock::now() - start, milliseconds(3000));
}

TEST(Subprocess, ChildSeesTheCLocaleAndNoTerminalInput) {
    auto run =
        run_subprocess({"sh", "-c", "echo \"$LC_ALL\"; cat"}, with_timeout(milliseconds(5000)));
    ASSERT_TRUE(run.ok());
    EXPECT_TRUE(run->succeeded());
    EXPECT_EQ(run->output, "C\n");  // stdin is /dev/null, so cat ends at once
}

}  // namespace
}  // namespace yuzu::agent
