#include "http/connection_gate.hpp"

#include <fcntl.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string_view>

#include "http/request_scan.hpp"
#include "yuzu/common/thread_guard.hpp"
#include "yuzu/common/thread_priority.hpp"
#include "yuzu/metrics/builder.hpp"

namespace yuzu::http {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

void lower_priority_or_warn(int steps, const std::string& thread) {
    if (Status s = lower_thread_priority(steps); !s.ok()) {
        spdlog::warn("{}: {}", thread, s.message());
    }
}

constexpr int kBusyRetryAfterS = 1;
constexpr int kPeerRetryAfterS = 5;
constexpr size_t kReadChunk = 4096;
// How long a refused client's remaining upload is read and discarded.
constexpr milliseconds kLinger{2000};
// The poller wakes at least this often, so a stop is never missed.
constexpr milliseconds kMaxPollWait{1000};
// At a stop, how long a request whose first bytes have arrived may take to
// arrive completely.
constexpr milliseconds kStopGrace{2000};
// After an iteration threw: a pause, so one that throws every time cannot
// spin a core or flood the log.
constexpr milliseconds kAfterThrowPause{10};

// Appends what the socket has (non-blocking) to conn.buffered, up to `cap`
// bytes in all. True when the peer closed or the socket failed.
bool read_available(Connection& conn, size_t cap) {
    while (conn.buffered.size() < cap) {
        char chunk[kReadChunk];
        const size_t want = std::min(sizeof chunk, cap - conn.buffered.size());
        const ssize_t r = ::recv(conn.fd, chunk, want, 0);
        if (r > 0) {
            conn.buffered.append(chunk, static_cast<size_t>(r));
            // A short read took all there was; asking again would only
            // hear EAGAIN. The socket stays level-triggered, so anything
            // arriving later is reported again.
            if (static_cast<size_t>(r) < want) return false;
            continue;
        }
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return false;
        return true;  // orderly close or a socket error
    }
    return false;
}

}  // namespace

struct ConnectionGate::Waiting {
    std::unique_ptr<Connection> conn;
    std::multimap<SteadyTime, int>::iterator deadline;
    bool reading = false;  // the first byte of a request has arrived
    bool lingering = false;
    bool awaiting_body_slot = false;  // headers done, body unread, no slot free
    size_t scanned = 0;               // bytes of `buffered` searched for the header end
};

ConnectionGate::ConnectionGate(GateOptions options, Serve serve, metrics::Registry& registry)
    : options_(std::move(options)),
      serve_(std::move(serve)),
      poller_thread_("http." + options_.listener + ".poller"),
      worker_thread_("http." + options_.listener + ".worker"),
      refused_(metrics::BuildCounter()
                   .Name("yuzu_http_connections_refused_total")
                   .Help("Connections closed by a listener's limits before or instead of being "
                         "served, by listener and reason.")
                   .Register(registry)),
      open_gauge_(metrics::BuildGauge()
                      .Name("yuzu_http_open_connections")
                      .Help("Client connections open on a listener, waiting or being served.")
                      .Register(registry)
                      .Add({{"listener", options_.listener}})),
      max_body_readers_(std::max(1, options_.workers - std::max(2, options_.workers / 4))) {
    hub_->gate = this;
}

ConnectionGate::~ConnectionGate() {
    shutdown();
}

void ConnectionGate::start() {
    std::lock_guard<std::mutex> lock(lifecycle_mu_);
    if (started_ || stopping_.load()) return;
    started_ = true;
    epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
    wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    assert(epoll_fd_ >= 0 && wake_fd_ >= 0);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = wake_fd_;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev);
    events_.resize(256);
    poller_ = std::thread([this]() noexcept { poll_loop(); });
    for (int i = 0; i < std::max(1, options_.workers); ++i) {
        workers_.emplace_back([this]() noexcept { worker_loop(); });
    }
}

