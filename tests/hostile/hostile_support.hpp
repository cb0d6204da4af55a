// Tools of the hostile-input suite (tests/hostile/): a raw TCP client that
// sends exactly the bytes a test chooses, from any 127.0.0.0/8 address so the
// server sees distinct peers; a LivenessProbe timing GET /livez on fresh
// connections every 50 ms on a thread of its own; readers of the server
// child's resident memory; and builders of the hostile bodies and headers.
//
// Thread-safety: a RawConnection belongs to one thread at a time. The free
// functions are safe to call from any thread. LivenessProbe and RssWatch run
// their own thread; their methods are for the thread that created them.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace yuzu::testing::hostile {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using HeaderList = std::vector<std::pair<std::string, std::string>>;

inline constexpr char kLoopback[] = "127.0.0.1";
inline constexpr size_t kMiB = size_t{1024} * 1024;
// AddressSanitizer keeps freed blocks in a quarantine (256 MiB by default)
// and pads every allocation, so a buffer that grows by doubling leaves its
// earlier copies resident: bounds on RSS growth from large buffers are
// doubled in such a build.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr int64_t kSanitizerMemoryFactor = 2;
#else
inline constexpr int64_t kSanitizerMemoryFactor = 1;
#endif
// Latency bounds on work the server does while a test floods it (not the
// /livez bound, which holds as is): ThreadSanitizer slows every memory
// access of both the server and the flooding test several times over.
#if defined(__SANITIZE_THREAD__)
inline constexpr double kSanitizerTimeFactor = 4.0;
#elif defined(__SANITIZE_ADDRESS__)
inline constexpr double kSanitizerTimeFactor = 2.0;
#else
inline constexpr double kSanitizerTimeFactor = 1.0;
#endif

// Milliseconds as a double, for messages and properties.
double ms(Clock::duration d);

// "127.0.<block>.<n>" (n from 1 to 254): a loopback source address of its
// own, so per-peer limits (the login throttle, the agent plane's per-peer
// cap) count one part of a test apart from the rest.
std::string peer(int block, int n);

// The port of "http://host:port".
int port_of(const std::string& url);

// ---- HTTP messages as bytes ----

struct HttpResponse {
    int status = 0;           // 0 when the first line is not "HTTP/x.y NNN ..."
    std::string status_line;  // without CRLF
    HeaderList headers;       // in the order received
    std::string body;         // decoded when chunked
    bool complete = false;    // the whole body (by Content-Length, chunks or close) arrived

    // The first value of header `name` (any case); "" when absent.
    std::string header(std::string_view name) const;
    std::vector<std::string> header_values(std::string_view name) const;
};

// The response at the start of `bytes` once its status line and headers are
// complete; nullopt before. `peer_closed`: no more bytes will come, so a body
// without Content-Length or chunks ends here.
std::optional<HttpResponse> parse_response(const std::string& bytes, bool peer_closed);

// A request line, Host: 127.0.0.1:<port> unless `headers` names a Host, then
// `headers` and the blank line. Nothing else is added: for framing tests.
std::string request_head(const std::string& method, const std::string& target, int port,
                         const HeaderList& headers = {});
// A whole request: request_head() plus Content-Length (when there is a body,
// and always for POST and PUT), Connection: close, and `body`.
std::string http_request(const std::string& method, const std::string& target, int port,
                         const HeaderList& headers = {}, const std::string& body = "");

// The response body with correlation ids ("req-<hex>-<hex>", and the
// response's X-Correlation-Id value wherever it appears) masked, so two
// answers can be compared byte for byte.
std::string comparable_body(const HttpResponse& r);

// Status line and the first 300 bytes of the body, for failure messages.
std::string describe(const std::optional<HttpResponse>& r);

// ---- A raw TCP client ----

// What RawConnection::stream() saw.
struct StreamOutcome {
    size_t bytes_sent = 0;
    bool finished = false;  // every piece was sent
    bool answered = false;  // the server sent bytes before we were done
    bool closed = false;    // the server closed or reset the connection
    bool stalled = false;   // the server stopped reading and said nothing
    Clock::duration elapsed{};
};
std::string describe(const StreamOutcome& o);

