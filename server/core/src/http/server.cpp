#include "yuzu/http/server.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "http/connection.hpp"
#include "http/connection_gate.hpp"
#include "http/gated_server.hpp"
#include "http/request_framing.hpp"
#include "http/request_series.hpp"
#include "yuzu/common/correlation_id.hpp"
#include "yuzu/common/json_text.hpp"
#include "yuzu/common/thread_guard.hpp"
#include "yuzu/http/header_lookup.hpp"
#include "yuzu/http/stream_budget.hpp"
#include "yuzu/metrics/builder.hpp"

namespace yuzu::http {
namespace {

constexpr char kCorrelationHeader[] = "X-Correlation-Id";

// cpp-httplib runs a request from pre-routing to the logger on one worker
// thread, so per-request bookkeeping can live in thread-locals.
struct RequestContext {
    std::chrono::steady_clock::time_point start;
    std::string route;
    bool active = false;
};
thread_local RequestContext t_request;

// A held long-poll ends after its wait (up to a minute) or when work
// arrives; the buckets tell those two apart.
metrics::BucketBoundaries long_poll_buckets() {
    return {0.01, 0.1, 0.5, 1, 5, 10, 20, 30, 45, 60, 90};
}

void ensure_correlation_id(httplib::Response& res) {
    if (find_field(res.headers, kCorrelationHeader) == nullptr) {
        res.set_header(kCorrelationHeader, next_correlation_id());
    }
}

std::string status_text(int status) {
    switch (status) {
        case 400:
            return "bad request";
        case 401:
            return "authentication required";
        case 403:
            return "forbidden";
        case 404:
            return "no such route";
        case 405:
            return "method not allowed";
        case 408:
            return "the request did not arrive in time";
        case 413:
            return "request body exceeds the server's limit";
        case 414:
            return "request URI too long";
        case 411:
            return "a request body needs Content-Length or Transfer-Encoding: chunked";
        case 415:
            return "unsupported media type";
        case 431:
            return "request headers exceed the server's limit";
        case 501:
            return "not implemented";
        case 429:
            return "too many requests";
        case 503:
            return "service unavailable";
        default:
            return status >= 500 ? "internal error" : "request refused";
    }
}

// cpp-httplib hands each accepted socket to its task queue. The gate owns
// connections instead, so the queue only forwards (on the accept thread; the
// gate never blocks it) and stops the gate when the listener stops.
class GateForwardingQueue final : public httplib::TaskQueue {
  public:
    explicit GateForwardingQueue(ConnectionGate& gate)
        : gate_(gate), thread_("http." + gate.options().listener + ".accept") {}
    // A throw is logged and counted; the accept loop goes on.
    void enqueue(std::function<void()> fn) override { (void)run_guarded(thread_, fn); }
    void shutdown() override { gate_.shutdown(); }

