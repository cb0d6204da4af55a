#include "yuzu/app/server_app.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "web/request_guard.hpp"
#include "yuzu/agentapi/agent_plane.hpp"
#include "yuzu/agentapi/agent_tls.hpp"
#include "yuzu/app/server_metrics.hpp"
#include "yuzu/approval/approval_manager.hpp"
#include "yuzu/audit/instrumented_audit_log.hpp"
#include "yuzu/audit/sqlite_audit_log.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/auth/login_throttle.hpp"
#include "yuzu/auth/secret_box.hpp"
#include "yuzu/common/json_text.hpp"
#include "yuzu/common/periodic_task.hpp"
#include "yuzu/common/readiness.hpp"
#include "yuzu/common/thread_guard.hpp"
#include "yuzu/compliance/compliance.hpp"
#include "yuzu/execution/executions.hpp"
#include "yuzu/fleet/fleet.hpp"
#include "yuzu/http/host_policy.hpp"
#include "yuzu/http/identity_resolver.hpp"
#include "yuzu/http/server.hpp"
#include "yuzu/http/stream_budget.hpp"
#include "yuzu/jsonschema/parameter_check.hpp"
#include "yuzu/mcp/bridge/bridge_metrics.hpp"
#include "yuzu/mcp/bridge/progress_bridge.hpp"
#include "yuzu/mcp/http_transport.hpp"
#include "yuzu/mcp/mcp_server.hpp"
#include "yuzu/mcp/session/session_registry.hpp"
#include "yuzu/mcp/session/stream_metrics.hpp"
#include "yuzu/mcp/yuzu_catalogue.hpp"
#include "yuzu/metrics/counter.hpp"
#include "yuzu/metrics/gauge.hpp"
#include "yuzu/metrics/registry.hpp"
#include "yuzu/pki/certificate_authority.hpp"
#include "yuzu/schedule/schedules.hpp"
#include "yuzu/store/private_dir.hpp"
#include "yuzu/web/execution_context.hpp"
#include "yuzu/web/health_routes.hpp"
#include "yuzu/web/routes.hpp"
#include "yuzu/web/web_context.hpp"

