// ConnectionGate: admission and waiting for one listener's connections, so
// that only requests ready to be served ever occupy a worker thread.
//
// cpp-httplib gives every connection a worker for its whole life, idle
// keep-alive included, so a few idle or trickling sockets used to starve a
// listener. The gate changes that:
// - admission: a connection beyond the listener's cap (or its peer's) is
//   answered 503 / 429 with Retry-After at once and closed;
// - waiting: one poller thread (epoll) holds every connection that has no
//   request ready: fresh ones, kept-alive ones between requests, and — for
//   plain HTTP — ones still sending their request line and headers, which it
//   reads itself into a bounded buffer. A fresh or kept-alive connection
//   silent for the idle timeout is closed; a header block not complete
//   within the header timeout gets 408, one over the header caps 431;
// - hand-off: a connection whose header block is complete (for TLS: that has
//   bytes to read) goes to a bounded queue in front of the worker pool; when
//   that queue is full the answer is 503 with Retry-After, never a wait.
//   A request whose body has not fully arrived yet takes a worker only while
//   a quarter of the workers (at least two) stay free for complete
//   requests; otherwise it waits here, unread, for --http-body-timeout
//   (then 503). Slow uploads cannot take every worker.
// After a request the worker gives the connection back to the poller.
#pragma once

#include <sys/epoll.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "http/connection.hpp"
#include "http/deferred_answer.hpp"

namespace yuzu::metrics {
class Registry;
template <typename T>
class Family;
class Counter;
class Gauge;
}  // namespace yuzu::metrics

namespace yuzu::http {

struct GateOptions {
    std::string listener;  // the `listener` label
    bool tls = false;      // no plaintext refusals, no header pre-read
    ConnectionLimits limits;
    int workers = 8;
    size_t queue_capacity = 0;  // 0: 4 x workers
    int max_connections = 1024;
    int max_connections_per_peer = 0;  // 0: no per-peer cap
    int thread_niceness = 0;           // added to the poller's and workers' nice value
    // After a keep-alive answer, how long the worker waits for the client's
    // next request before parking the connection with the poller (only
    // while no other connection waits for a worker). A client that sends
    // its next request within a round trip skips the poller's hand-off.
    // Zero: always park.
    std::chrono::microseconds next_request_wait{1000};
};

class ConnectionGate {
  public:
    // What becomes of a connection after a worker served it.
    enum class AfterServe {
        kClose,
        kKeepAlive,  // the gate waits for its next request
        kLinger,     // a refusal was sent with the body unread: the gate
                     // discards what still arrives for a moment, then
                     // closes, so the client can read the answer
        kDeferred,   // the handler answers later: the connection goes to
                     // its DeferredAnswer (connection.deferred)
    };
    // Serves requests on a connection handed to a worker.
    using Serve = std::function<AfterServe(Connection&)>;

    ConnectionGate(GateOptions options, Serve serve, metrics::Registry& registry);
    ~ConnectionGate();
    ConnectionGate(const ConnectionGate&) = delete;
    ConnectionGate& operator=(const ConnectionGate&) = delete;

    // Starts the poller and the workers; idempotent.
    void start();
    // Takes ownership of an accepted socket. Called on the accept thread;
    // never blocks.
    void admit(int fd);
    // Stops: closes idle connections at once, gives requests already
    // arriving a grace of two seconds to complete, lets the workers finish
    // every complete request, joins every thread.
    // Idempotent; the gate cannot be restarted.
    void shutdown();

    // Set once shutdown() begins: no connection is kept alive any more.
    bool draining() const { return draining_.load(); }
    // Set once the drain grace is over; streams read it to give up waiting.
    const std::atomic<bool>& stopping() const { return stopping_; }
    const GateOptions& options() const { return options_; }
    // Gives back the connection's body slot, if it holds one (its body has
    // been read, or it is closing). Idempotent; any thread.
    void release_body_slot(Connection& conn);

