// SIGTERM with open MCP GET streams: every stream is told
// session_terminated and the process exits 0 promptly. The tick is a
// minute, so only the shutdown's wake (not a tick) can end them in time.
#include <gtest/gtest.h>

#include <csignal>

#include "mcp_stream_helpers.hpp"

namespace yuzu::testing::mcp_stream {
namespace {

using std::chrono::seconds;

TEST(McpStreamShutdown, SigtermEndsEveryStreamWithSessionTerminatedAndExitsZero) {
    StreamFixture f({"--mcp-max-streams-per-principal", "50", "--mcp-max-sessions-per-principal",
                     "50", "--mcp-stream-tick-ms", "60000"});
    std::vector<SseClient> streams(50);
    for (auto& s : streams) {
        const std::string id = open_session(*f.client, f.token);
        ASSERT_TRUE(s.open(f.server->port(), get_headers(f.token, id)));
        ASSERT_EQ(s.status, 200);
        ASSERT_TRUE(s.next_event(seconds(5)));  // priming
    }
    const auto start = Clock::now();
    ASSERT_EQ(::kill(f.server->pid(), SIGTERM), 0);
    int told = 0;
    for (auto& s : streams) told += s.read_until_closed(seconds(5)) == "session_terminated";
    EXPECT_EQ(told, 50);
    EXPECT_EQ(f.server->wait_exit(seconds(5)), 0) << f.server->log();
    EXPECT_LE(Clock::now() - start, seconds(5));
}

}  // namespace
}  // namespace yuzu::testing::mcp_stream