  private:
    ConnectionGate& gate_;
    const std::string thread_;
};

// "host:port", IPv6 literals bracketed.
std::string address_text(const std::string& host, int port) {
    const bool v6 = host.find(':') != std::string::npos;
    return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

// Why host:port cannot be bound: cpp-httplib reports only that it failed, so
// the bind is tried again here, the same way, to ask the kernel.
std::string bind_failure_reason(const std::string& host, int port, int saved_errno) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    addrinfo* found = nullptr;
    const std::string service = std::to_string(port);
    if (const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0) {
        return ::gai_strerror(rc);
    }
    int err = 0;
    for (const addrinfo* ai = found; ai != nullptr; ai = ai->ai_next) {
        const int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            err = errno;
            continue;
        }
        int yes = 1;
        ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
        const bool bound = ::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && ::listen(fd, 1) == 0;
        err = bound ? 0 : errno;
        ::close(fd);
        if (bound) break;
    }
    ::freeaddrinfo(found);
    if (err == 0) err = saved_errno;  // free again by now: the library's own error, if any
    return err != 0 ? std::strerror(err) : "the address could not be bound";
}

// The oldest error OpenSSL queued (the cause; later entries only say which
// call failed), then an empty queue.
std::string openssl_reason() {
    const unsigned long e = ERR_get_error();
    ERR_clear_error();
    if (e == 0) return "not a usable PEM file";
#ifdef ERR_LIB_OSSL_DECODER
    // OpenSSL 3 says only "unsupported" for a key file that is no PEM key.
    if (ERR_GET_LIB(e) == ERR_LIB_OSSL_DECODER) return "no PEM data OpenSSL can decode";
#endif
    if (const char* reason = ERR_reason_error_string(e); reason != nullptr) return reason;
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    return buf;
}

// Loads the certificate chain and key the way the listener will, so a bad
// file fails start-up with the reason: "TLS certificate <path>: <reason>" or
// "TLS key <path>: <reason>".
Status check_tls_files(const std::string& cert, const std::string& key) {
    for (const auto& [what, path] : {std::pair{"certificate", &cert}, std::pair{"key", &key}}) {
        std::FILE* f = std::fopen(path->c_str(), "r");
        if (f == nullptr) {
            return Status::InvalidArgument(std::string("TLS ") + what + " " + *path + ": " +
                                           std::strerror(errno));
        }
        std::fclose(f);
    }
    std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx(SSL_CTX_new(TLS_server_method()),
                                                          &SSL_CTX_free);
    if (!ctx) return Status::Internal("TLS: cannot create a context: " + openssl_reason());
    ERR_clear_error();
    if (SSL_CTX_use_certificate_chain_file(ctx.get(), cert.c_str()) != 1) {
        return Status::InvalidArgument("TLS certificate " + cert + ": " + openssl_reason());
    }
    if (SSL_CTX_use_PrivateKey_file(ctx.get(), key.c_str(), SSL_FILETYPE_PEM) != 1) {
        return Status::InvalidArgument("TLS key " + key + ": " + openssl_reason());
    }
    if (SSL_CTX_check_private_key(ctx.get()) != 1) {
        ERR_clear_error();
        return Status::InvalidArgument("TLS key " + key + ": does not match certificate " + cert);
    }
    return Status::Ok();
}

ConnectionLimits limits_from(const ServerOptions& o) {
    ConnectionLimits l;
    l.idle = std::chrono::seconds(std::max(1, o.idle_timeout_s));
    l.header = std::chrono::seconds(std::max(1, o.header_timeout_s));
    l.body = std::chrono::seconds(std::max(1, o.body_timeout_s));
    l.write = std::chrono::seconds(std::max(1, o.write_timeout_s));
    l.max_header_bytes = o.max_header_bytes;
    l.max_header_count = o.max_header_count;
    l.max_body = o.max_request_body;
    l.keep_alive_max_count = std::max<size_t>(1, o.keep_alive_max_count);
    return l;
}

// Refuses a request from a pre-routing hook; the body (if any) is unread,
// so the connection closes after the answer.
void refuse_before_body(httplib::Response& res, int status, const std::string& message) {
    write_error(res, status, message);
    res.set_header("Connection", "close");
    t_current.close_after = true;
}

}  // namespace

std::string correlation_id_of(const httplib::Response& res) {
    return field_value(res.headers, kCorrelationHeader);
}

void write_json(httplib::Response& res, int http_status, const std::string& body) {
    res.status = http_status;
    // JSON answers are one principal's data, and some carry secrets shown
    // once (new tokens, TOTP secrets, device tokens): no cache may keep them.
    res.set_header("Cache-Control", "no-store");
    res.set_content(body, "application/json");
}

void write_json(httplib::Response& res, int http_status, const char* body) {
    write_json(res, http_status, std::string(body));
}

void write_json(httplib::Response& res, int http_status, const nlohmann::json& body) {
    write_json(res, http_status, dump_json(body));
}

std::string error_body(int http_status, const std::string& message,
                       const std::string& correlation_id) {
    return dump_json(nlohmann::json{
        {"error",
         {{"code", http_status}, {"message", message}, {"correlation_id", correlation_id}}}});
}