class RawConnection {
  public:
    // Connects to 127.0.0.1:`port` from `source` (non-blocking socket,
    // TCP_NODELAY). Null on failure, the reason in *error when given.
    static std::unique_ptr<RawConnection> open(int port, const std::string& source = kLoopback,
                                               milliseconds timeout = milliseconds(2000),
                                               std::string* error = nullptr);
    ~RawConnection();
    RawConnection(const RawConnection&) = delete;
    RawConnection& operator=(const RawConnection&) = delete;

    // Sends every byte of `bytes` within `timeout` (0: only what fits now).
    // False when the time ran out or the peer no longer takes bytes.
    bool send_all(std::string_view bytes, milliseconds timeout = milliseconds(5000));
    // Reads whatever has arrived, without waiting. False once the peer has
    // closed (EOF) or reset the connection.
    bool drain();
    // Reads until done() holds, the peer closes or `timeout` passes; whether
    // done() held.
    bool read_until(const std::function<bool()>& done, milliseconds timeout);
    // Reads until a complete response, the peer closes or `timeout`; the
    // response when at least its head arrived.
    std::optional<HttpResponse> read_response(milliseconds timeout);
    // Reads until the peer closes; whether it did within `timeout`.
    bool wait_closed(milliseconds timeout);
    // Sends the pieces `next_piece` produces (it fills its argument and
    // answers false when there are no more) until they run out or the server
    // answers or closes: it never sends past the server's answer. Gives up
    // (stalled) after `stall_timeout` without a byte taken or answered.
    StreamOutcome stream(const std::function<bool(std::string&)>& next_piece,
                         milliseconds stall_timeout = milliseconds(5000));

    int fd() const { return fd_; }
    const std::string& received() const { return received_; }
    bool closed() const { return closed_; }  // EOF or reset seen
    bool reset() const { return reset_; }    // ECONNRESET on read
    bool write_failed() const { return write_failed_; }
    size_t bytes_sent() const { return sent_; }
    // received() as a response, once its head is there.
    std::optional<HttpResponse> response() const { return parse_response(received_, closed_); }

  private:
    explicit RawConnection(int fd) : fd_(fd) {}
    bool recv_once();  // true when something changed: bytes, EOF or an error

    int fd_ = -1;
    std::string received_;
    bool closed_ = false;
    bool reset_ = false;
    bool write_failed_ = false;
    size_t sent_ = 0;
};

using Connections = std::vector<std::unique_ptr<RawConnection>>;

// Opens `n` connections to `port`, spread round-robin over `sources`. Fewer
// than `n` on failure, the first reason in *error.
Connections open_many(int port, int n, const std::vector<std::string>& sources,
                      std::string* error = nullptr);

// Waits until one of `conns` not yet closed has something to read, or
// `timeout` passes.
void wait_any(const Connections& conns, milliseconds timeout);

// Reads every connection until each has been closed by the server or
// `timeout` passes: per connection, the seconds from `since` until its close
// was seen, or -1 if it is still open.
std::vector<double> close_times(const Connections& conns, milliseconds timeout,
                                Clock::time_point since);

// A refusal answered at accept time (503/429 before any request): reads for
// `first_wait`; if nothing came and the connection is still open, sends a
// GET /livez and reads again, so a server that answers only once it has a
// request is judged too.
std::optional<HttpResponse> answer_without_or_with_request(
    RawConnection& conn, int port, milliseconds first_wait = milliseconds(300));

// One request on a fresh connection: connect, send, read the response.
// (Not named exchange: std::exchange would win by argument-dependent lookup.)
struct Exchange {
    std::optional<HttpResponse> response;
    Clock::duration elapsed{};  // from connect to the complete response
    bool closed = false;        // the server closed the connection
    std::string error;          // why there is no (complete) response
};
Exchange roundtrip(int port, const std::string& request, milliseconds timeout = milliseconds(10000),
                   const std::string& source = kLoopback);

