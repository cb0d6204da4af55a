// ServerConfig: every operator-tunable setting of yuzu-server, filled from
// flags and their YUZU_* environment twins by parse_server_flags().
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "yuzu/common/status.hpp"

namespace yuzu::app {

struct ListenAddress {
    std::string host;
    int port = 0;
    std::string to_string() const;
};

struct ServerConfig {
    ListenAddress listen{"127.0.0.1", 8080};
    std::string data_dir = "./var";
    std::string log_level = "info";
    std::string log_format = "text";  // text | json
    std::string tls_cert_file;
    std::string tls_key_file;
    int http_worker_threads = 0;  // 0 = derive from the core count
    size_t max_request_body = size_t{4} * 1024 * 1024;
    // Connection limits of both listeners (see docs/user-manual/server-admin.md,
    // "Security"): idle and half-sent requests never hold a worker.
    int http_idle_timeout_s = 5;
    int http_header_timeout_s = 10;
    int http_body_timeout_s = 30;
    size_t max_header_bytes = 32 * 1024;
    size_t max_header_count = 100;
    int max_connections = 1024;
    // First-start admin password: a file, or YUZU_BOOTSTRAP_ADMIN_PASSWORD
    // (environment only: a command line is visible to every local user).
    std::string bootstrap_admin_password_file;
    std::string bootstrap_admin_password;
    std::string secrets_key_file;  // default <data-dir>/secrets.key

    // MCP kill switches and transport allow-lists.
    bool mcp_disable = false;
    bool mcp_read_only = false;
    std::vector<std::string> mcp_allowed_origins;  // exact scheme://host:port
    std::vector<std::string> allowed_hosts;        // extra Host names when on loopback

    // MCP sessions and the GET stream (docs/user-manual/mcp.md, "Sessions
    // and the stream").
    bool mcp_no_streaming = false;
    bool mcp_streamed_post = true;  // --mcp-enable-streamed-post / --no-mcp-streamed-post
    int max_sse_streams = 128;      // every SSE surface of the management listener
    int mcp_max_streams_per_principal = 4;
    int mcp_max_sessions = 1024;
    int mcp_max_sessions_per_principal = 8;
    int mcp_session_idle_ttl_s = 1800;
    int mcp_stream_tick_ms = 3000;
    int mcp_replay_ring_frames = 500;
    size_t mcp_replay_ring_bytes = size_t{256} * 1024;

    // The agent plane: its own listener and worker pool, so agents holding
    // long-polls never take a worker from the management API.
    ListenAddress agent_listen{"127.0.0.1", 8081};
    std::string agent_tls_cert_file;
    std::string agent_tls_key_file;
    // Client certificates from the internal CA: off | optional | required.
    // Not off: the agent plane speaks HTTPS, with the files above or else a
    // certificate the CA issues for agent_tls_sans.
    std::string agent_mtls = "off";
    std::vector<std::string> agent_tls_sans;
    // Held long-polls and result uploads waiting for their group commit
    // hold no worker, so a small pool serves ten thousand agents.
    int agent_worker_threads = 16;
    int agent_max_connections = 16384;
    int agent_max_connections_per_peer = 64;  // 0 = no cap
    int agent_offline_timeout_s = 30;
    int agent_heartbeat_interval_s = 10;
    int agent_inventory_interval_s = 300;

    // How long an execution waits for agents before the rest are timed out.
    int execution_timeout_s = 120;

    // Seconds between scheduled evaluations of every compliance policy.
    int compliance_interval_s = 300;

    // The worker count actually used: --http-worker-threads, or derived
    // from the core count and raised to hold every stream plus a reserve.
    int effective_worker_threads() const;
    // The stream cap actually used: --max-sse-streams, clamped so that an
    // explicit --http-worker-threads keeps kWorkerReserve workers (half of a
    // pool smaller than twice that) for short requests (exported as
    // yuzu_mcp_streams_cap).
    int effective_max_streams() const;
    // Workers never taken by held-open streams: tools/call, /livez and the
    // dashboard always have these.
    static constexpr int kWorkerReserve = 16;
};

// Parses "host:port" or "[v6]:port"; port 0 asks for an ephemeral port.
Result<ListenAddress> parse_listen_address(const std::string& text);
// Parses a byte size: "4194304", "512KiB", "4MiB", "1GiB" (also KB/MB/GB as
// powers of 1000).
Result<size_t> parse_byte_size(const std::string& text);

}  // namespace yuzu::app