void write_error(httplib::Response& res, int http_status, const std::string& message) {
    ensure_correlation_id(res);
    write_json(res, http_status, error_body(http_status, message, correlation_id_of(res)));
}

Result<std::unique_ptr<HttpServer>> HttpServer::create(const ServerOptions& options,
                                                       metrics::Registry& registry) {
    std::unique_ptr<httplib::Server> server;
    ConnectionServer* connections = nullptr;
    if (options.tls_setup) {
        Status setup = Status::Ok();
        auto ssl =
            std::make_unique<GatedServer<httplib::SSLServer>>([&options, &setup](SSL_CTX& ctx) {
                setup = options.tls_setup(ctx);
                return setup.ok();
            });
        if (!setup.ok()) return setup;
        if (!ssl->is_valid()) return Status::Internal("TLS: cannot create a server context");
        connections = ssl.get();
        server = std::move(ssl);
    } else if (!options.tls_cert_file.empty() || !options.tls_key_file.empty()) {
        if (options.tls_cert_file.empty() || options.tls_key_file.empty()) {
            return Status::InvalidArgument("TLS needs both a certificate and a key file");
        }
        YUZU_RETURN_IF_ERROR(check_tls_files(options.tls_cert_file, options.tls_key_file));
        auto ssl = std::make_unique<GatedServer<httplib::SSLServer>>(options.tls_cert_file.c_str(),
                                                                     options.tls_key_file.c_str());
        if (!ssl->is_valid()) {
            return Status::InvalidArgument("could not load TLS certificate '" +
                                           options.tls_cert_file + "' or key '" +
                                           options.tls_key_file + "'");
        }
        connections = ssl.get();
        server = std::move(ssl);
    } else {
        auto plain = std::make_unique<GatedServer<httplib::Server>>();
        connections = plain.get();
        server = std::move(plain);
    }
    if (options.worker_threads < 1) {
        return Status::InvalidArgument("worker_threads must be at least 1");
    }
    if (options.max_connections < 1) {
        return Status::InvalidArgument("max_connections must be at least 1");
    }
    auto created = std::unique_ptr<HttpServer>(
        new HttpServer(options, std::move(server), connections, registry));
    created->install_hooks();
    return created;
}

HttpServer::HttpServer(const ServerOptions& options, std::unique_ptr<httplib::Server> server,
                       ConnectionServer* connections, metrics::Registry& registry)
    : options_(options),
      server_(std::move(server)),
      connections_(connections),
      limits_(std::make_unique<ConnectionLimits>(limits_from(options))),
      stream_budget_(
          std::make_unique<StreamBudget>(options.max_streams, options.max_streams_per_principal)),
      requests_total_(metrics::BuildCounter()
                          .Name("yuzu_http_requests_total")
                          .Help("HTTP requests served, by listener, route, method and status.")
                          .Register(registry)),
      request_seconds_(metrics::BuildHistogram()
                           .Name("yuzu_http_request_duration_seconds")
                           .Help("HTTP request latency in seconds, by listener, route and method "
                                 "(long-poll routes excluded).")
                           .Register(registry)),
      long_poll_seconds_(metrics::BuildHistogram()
                             .Name("yuzu_http_long_poll_duration_seconds")
                             .Help("How long long-poll requests were held, in seconds, by "
                                   "listener and route.")
                             .Register(registry)),
      series_(std::make_unique<RequestSeries>(requests_total_, request_seconds_, options_.name)) {
    GateOptions gate;
    gate.listener = options_.name;
    gate.tls = tls();
    gate.limits = *limits_;
    gate.workers = options_.worker_threads;
    gate.queue_capacity = options_.handoff_queue;
    gate.max_connections = options_.max_connections;
    gate.max_connections_per_peer = options_.max_connections_per_peer;
    gate.thread_niceness = options_.thread_niceness;
    gate_ = std::make_unique<ConnectionGate>(
        gate, [this](Connection& conn) { return connections_->serve_connection(conn); }, registry);
    connections_->attach(gate_.get(), &gate_->options().limits);
}