// Polls `pred` every `every` until it holds or `timeout` passes.
bool eventually(const std::function<bool()>& pred, milliseconds timeout,
                milliseconds every = milliseconds(20));

double median(std::vector<double> values);

// ---- Liveness ----

// GET /livez on a fresh connection every `interval` (start to start) on a
// thread of its own, from construction until stop(); at least one probe.
class LivenessProbe {
  public:
    struct Report {
        int probes = 0;
        int failures = 0;  // no answer within the timeout, or not 200
        double max_ms = 0;
        double p50_ms = 0;
        std::vector<std::string> failure_samples;  // the first few
    };

    explicit LivenessProbe(int port, milliseconds interval = milliseconds(50),
                           milliseconds timeout = milliseconds(2000));
    ~LivenessProbe();
    LivenessProbe(const LivenessProbe&) = delete;
    LivenessProbe& operator=(const LivenessProbe&) = delete;

    // Stops probing (idempotent) and answers what the probes saw.
    Report stop();

  private:
    void run();

    const int port_;
    const milliseconds interval_;
    const milliseconds timeout_;
    std::mutex mu_;
    std::condition_variable cv_;
    bool stopping_ = false;          // guarded by mu_
    Report report_;                  // guarded by mu_
    std::vector<double> latencies_;  // guarded by mu_
    std::thread thread_;             // last: starts once the rest exists
};

// ---- Resident memory of the server child ----

// VmRSS / VmHWM of `pid` in bytes, from /proc/<pid>/status; -1 when unreadable.
int64_t rss_bytes(pid_t pid);
int64_t peak_rss_bytes(pid_t pid);
// Resets VmHWM to the current RSS (writes 5 to /proc/<pid>/clear_refs);
// false where the kernel or the sandbox does not allow it.
bool reset_peak_rss(pid_t pid);

// Watches a process's RSS from construction until stop(): the baseline at
// the start, then the peak, from VmRSS sampled every `every` and, when the
// kernel's peak could be reset at the start, VmHWM (which catches peaks
// between samples).
class RssWatch {
  public:
    explicit RssWatch(pid_t pid, milliseconds every = milliseconds(2));
    ~RssWatch();
    RssWatch(const RssWatch&) = delete;
    RssWatch& operator=(const RssWatch&) = delete;

    void stop();  // idempotent
    int64_t baseline_bytes() const { return baseline_; }
    int64_t peak_bytes() const;    // after stop()
    int64_t growth_bytes() const;  // peak - baseline, at least 0; after stop()
    bool kernel_peak_used() const { return kernel_peak_; }

  private:
    void run();

    const pid_t pid_;
    const milliseconds every_;
    int64_t baseline_ = -1;
    bool kernel_peak_ = false;
    int64_t kernel_peak_bytes_ = -1;  // VmHWM at stop(), when kernel_peak_
    std::mutex mu_;
    std::condition_variable cv_;
    bool stopping_ = false;      // guarded by mu_
    int64_t sampled_peak_ = -1;  // guarded by mu_
    std::thread thread_;         // last
};

// ---- Hostile payloads ----

// `depth` nested arrays: "[[[...]]]".
std::string deep_arrays(int depth);
// `depth` nested objects: {"a":{"a":...0...}}.
std::string deep_objects(int depth);
// Pieces of a chunked body: `total` bytes in chunks of `chunk`, then the
// last chunk. For RawConnection::stream().
std::function<bool(std::string&)> chunked_body(size_t total, size_t chunk);
// Header lines "X-Pad-<n>: aaa..." of about `line_bytes` each, `total` bytes
// in all, then the blank line that ends the head.
std::function<bool(std::string&)> header_lines(size_t total, size_t line_bytes);
// `first`, then what `rest` produces.
std::function<bool(std::string&)> starting_with(std::string first,
                                                std::function<bool(std::string&)> rest);

}  // namespace yuzu::testing::hostile