void ConnectionGate::shutdown() {
    std::lock_guard<std::mutex> lock(lifecycle_mu_);
    if (draining_.exchange(true)) return;
    if (!started_) {
        stopping_.store(true);
        std::lock_guard<std::mutex> hub_lock(hub_->mu);
        hub_->gate = nullptr;
        return;
    }
    // Connections held by deferred answers are closed now: their owners
    // (long-polls, mostly) would otherwise keep them past the drain.
    {
        std::lock_guard<std::mutex> hub_lock(hub_->mu);
        hub_->closing = true;
        std::vector<DeferredAnswer*> holding;
        for (const auto& [fd, answer] : hub_->holding) holding.push_back(answer);
        for (DeferredAnswer* answer : holding) close_connection(answer->release_locked());
    }
    // Drain: the poller closes idle connections at once and gives requests
    // already arriving a short grace to complete; then reads stop waiting
    // and the workers finish what they hold.
    wake_poller();
    poller_.join();
    {
        // Under the queue's lock, so no worker between its predicate check
        // and its wait misses the wake-up.
        std::lock_guard<std::mutex> queue_lock(queue_mu_);
        stopping_.store(true);
    }
    queue_cv_.notify_all();
    for (auto& t : workers_) t.join();
    {
        // A reply resumed after the last worker left is closed unsent.
        std::lock_guard<std::mutex> hub_lock(hub_->mu);
        hub_->gate = nullptr;
        std::lock_guard<std::mutex> queue_lock(queue_mu_);
        while (!queue_.empty()) {
            close_connection(std::move(queue_.front()));
            queue_.pop_front();
        }
    }
    ::close(wake_fd_);
    ::close(epoll_fd_);
}

void ConnectionGate::wake_poller() {
    const uint64_t one = 1;
    (void)!::write(wake_fd_, &one, sizeof one);
}

void ConnectionGate::admit(int fd) {
    const int flags = ::fcntl(fd, F_GETFL, 0);
    ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    int yes = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    auto conn = std::make_unique<Connection>();
    conn->fd = fd;
    socket_address(fd, /*peer=*/true, conn->peer, conn->peer_port);
    const char* refusal = nullptr;
    {
        std::lock_guard<std::mutex> lock(counts_mu_);
        if (draining_.load()) {
            ::close(fd);
            return;
        }
        auto peer = per_peer_.find(conn->peer);
        const int from_peer = peer == per_peer_.end() ? 0 : peer->second;
        if (open_ >= options_.max_connections) {
            refusal = "max_connections";
        } else if (options_.max_connections_per_peer > 0 &&
                   from_peer >= options_.max_connections_per_peer) {
            refusal = "per_peer";
        } else {
            ++open_;
            ++per_peer_[conn->peer];
        }
    }
    if (refusal != nullptr) {
        refused_.Add({{"listener", options_.listener}, {"reason", refusal}}).Increment();
        const bool over_total = std::string_view(refusal) == "max_connections";
        if (!options_.tls && over_total) {
            send_refusal(fd, 503, "the server has too many open connections; retry later",
                         kBusyRetryAfterS);
        } else if (!options_.tls) {
            send_refusal(fd, 429, "too many connections from this address", kPeerRetryAfterS);
        }
        ::close(fd);
        return;
    }
    open_gauge_.Increment();
    std::lock_guard<std::mutex> lock(inbox_mu_);
    if (poller_exited_) {
        close_connection(std::move(conn));
        return;
    }
    inbox_.push_back(std::move(conn));
    wake_poller();
}

void ConnectionGate::park(std::unique_ptr<Connection> conn) {
    std::unique_lock<std::mutex> lock(inbox_mu_);
    if (poller_exited_ || draining_.load()) {
        lock.unlock();
        close_connection(std::move(conn));
        return;
    }
    inbox_.push_back(std::move(conn));
    wake_poller();
}

void ConnectionGate::linger(std::unique_ptr<Connection> conn) {
    ::shutdown(conn->fd, SHUT_WR);
    conn->lingering = true;
    park(std::move(conn));
}

void ConnectionGate::close_connection(std::unique_ptr<Connection> conn) {
    if (!conn) return;
    release_body_slot(*conn);
    // The place is freed before the peer can see the close: a client that
    // reconnects the moment it reads EOF must find it free.
    open_gauge_.Decrement();
    {
        std::lock_guard<std::mutex> lock(counts_mu_);
        --open_;
        auto it = per_peer_.find(conn->peer);
        if (it != per_peer_.end() && --it->second <= 0) per_peer_.erase(it);
    }
    if (conn->ssl != nullptr) {
        // One non-blocking close_notify; a peer that does not read it loses
        // nothing it asked for. The error queue is per thread and shared by
        // every connection this thread serves: leave it empty.
        ERR_clear_error();
        (void)SSL_shutdown(conn->ssl);
        ERR_clear_error();
        SSL_free(conn->ssl);
        conn->ssl = nullptr;
    }
    ::close(conn->fd);
}