HttpServer::~HttpServer() {
    stop();
    if (gate_) gate_->shutdown();
}

void HttpServer::install_hooks() {
    auto& s = *server_;
    s.new_task_queue = [this] { return new GateForwardingQueue(*gate_); };
    s.set_tcp_nodelay(true);
    // Only echoed in the Keep-Alive response header: the gate enforces them.
    s.set_keep_alive_timeout(options_.idle_timeout_s);
    s.set_keep_alive_max_count(options_.keep_alive_max_count);
    s.set_payload_max_length(options_.max_request_body);

    // Capture the listening socket so bind() can raise its backlog: the
    // library listens with a fixed backlog of 5.
    s.set_socket_options([this](int fd) {
        int yes = 1;
        ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
        listen_fd_.store(fd);
    });

    s.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
        t_request.start = std::chrono::steady_clock::now();
        t_request.route.clear();
        t_request.active = true;
        ensure_correlation_id(res);
        // Runs after the headers and before any byte of the body.
        if (t_current.stream != nullptr) t_current.stream->begin_body();
        const FramingVerdict framing = check_request_framing(req, options_.max_request_body);
        if (framing.status != 0) {
            refuse_before_body(res, framing.status, framing.message);
            return httplib::Server::HandlerResponse::Handled;
        }
        if (options_.pre_route && !options_.pre_route(req, res)) {
            res.set_header("Connection", "close");
            t_current.close_after = true;
            return httplib::Server::HandlerResponse::Handled;
        }
        return httplib::Server::HandlerResponse::Unhandled;
    });

    s.set_error_handler([](const httplib::Request&, httplib::Response& res) {
        ensure_correlation_id(res);
        // A limit tripped while reading: the library saw only a failed read
        // (400); say which limit it was, and close.
        if (t_current.stream != nullptr && t_current.stream->limit_hit() != LimitHit::kNone) {
            res.status = status_for(t_current.stream->limit_hit());
            res.body.clear();
            res.set_header("Connection", "close");
        }
        // Refused before its headers were accepted (a bad request line, a
        // URI too long): any body is unread, so nothing after it on this
        // connection can be trusted to start a request.
        if (t_current.stream != nullptr && !t_current.stream->in_body()) {
            res.set_header("Connection", "close");
            t_current.close_after = true;
        }
        t_current.body_done();
        if (res.body.empty()) {
            write_error(res, res.status, status_text(res.status));
        }
    });

    s.set_exception_handler(
        [](const httplib::Request& req, httplib::Response& res, const std::exception_ptr& ep) {
            std::string what = "unknown exception";
            try {
                if (ep) std::rethrow_exception(ep);
            } catch (const std::exception& e) {
                what = e.what();
            } catch (...) {
            }
            ensure_correlation_id(res);
            spdlog::error("correlation_id={} {} {} handler threw: {}", correlation_id_of(res),
                          req.method, req.path, what);
            write_error(res, 500, "internal error; quote the correlation id when reporting it");
        });

    // Counted just before the response is written (the status is final
    // then), so a client that has its answer also finds it counted. A
    // deferred answer is counted and logged when it is sent.
    s.set_post_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
        if (t_current.deferred) return;
        series_->requests(current_route(), req.method, res.status).Increment();
    });

    s.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
        const std::string route = current_route();
        const auto start = t_request.active ? t_request.start : std::chrono::steady_clock::now();
        t_request.active = false;
        if (t_current.deferred) {
            t_current.deferred->set_on_sent(
                [this, route, start, method = req.method, path = req.path, peer = req.remote_addr,
                 cid = correlation_id_of(res)](int status, DeferredAnswer::HeldAt held_at) {
                    series_->requests(route, method, status).Increment();
                    record_request(route, method, path, peer, cid, status, start, held_at);
                });
            return;
        }
        record_request(route, req.method, req.path, req.remote_addr, correlation_id_of(res),
                       res.status, start, std::nullopt);
    });
}

void HttpServer::relabel_current_route(const std::string& label) {
    if (t_request.active) t_request.route = label;
}