    // Deferred answers (deferred_answer.hpp) share this hub with the gate.
    const std::shared_ptr<DeferredHub>& hub() const { return hub_; }
    // A connection whose deferred reply is ready (conn->pending_reply): a
    // worker writes it, then keeps the connection alive or closes it. Never
    // refused for a full queue: the connection was admitted already. Any
    // thread; the caller holds hub()->mu.
    void resume(std::unique_ptr<Connection> conn);
    // Closes a connection and gives back its admission counts. Any thread.
    void close_connection(std::unique_ptr<Connection> conn);
    // A connection held by a deferred answer is watched for the client
    // hanging up (and no longer, once the answer goes out). Any thread; the
    // caller holds hub()->mu.
    void watch_held(int fd);
    void unwatch_held(int fd);

  private:
    struct Waiting;

    // Thread bodies: nothing escapes them. An iteration that throws is
    // logged and counted (yuzu_thread_exceptions_total) and the loop goes on.
    void poll_loop() noexcept;
    void worker_loop() noexcept;
    bool poll_once();   // one wait and what it found; false: the poller is done
    bool serve_next();  // one queued connection; false: stopping and drained
    // Poller thread only.
    void watch(std::unique_ptr<Connection> conn);
    void on_readable(int fd);
    // What the request whose first bytes are in conn.buffered allows. kReady
    // takes a body slot when the body has not all arrived and one is free.
    enum class Arrival { kPartial, kTooLarge, kReady, kNoBodySlot };
    // queue_jumper: a worker's read (next_request_arrived), which takes no
    // body slot while uploads wait in the poller for one.
    Arrival classify_arrival(Connection& conn, size_t scan_from, bool queue_jumper);
    // One of max_body_readers_ slots, if one is free. Any thread.
    bool take_body_slot();
    // Worker: waits up to next_request_wait for the next request on a
    // kept-alive connection; true when it may be served at once.
    bool next_request_arrived(Connection& conn);
    // A held connection hung up; false when `fd` is not held.
    bool on_held_event(int fd);
    void on_deadline(int fd);
    void unwatch(int fd, Waiting& w);
    void hand_off(std::unique_ptr<Connection> conn);
    void close_idle_for_drain();
    void grant_body_slots();
    // Any thread.
    void park(std::unique_ptr<Connection> conn);
    void linger(std::unique_ptr<Connection> conn);
    void refuse(std::unique_ptr<Connection> conn, int status, const char* message,
                const char* reason, int retry_after_s);
    void wake_poller();
    // A worker writes a deferred reply; false when the write failed.
    bool write_pending_reply(Connection& conn);

    const GateOptions options_;
    const Serve serve_;
    // The threads' names in logs and on yuzu_thread_exceptions_total.
    const std::string poller_thread_;
    const std::string worker_thread_;
    metrics::Family<metrics::Counter>& refused_;
    metrics::Gauge& open_gauge_;
    // Workers that may be reading a request body that has not fully arrived;
    // the rest are a reserve for requests that are complete.
    const int max_body_readers_;
    std::atomic<int> body_readers_{0};
    // Set while body_slot_waiters_ may hold an upload (poller writes).
    std::atomic<bool> uploads_waiting_{false};

    std::atomic<bool> draining_{false};
    std::atomic<bool> stopping_{false};
    bool started_ = false;
    std::mutex lifecycle_mu_;

    // Admission counts, shared by the accept thread and whoever closes.
    std::mutex counts_mu_;
    int open_ = 0;
    std::map<std::string, int> per_peer_;

    // Connections on their way to the poller.
    std::mutex inbox_mu_;
    std::vector<std::unique_ptr<Connection>> inbox_;
    bool poller_exited_ = false;
    int epoll_fd_ = -1;
    int wake_fd_ = -1;
    std::thread poller_;
    // Poller thread only.
    std::vector<epoll_event> events_;
    std::optional<SteadyTime> drain_until_;
    std::map<int, std::unique_ptr<Waiting>> waiting_;
    std::multimap<SteadyTime, int> deadlines_;
    std::deque<int> body_slot_waiters_;

    // The hand-off queue in front of the workers.
    std::mutex queue_mu_;
    std::condition_variable queue_cv_;
    std::deque<std::unique_ptr<Connection>> queue_;
    std::vector<std::thread> workers_;

    const std::shared_ptr<DeferredHub> hub_ = std::make_shared<DeferredHub>();
};

}  // namespace yuzu::http
