// HttpServer: one listener (management API, MCP, or the agent plane) built on
// cpp-httplib, with the middleware every route shares — correlation ids, the
// request-body cap, per-route request metrics, one access-log line per request
// — installed as hooks rather than repeated in handlers.
//
// Only route-registration files include this header (it pulls in httplib.h).
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "yuzu/common/status.hpp"

namespace yuzu::metrics {
class Registry;
template <typename T>
class Family;
class Counter;
class Histogram;
}  // namespace yuzu::metrics

namespace yuzu::http {

class ConnectionGate;
class ConnectionServer;
class RequestSeries;
class StreamBudget;
struct ConnectionLimits;

struct ServerOptions {
    std::string name = "management";  // the `listener` label on metrics and logs
    std::string host = "127.0.0.1";
    int port = 8080;  // 0 picks a free port; port() tells which
    std::string tls_cert_file;
    std::string tls_key_file;
    // When set, the listener speaks TLS and this configures its context
    // instead of the two files (a per-handshake certificate, client
    // certificate verification). Not ok stops start-up with its message.
    std::function<Status(SSL_CTX&)> tls_setup;
    int worker_threads = 8;
    // Any transfer encoding: a chunked body is counted as it arrives.
    size_t max_request_body = size_t{4} * 1024 * 1024;
    // Connection limits (see src/http/connection_gate.hpp): idle connections
    // and unfinished header blocks wait in one poller thread, not a worker.
    int idle_timeout_s = 5;     // no byte of a (next) request: closed
    int header_timeout_s = 10;  // request line + headers, from the first byte: 408
    int body_timeout_s = 30;    // the body, after the headers: 408
    int write_timeout_s = 10;   // one write of a response
    size_t max_header_bytes = size_t{32} * 1024;  // request line + headers: 431
    size_t max_header_count = 100;                // 431
    size_t keep_alive_max_count = 100;
    int max_connections = 1024;        // open connections; beyond: 503
    int max_connections_per_peer = 0;  // 0: no cap; beyond: 429
    size_t handoff_queue = 0;          // ready requests waiting for a worker; 0: 4 x workers
    int listen_backlog = 512;
    // Added to the nice value of the listener's poller and workers: a bulk
    // listener (the agent plane) yields the CPU to the management API.
    int thread_niceness = 0;
    // Called before routing every request (after the framing checks); false
    // means it wrote a refusal into the response, which is sent as is.
    std::function<bool(const httplib::Request&, httplib::Response&)> pre_route;
    // Routes that hold the request open by design (agent long-polls): their
    // time goes to yuzu_http_long_poll_duration_seconds, not the latency
    // histogram, so a held poll never reads as a slow request.
    std::vector<std::string> long_poll_routes;
    // Held-open streams (SSE) at once, over every surface of this listener,
    // and per principal (0: no per-principal cap). Each holds a worker, so
    // worker_threads should exceed max_streams by a reserve for short
    // requests (see stream_budget.hpp).
    size_t max_streams = 32;
    size_t max_streams_per_principal = 0;
    // Routes whose access-log line is at debug, not info (heartbeats and
    // long-polls: one per agent every few seconds would drown the log).
    std::vector<std::string> debug_log_routes;
};

using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;

class HttpServer {
  public:
    // Builds the server; TLS when both files are given (they are loaded here,
    // so a bad certificate fails start-up, not the first request, with
    // InvalidArgument "TLS certificate <path>: <reason>" or "TLS key <path>:
    // <reason>").
    static Result<std::unique_ptr<HttpServer>> create(const ServerOptions& options,
                                                      metrics::Registry& metrics);
    ~HttpServer();
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    // Route registration; call before serve(). `route` is the label used for
    // metrics and logs (a template such as "/api/v1/tokens/{id}", never the
    // raw path, so label cardinality stays bounded).
    void get(const std::string& pattern, const std::string& route, Handler handler);
    void post(const std::string& pattern, const std::string& route, Handler handler);
    void put(const std::string& pattern, const std::string& route, Handler handler);
    void del(const std::string& pattern, const std::string& route, Handler handler);
    // OPTIONS (`options()` is taken by the accessor below).
    void options_route(const std::string& pattern, const std::string& route, Handler handler);

    // Binds the listening socket; connections wait in its backlog until
    // serve(). After this, port() is the bound port. Unavailable "cannot
    // listen on <host>:<port>: <reason>" (the kernel's, e.g. "Address already
    // in use") when it cannot.
    Status bind();
    int port() const { return port_; }
    const ServerOptions& options() const { return options_; }
    bool tls() const { return !options_.tls_cert_file.empty() || options_.tls_setup != nullptr; }

    // Serves until stop(); in-flight requests finish before it returns
    // (each bounded by the read and write deadlines; reads give up at once).
    void serve();
    // Stops accepting; safe from any thread, idempotent.
    void stop();
    bool running() const;

    httplib::Server& raw() { return *server_; }
    // The listener's one budget for held-open streams.
    StreamBudget& stream_budget() { return *stream_budget_; }

    // From a handler: the current request's route label becomes `label`
    // (a POST answered as a held-open stream moves to a long-poll route, so
    // its stream's life does not count as latency).
    static void relabel_current_route(const std::string& label);

  private:
    HttpServer(const ServerOptions& options, std::unique_ptr<httplib::Server> server,
               ConnectionServer* connections, metrics::Registry& metrics);
    void install_hooks();
    Handler wrap(const std::string& method, const std::string& route, Handler handler);
    // The current request's route label ("unmatched" before routing).
    std::string current_route() const;
    // The request's latency metric and access-log line. `held_at`: when a
    // deferred reply started waiting for an event; the time after it is a
    // long-poll's.
    void record_request(const std::string& route, const std::string& method,
                        const std::string& path, const std::string& peer,
                        const std::string& correlation_id, int status,
                        std::chrono::steady_clock::time_point start,
                        std::optional<std::chrono::steady_clock::time_point> held_at);

    ServerOptions options_;
    std::unique_ptr<httplib::Server> server_;
    ConnectionServer* connections_ = nullptr;  // server_, seen as the gate's peer
    std::unique_ptr<ConnectionLimits> limits_;
    std::unique_ptr<ConnectionGate> gate_;
    std::unique_ptr<StreamBudget> stream_budget_;
    metrics::Family<metrics::Counter>& requests_total_;
    metrics::Family<metrics::Histogram>& request_seconds_;
    metrics::Family<metrics::Histogram>& long_poll_seconds_;
    std::unique_ptr<RequestSeries> series_;  // of the two families above
    int port_ = 0;
    std::atomic<int> listen_fd_{-1};
};

// The correlation id assigned to this request (set before any handler runs).
std::string correlation_id_of(const httplib::Response& res);

// REST error body: {"error":{"code":<http>,"message":..,"correlation_id":..}}.
void write_error(httplib::Response& res, int http_status, const std::string& message);
// The same body as text, for a reply sent later (DeferredReply).
std::string error_body(int http_status, const std::string& message,
                       const std::string& correlation_id);
// Writes `body` (already serialized JSON) with the JSON content type and
// Cache-Control: no-store.
void write_json(httplib::Response& res, int http_status, const std::string& body);
// The same for a literal; without it "..." would be ambiguous between the
// std::string and the nlohmann::json overloads.
void write_json(httplib::Response& res, int http_status, const char* body);
// Serializes `body` with dump_json (common/json_text.hpp): bytes that are not
// UTF-8 become U+FFFD and are counted, so a stray byte never turns the answer
// into a 500.
void write_json(httplib::Response& res, int http_status, const nlohmann::json& body);

}  // namespace yuzu::http