std::string HttpServer::current_route() const {
    return !t_request.active || t_request.route.empty() ? "unmatched" : t_request.route;
}

void HttpServer::record_request(const std::string& route, const std::string& method,
                                const std::string& path, const std::string& peer,
                                const std::string& correlation_id, int status,
                                std::chrono::steady_clock::time_point start,
                                std::optional<std::chrono::steady_clock::time_point> held_at) {
    const auto now = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(now - start).count();
    const auto listed = [&route](const std::vector<std::string>& routes) {
        return std::find(routes.begin(), routes.end(), route) != routes.end();
    };
    const auto observe_long_poll = [&](double s) {
        long_poll_seconds_.Add({{"listener", options_.name}, {"route", route}}, long_poll_buckets())
            .Observe(s);
    };
    const auto observe_latency = [&](double s) { series_->latency(route, method).Observe(s); };
    if (listed(options_.long_poll_routes)) {
        observe_long_poll(seconds);
    } else if (held_at) {
        // The work (a result's commit), then the hold (the next poll).
        observe_latency(std::chrono::duration<double>(*held_at - start).count());
        observe_long_poll(std::chrono::duration<double>(now - *held_at).count());
    } else {
        observe_latency(seconds);
    }
    // key=value words: the JSON log format lifts them into fields.
    spdlog::log(listed(options_.debug_log_routes) ? spdlog::level::debug : spdlog::level::info,
                "http request correlation_id={} listener={} method={} path={} status={} "
                "route={} ms={:.2f} peer={}",
                correlation_id, options_.name, method, path, status, route, seconds * 1000.0, peer);
}

Handler HttpServer::wrap(const std::string& method, const std::string& route, Handler handler) {
    (void)method;
    return [route, max_body = options_.max_request_body, handler = std::move(handler)](
               const httplib::Request& req, httplib::Response& res) {
        t_request.route = route;
        t_current.body_done();
        // A chunked body is capped on its raw size while it arrives (framing
        // included); the decoded size is held to the limit exactly here.
        if (req.body.size() > max_body) {
            write_error(res, 413, status_text(413));
            return;
        }
        handler(req, res);
    };
}

void HttpServer::get(const std::string& pattern, const std::string& route, Handler handler) {
    server_->Get(pattern, wrap("GET", route, std::move(handler)));
}
void HttpServer::post(const std::string& pattern, const std::string& route, Handler handler) {
    server_->Post(pattern, wrap("POST", route, std::move(handler)));
}
void HttpServer::put(const std::string& pattern, const std::string& route, Handler handler) {
    server_->Put(pattern, wrap("PUT", route, std::move(handler)));
}
void HttpServer::del(const std::string& pattern, const std::string& route, Handler handler) {
    server_->Delete(pattern, wrap("DELETE", route, std::move(handler)));
}
void HttpServer::options_route(const std::string& pattern, const std::string& route,
                               Handler handler) {
    server_->Options(pattern, wrap("OPTIONS", route, std::move(handler)));
}

Status HttpServer::bind() {
    errno = 0;
    const int port =
        options_.port == 0
            ? server_->bind_to_any_port(options_.host)
            : (server_->bind_to_port(options_.host, options_.port) ? options_.port : -1);
    if (port <= 0) {
        const int saved_errno = errno;
        return Status::Unavailable("cannot listen on " +
                                   address_text(options_.host, options_.port) + ": " +
                                   bind_failure_reason(options_.host, options_.port, saved_errno));
    }
    port_ = port;
    const int fd = listen_fd_.load();
    if (fd >= 0 && ::listen(fd, options_.listen_backlog) != 0) {
        spdlog::warn("listener={} could not raise listen backlog to {}", options_.name,
                     options_.listen_backlog);
    }
    return Status::Ok();
}

void HttpServer::serve() {
    gate_->start();
    server_->listen_after_bind();
}

void HttpServer::stop() {
    if (server_ && server_->is_running()) server_->stop();
}

bool HttpServer::running() const {
    return server_->is_running();
}

}  // namespace yuzu::http
