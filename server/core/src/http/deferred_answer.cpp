#include "http/deferred_answer.hpp"

#include <httplib.h>
#include <unistd.h>

#include <utility>

#include "http/connection_gate.hpp"
#include "http/gated_server.hpp"
#include "yuzu/http/server.hpp"

namespace yuzu::http {

std::string format_json_response(int status, const std::string& body,
                                 const DeferredReply::Headers& headers,
                                 const std::string& correlation_id, bool keep_alive) {
    std::string out;
    out.reserve(256 + body.size());
    out += "HTTP/1.1 ";
    out += std::to_string(status);
    out += ' ';
    out += reason_phrase(status);
    // A 204 has no body and, by RFC 9110, no Content-Length either.
    if (status != 204) {
        out += "\r\nContent-Type: application/json\r\nCache-Control: no-store\r\nContent-Length: ";
        out += std::to_string(body.size());
    }
    out += "\r\nX-Correlation-Id: ";
    out += correlation_id;
    out += keep_alive ? "\r\nConnection: keep-alive" : "\r\nConnection: close";
    for (const auto& [name, value] : headers) {
        out += "\r\n";
        out += name;
        out += ": ";
        out += value;
    }
    out += "\r\n\r\n";
    out += body;
    return out;
}

void close_connection_on(ConnectionGate* gate, std::unique_ptr<Connection> conn) {
    if (!conn) return;
    if (gate != nullptr) {
        gate->close_connection(std::move(conn));
        return;
    }
    if (conn->ssl != nullptr) {
        SSL_free(conn->ssl);
        conn->ssl = nullptr;
    }
    ::close(conn->fd);
}

DeferredAnswer::DeferredAnswer(std::shared_ptr<DeferredHub> hub, std::string correlation_id)
    : hub_(std::move(hub)), correlation_id_(std::move(correlation_id)) {}

DeferredAnswer::~DeferredAnswer() {
    std::unique_ptr<Connection> conn;
    ConnectionGate* gate = nullptr;
    {
        std::lock_guard lock(hub_->mu);
        conn = std::move(conn_);
        gate = hub_->gate;
        if (conn) {
            hub_->holding.erase(conn->fd);
            if (gate != nullptr) gate->unwatch_held(conn->fd);
        }
        // Closed under the lock, so the gate cannot stop in between.
        if (conn) close_connection_on(gate, std::move(conn));
    }
}

void DeferredAnswer::set_on_sent(OnSent on_sent) {
    std::optional<int> already;
    HeldAt held_at;
    {
        std::lock_guard lock(hub_->mu);
        if (sent_status_) {
            already = sent_status_;
            held_at = held_at_;
        } else {
            on_sent_ = std::move(on_sent);
            return;
        }
    }
    on_sent(*already, held_at);
}

void DeferredAnswer::mark_held() {
    std::lock_guard lock(hub_->mu);
    if (!held_at_ && !reply_ && !gone_) held_at_ = std::chrono::steady_clock::now();
}

void DeferredAnswer::send_json(int status, std::string body, Headers headers) {
    std::lock_guard lock(hub_->mu);
    if (reply_) return;  // once
    reply_ = Reply{status, std::move(body), std::move(headers)};
    if (conn_) {
        hub_->holding.erase(conn_->fd);
        if (hub_->gate != nullptr) hub_->gate->unwatch_held(conn_->fd);
        dispatch_locked(std::move(conn_));
    }
    if (!on_sent_) {
        sent_status_ = status;
        return;
    }
    // Under the hub's lock while the listener is alive: the callback is the
    // listener's own (metrics, access log), and the listener clears the
    // hub's gate, under the same lock, before it goes away.
    if (hub_->gate != nullptr) on_sent_(status, held_at_);
    on_sent_ = nullptr;
}

void DeferredAnswer::on_client_gone(std::function<void()> callback) {
    {
        std::lock_guard lock(hub_->mu);
        if (!gone_) {
            on_gone_ = std::move(callback);
            return;
        }
    }
    callback();
}

std::function<void()> DeferredAnswer::client_gone_locked() {
    if (!conn_ || reply_) return {};
    hub_->holding.erase(conn_->fd);
    close_connection_on(hub_->gate, std::move(conn_));
    gone_ = true;
    reply_ = Reply{};  // nothing will be sent any more
    // Counted and logged like any request, as 499 (client closed): the
    // listener is alive, this runs on its poller.
    if (on_sent_) {
        on_sent_(kClientClosedStatus, held_at_);
        on_sent_ = nullptr;
    } else {
        sent_status_ = kClientClosedStatus;
    }
    return std::move(on_gone_);
}

void DeferredAnswer::adopt(std::unique_ptr<Connection> conn) {
    std::lock_guard lock(hub_->mu);
    adopted_ = true;
    if (reply_) {
        dispatch_locked(std::move(conn));
        return;
    }
    if (hub_->gate == nullptr || hub_->closing) {
        close_connection_on(hub_->gate, std::move(conn));
        return;
    }
    const int fd = conn->fd;
    conn_ = std::move(conn);
    hub_->holding[fd] = this;
    hub_->gate->watch_held(fd);
}

std::unique_ptr<Connection> DeferredAnswer::release_locked() {
    if (conn_) {
        hub_->holding.erase(conn_->fd);
        if (hub_->gate != nullptr) hub_->gate->unwatch_held(conn_->fd);
    }
    return std::move(conn_);
}

void DeferredAnswer::dispatch_locked(std::unique_ptr<Connection> conn) {
    const bool keep_alive = !conn->close_after_reply;
    conn->pending_reply = format_json_response(reply_->status, reply_->body, reply_->headers,
                                               correlation_id_, keep_alive);
    if (hub_->gate == nullptr) {
        close_connection_on(nullptr, std::move(conn));
        return;
    }
    hub_->gate->resume(std::move(conn));
}

std::shared_ptr<DeferredReply> defer_reply(httplib::Response& res) {
    CurrentRequest& current = t_current;
    if (current.stream == nullptr || current.gate == nullptr || current.deferred) return nullptr;
    auto answer = std::make_shared<DeferredAnswer>(current.gate->hub(), correlation_id_of(res));
    current.stream->discard_writes();
    current.deferred = answer;
    return answer;
}

}  // namespace yuzu::http