namespace yuzu::app {

struct ServerApp::Parts {
    ServerConfig config;
    metrics::Registry metrics;
    Readiness readiness;
    // Declared in start order; destroyed in reverse, so listeners stop before
    // the services and stores they call.
    // The internal CA opens before the listeners: the agent plane's TLS
    // verifies client certificates against it from the first handshake.
    std::unique_ptr<auth::SecretBox> pki_secrets;
    std::unique_ptr<pki::CertificateAuthority> ca;
    std::unique_ptr<agentapi::AgentTls> agent_tls;
    std::unique_ptr<PeriodicTask> pki_maintenance;  // CRL refresh, server-certificate renewal
    ServerOverrides overrides;
    std::unique_ptr<audit::SqliteAuditLog> audit_store;  // null with overrides.audit_log
    std::unique_ptr<audit::InstrumentedAuditLog> audit;  // every surface writes through this
    std::unique_ptr<auth::Identity> identity;
    std::unique_ptr<http::IdentityResolver> resolver;
    std::unique_ptr<approval::ApprovalManager> approvals;
    std::unique_ptr<fleet::Fleet> fleet;
    std::unique_ptr<agentapi::AgentPlaneContext> agent_plane;
    std::shared_ptr<agentapi::AgentPlaneHandle> agent_plane_handle;
    std::unique_ptr<execution::Executions> executions;
    std::unique_ptr<web::ExecutionContext> web_executions;
    std::unique_ptr<compliance::Compliance> compliance;
    std::unique_ptr<schedule::Schedules> schedules;       // runs through executions as their owners
    std::unique_ptr<auth::LoginThrottle> login_throttle;  // outlives web, which points at it
    std::unique_ptr<web::WebContext> web;
    mcp::McpSettings mcp_settings;
    mcp::Catalogues mcp_catalogues;
    std::unique_ptr<mcp::McpServer> mcp;
    // Sessions outlive the listener whose streams hold them.
    std::unique_ptr<mcp::StreamMetrics> mcp_stream_metrics;
    std::unique_ptr<mcp::SessionRegistry> mcp_sessions;
    std::unique_ptr<mcp::BridgeMetrics> mcp_bridge_metrics;
    std::unique_ptr<mcp::ProgressBridge> mcp_bridge;
    std::unique_ptr<PeriodicTask> mcp_session_gc;
    std::unique_ptr<http::HttpServer> management;
    std::unique_ptr<http::HttpServer> agent_listener;
    std::string listen_file;
};

namespace {

// The connection limits both listeners share (the flags say "both").
void apply_connection_limits(const ServerConfig& c, http::ServerOptions& o) {
    o.idle_timeout_s = c.http_idle_timeout_s;
    o.header_timeout_s = c.http_header_timeout_s;
    o.body_timeout_s = c.http_body_timeout_s;
    o.max_header_bytes = c.max_header_bytes;
    o.max_header_count = c.max_header_count;
}

bool is_loopback_address(const std::string& host) {
    return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

// Plain HTTP beyond loopback sends bearer tokens, session cookies and agent
// device tokens in clear text to anyone on the path.
void warn_if_plain_http_off_loopback(const char* listener, const std::string& host, bool tls) {
    if (tls || is_loopback_address(host)) return;
    spdlog::warn(
        "the {} listener serves plain HTTP on {}, a non-loopback address: tokens and cookies "
        "cross the network unencrypted; give it a TLS certificate or put a TLS-terminating "
        "reverse proxy in front and listen on loopback",
        listener, host);
}

// Says once where the first admin password came from (never the password).
void log_bootstrap(const auth::Identity& identity, audit::AuditLog& audit) {
    const auto& b = identity.bootstrap();
    if (b.kind == auth::BootstrapOutcomeKind::kAlreadyBootstrapped) return;
    if (b.kind == auth::BootstrapOutcomeKind::kPasswordGenerated) {
        spdlog::warn(
            "created user '{}' with a generated password in {} (mode 0600); log in, "
            "then delete the file",
            b.username, b.password_path);
    } else {
        spdlog::info("created user '{}' with the password from {}", b.username,
                     auth::bootstrap_outcome_name(b.kind));
    }
    audit::AuditEvent ev;
    ev.principal = "system";
    ev.principal_kind = "system";
    ev.action = "auth.bootstrap_admin";
    ev.target_type = "user";
    ev.target_id = b.username;
    ev.detail =
        std::string("password source: ") + std::string(auth::bootstrap_outcome_name(b.kind));
    (void)audit.record(std::move(ev));
}

}  // namespace

Status ServerApp::wire_fleet(Parts& p) {
    const ServerConfig& c = p.config;
    fleet::FleetOptions options;
    options.data_dir = c.data_dir;
    options.offline_timeout_ms = int64_t{c.agent_offline_timeout_s} * 1000;
    options.heartbeat_interval_s = c.agent_heartbeat_interval_s;
    options.inventory_interval_s = c.agent_inventory_interval_s;
    auto opened = fleet::Fleet::open(options, SystemClock::instance());
    if (!opened.ok()) return opened.status();
    p.fleet = std::move(opened).value();
    p.readiness.add("fleet.db", [f = p.fleet.get()] { return f->ready(); });

    agentapi::AgentPlaneOptions plane;
    plane.max_held_polls = static_cast<size_t>(std::max(1, c.agent_max_connections));
    p.agent_plane = std::unique_ptr<agentapi::AgentPlaneContext>(new agentapi::AgentPlaneContext{
        *p.fleet, *p.audit, p.metrics, SystemClock::instance(), plane});
    p.agent_plane->ca = p.ca.get();
    p.agent_plane->client_certs =
        agentapi::parse_client_cert_mode(c.agent_mtls).value_or(agentapi::ClientCertMode::kOff);
    p.agent_plane_handle = agentapi::register_agent_plane_routes(*p.agent_listener, *p.agent_plane);
    // A revoked agent's held poll would keep it connected until the poll's
    // wait ends; it is answered at once instead, where the agent cannot carry
    // on without that certificate (required mode) and only when it is the
    // agent's current one (a superseded certificate's revocation leaves the
    // agent alone).
    const bool required = p.agent_plane->client_certs == agentapi::ClientCertMode::kRequired;
    p.ca->set_revocation_listener(
        [handle = std::weak_ptr<agentapi::AgentPlaneHandle>(p.agent_plane_handle), ca = p.ca.get(),
         required](const pki::IssuedCertificate& cert) {
            if (!required || cert.purpose != pki::Purpose::kAgent) return;
            auto current = ca->newest_for_agent(cert.agent_id);
            if (current.ok() && *current && (*current)->issued_at_ms >= cert.issued_at_ms) return;
            if (auto h = handle.lock()) h->shut_out(cert.agent_id);
        });
    return Status::Ok();
}

// After the fleet: agents' results flow into the tracker, and REST checks
// instruction parameters with the MCP module's JSON Schema validator.
Status ServerApp::wire_executions(Parts& p) {
    execution::ExecutionsOptions options;
    options.data_dir = p.config.data_dir;
    options.tracker.execution_timeout_ms = int64_t{p.config.execution_timeout_s} * 1000;
    auto opened = execution::Executions::open(options, *p.fleet, SystemClock::instance());
    if (!opened.ok()) return opened.status();
    p.executions = std::move(opened).value();
    p.readiness.add("executions.db", [e = p.executions.get()] { return e->ready(); });
    p.agent_plane_handle->set_result_sink(p.executions->result_sink());
    p.web_executions =
        std::unique_ptr<web::ExecutionContext>(new web::ExecutionContext{*p.executions});
    return Status::Ok();
}

// After the fleet: policies are judged on its inventory, scope expressions
// resolve `group` through the identity's management groups.
Status ServerApp::wire_compliance(Parts& p) {
    compliance::ComplianceOptions options;
    options.data_dir = p.config.data_dir;
    auto opened = compliance::Compliance::open(options, *p.fleet, &p.identity->groups(),
                                               SystemClock::instance());
    if (!opened.ok()) return opened.status();
    p.compliance = std::move(opened).value();
    p.readiness.add("compliance.db", [c = p.compliance.get()] { return c->ready(); });
    return Status::Ok();
}

// After executions: every run is an ordinary execution, authorised as the
// schedule's owner through the identity and the fleet.
Status ServerApp::wire_schedules(Parts& p) {
    schedule::SchedulesOptions options;
    options.data_dir = p.config.data_dir;
    auto opened = schedule::Schedules::open(
        options, schedule::DispatchServices{*p.identity, *p.fleet, *p.executions}, *p.audit,
        SystemClock::instance());
    if (!opened.ok()) return opened.status();
    p.schedules = std::move(opened).value();
    p.readiness.add("schedules.db", [s = p.schedules.get()] { return s->ready(); });
    return Status::Ok();
}

Status ServerApp::wire_mcp(Parts& p) {
    p.mcp_settings.disabled = p.config.mcp_disable;
    p.mcp_settings.read_only = p.config.mcp_read_only;
    mcp::CatalogueDeps deps{*p.audit,     *p.identity,
                            p.readiness,  SystemClock::instance(),
                            YUZU_VERSION, SystemClock::instance().now_ms()};
    deps.fleet = p.fleet.get();
    deps.approvals = p.approvals.get();
    deps.executions = p.executions.get();
    deps.compliance = p.compliance.get();
    deps.schedules = p.schedules.get();
    deps.ca = p.ca.get();
    deps.metrics = &p.metrics;
    YUZU_RETURN_IF_ERROR(mcp::build_yuzu_catalogue(p.mcp_catalogues, deps));
    mcp::McpServerOptions options;
    options.server_version = YUZU_VERSION;
    options.metrics = &p.metrics;
    options.identity = p.identity.get();
    options.fleet = p.fleet.get();
    options.instructions =
        "Yuzu manages a fleet of endpoints. Start with read tools; changes need the right MCP "
        "tier and, for sensitive operations, a human's approval.";
    p.mcp = std::make_unique<mcp::McpServer>(
        p.mcp_catalogues.tools, p.mcp_catalogues.resources, p.mcp_catalogues.prompts,
        p.mcp_settings, p.audit.get(), &p.identity->authorizer(), options, p.approvals.get());
    mcp::TransportOptions transport;
    transport.allowed_origins = p.config.mcp_allowed_origins;
    transport.allowed_hosts = p.config.allowed_hosts;
    transport.listening_on_loopback = is_loopback_address(p.config.listen.host);
    transport.tls = p.management->tls();
    p.mcp_stream_metrics = std::make_unique<mcp::StreamMetrics>(p.metrics);
    // Registered with streaming off too, so every family exists from start.
    p.mcp_bridge_metrics = std::make_unique<mcp::BridgeMetrics>(p.metrics);
    p.mcp_stream_metrics->streams_cap.Set(static_cast<double>(p.management->stream_budget().cap()));
    if (!p.config.mcp_no_streaming) {
        mcp::SessionRegistryOptions sessions;
        sessions.max_total = static_cast<size_t>(p.config.mcp_max_sessions);
        sessions.max_per_principal = static_cast<size_t>(p.config.mcp_max_sessions_per_principal);
        sessions.idle_ttl_ms = int64_t{p.config.mcp_session_idle_ttl_s} * 1000;
        sessions.limits.ring_frames = static_cast<size_t>(p.config.mcp_replay_ring_frames);
        sessions.limits.ring_bytes = p.config.mcp_replay_ring_bytes;
        sessions.limits.max_frame_bytes =
            std::min(sessions.limits.max_frame_bytes, p.config.mcp_replay_ring_bytes);
        p.mcp_sessions = std::make_unique<mcp::SessionRegistry>(sessions, SystemClock::instance(),
                                                                p.mcp_stream_metrics.get());
        transport.sessions = p.mcp_sessions.get();
        transport.stream_tick_ms = p.config.mcp_stream_tick_ms;
        execution::ExecutionTracker* tracker = &p.executions->tracker();
        p.mcp_bridge = std::make_unique<mcp::ProgressBridge>(
            &p.executions->events(),
            [tracker](const std::string& id) -> std::optional<mcp::ExecutionProgress> {
                auto record = tracker->get(id);
                if (!record.ok()) return std::nullopt;
                return mcp::execution_progress(record->counts, record->status,
                                               execution::is_terminal_status(record->status));
            },
            p.mcp_bridge_metrics.get(), p.audit.get(), SystemClock::instance(),
            mcp::ProgressBridge::Options{});
        p.mcp_bridge->start();
        transport.bridge = p.mcp_bridge.get();
        transport.bridge_metrics = p.mcp_bridge_metrics.get();
        transport.streamed_post = p.config.mcp_streamed_post;
        transport.streamed_post_cap_ms = mcp::kMcpStreamedPostCapMs;
        // Idle sessions are found by find() and open() as they happen; the
        // tick only reclaims the memory of ones nobody asks about again.
        p.mcp_session_gc = std::make_unique<PeriodicTask>(
            "mcp.session_gc", std::chrono::seconds(30),
            [sessions = p.mcp_sessions.get()] {
                const size_t idle = sessions->sweep();
                if (idle > 0) spdlog::info("mcp: {} idle session(s) expired", idle);
                return Status::Ok();
            },
            [metrics = p.mcp_stream_metrics.get()](const Status& failure) {
                spdlog::warn("mcp: session_gc tick failed: {}", failure.message());
                metrics->session_gc_failures.Increment();
            });
    }
    transport.stream_metrics = p.mcp_stream_metrics.get();
    mcp::register_mcp_routes(*p.management, *p.mcp, p.mcp_settings, *p.resolver, transport);
    if (p.config.mcp_disable) spdlog::warn("MCP is disabled (--mcp-disable)");
    if (p.config.mcp_read_only) spdlog::warn("MCP is read-only (--mcp-read-only)");
    if (p.config.mcp_no_streaming) {
        spdlog::warn("MCP sessions and the GET stream are off (--mcp-no-streaming)");
    }
    return Status::Ok();
}

namespace {

// The names agents may use for the agent plane, when the CA issues its
// certificate and --agent-tls-san gives none.
void default_agent_names(const ServerConfig& c, agentapi::AgentTlsOptions& o) {
    o.dns_names = {"localhost"};
    o.ip_addresses = {"127.0.0.1", "::1"};
    char host[256] = {0};
    if (::gethostname(host, sizeof(host) - 1) == 0 && std::string_view(host) != "localhost" &&
        pki::is_valid_dns_name(host)) {
        o.dns_names.emplace_back(host);
    }
    const std::string& listen = c.agent_listen.host;
    if (listen.empty() || listen == "0.0.0.0" || listen == "::" || listen == "localhost" ||
        listen == "127.0.0.1" || listen == "::1") {
        return;
    }
    if (pki::is_valid_ip_address(listen)) {
        o.ip_addresses.push_back(listen);
    } else if (pki::is_valid_dns_name(listen)) {
        o.dns_names.push_back(listen);
    }
}

void split_agent_names(const std::vector<std::string>& sans, agentapi::AgentTlsOptions& o) {
    for (const std::string& san : sans) {
        (pki::is_valid_ip_address(san) ? o.ip_addresses : o.dns_names).push_back(san);
    }
}

}  // namespace

// The internal CA (pki.db), after the listeners are bound: its keys are
// sealed with the secrets key that also seals TOTP seeds. With
// --agent-mtls the agent plane's TLS then gets the CA (and, without
// certificate files, its server certificate).
Status ServerApp::wire_pki(Parts& p) {
    const ServerConfig& c = p.config;
    const std::string key_file = c.secrets_key_file.empty()
                                     ? (std::filesystem::path(c.data_dir) / "secrets.key").string()
                                     : c.secrets_key_file;
    auto box = auth::SecretBox::load_or_create_key_file(key_file);
    if (!box.ok()) return box.status();
    p.pki_secrets = std::make_unique<auth::SecretBox>(std::move(box).value());
    pki::PkiOptions options;
    options.data_dir = c.data_dir;
    auto ca = pki::CertificateAuthority::open(options, *p.pki_secrets, SystemClock::instance());
    if (!ca.ok()) return ca.status();
    p.ca = std::move(ca).value();
    // A revocation committed just before a crash reaches its CRL now.
    auto refreshed = p.ca->refresh_crls(/*force=*/true);
    if (!refreshed.ok()) return refreshed.status();
    spdlog::info("internal CA: root sha256 {}, signing generation {}; root certificate in {}",
                 p.ca->root_fingerprint_sha256(), p.ca->issuing_generation(),
                 (std::filesystem::path(c.data_dir) / pki::kRootCertificateFile).string());
    if (p.agent_tls) YUZU_RETURN_IF_ERROR(p.agent_tls->attach(*p.ca));
    p.pki_maintenance = std::make_unique<PeriodicTask>(
        "pki-maintenance", std::chrono::seconds(pki::kMaintenancePeriodS),
        [ca = p.ca.get(), tls = p.agent_tls.get()]() -> Status {
            auto crls = ca->refresh_crls();
            if (!crls.ok()) return crls.status();
            if (tls != nullptr) {
                auto renewed = tls->renew_if_due();
                if (!renewed.ok()) return renewed.status();
            }
            return Status::Ok();
        },
        [](const Status& s) { spdlog::error("internal CA maintenance failed: {}", s.message()); });
    return Status::Ok();
}

// Both listeners, before anything else: each TLS certificate and key is
// loaded and checked and each socket bound here, so a configuration mistake
// (an address in use, a bad certificate) stops start-up before any store is
// opened, the first admin is created or a password file is written.
Status ServerApp::bind_listeners(Parts& p) {
    const ServerConfig& c = p.config;
    http::ServerOptions options;
    options.name = "management";
    options.host = c.listen.host;
    options.port = c.listen.port;
    options.tls_cert_file = c.tls_cert_file;
    options.tls_key_file = c.tls_key_file;
    options.worker_threads = c.effective_worker_threads();
    options.max_streams = static_cast<size_t>(c.effective_max_streams());
    options.max_streams_per_principal = static_cast<size_t>(c.mcp_max_streams_per_principal);
    if (c.effective_max_streams() < c.max_sse_streams) {
        spdlog::warn(
            "--max-sse-streams {} lowered to {}: --http-worker-threads {} keeps {} workers for "
            "short requests",
            c.max_sse_streams, c.effective_max_streams(), c.http_worker_threads,
            c.http_worker_threads - c.effective_max_streams());
    }
    options.max_request_body = c.max_request_body;
    apply_connection_limits(c, options);
    options.max_connections = c.max_connections;
    // An event stream stays open as long as its client listens.
    options.long_poll_routes = {"/api/v1/events", std::string(mcp::kStreamRouteLabel),
                                std::string(mcp::kStreamedPostRouteLabel)};
    // Host and Origin checks on every route but /mcp/, which the MCP
    // transport checks itself with the same policy (request_guard.hpp).
    http::HostPolicy host_policy;
    host_policy.enforce_loopback_names = is_loopback_address(c.listen.host);
    host_policy.allowed_hosts = c.allowed_hosts;
    host_policy.allowed_origins = c.mcp_allowed_origins;
    options.pre_route =
        web::make_management_request_guard(std::move(host_policy), !c.tls_cert_file.empty());
    auto management = http::HttpServer::create(options, p.metrics);
    if (!management.ok()) return management.status();
    p.management = std::move(management).value();

    http::ServerOptions listener;
    listener.name = "agent";
    listener.host = c.agent_listen.host;
    listener.port = c.agent_listen.port;
    const auto mode = agentapi::parse_client_cert_mode(c.agent_mtls);
    if (!mode) return Status::InvalidArgument("--agent-mtls must be off, optional or required");
    if (*mode != agentapi::ClientCertMode::kOff) {
        agentapi::AgentTlsOptions tls;
        tls.mode = *mode;
        tls.cert_file = c.agent_tls_cert_file;
        tls.key_file = c.agent_tls_key_file;
        if (c.agent_tls_sans.empty()) {
            default_agent_names(c, tls);
        } else {
            split_agent_names(c.agent_tls_sans, tls);
        }
        p.agent_tls = agentapi::AgentTls::create(tls, SystemClock::instance());
        listener.tls_setup = [t = p.agent_tls.get()](SSL_CTX& ctx) { return t->configure(ctx); };
    } else {
        listener.tls_cert_file = c.agent_tls_cert_file;
        listener.tls_key_file = c.agent_tls_key_file;
    }
    listener.worker_threads = c.agent_worker_threads;
    listener.max_request_body = size_t{16} * 1024 * 1024;  // inventory reports
    apply_connection_limits(c, listener);
    listener.max_connections = c.agent_max_connections;
    listener.max_connections_per_peer = c.agent_max_connections_per_peer;
    listener.long_poll_routes = {"/agent/v1/commands"};
    // Thousands of agents reconnect together after a restart, and answer
    // together after a dispatch: their requests wait for a worker rather
    // than being refused (each is quick; none holds a worker while it waits
    // for a command or a commit).
    listener.listen_backlog = 4096;
    listener.thread_niceness = agentapi::kAgentPlaneNiceness;
    listener.handoff_queue = static_cast<size_t>(c.agent_max_connections);
    // One of each per agent every few seconds; info would drown the log.
    listener.debug_log_routes = {"/agent/v1/commands", "/agent/v1/heartbeat",
                                 "/agent/v1/inventory"};
    auto agent = http::HttpServer::create(listener, p.metrics);
    if (!agent.ok()) return agent.status();
    p.agent_listener = std::move(agent).value();

    YUZU_RETURN_IF_ERROR(p.management->bind());
    YUZU_RETURN_IF_ERROR(p.agent_listener->bind());
    return Status::Ok();
}

ServerApp::ServerApp(std::unique_ptr<Parts> parts) : parts_(std::move(parts)) {}

ServerApp::~ServerApp() {
    stop();
    if (parts_ && !parts_->listen_file.empty()) {
        std::error_code ec;
        std::filesystem::remove(parts_->listen_file, ec);
    }
}

Result<std::unique_ptr<ServerApp>> ServerApp::prepare(const ServerConfig& config,
                                                      ServerOverrides overrides) {
    auto parts = std::make_unique<Parts>();
    parts->config = config;
    parts->overrides = std::move(overrides);

    YUZU_RETURN_IF_ERROR(store::ensure_private_dir(config.data_dir));
    const std::string data_dir = config.data_dir;
    parts->readiness.add("data_dir", [data_dir]() -> Status {
        if (::access(data_dir.c_str(), W_OK) != 0) {
            return Status::Unavailable("data dir " + data_dir + " is not writable");
        }
        return Status::Ok();
    });
    YUZU_RETURN_IF_ERROR(bind_listeners(*parts));
    return std::unique_ptr<ServerApp>(new ServerApp(std::move(parts)));
}

Status ServerApp::open() {
    Parts* parts = parts_.get();
    const ServerConfig& config = parts->config;
    YUZU_RETURN_IF_ERROR(wire_pki(*parts));
    if (parts->overrides.audit_log) {
        spdlog::warn("audit: rows go to a benchmark's in-memory log, not audit.db");
        parts->audit = std::make_unique<audit::InstrumentedAuditLog>(*parts->overrides.audit_log,
                                                                     parts->metrics);
    } else {
        auto audit_log = audit::SqliteAuditLog::open(config.data_dir);
        if (!audit_log.ok()) return audit_log.status();
        parts->audit_store = std::move(audit_log).value();
        parts->audit =
            std::make_unique<audit::InstrumentedAuditLog>(*parts->audit_store, parts->metrics);
        parts->readiness.add("audit.db", [a = parts->audit_store.get()] { return a->ready(); });
    }

    auth::IdentityOptions identity_options;
    identity_options.data_dir = config.data_dir;
    identity_options.bootstrap_password_file = config.bootstrap_admin_password_file;
    identity_options.bootstrap_password_value = config.bootstrap_admin_password;
    identity_options.secrets_key_file = config.secrets_key_file;
    auto identity = auth::Identity::open(identity_options, SystemClock::instance());
    if (!identity.ok()) return identity.status();
    parts->identity = std::move(identity).value();
    parts->readiness.add("auth.db", [i = parts->identity.get()] { return i->ready(); });
    log_bootstrap(*parts->identity, *parts->audit);
    parts->resolver = std::make_unique<http::IdentityResolver>(*parts->identity);
    auto approvals = approval::ApprovalManager::open(
        (std::filesystem::path(config.data_dir) / approval::kApprovalsDbFile).string(),
        SystemClock::instance());
    if (!approvals.ok()) return approvals.status();
    parts->approvals = std::move(approvals).value();
    parts->readiness.add("approvals.db", [a = parts->approvals.get()] { return a->ready(); });
    YUZU_RETURN_IF_ERROR(wire_fleet(*parts));
    YUZU_RETURN_IF_ERROR(wire_executions(*parts));
    YUZU_RETURN_IF_ERROR(wire_compliance(*parts));
    YUZU_RETURN_IF_ERROR(wire_schedules(*parts));
    register_server_metrics(parts->metrics, parts->fleet.get(), parts->executions.get());

    parts->web = std::unique_ptr<web::WebContext>(
        new web::WebContext{*parts->identity, *parts->audit, *parts->resolver,
                            SystemClock::instance(), parts->management->tls()});
    parts->web->fleet = parts->fleet.get();
    parts->web->approvals = parts->approvals.get();
    parts->web->executions = parts->web_executions.get();
    parts->web->compliance = parts->compliance.get();
    parts->web->schedules = parts->schedules.get();
    parts->web->ca = parts->ca.get();
    parts->login_throttle = std::make_unique<auth::LoginThrottle>(SystemClock::instance());
    parts->web->login_throttle = parts->login_throttle.get();
    // MCP's routes first: cpp-httplib tries a method's routes in the order
    // they were registered, one std::regex match each, and /mcp/v1/ is the
    // hot path (behind 38 REST POST routes it paid 38 matches per call).
    // "/mcp/v1/?" matches no REST path, so no route is shadowed.
    YUZU_RETURN_IF_ERROR(wire_mcp(*parts));
    web::register_health_routes(*parts->management, parts->readiness, parts->metrics);
    web::register_rest_routes(*parts->management, *parts->web);
    return Status::Ok();
}

Result<std::unique_ptr<ServerApp>> ServerApp::create(const ServerConfig& config) {
    auto app = prepare(config);
    if (!app.ok()) return app.status();
    YUZU_RETURN_IF_ERROR((*app)->open());
    return app;
}

Status ServerApp::start() {
    auto& p = *parts_;
    p.executions->tracker().start();
    // After the tracker it dispatches through; due schedules (missed ones
    // too) run from its first tick.
    p.schedules->engine().start();
    if (p.mcp_session_gc) p.mcp_session_gc->start();
    if (p.pki_maintenance) p.pki_maintenance->start();
    YUZU_RETURN_IF_ERROR(
        p.compliance->scheduler().start(std::chrono::seconds(p.config.compliance_interval_s)));
    const std::string scheme = p.management->tls() ? "https" : "http";
    ListenAddress bound{p.config.listen.host, p.management->port()};
    const std::string url = scheme + "://" + bound.to_string();
    const std::string agent_url =
        std::string(p.agent_listener->tls() ? "https" : "http") + "://" +
        ListenAddress{p.config.agent_listen.host, p.agent_listener->port()}.to_string();

    // Written atomically so a reader never sees half a file.
    nlohmann::json listen = {
        {"management", url}, {"agent", agent_url}, {"pid", static_cast<int>(::getpid())}};
    p.listen_file = (std::filesystem::path(p.config.data_dir) / "listen.json").string();
    const std::string tmp = p.listen_file + ".tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << dump_json(listen) << "\n";
        if (!out) return Status::Internal("could not write " + tmp);
    }
    std::error_code ec;
    std::filesystem::rename(tmp, p.listen_file, ec);
    if (ec) return Status::Internal("could not rename " + tmp + ": " + ec.message());

