#include "yuzu/app/flags.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <string>
#include <variant>
#include <vector>

#include "support/temp_dir.hpp"

namespace yuzu::app {
namespace {

ParsedCommand parse(std::vector<const char*> args) {
    args.insert(args.begin(), "yuzu-server");
    return parse_server_flags(static_cast<int>(args.size()), args.data());
}

TEST(ListenAddress, ParsesHostPortAndBracketedV6) {
    auto a = parse_listen_address("127.0.0.1:8080");
    ASSERT_TRUE(a.ok());
    EXPECT_EQ(a->host, "127.0.0.1");
    EXPECT_EQ(a->port, 8080);
    auto b = parse_listen_address("[::1]:0");
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(b->host, "::1");
    EXPECT_EQ(b->port, 0);
    EXPECT_EQ(b->to_string(), "[::1]:0");
}

TEST(ListenAddress, RejectsMalformed) {
    for (const char* bad : {"", "8080", ":8080", "host:", "host:abc", "host:65536", "host:-1",
                            "::1:8080", "[::1]8080", "[::1"}) {
        EXPECT_FALSE(parse_listen_address(bad).ok()) << bad;
    }
}

TEST(ByteSize, ParsesUnits) {
    EXPECT_EQ(*parse_byte_size("4194304"), 4194304u);
    EXPECT_EQ(*parse_byte_size("4MiB"), 4u * 1024 * 1024);
    EXPECT_EQ(*parse_byte_size("512kib"), 512u * 1024);
    EXPECT_EQ(*parse_byte_size("1GiB"), 1024u * 1024 * 1024);
    EXPECT_EQ(*parse_byte_size("2MB"), 2000000u);
    EXPECT_FALSE(parse_byte_size("MiB").ok());
    EXPECT_FALSE(parse_byte_size("12XB").ok());
    EXPECT_FALSE(parse_byte_size("99999999999999999999").ok());
}

TEST(Flags, DefaultsMatchTheDocumentedOnes) {
    auto parsed = parse({});
    ASSERT_TRUE(std::holds_alternative<ServerConfig>(parsed));
    const auto& c = std::get<ServerConfig>(parsed);
    EXPECT_EQ(c.listen.to_string(), "127.0.0.1:8080");
    EXPECT_EQ(c.data_dir, "./var");
    EXPECT_EQ(c.log_format, "text");
    EXPECT_EQ(c.max_request_body, 4u * 1024 * 1024);
    EXPECT_EQ(c.http_worker_threads, 0);
    EXPECT_GE(c.effective_worker_threads(), 16);
    EXPECT_FALSE(c.mcp_no_streaming);
    EXPECT_EQ(c.max_sse_streams, 128);
    EXPECT_EQ(c.mcp_max_streams_per_principal, 4);
    EXPECT_EQ(c.mcp_max_sessions, 1024);
    EXPECT_EQ(c.mcp_max_sessions_per_principal, 8);
    EXPECT_EQ(c.mcp_session_idle_ttl_s, 1800);
    EXPECT_EQ(c.mcp_stream_tick_ms, 3000);
    EXPECT_EQ(c.mcp_replay_ring_frames, 500);
    EXPECT_EQ(c.mcp_replay_ring_bytes, 256u * 1024);
}

TEST(Flags, TheWorkerPoolHoldsEveryStreamPlusAReserve) {
    auto derived = parse({"--max-sse-streams", "300"});
    ASSERT_TRUE(std::holds_alternative<ServerConfig>(derived));
    const auto& d = std::get<ServerConfig>(derived);
    EXPECT_GE(d.effective_worker_threads(), 300 + ServerConfig::kWorkerReserve);
    EXPECT_EQ(d.effective_max_streams(), 300);
    // An explicit pool is kept; the stream cap yields.
    auto explicit_pool = parse({"--http-worker-threads", "40", "--max-sse-streams", "128"});
    const auto& e = std::get<ServerConfig>(explicit_pool);
    EXPECT_EQ(e.effective_worker_threads(), 40);
    EXPECT_EQ(e.effective_max_streams(), 40 - ServerConfig::kWorkerReserve);
    auto tiny = parse({"--http-worker-threads", "6"});
    EXPECT_EQ(std::get<ServerConfig>(tiny).effective_max_streams(), 3);
    auto one = parse({"--http-worker-threads", "1"});
    EXPECT_EQ(std::get<ServerConfig>(one).effective_max_streams(), 1);
    auto ring = parse({"--mcp-replay-ring-bytes", "1MiB"});
    EXPECT_EQ(std::get<ServerConfig>(ring).mcp_replay_ring_bytes, 1024u * 1024);
}

TEST(Flags, BadValuesExitTwoWithOneLineReason) {
    const std::vector<std::vector<const char*>> cases = {
        {"--max-sse-streams", "0"},
        {"--mcp-stream-tick-ms", "5"},
        {"--mcp-replay-ring-bytes", "12"},
        {"--mcp-session-idle-ttl", "1"},
        {"--log-level", "loud"},
        {"--log-format", "xml"},
        {"--listen", "nowhere"},
        {"--max-request-body", "12XB"},
        {"--max-request-body", "10"},
        {"--http-worker-threads", "-3"},
        {"--http-worker-threads", "many"},
        {"--tls-cert", "/etc/hostname"},
        {"--tls-cert", "/nonexistent.pem", "--tls-key", "/nonexistent.key"},
        {"--no-such-flag"},
    };
    for (const auto& args : cases) {
        auto parsed = parse(args);
        ASSERT_TRUE(std::holds_alternative<ExitRequest>(parsed)) << args[0];
        const auto& exit = std::get<ExitRequest>(parsed);
        EXPECT_EQ(exit.code, 2) << args[0];
        ASSERT_FALSE(exit.output.empty());
        EXPECT_EQ(exit.output.find('\n'), exit.output.size() - 1)
            << "more than one line for " << args[0] << ": " << exit.output;
    }
}

TEST(Flags, HelpListsEveryFlagWithItsEnvironmentTwin) {
    auto parsed = parse({"--help"});
    ASSERT_TRUE(std::holds_alternative<ExitRequest>(parsed));
    const auto& help = std::get<ExitRequest>(parsed);
    EXPECT_EQ(help.code, 0);
    for (const char* s : {"--listen", "YUZU_LISTEN", "--data-dir", "YUZU_DATA_DIR", "--log-level",
                          "--log-format", "--tls-cert", "--tls-key", "--http-worker-threads",
                          "--max-request-body", "YUZU_MAX_REQUEST_BODY"}) {
        EXPECT_NE(help.output.find(s), std::string::npos) << s;
    }
}

TEST(Flags, EnvironmentTwinsApplyAndFlagsWin) {
    ::setenv("YUZU_LISTEN", "127.0.0.1:9999", 1);
    ::setenv("YUZU_LOG_FORMAT", "json", 1);
    auto from_env = parse({});
    auto flag_wins = parse({"--listen", "127.0.0.1:7777"});
    ::unsetenv("YUZU_LISTEN");
    ::unsetenv("YUZU_LOG_FORMAT");
    ASSERT_TRUE(std::holds_alternative<ServerConfig>(from_env));
    EXPECT_EQ(std::get<ServerConfig>(from_env).listen.port, 9999);
    EXPECT_EQ(std::get<ServerConfig>(from_env).log_format, "json");
    ASSERT_TRUE(std::holds_alternative<ServerConfig>(flag_wins));
    EXPECT_EQ(std::get<ServerConfig>(flag_wins).listen.port, 7777);
}

// A config file in a temp dir; the path stays valid while the object lives.
struct ConfigFile {
    explicit ConfigFile(const std::string& text) { std::ofstream(path) << text; }
    yuzu::testing::TempDir dir;
    std::string path = (dir / "yuzu.toml").string();
};

TEST(FlagsConfigFile, SettingsApplyAndTheEnvironmentAndFlagsOverrideThem) {
    ConfigFile f(
        "# test\n"
        "listen = \"127.0.0.1:9001\"\n"
        "log-format = 'json'\n"
        "execution-timeout = 42\n"
        "mcp-read-only = true\n"
        "mcp-allowed-origin = [\"http://127.0.0.1:6274\", \"http://localhost:6274\"]\n");
    auto from_file = parse({"--config", f.path.c_str()});
    ASSERT_TRUE(std::holds_alternative<ServerConfig>(from_file))
        << std::get<ExitRequest>(from_file).output;
    const auto& c = std::get<ServerConfig>(from_file);
    EXPECT_EQ(c.listen.port, 9001);
    EXPECT_EQ(c.log_format, "json");
    EXPECT_EQ(c.execution_timeout_s, 42);
    EXPECT_TRUE(c.mcp_read_only);
    EXPECT_EQ(c.mcp_allowed_origins,
              (std::vector<std::string>{"http://127.0.0.1:6274", "http://localhost:6274"}));

    ::setenv("YUZU_LISTEN", "127.0.0.1:9002", 1);
    ::setenv("YUZU_CONFIG", f.path.c_str(), 1);
    auto env_wins = parse({});
    auto flag_wins =
        parse({"--listen=127.0.0.1:9003", "--mcp-allowed-origin", "http://127.0.0.1:1"});
    ::unsetenv("YUZU_LISTEN");
    ::unsetenv("YUZU_CONFIG");
    ASSERT_TRUE(std::holds_alternative<ServerConfig>(env_wins))
        << std::get<ExitRequest>(env_wins).output;
    EXPECT_EQ(std::get<ServerConfig>(env_wins).listen.port, 9002);
    EXPECT_EQ(std::get<ServerConfig>(env_wins).execution_timeout_s, 42);  // found by YUZU_CONFIG
    ASSERT_TRUE(std::holds_alternative<ServerConfig>(flag_wins))
        << std::get<ExitRequest>(flag_wins).output;
    EXPECT_EQ(std::get<ServerConfig>(flag_wins).listen.port, 9003);
    EXPECT_EQ(std::get<ServerConfig>(flag_wins).mcp_allowed_origins,
              (std::vector<std::string>{"http://127.0.0.1:1"}));
}

TEST(FlagsConfigFile, AMistakeExitsTwoNamingTheFileAndLine) {
    struct Case {
        const char* text;
        const char* expected;
    };
    for (const Case& k : {
             Case{"listen = \"127.0.0.1:1\"\nno-such-flag = 1\n",
                  ":2: unknown setting 'no-such-flag'"},
             Case{"mcp-read-only = \"yes\"\n", ":1: 'mcp-read-only' takes true or false"},
             Case{"execution-timeout = true\n", ":1: 'execution-timeout' takes a value"},
             Case{"listen = [\"a\", \"b\"]\n", ":1: 'listen' takes one value, not an array"},
             Case{"config = \"other.toml\"\n", ":1: unknown setting 'config'"},
             Case{"[server]\n", ":1:"},
         }) {
        ConfigFile f(k.text);
        auto parsed = parse({"--config", f.path.c_str()});
        ASSERT_TRUE(std::holds_alternative<ExitRequest>(parsed)) << k.text;
        const auto& exit = std::get<ExitRequest>(parsed);
        EXPECT_EQ(exit.code, 2);
        EXPECT_NE(exit.output.find(f.path + k.expected), std::string::npos)
            << k.text << " -> " << exit.output;
    }
    auto missing = parse({"--config", "/nonexistent/yuzu.toml"});
    ASSERT_TRUE(std::holds_alternative<ExitRequest>(missing));
    EXPECT_EQ(std::get<ExitRequest>(missing).code, 2);
    EXPECT_NE(std::get<ExitRequest>(missing).output.find("/nonexistent/yuzu.toml"),
              std::string::npos);
}

TEST(FlagsConfigFile, AValueFromTheFileIsValidatedLikeAFlag) {
    ConfigFile f("agent-heartbeat-interval = 0\n");
    auto parsed = parse({"--config", f.path.c_str()});
    ASSERT_TRUE(std::holds_alternative<ExitRequest>(parsed));
    EXPECT_EQ(std::get<ExitRequest>(parsed).code, 2);
    EXPECT_NE(std::get<ExitRequest>(parsed).output.find("--agent-heartbeat-interval"),
              std::string::npos);
}

TEST(Flags, TheTopLevelHelpListsTheSubCommands) {
    auto parsed = parse({"--help"});
    ASSERT_TRUE(std::holds_alternative<ExitRequest>(parsed));
    const std::string& help = std::get<ExitRequest>(parsed).output;
    for (const char* s :
         {"--config", "YUZU_CONFIG", "enroll-token create", "token create", "user add"}) {
        EXPECT_NE(help.find(s), std::string::npos) << s;
    }
}

}  // namespace
}  // namespace yuzu::app
