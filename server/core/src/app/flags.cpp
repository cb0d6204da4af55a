#include "yuzu/app/flags.hpp"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "yuzu/app/config_file.hpp"
#include "yuzu/pki/certificate.hpp"

namespace yuzu::app {
namespace {

// The --config path: the command line's (--config F or --config=F), else
// YUZU_CONFIG, else "".
std::string config_path(int argc, const char* const* argv) {
    for (int i = 1; i < argc; ++i) {
        const std::string_view a(argv[i]);
        if (a == "--config" && i + 1 < argc) return argv[i + 1];
        if (a.rfind("--config=", 0) == 0) return std::string(a.substr(9));
    }
    const char* env = std::getenv("YUZU_CONFIG");
    return env != nullptr ? env : "";
}

bool given_on_command_line(int argc, const char* const* argv, const std::string& flag) {
    for (int i = 1; i < argc; ++i) {
        const std::string_view a(argv[i]);
        if (a == flag || (a.size() > flag.size() && a.rfind(flag + "=", 0) == 0)) return true;
    }
    return false;
}

// The arguments the config file contributes: one per setting that neither
// the command line nor its environment variable gives (precedence: command
// line, then environment, then the file, then the default). Each entry is
// checked against the option it names, so a mistake reports its line.
Result<std::vector<std::string>> config_file_arguments(const CLI::App& app, int argc,
                                                       const char* const* argv,
                                                       const std::string& path) {
    auto entries = read_config_file(path);
    if (!entries.ok()) return entries.status();
    std::vector<std::string> args;
    for (const ConfigEntry& e : *entries) {
        const std::string where = path + ":" + std::to_string(e.line) + ": ";
        const std::string flag = "--" + e.key;
        const CLI::Option* opt = app.get_option_no_throw(flag);
        if (opt == nullptr || e.key == "config" || e.key == "help" || e.key == "version") {
            return Status::InvalidArgument(where + "unknown setting '" + e.key +
                                           "' (settings are the long flag names of --help)");
        }
        const bool is_flag = opt->get_items_expected_max() == 0;  // takes no value
        const bool is_list = opt->get_items_expected_max() > 1;
        if (is_flag != (e.kind == ConfigEntry::Kind::kBoolean)) {
            return Status::InvalidArgument(where + "'" + e.key + "' takes " +
                                           (is_flag ? "true or false" : "a value") + ", not a " +
                                           std::string(config_kind_name(e.kind)));
        }
        if (e.kind == ConfigEntry::Kind::kArray && !is_list) {
            return Status::InvalidArgument(where + "'" + e.key + "' takes one value, not an array");
        }
        if (given_on_command_line(argc, argv, flag)) continue;
        if (const std::string env = opt->get_envname();
            !env.empty() && std::getenv(env.c_str()) != nullptr) {
            continue;
        }
        if (is_flag) {
            if (e.values.front() == "true") args.push_back(flag);
            continue;
        }
        for (const std::string& v : e.values) {
            args.push_back(flag);
            args.push_back(v);
        }
    }
    return args;
}

// Keeps the raw text of flags whose parsing we do ourselves, so the error
// names the flag and the value the operator typed.
struct RawFlags {
    std::string listen = "127.0.0.1:8080";
    std::string agent_listen = "127.0.0.1:8081";
    std::string max_request_body = "4MiB";
    std::string mcp_replay_ring_bytes = "256KiB";
};

Status check_readable_file(const std::string& path, const std::string& flag) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
        return Status::InvalidArgument(flag + " '" + path + "' is not a readable file");
    }
    std::ifstream in(path);
    if (!in) return Status::InvalidArgument(flag + " '" + path + "' cannot be opened");
    return Status::Ok();
}

}  // namespace