void ConnectionGate::refuse(std::unique_ptr<Connection> conn, int status, const char* message,
                            const char* reason, int retry_after_s) {
    refused_.Add({{"listener", options_.listener}, {"reason", reason}}).Increment();
    release_body_slot(*conn);
    if (options_.tls) {
        close_connection(std::move(conn));
        return;
    }
    send_refusal(conn->fd, status, message, retry_after_s);
    // The client may still be sending: read and discard it for a moment so
    // the close does not reset the connection before the answer is read.
    conn->lingering = true;
    park(std::move(conn));
}

void ConnectionGate::watch(std::unique_ptr<Connection> conn) {
    const int fd = conn->fd;
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.fd = fd;
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
        spdlog::warn("listener={} could not watch a connection: {}", options_.listener,
                     std::strerror(errno));
        close_connection(std::move(conn));
        return;
    }
    auto w = std::make_unique<Waiting>();
    conn->header_complete = false;
    w->lingering = conn->lingering;
    w->conn = std::move(conn);
    w->deadline = deadlines_.emplace(
        steady_clock::now() + (w->lingering ? kLinger : options_.limits.idle), fd);
    const bool scan_now = w->conn->scan_when_watched;
    w->conn->scan_when_watched = false;
    waiting_[fd] = std::move(w);
    if (scan_now) on_readable(fd);
}

void ConnectionGate::unwatch(int fd, Waiting& w) {
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
    deadlines_.erase(w.deadline);
}

void ConnectionGate::on_readable(int fd) {
    auto found = waiting_.find(fd);
    if (found == waiting_.end()) return;
    Waiting& w = *found->second;
    Connection& conn = *w.conn;
    const ConnectionLimits& limits = options_.limits;
    if (w.awaiting_body_slot) {
        // Only EPOLLRDHUP is watched: the client gave up.
        auto owned = std::move(w.conn);
        unwatch(fd, w);
        waiting_.erase(found);
        close_connection(std::move(owned));
        return;
    }
    if (w.lingering) {
        char sink[kReadChunk];
        ssize_t r;
        while ((r = ::recv(fd, sink, sizeof sink, 0)) > 0) {
        }
        if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            auto owned = std::move(w.conn);
            unwatch(fd, w);
            waiting_.erase(found);
            close_connection(std::move(owned));
        }
        return;
    }
    if (options_.tls) {
        // Encrypted bytes cannot be inspected here; the worker reads the
        // request under the same deadlines and caps.
        auto owned = std::move(found->second->conn);
        unwatch(fd, w);
        waiting_.erase(found);
        hand_off(std::move(owned));
        return;
    }
    const bool eof = read_available(conn, limits.max_header_bytes + kReadChunk);
    auto finish = [&](auto&& then) {
        auto owned = std::move(w.conn);
        unwatch(fd, w);
        waiting_.erase(found);
        then(std::move(owned));
    };
    switch (classify_arrival(conn, w.scanned > 3 ? w.scanned - 3 : 0, /*queue_jumper=*/false)) {
        case Arrival::kTooLarge:
            finish([this](std::unique_ptr<Connection> c) {
                refuse(std::move(c), 431, "request headers exceed the server's limit",
                       "header_too_large", 0);
            });
            return;
        case Arrival::kPartial:
            w.scanned = conn.buffered.size();
            if (eof) {
                finish([this](std::unique_ptr<Connection> c) { close_connection(std::move(c)); });
            } else if (!w.reading && !conn.buffered.empty()) {
                w.reading = true;
                deadlines_.erase(w.deadline);
                w.deadline = deadlines_.emplace(steady_clock::now() + limits.header, fd);
            }
            return;
        case Arrival::kReady:
            finish([this](std::unique_ptr<Connection> c) { hand_off(std::move(c)); });
            return;
        case Arrival::kNoBodySlot:
            break;
    }
    // Every worker but the reserve is already reading a body: this one waits
    // here, unread, until one finishes, so slow uploads never take the
    // workers that everything else needs.
    epoll_event ev{};
    ev.events = EPOLLRDHUP;
    ev.data.fd = fd;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &ev);
    deadlines_.erase(w.deadline);
    w.deadline = deadlines_.emplace(steady_clock::now() + limits.body, fd);
    w.awaiting_body_slot = true;
    body_slot_waiters_.push_back(fd);
    uploads_waiting_.store(true);
}

