// GatedServer<httplib::Server or httplib::SSLServer>: cpp-httplib with its
// per-connection loop replaced. The library's accept thread still accepts,
// but each accepted socket goes to the ConnectionGate instead of a worker,
// and a worker serves a connection's ready requests through a
// ConnectionStream (deadlines, byte caps) by calling the library's own
// request parser and router (`process_request`).
//
// Overriding the private virtual `process_and_close_socket` is how 0.11.4
// lets a subclass own the connection; `process_request` is protected for
// the same purpose.
#pragma once

#include <httplib.h>
#include <openssl/err.h>
#include <poll.h>

#include <atomic>
#include <chrono>
#include <string_view>
#include <utility>

#include "http/connection.hpp"
#include "http/connection_gate.hpp"
#include "http/deferred_answer.hpp"
#include "http/request_scan.hpp"

namespace yuzu::http {

// Per worker thread: the stream serving the current request, for the hooks
// (pre-routing, error handler) that cpp-httplib runs on the same thread.
struct CurrentRequest {
    ConnectionStream* stream = nullptr;
    ConnectionGate* gate = nullptr;
    Connection* conn = nullptr;
    bool close_after = false;  // a hook refused it with the body unread
    // Set by defer_reply(): the handler answers later, through this.
    std::shared_ptr<DeferredAnswer> deferred;

    // The body has been read (or never will be): its slot can go.
    void body_done() const {
        if (gate != nullptr && conn != nullptr) gate->release_body_slot(*conn);
    }
};
inline thread_local CurrentRequest t_current;

// The part of a gated server the gate needs, whatever its base class.
class ConnectionServer {
  public:
    virtual ~ConnectionServer() = default;
    virtual void attach(ConnectionGate* gate, const ConnectionLimits* limits) = 0;
    virtual ConnectionGate::AfterServe serve_connection(Connection& conn) = 0;
};

// Completes a server-side TLS handshake on a non-blocking socket by
// `deadline`; false on failure, timeout or stop.
inline bool tls_accept(Connection& conn, SSL_CTX* ctx, SteadyTime deadline,
                       const std::atomic<bool>& stopping) {
    SSL* ssl = SSL_new(ctx);
    if (ssl == nullptr || SSL_set_fd(ssl, conn.fd) != 1) {
        if (ssl != nullptr) SSL_free(ssl);
        return false;
    }
    for (;;) {
        ERR_clear_error();
        const int r = SSL_accept(ssl);
        if (r == 1) break;
        const int err = SSL_get_error(ssl, r);
        short events = 0;
        if (err == SSL_ERROR_WANT_READ) events = POLLIN;
        if (err == SSL_ERROR_WANT_WRITE) events = POLLOUT;
        const auto now = std::chrono::steady_clock::now();
        if (events == 0 || now >= deadline || stopping.load()) {
            ERR_clear_error();
            SSL_free(ssl);
            return false;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
        pollfd pfd{conn.fd, events, 0};
        (void)::poll(&pfd, 1, static_cast<int>(std::min<long>(left.count() + 1, 100)));
    }
    conn.ssl = ssl;
    return true;
}

template <class Base>
class GatedServer final : public Base, public ConnectionServer {
  public:
    template <class... Args>
    explicit GatedServer(Args&&... args) : Base(std::forward<Args>(args)...) {}

    void attach(ConnectionGate* gate, const ConnectionLimits* limits) override {
        gate_ = gate;
        limits_ = limits;
    }

    ConnectionGate::AfterServe serve_connection(Connection& conn) override {
        using After = ConnectionGate::AfterServe;
        const std::atomic<bool>& stopping = gate_->stopping();
        if constexpr (std::is_base_of_v<httplib::SSLServer, Base>) {
            if (conn.ssl == nullptr &&
                !tls_accept(conn, this->ssl_context(),
                            std::chrono::steady_clock::now() + limits_->header, stopping)) {
                return After::kClose;
            }
        }
        ConnectionStream stream(conn, *limits_, stopping);
        for (;;) {
            stream.begin_request();
            const bool last =
                ++conn.requests_served >= limits_->keep_alive_max_count || gate_->draining();
            bool closed = false;
            t_current = CurrentRequest{&stream, gate_, &conn, false, nullptr};
            // Reset however process_request ends, so no hook on this thread
            // ever sees a stream that is gone.
            struct Reset {
                ~Reset() { t_current = CurrentRequest{}; }
            } reset;
            bool ok = this->process_request(stream, last, closed, nullptr);
            // The response's header block may still be held (connection.hpp).
            if (!stream.flush()) ok = false;
            const bool close_after = t_current.close_after;
            std::shared_ptr<DeferredAnswer> deferred = std::move(t_current.deferred);
            gate_->release_body_slot(conn);
            if (deferred) {
                // A pipelined request behind a deferred one is not served:
                // the connection closes after the deferred reply.
                conn.close_after_reply = !ok || closed || last || close_after ||
                                         stream.limit_hit() != LimitHit::kNone ||
                                         stream.has_pending();
                conn.header_complete = false;
                conn.deferred = std::move(deferred);
                return After::kDeferred;
            }
            if (stream.limit_hit() == LimitHit::kBodyTooLarge || close_after) {
                return After::kLinger;
            }
            if (!ok || closed || last || stream.limit_hit() != LimitHit::kNone) {
                return After::kClose;
            }
            conn.header_complete = false;
            if (!stream.has_pending()) return After::kKeepAlive;
            // A pipelined request is served on this worker only when it is
            // already complete; a partial one would hold the worker while it
            // trickles in, which is what the gate exists to prevent.
            if (conn.ssl == nullptr && !pipelined_request_complete(conn)) return After::kClose;
        }
    }

  private:
    static bool pipelined_request_complete(const Connection& conn) {
        const std::string_view pending =
            std::string_view(conn.buffered).substr(conn.buffered_offset);
        const size_t end = header_block_end(pending, 0);
        // The stream still holds the header block to the header caps.
        return end != std::string_view::npos && body_arrived(pending, end);
    }

    // The library's accept thread calls this for every accepted socket.
    bool process_and_close_socket(socket_t sock) override {
        gate_->admit(sock);
        return true;
    }

    ConnectionGate* gate_ = nullptr;
    const ConnectionLimits* limits_ = nullptr;
};

}  // namespace yuzu::http