Status validate_config(const ServerConfig& c) {
    static const char* const kLevels[] = {"trace", "debug",    "info", "warn",
                                          "error", "critical", "off"};
    bool level_ok = false;
    for (const char* l : kLevels) level_ok = level_ok || c.log_level == l;
    if (!level_ok) {
        return Status::InvalidArgument("--log-level '" + c.log_level +
                                       "' must be one of trace, debug, info, warn, error, "
                                       "critical, off");
    }
    if (c.log_format != "text" && c.log_format != "json") {
        return Status::InvalidArgument("--log-format '" + c.log_format + "' must be text or json");
    }
    if (c.tls_cert_file.empty() != c.tls_key_file.empty()) {
        return Status::InvalidArgument("--tls-cert and --tls-key must be given together");
    }
    if (!c.tls_cert_file.empty()) {
        YUZU_RETURN_IF_ERROR(check_readable_file(c.tls_cert_file, "--tls-cert"));
        YUZU_RETURN_IF_ERROR(check_readable_file(c.tls_key_file, "--tls-key"));
    }
    if (c.http_worker_threads < 0 || c.http_worker_threads > 4096) {
        return Status::InvalidArgument("--http-worker-threads " +
                                       std::to_string(c.http_worker_threads) +
                                       " must be from 0 (derive) to 4096");
    }
    if (c.max_request_body < 1024 || c.max_request_body > (1ULL << 30)) {
        return Status::InvalidArgument("--max-request-body must be from 1KiB to 1GiB");
    }
    const auto in_range = [](long long v, long long lo, long long hi) {
        return v >= lo && v <= hi;
    };
    if (!in_range(c.http_idle_timeout_s, 1, 3600)) {
        return Status::InvalidArgument("--http-idle-timeout must be from 1 to 3600 seconds");
    }
    if (!in_range(c.http_header_timeout_s, 1, 3600)) {
        return Status::InvalidArgument("--http-header-timeout must be from 1 to 3600 seconds");
    }
    if (!in_range(c.http_body_timeout_s, 1, 3600)) {
        return Status::InvalidArgument("--http-body-timeout must be from 1 to 3600 seconds");
    }
    if (!in_range(static_cast<long long>(c.max_header_bytes), 1024, 1 << 20)) {
        return Status::InvalidArgument("--max-header-bytes must be from 1024 to 1048576");
    }
    if (!in_range(static_cast<long long>(c.max_header_count), 8, 10000)) {
        return Status::InvalidArgument("--max-header-count must be from 8 to 10000");
    }
    if (!in_range(c.max_connections, 16, 1000000)) {
        return Status::InvalidArgument("--max-connections must be from 16 to 1000000");
    }
    if (!in_range(c.agent_max_connections, 16, 1000000)) {
        return Status::InvalidArgument("--agent-max-connections must be from 16 to 1000000");
    }
    if (!in_range(c.agent_max_connections_per_peer, 0, 1000000)) {
        return Status::InvalidArgument(
            "--agent-max-connections-per-peer must be from 0 (no cap) to 1000000");
    }
    if (!in_range(c.max_sse_streams, 1, 4000)) {
        return Status::InvalidArgument("--max-sse-streams must be from 1 to 4000");
    }
    if (!in_range(c.mcp_max_streams_per_principal, 1, 4000)) {
        return Status::InvalidArgument("--mcp-max-streams-per-principal must be from 1 to 4000");
    }
    if (!in_range(c.mcp_max_sessions, 1, 100000)) {
        return Status::InvalidArgument("--mcp-max-sessions must be from 1 to 100000");
    }
    if (!in_range(c.mcp_max_sessions_per_principal, 1, 100000)) {
        return Status::InvalidArgument("--mcp-max-sessions-per-principal must be from 1 to 100000");
    }
    if (!in_range(c.mcp_session_idle_ttl_s, 10, 7 * 86400)) {
        return Status::InvalidArgument("--mcp-session-idle-ttl must be from 10 to 604800 seconds");
    }
    if (!in_range(c.mcp_stream_tick_ms, 100, 60000)) {
        return Status::InvalidArgument("--mcp-stream-tick-ms must be from 100 to 60000");
    }
    if (!in_range(c.mcp_replay_ring_frames, 1, 100000)) {
        return Status::InvalidArgument("--mcp-replay-ring-frames must be from 1 to 100000");
    }
    if (!in_range(static_cast<long long>(c.mcp_replay_ring_bytes), 1024, 64LL << 20)) {
        return Status::InvalidArgument("--mcp-replay-ring-bytes must be from 1KiB to 64MiB");
    }
    if (c.data_dir.empty()) return Status::InvalidArgument("--data-dir must not be empty");
    if (c.agent_tls_cert_file.empty() != c.agent_tls_key_file.empty()) {
        return Status::InvalidArgument(
            "--agent-tls-cert and --agent-tls-key must be given together");
    }
    if (!c.agent_tls_cert_file.empty()) {
        YUZU_RETURN_IF_ERROR(check_readable_file(c.agent_tls_cert_file, "--agent-tls-cert"));
        YUZU_RETURN_IF_ERROR(check_readable_file(c.agent_tls_key_file, "--agent-tls-key"));
    }
    if (c.agent_mtls != "off" && c.agent_mtls != "optional" && c.agent_mtls != "required") {
        return Status::InvalidArgument("--agent-mtls must be off, optional or required");
    }
    for (const std::string& san : c.agent_tls_sans) {
        if (!pki::is_valid_dns_name(san) && !pki::is_valid_ip_address(san)) {
            return Status::InvalidArgument("--agent-tls-san '" + san +
                                           "' is not a DNS name or an IP address");
        }
    }
    if (!c.agent_tls_sans.empty() && c.agent_mtls == "off") {
        return Status::InvalidArgument(
            "--agent-tls-san names the CA-issued agent-plane certificate: it needs "
            "--agent-mtls optional or required");
    }
    if (c.agent_worker_threads < 4 || c.agent_worker_threads > 8192) {
        return Status::InvalidArgument("--agent-worker-threads must be from 4 to 8192");
    }
    if (c.agent_heartbeat_interval_s < 1 || c.agent_heartbeat_interval_s > 3600) {
        return Status::InvalidArgument("--agent-heartbeat-interval must be from 1 to 3600 seconds");
    }
    if (c.agent_offline_timeout_s <= c.agent_heartbeat_interval_s ||
        c.agent_offline_timeout_s > 86400) {
        return Status::InvalidArgument(
            "--agent-offline-timeout must be longer than --agent-heartbeat-interval and at most "
            "86400 seconds");
    }
    if (c.agent_inventory_interval_s < 10 || c.agent_inventory_interval_s > 86400) {
        return Status::InvalidArgument(
            "--agent-inventory-interval must be from 10 to 86400 seconds");
    }
    if (c.execution_timeout_s < 1 || c.execution_timeout_s > 86400) {
        return Status::InvalidArgument("--execution-timeout must be from 1 to 86400 seconds");
    }
    if (c.compliance_interval_s < 10 || c.compliance_interval_s > 86400) {
        return Status::InvalidArgument("--compliance-interval must be from 10 to 86400 seconds");
    }
    if (c.agent_listen.port != 0 && c.agent_listen.port == c.listen.port &&
        c.agent_listen.host == c.listen.host) {
        return Status::InvalidArgument("--agent-listen must differ from --listen");
    }
    static const std::regex kOrigin(R"(^https?://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):[0-9]{1,5}$)");
    for (const auto& origin : c.mcp_allowed_origins) {
        if (!std::regex_match(origin, kOrigin)) {
            return Status::InvalidArgument("--mcp-allowed-origin '" + origin +
                                           "' must be exactly scheme://host:port, e.g. "
                                           "http://127.0.0.1:6274");
        }
    }
    static const std::regex kHost(R"(^[A-Za-z0-9.-]{1,253}$)");
    for (const auto& host : c.allowed_hosts) {
        if (!std::regex_match(host, kHost)) {
            return Status::InvalidArgument("--allowed-host '" + host +
                                           "' must be a host name without port or scheme");
        }
    }
    return Status::Ok();
}