ConnectionGate::Arrival ConnectionGate::classify_arrival(Connection& conn, size_t scan_from,
                                                         bool queue_jumper) {
    const ConnectionLimits& limits = options_.limits;
    const size_t end = header_block_end(conn.buffered, scan_from);
    if (end == std::string::npos) {
        return conn.buffered.size() > limits.max_header_bytes ? Arrival::kTooLarge
                                                              : Arrival::kPartial;
    }
    const size_t lines = static_cast<size_t>(
        std::count(conn.buffered.begin(), conn.buffered.begin() + static_cast<long>(end), '\n'));
    if (end > limits.max_header_bytes || lines > limits.max_header_count + 2) {
        return Arrival::kTooLarge;
    }
    conn.header_complete = true;
    if (body_arrived(conn.buffered, end)) return Arrival::kReady;
    // Uploads already waiting for a slot get the next one first.
    if (queue_jumper && uploads_waiting_.load()) return Arrival::kNoBodySlot;
    if (!take_body_slot()) return Arrival::kNoBodySlot;
    conn.holds_body_slot = true;
    return Arrival::kReady;
}

bool ConnectionGate::take_body_slot() {
    // The poller and the workers (next_request_arrived) both take slots, so
    // the cap is kept by compare-and-swap rather than a check then an add.
    int readers = body_readers_.load();
    while (readers < max_body_readers_) {
        if (body_readers_.compare_exchange_weak(readers, readers + 1)) return true;
    }
    return false;
}

bool ConnectionGate::next_request_arrived(Connection& conn) {
    if (options_.next_request_wait.count() <= 0 || draining_.load()) return false;
    // Bytes left over from the last request (a pipelining client) are the
    // poller's to scan, as they always were.
    if (conn.pending() != 0 || conn.lingering) return false;
    {
        // A worker idling here while a connection queues for one would
        // trade that connection's latency for this one's.
        std::lock_guard<std::mutex> lock(queue_mu_);
        if (!queue_.empty()) return false;
    }
    if (conn.ssl != nullptr && SSL_pending(conn.ssl) > 0) return true;
    pollfd p{};
    p.fd = conn.fd;
    p.events = POLLIN;
    const auto wait = options_.next_request_wait;
    timespec ts{};
    ts.tv_sec = static_cast<time_t>(wait.count() / 1'000'000);
    ts.tv_nsec = static_cast<long>((wait.count() % 1'000'000) * 1000);
    const int n = ::ppoll(&p, 1, &ts, nullptr);
    if (n <= 0 || (p.revents & POLLIN) == 0 || (p.revents & (POLLERR | POLLNVAL)) != 0) {
        return false;
    }
    // Encrypted bytes cannot be inspected; the worker reads the request
    // under the same deadlines and caps, as when the poller hands it over.
    if (conn.ssl != nullptr) return true;
    conn.buffered.clear();
    conn.buffered_offset = 0;
    const bool eof = read_available(conn, options_.limits.max_header_bytes + kReadChunk);
    if (!eof && classify_arrival(conn, 0, /*queue_jumper=*/true) == Arrival::kReady) return true;
    // Too little, too much, or no body slot: the poller decides, as if it
    // had read these bytes itself (a close is seen again on its next read).
    conn.header_complete = false;
    conn.scan_when_watched = !conn.buffered.empty() || eof;
    return false;
}

void ConnectionGate::grant_body_slots() {
    while (!body_slot_waiters_.empty() && body_readers_.load() < max_body_readers_) {
        const int fd = body_slot_waiters_.front();
        auto found = waiting_.find(fd);
        if (found == waiting_.end() || !found->second->awaiting_body_slot) {
            body_slot_waiters_.pop_front();
            continue;
        }
        if (!take_body_slot()) return;  // a worker took the last one first
        body_slot_waiters_.pop_front();
        auto owned = std::move(found->second->conn);
        unwatch(fd, *found->second);
        waiting_.erase(found);
        owned->holds_body_slot = true;
        hand_off(std::move(owned));
    }
}

void ConnectionGate::on_deadline(int fd) {
    auto found = waiting_.find(fd);
    if (found == waiting_.end()) return;
    auto owned = std::move(found->second->conn);
    const bool reading = found->second->reading;
    const bool awaiting_slot = found->second->awaiting_body_slot;
    unwatch(fd, *found->second);
    waiting_.erase(found);
    if (awaiting_slot) {
        refuse(std::move(owned), 503, "the server is busy reading other uploads; retry later",
               "body_slots_full", kBusyRetryAfterS);
    } else if (reading) {
        refuse(std::move(owned), 408, "request headers did not arrive in time", "header_timeout",
               0);
    } else {
        close_connection(std::move(owned));  // idle: a plain close, as keep-alive expects
    }
}

