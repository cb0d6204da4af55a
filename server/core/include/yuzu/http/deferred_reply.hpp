// DeferredReply: a response a handler finishes later, from any thread,
// without holding a worker thread while it waits.
//
// The agent plane's long-polls and result uploads use it: a poll with
// nothing queued hands its reply to the poll parking and returns, so ten
// thousand waiting agents cost ten thousand sockets, not ten thousand
// threads. The listener writes the reply on one of its workers when send()
// is called, then keeps the connection alive (or closes it) as the request
// asked.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace httplib {
struct Response;
}

namespace yuzu::http {

class DeferredReply {
  public:
    using Headers = std::vector<std::pair<std::string, std::string>>;

    virtual ~DeferredReply() = default;
    // Sends the answer with Content-Type application/json and
    // Cache-Control: no-store (plus `headers`). Once: later calls are
    // ignored. Never blocks on the network. A reply dropped without send()
    // closes its connection (the client sees the connection end and retries).
    virtual void send_json(int status, std::string body, Headers headers = {}) = 0;
    // The request's correlation id (already on every log line about it).
    virtual const std::string& correlation_id() const = 0;
    // Runs once, on the listener's poller thread, if the client closes the
    // connection while the reply is still due (a long-poll whose agent
    // died); the connection is closed by then and a later send() does
    // nothing. Runs at once if that already happened. Must not block.
    virtual void on_client_gone(std::function<void()> callback) = 0;
    // From now on the reply waits for an event, not for work (a result's
    // reply held as the agent's next long-poll): the time from here to the
    // answer is measured as a long-poll's, not as the request's latency.
    virtual void mark_held() = 0;
};

// Called inside a handler on an HttpServer listener: the answer will be the
// one sent through the returned handle, not `res`. Null when this request
// cannot be deferred (then the handler answers through `res` as usual).
std::shared_ptr<DeferredReply> defer_reply(httplib::Response& res);

}  // namespace yuzu::http