    warn_if_plain_http_off_loopback("management", p.config.listen.host, p.management->tls());
    warn_if_plain_http_off_loopback("agent plane", p.config.agent_listen.host,
                                    p.agent_listener->tls());
    spdlog::info("yuzu-server {} listening on {} (workers={}, data dir {})", YUZU_VERSION, url,
                 p.management->options().worker_threads, p.config.data_dir);
    spdlog::info("agent plane listening on {} (workers={}, max connections={})", agent_url,
                 p.agent_listener->options().worker_threads,
                 p.agent_listener->options().max_connections);
    return Status::Ok();
}

void ServerApp::serve() {
    auto& p = *parts_;
    std::atomic<bool> agent_plane_done{false};
    std::thread agent_plane([&p, &agent_plane_done]() noexcept {
        // One-shot: a throw out of the accept loop is logged and counted, and
        // the thread ends as if the listener had stopped.
        (void)run_guarded("http.agent.serve", [&p] { p.agent_listener->serve(); });
        agent_plane_done = true;
    });
    // Guarded too: the agent-plane thread must still be joined after it.
    (void)run_guarded("http.management.serve", [&p] { p.management->serve(); });
    // Held long-polls are woken so draining does not wait out their hold
    // time. A stop() that raced the agent listener's start is repeated
    // until that listener has really ended.
    stop();
    while (!agent_plane_done) {
        p.agent_listener->stop();
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    agent_plane.join();
}

void ServerApp::stop() {
    if (!parts_) return;
    // MCP sessions first: every live GET stream is woken and told
    // session_terminated, rather than left to notice the stop on its next
    // tick or cut off mid-stream.
    if (parts_->mcp_session_gc) parts_->mcp_session_gc->stop();
    if (parts_->pki_maintenance) parts_->pki_maintenance->stop();
    if (parts_->mcp_sessions) parts_->mcp_sessions->shutdown();
    // Then the calls whose progress is followed: each streamed response is
    // woken and ends with session_terminated (its executions run on).
    if (parts_->mcp_bridge) parts_->mcp_bridge->shutdown();
    // Schedules before the agent plane and executions: no run dispatches
    // into a tracker that is shutting down.
    if (parts_->schedules) parts_->schedules->shutdown();
    // The agent plane first: held polls are answered and waiting results
    // are written while the execution store is still open. Then executions:
    // the sweeper stops and event streams end before the fleet they
    // dispatch through closes.
    if (parts_->agent_plane_handle) parts_->agent_plane_handle->stop();
    if (parts_->executions) parts_->executions->shutdown();
    if (parts_->compliance) parts_->compliance->scheduler().stop();
    if (parts_->fleet) parts_->fleet->shutdown();
    if (parts_->agent_listener) parts_->agent_listener->stop();
    if (parts_->management) {
        // Held streams end within moments of their wake (their close frame
        // is one write); a peer that stopped reading is bounded by the
        // write timeout instead, so this wait is capped.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
        while (parts_->management->stream_budget().active() > 0 &&
               std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        parts_->management->stop();
    }
}

int ServerApp::management_port() const {
    return parts_->management->port();
}

}  // namespace yuzu::app