void ConnectionGate::close_idle_for_drain() {
    std::vector<std::unique_ptr<Connection>> arrived;
    {
        std::lock_guard<std::mutex> lock(inbox_mu_);
        arrived.swap(inbox_);
    }
    for (auto& conn : arrived) close_connection(std::move(conn));
    for (auto it = waiting_.begin(); it != waiting_.end();) {
        Waiting& w = *it->second;
        if (w.reading) {
            ++it;
            continue;
        }
        auto owned = std::move(w.conn);
        unwatch(it->first, w);
        it = waiting_.erase(it);
        close_connection(std::move(owned));
    }
}

void ConnectionGate::hand_off(std::unique_ptr<Connection> conn) {
    const size_t capacity = options_.queue_capacity > 0
                                ? options_.queue_capacity
                                : static_cast<size_t>(4 * std::max(1, options_.workers));
    {
        std::lock_guard<std::mutex> lock(queue_mu_);
        if (queue_.size() < capacity && !stopping_.load()) {
            queue_.push_back(std::move(conn));
            queue_cv_.notify_one();
            return;
        }
    }
    refuse(std::move(conn), 503, "the server is busy; retry later", "queue_full", kBusyRetryAfterS);
}

void ConnectionGate::poll_loop() noexcept {
    lower_priority_or_warn(options_.thread_niceness, poller_thread_);
    for (bool more = true; more;) {
        if (!run_guarded(poller_thread_, [this, &more] { more = poll_once(); })) {
            // Whatever the iteration held is lost; the poller goes on.
            std::this_thread::sleep_for(kAfterThrowPause);
        }
    }
    // Stopping: nothing waiting is mid-request, so each is simply closed.
    (void)run_guarded(poller_thread_, [this] {
        std::vector<std::unique_ptr<Connection>> leftover;
        {
            std::lock_guard<std::mutex> lock(inbox_mu_);
            poller_exited_ = true;
            leftover.swap(inbox_);
        }
        for (auto& conn : leftover) close_connection(std::move(conn));
        for (auto& [fd, w] : waiting_) {
            ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
            close_connection(std::move(w->conn));
        }
        waiting_.clear();
        deadlines_.clear();
    });
}

bool ConnectionGate::poll_once() {
    auto wait = kMaxPollWait;
    const auto now = steady_clock::now();
    if (draining_.load()) {
        // The grace is checked first, so a drain ends on time even when
        // closing what waits keeps throwing.
        if (!drain_until_) drain_until_ = now + kStopGrace;
        if (now >= *drain_until_) return false;
        close_idle_for_drain();
        if (waiting_.empty()) return false;
    }
    if (!deadlines_.empty()) {
        const auto until = deadlines_.begin()->first;
        wait = until <= now ? milliseconds(0)
                            : std::min(wait, std::chrono::duration_cast<milliseconds>(until - now) +
                                                 milliseconds(1));
    }
    const int n = ::epoll_wait(epoll_fd_, events_.data(), static_cast<int>(events_.size()),
                               static_cast<int>(wait.count()));
    if (n < 0 && errno != EINTR) {
        spdlog::error("listener={} epoll_wait failed: {}", options_.listener, std::strerror(errno));
        return false;
    }
    for (int i = 0; i < n; ++i) {
        const int fd = events_[i].data.fd;
        if (fd == wake_fd_) {
            uint64_t drained;
            (void)!::read(wake_fd_, &drained, sizeof drained);
            continue;
        }
        if (waiting_.count(fd) == 0 && on_held_event(fd)) continue;
        on_readable(fd);
    }
    std::vector<std::unique_ptr<Connection>> arrived;
    {
        std::lock_guard<std::mutex> lock(inbox_mu_);
        arrived.swap(inbox_);
    }
    for (auto& conn : arrived) watch(std::move(conn));
    grant_body_slots();
    // Stale entries (uploads that gave up) keep this set until the next
    // grant clears them: the workers then leave one more request to the
    // poller than they need to, never one too few.
    uploads_waiting_.store(!body_slot_waiters_.empty());
    const auto after = steady_clock::now();
    while (!deadlines_.empty() && deadlines_.begin()->first <= after) {
        const int fd = deadlines_.begin()->second;
        if (waiting_.count(fd) == 0) {
            deadlines_.erase(deadlines_.begin());  // cannot happen; never loop on it
            continue;
        }
        on_deadline(fd);
    }
    return true;
}

