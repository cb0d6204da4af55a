// DeferredAnswer: the listener's side of a DeferredReply.
//
// Two things must meet before the answer can go out: the connection (the
// worker hands it over once the handler and cpp-httplib are done with the
// request) and the reply (send(), from whichever thread finishes the
// handler's work). Whichever arrives second queues the formatted reply for a
// worker through ConnectionGate::resume. All state is guarded by the hub's
// mutex, which the gate also takes when it shuts down, so an answer that
// outlives its listener closes its socket instead of touching a dead gate.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "http/connection.hpp"
#include "yuzu/http/deferred_reply.hpp"

namespace yuzu::http {

class ConnectionGate;
class DeferredAnswer;

// One per gate; shared with every answer it created.
struct DeferredHub {
    std::mutex mu;
    ConnectionGate* gate = nullptr;  // null once the gate has stopped
    // Answers holding a connection, by its socket (watched for the client
    // hanging up).
    std::unordered_map<int, DeferredAnswer*> holding;
    bool closing = false;  // the gate drains: no more holding
};

class DeferredAnswer final : public DeferredReply {
  public:
    // The status a reply whose client hung up is counted and logged with
    // (nginx's "client closed request"; never sent).
    static constexpr int kClientClosedStatus = 499;

    // Told the final status when the reply is sent (for metrics and the
    // access log), and when mark_held() was called if it was; may be
    // installed after send() and then runs at once.
    using HeldAt = std::optional<std::chrono::steady_clock::time_point>;
    using OnSent = std::function<void(int status, HeldAt held_at)>;

    DeferredAnswer(std::shared_ptr<DeferredHub> hub, std::string correlation_id);
    ~DeferredAnswer() override;

    void send_json(int status, std::string body, Headers headers) override;
    const std::string& correlation_id() const override { return correlation_id_; }

    void on_client_gone(std::function<void()> callback) override;
    void mark_held() override;

    void set_on_sent(OnSent on_sent);
    // The poller saw the held connection hang up: closes it and tells the
    // owner (on_client_gone). Caller holds hub->mu; the callback to run
    // after unlocking is returned.
    std::function<void()> client_gone_locked();
    // The worker hands over the connection after the request was served
    // (conn->close_after_reply says whether it is kept alive afterwards).
    void adopt(std::unique_ptr<Connection> conn);
    // The gate is draining: the held connection (if any) is closed at once.
    // Caller holds hub->mu.
    std::unique_ptr<Connection> release_locked();

  private:
    struct Reply {
        int status = 200;
        std::string body;
        Headers headers;
    };
    // Formats the reply onto the connection and queues it. Caller holds hub->mu.
    void dispatch_locked(std::unique_ptr<Connection> conn);

    const std::shared_ptr<DeferredHub> hub_;
    const std::string correlation_id_;
    // Guarded by hub_->mu:
    std::unique_ptr<Connection> conn_;
    bool adopted_ = false;
    std::optional<Reply> reply_;
    OnSent on_sent_;
    std::function<void()> on_gone_;
    bool gone_ = false;
    std::optional<int> sent_status_;  // sent before on_sent_ was installed
    HeldAt held_at_;
};

// Closes a connection through its gate (which keeps the counts), or
// directly once the gate has stopped. Caller holds the hub's mutex.
void close_connection_on(ConnectionGate* gate, std::unique_ptr<Connection> conn);

// The bytes of a complete HTTP/1.1 response with a JSON body.
std::string format_json_response(int status, const std::string& body,
                                 const DeferredReply::Headers& headers,
                                 const std::string& correlation_id, bool keep_alive);

}  // namespace yuzu::http