ParsedCommand parse_server_flags(int argc, const char* const* argv) {
    ServerConfig config;
    RawFlags raw;
    CLI::App app{"yuzu-server: endpoint management server with an embedded MCP server",
                 "yuzu-server"};
    app.set_version_flag("--version", std::string("yuzu-server ") + YUZU_VERSION);
    app.get_formatter()->column_width(44);
    app.footer(
        "Sub-commands (each has --help; all take --data-dir and run beside a live server):\n"
        "  enroll-token create   create an agent enrollment token\n"
        "  token create          create an API or MCP token for a user\n"
        "  user add              create a user with built-in roles\n"
        "  user unlock NAME      clear a user's login lock (its tokens keep working)");

    std::string config_file;  // read before parsing, by config_path()
    app.add_option("--config", config_file,
                   "Settings file (key = value, the long flag names; see "
                   "docs/user-manual/server-admin.md); flags and YUZU_* variables override it")
        ->envname("YUZU_CONFIG");
    app.add_option("--listen", raw.listen, "Management API, dashboard and MCP address (host:port)")
        ->envname("YUZU_LISTEN")
        ->capture_default_str();
    app.add_option("--data-dir", config.data_dir, "Directory holding the SQLite stores")
        ->envname("YUZU_DATA_DIR")
        ->capture_default_str();
    app.add_option("--log-level", config.log_level,
                   "trace, debug, info, warn, error, critical or off")
        ->envname("YUZU_LOG_LEVEL")
        ->capture_default_str();
    app.add_option("--log-format", config.log_format, "text or json (one object per line)")
        ->envname("YUZU_LOG_FORMAT")
        ->capture_default_str();
    app.add_option("--tls-cert", config.tls_cert_file,
                   "PEM certificate; with --tls-key the listener speaks HTTPS")
        ->envname("YUZU_TLS_CERT");
    app.add_option("--tls-key", config.tls_key_file, "PEM private key for --tls-cert")
        ->envname("YUZU_TLS_KEY");
    app.add_option("--http-worker-threads", config.http_worker_threads,
                   "HTTP worker threads for the management listener (0 = derive)")
        ->envname("YUZU_HTTP_WORKER_THREADS")
        ->capture_default_str();
    app.add_option("--max-request-body", raw.max_request_body,
                   "Largest request body accepted; larger ones get 413 (e.g. 4MiB)")
        ->envname("YUZU_MAX_REQUEST_BODY")
        ->capture_default_str();
    app.add_option("--http-idle-timeout", config.http_idle_timeout_s,
                   "Seconds a connection may sit without a request before it is closed "
                   "(both listeners)")
        ->envname("YUZU_HTTP_IDLE_TIMEOUT")
        ->capture_default_str();
    app.add_option("--http-header-timeout", config.http_header_timeout_s,
                   "Seconds from a request's first byte to the end of its headers; later: 408")
        ->envname("YUZU_HTTP_HEADER_TIMEOUT")
        ->capture_default_str();
    app.add_option("--http-body-timeout", config.http_body_timeout_s,
                   "Seconds to receive a request body after its headers; later: 408")
        ->envname("YUZU_HTTP_BODY_TIMEOUT")
        ->capture_default_str();
    app.add_option("--max-header-bytes", config.max_header_bytes,
                   "Largest request line + headers accepted; larger: 431")
        ->envname("YUZU_MAX_HEADER_BYTES")
        ->capture_default_str();
    app.add_option("--max-header-count", config.max_header_count,
                   "Most request header lines accepted; more: 431")
        ->envname("YUZU_MAX_HEADER_COUNT")
        ->capture_default_str();
    app.add_option("--max-connections", config.max_connections,
                   "Open connections on the management listener; beyond: 503 with Retry-After")
        ->envname("YUZU_MAX_CONNECTIONS")
        ->capture_default_str();

    app.add_option("--bootstrap-admin-password-file", config.bootstrap_admin_password_file,
                   "First start only: file holding the password of user 'admin' (else "
                   "YUZU_BOOTSTRAP_ADMIN_PASSWORD, else generated)")
        ->envname("YUZU_BOOTSTRAP_ADMIN_PASSWORD_FILE");
    app.add_option("--secrets-key-file", config.secrets_key_file,
                   "AES-256 key for secrets at rest (TOTP); created 0600 if missing "
                   "(default <data-dir>/secrets.key)")
        ->envname("YUZU_SECRETS_KEY_FILE");

    app.add_flag("--mcp-disable", config.mcp_disable,
                 "Refuse every MCP request with -32005 (kill switch)")
        ->envname("YUZU_MCP_DISABLE");
    app.add_flag("--mcp-read-only", config.mcp_read_only,
                 "Refuse every MCP tool that is not a read with -32004")
        ->envname("YUZU_MCP_READ_ONLY");
    app.add_flag("--mcp-no-streaming", config.mcp_no_streaming,
                 "No MCP sessions and no GET stream: POST only, GET/DELETE answer 405")
        ->envname("YUZU_MCP_NO_STREAMING");
    app.add_flag("--mcp-enable-streamed-post,!--no-mcp-streamed-post", config.mcp_streamed_post,
                 "A tools/call with _meta.progressToken and Accept: text/event-stream gets its "
                 "progress and result as an SSE stream on the POST response (default on); off: "
                 "plain JSON, progress on the GET stream")
        ->envname("YUZU_MCP_STREAMED_POST");
    app.add_option("--max-sse-streams", config.max_sse_streams,
                   "Held-open SSE streams on the management listener (MCP GET and "
                   "/api/v1/events); beyond: 429. Sizes the worker pool")
        ->envname("YUZU_MAX_SSE_STREAMS")
        ->capture_default_str();
    app.add_option("--mcp-max-streams-per-principal", config.mcp_max_streams_per_principal,
                   "MCP GET streams one principal may hold open; beyond: 429 / -32012")
        ->envname("YUZU_MCP_MAX_STREAMS_PER_PRINCIPAL")
        ->capture_default_str();
    app.add_option("--mcp-max-sessions", config.mcp_max_sessions,
                   "MCP sessions open at once; beyond, initialize answers 429 / -32010")
        ->envname("YUZU_MCP_MAX_SESSIONS")
        ->capture_default_str();
    app.add_option("--mcp-max-sessions-per-principal", config.mcp_max_sessions_per_principal,
                   "MCP sessions one principal may hold; beyond: 429 / -32010")
        ->envname("YUZU_MCP_MAX_SESSIONS_PER_PRINCIPAL")
        ->capture_default_str();
    app.add_option("--mcp-session-idle-ttl", config.mcp_session_idle_ttl_s,
                   "Seconds an MCP session may go unused before it ends (sliding)")
        ->envname("YUZU_MCP_SESSION_IDLE_TTL")
        ->capture_default_str();
    app.add_option("--mcp-stream-tick-ms", config.mcp_stream_tick_ms,
                   "MCP GET stream heartbeat and credential re-check interval")
        ->envname("YUZU_MCP_STREAM_TICK_MS")
        ->capture_default_str();
    app.add_option("--mcp-replay-ring-frames", config.mcp_replay_ring_frames,
                   "Frames each MCP session keeps for Last-Event-ID resumption")
        ->envname("YUZU_MCP_REPLAY_RING_FRAMES")
        ->capture_default_str();
    app.add_option("--mcp-replay-ring-bytes", raw.mcp_replay_ring_bytes,
                   "Bytes each MCP session keeps for Last-Event-ID resumption (e.g. 256KiB)")
        ->envname("YUZU_MCP_REPLAY_RING_BYTES")
        ->capture_default_str();
    app.add_option("--mcp-allowed-origin", config.mcp_allowed_origins,
                   "Origin allowed besides the server's own, for /mcp/v1/ and for every "
                   "state-changing request on the management listener (exact "
                   "scheme://host:port; behind a TLS proxy its public origin; repeatable; "
                   "env: comma-separated)")
        ->envname("YUZU_MCP_ALLOWED_ORIGINS")
        ->delimiter(',');
    app.add_option("--allowed-host", config.allowed_hosts,
                   "Host header name accepted besides loopback names when listening on "
                   "loopback (DNS-rebinding protection; repeatable)")
        ->envname("YUZU_ALLOWED_HOSTS")
        ->delimiter(',');

    app.add_option("--agent-listen", raw.agent_listen,
                   "Agent plane address (host:port): enrollment, heartbeats, commands")
        ->envname("YUZU_AGENT_LISTEN")
        ->capture_default_str();
    app.add_option("--agent-tls-cert", config.agent_tls_cert_file,
                   "PEM certificate; with --agent-tls-key the agent plane speaks HTTPS")
        ->envname("YUZU_AGENT_TLS_CERT");
    app.add_option("--agent-tls-key", config.agent_tls_key_file,
                   "PEM private key for --agent-tls-cert")
        ->envname("YUZU_AGENT_TLS_KEY");
    app.add_option("--agent-mtls", config.agent_mtls,
                   "Agent client certificates from the internal CA: off, optional (verified "
                   "when sent) or required (every route but enroll); not off: the agent "
                   "plane speaks HTTPS")
        ->envname("YUZU_AGENT_MTLS")
        ->capture_default_str();
    app.add_option("--agent-tls-san", config.agent_tls_sans,
                   "DNS name or IP address agents use to reach the agent plane, for the "
                   "certificate the CA issues it when --agent-tls-cert is not given "
                   "(repeatable; default: localhost, 127.0.0.1, ::1, this host's name and the "
                   "--agent-listen host)")
        ->envname("YUZU_AGENT_TLS_SAN")
        ->delimiter(',');
    app.add_option("--agent-worker-threads", config.agent_worker_threads,
                   "Agent plane worker threads (held long-polls and result uploads waiting for "
                   "their commit hold none)")
        ->envname("YUZU_AGENT_WORKER_THREADS")
        ->capture_default_str();
    app.add_option("--agent-max-connections", config.agent_max_connections,
                   "Open connections on the agent plane; beyond: 503 with Retry-After")
        ->envname("YUZU_AGENT_MAX_CONNECTIONS")
        ->capture_default_str();
    app.add_option("--agent-max-connections-per-peer", config.agent_max_connections_per_peer,
                   "Open agent-plane connections from one address (0 = no cap); beyond: 429")
        ->envname("YUZU_AGENT_MAX_CONNECTIONS_PER_PEER")
        ->capture_default_str();
    app.add_option("--agent-heartbeat-interval", config.agent_heartbeat_interval_s,
                   "Seconds between agent heartbeats (told to agents)")
        ->envname("YUZU_AGENT_HEARTBEAT_INTERVAL")
        ->capture_default_str();
    app.add_option("--agent-offline-timeout", config.agent_offline_timeout_s,
                   "Seconds without contact after which an agent is offline")
        ->envname("YUZU_AGENT_OFFLINE_TIMEOUT")
        ->capture_default_str();
    app.add_option("--agent-inventory-interval", config.agent_inventory_interval_s,
                   "Seconds between inventory reports (told to agents)")
        ->envname("YUZU_AGENT_INVENTORY_INTERVAL")
        ->capture_default_str();
    app.add_option("--execution-timeout", config.execution_timeout_s,
                   "Seconds an execution waits for agents' answers; agents still silent are "
                   "then marked timed out")
        ->envname("YUZU_EXECUTION_TIMEOUT")
        ->capture_default_str();
    app.add_option("--compliance-interval", config.compliance_interval_s,
                   "Seconds between scheduled evaluations of every compliance policy")
        ->envname("YUZU_COMPLIANCE_INTERVAL")
        ->capture_default_str();

    // The file's settings go first, so the command line after them wins
    // (and CLI11 never sees one option twice: given ones are skipped).
    std::vector<std::string> args = {argc > 0 ? argv[0] : "yuzu-server"};
    if (const std::string path = config_path(argc, argv); !path.empty()) {
        auto from_file = config_file_arguments(app, argc, argv, path);
        if (!from_file.ok()) {
            return ExitRequest{2, "yuzu-server: " + from_file.status().message() + "\n"};
        }
        args.insert(args.end(), from_file->begin(), from_file->end());
    }
    for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
    std::vector<const char*> merged;
    merged.reserve(args.size());
    for (const std::string& a : args) merged.push_back(a.c_str());

    try {
        app.parse(static_cast<int>(merged.size()), merged.data());
    } catch (const CLI::CallForHelp&) {
        return ExitRequest{0, app.help()};
    } catch (const CLI::CallForVersion&) {
        return ExitRequest{0, std::string("yuzu-server ") + YUZU_VERSION + "\n"};
    } catch (const CLI::ParseError& e) {
        return ExitRequest{2, std::string("yuzu-server: ") + e.what() + "\n"};
    }

    auto listen = parse_listen_address(raw.listen);
    if (!listen.ok()) {
        return ExitRequest{2, "yuzu-server: --listen: " + listen.status().message() + "\n"};
    }
    config.listen = *listen;
    auto agent_listen = parse_listen_address(raw.agent_listen);
    if (!agent_listen.ok()) {
        return ExitRequest{
            2, "yuzu-server: --agent-listen: " + agent_listen.status().message() + "\n"};
    }
    config.agent_listen = *agent_listen;
    auto body = parse_byte_size(raw.max_request_body);
    if (!body.ok()) {
        return ExitRequest{2, "yuzu-server: --max-request-body: " + body.status().message() + "\n"};
    }
    config.max_request_body = *body;
    auto ring_bytes = parse_byte_size(raw.mcp_replay_ring_bytes);
    if (!ring_bytes.ok()) {
        return ExitRequest{
            2, "yuzu-server: --mcp-replay-ring-bytes: " + ring_bytes.status().message() + "\n"};
    }
    config.mcp_replay_ring_bytes = *ring_bytes;
    if (const char* pw = std::getenv("YUZU_BOOTSTRAP_ADMIN_PASSWORD"); pw != nullptr) {
        config.bootstrap_admin_password = pw;
    }
    if (Status s = validate_config(config); !s.ok()) {
        return ExitRequest{2, "yuzu-server: " + s.message() + "\n"};
    }
    return config;
}

}  // namespace yuzu::app