void ConnectionGate::release_body_slot(Connection& conn) {
    if (!conn.holds_body_slot) return;
    conn.holds_body_slot = false;
    body_readers_.fetch_sub(1);
    wake_poller();  // a waiting upload may take the slot
}

void ConnectionGate::worker_loop() noexcept {
    lower_priority_or_warn(options_.thread_niceness, worker_thread_);
    for (bool more = true; more;) {
        if (!run_guarded(worker_thread_, [this, &more] { more = serve_next(); })) {
            std::this_thread::sleep_for(kAfterThrowPause);
        }
    }
}

void ConnectionGate::watch_held(int fd) {
    // Hang-ups only: a byte the client sends early stays unread until the
    // answer is out and the connection waits in the poller again.
    epoll_event ev{};
    ev.events = EPOLLRDHUP | EPOLLONESHOT;
    ev.data.fd = fd;
    if (epoll_fd_ >= 0) (void)::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
}

void ConnectionGate::unwatch_held(int fd) {
    if (epoll_fd_ >= 0) (void)::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
}

bool ConnectionGate::on_held_event(int fd) {
    std::function<void()> tell_owner;
    {
        std::lock_guard<std::mutex> lock(hub_->mu);
        auto it = hub_->holding.find(fd);
        if (it == hub_->holding.end()) return false;
        unwatch_held(fd);
        tell_owner = it->second->client_gone_locked();
    }
    if (tell_owner) tell_owner();
    return true;
}

void ConnectionGate::resume(std::unique_ptr<Connection> conn) {
    {
        std::lock_guard<std::mutex> lock(queue_mu_);
        queue_.push_back(std::move(conn));
    }
    queue_cv_.notify_one();
}

bool ConnectionGate::write_pending_reply(Connection& conn) {
    ConnectionStream stream(conn, options_.limits, stopping_);
    const std::string reply = std::move(conn.pending_reply);
    conn.pending_reply.clear();
    return stream.write(reply.data(), reply.size()) == static_cast<ssize_t>(reply.size());
}

bool ConnectionGate::serve_next() {
    std::unique_ptr<Connection> conn;
    {
        std::unique_lock<std::mutex> lock(queue_mu_);
        queue_cv_.wait(lock, [this] { return stopping_.load() || !queue_.empty(); });
        if (queue_.empty()) return false;  // stopping and drained
        conn = std::move(queue_.front());
        queue_.pop_front();
    }
    if (!conn->pending_reply.empty()) {
        const bool written = write_pending_reply(*conn);
        if (written && !conn->close_after_reply && !draining_.load()) {
            park(std::move(conn));
        } else {
            close_connection(std::move(conn));
        }
        return true;
    }
    // Queued requests are complete ones: they are served even while the
    // server stops (each closing its connection afterwards). cpp-httplib
    // catches handler exceptions itself; a throw past it is logged and
    // counted here, and the connection is closed.
    AfterServe after = AfterServe::kClose;
    for (;;) {
        after = AfterServe::kClose;  // what a throw in serve_ leaves
        if (run_guarded(worker_thread_, [this, &conn, &after] { after = serve_(*conn); })) {
            release_body_slot(*conn);
        }
        if (after != AfterServe::kKeepAlive) break;
        bool next = false;
        if (!run_guarded(worker_thread_,
                         [this, &conn, &next] { next = next_request_arrived(*conn); })) {
            after = AfterServe::kClose;  // what it read is in an unknown state
        }
        if (!next) break;
    }
    if (after == AfterServe::kDeferred && conn->deferred) {
        std::shared_ptr<DeferredAnswer> answer = std::move(conn->deferred);
        answer->adopt(std::move(conn));
        return true;
    }
    const bool draining = draining_.load();
    if (!draining && after == AfterServe::kKeepAlive) {
        park(std::move(conn));
    } else if (!draining && after == AfterServe::kLinger && conn->ssl == nullptr) {
        linger(std::move(conn));
    } else {
        close_connection(std::move(conn));
    }
    return true;
}

}  // namespace yuzu::http
