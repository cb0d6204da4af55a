#include "hostile/hostile_support.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>

namespace yuzu::testing::hostile {
namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

std::string trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
        s.remove_suffix(1);
    }
    return std::string(s);
}

// Milliseconds left until `deadline` for poll(): rounded up, 0 when past.
int poll_ms(Clock::time_point deadline) {
    const long long left = std::chrono::ceil<milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return 0;
    return static_cast<int>(std::min<long long>(left, 60'000));
}

// Decodes a chunked body from `in`; true when the last chunk arrived.
bool decode_chunked(const std::string& in, std::string* out) {
    size_t pos = 0;
    while (true) {
        const size_t eol = in.find("\r\n", pos);
        if (eol == std::string::npos) return false;
        const size_t size = std::strtoull(in.c_str() + pos, nullptr, 16);
        pos = eol + 2;
        if (size == 0) return true;  // trailers, if any, are not needed
        if (in.size() < pos + size + 2) {
            out->append(in, pos, std::string::npos);
            return false;
        }
        out->append(in, pos, size);
        pos += size + 2;
    }
}

}  // namespace

double ms(Clock::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
}

std::string peer(int block, int n) {
    return "127.0." + std::to_string(block) + "." + std::to_string(n);
}

int port_of(const std::string& url) {
    const auto colon = url.rfind(':');
    return colon == std::string::npos ? 0 : std::atoi(url.c_str() + colon + 1);
}

// ---- HTTP messages ----

std::string HttpResponse::header(std::string_view name) const {
    const std::string want = lower(name);
    for (const auto& [k, v] : headers) {
        if (lower(k) == want) return v;
    }
    return "";
}

std::vector<std::string> HttpResponse::header_values(std::string_view name) const {
    const std::string want = lower(name);
    std::vector<std::string> out;
    for (const auto& [k, v] : headers) {
        if (lower(k) == want) out.push_back(v);
    }
    return out;
}

std::optional<HttpResponse> parse_response(const std::string& bytes, bool peer_closed) {
    const size_t head_end = bytes.find("\r\n\r\n");
    if (head_end == std::string::npos) return std::nullopt;
    HttpResponse r;
    size_t line_start = 0;
    bool first = true;
    while (line_start < head_end) {
        size_t eol = bytes.find("\r\n", line_start);
        if (eol == std::string::npos || eol > head_end) eol = head_end;
        const std::string_view line(bytes.data() + line_start, eol - line_start);
        line_start = eol + 2;
        if (first) {
            first = false;
            r.status_line = std::string(line);
            if (line.rfind("HTTP/", 0) == 0) {
                const size_t sp = line.find(' ');
                if (sp != std::string_view::npos)
                    r.status = std::atoi(r.status_line.c_str() + sp + 1);
            }
            continue;
        }
        const size_t colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        r.headers.emplace_back(trim(line.substr(0, colon)), trim(line.substr(colon + 1)));
    }
    const std::string rest = bytes.substr(head_end + 4);
    const std::string length = r.header("Content-Length");
    if (r.status == 204 || r.status == 304 || (r.status >= 100 && r.status < 200)) {
        r.complete = true;
    } else if (lower(r.header("Transfer-Encoding")).find("chunked") != std::string::npos) {
        r.complete = decode_chunked(rest, &r.body) || peer_closed;
    } else if (!length.empty()) {
        const size_t n = std::strtoull(length.c_str(), nullptr, 10);
        r.complete = rest.size() >= n;
        r.body = rest.substr(0, std::min(n, rest.size()));
    } else {
        r.body = rest;
        r.complete = peer_closed;
    }
    return r;
}

std::string request_head(const std::string& method, const std::string& target, int port,
                         const HeaderList& headers) {
    std::string out = method + " " + target + " HTTP/1.1\r\n";
    bool has_host = false;
    for (const auto& kv : headers) has_host = has_host || lower(kv.first) == "host";
    if (!has_host) out += "Host: 127.0.0.1:" + std::to_string(port) + "\r\n";
    for (const auto& [k, v] : headers) out += k + ": " + v + "\r\n";
    out += "\r\n";
    return out;
}

std::string http_request(const std::string& method, const std::string& target, int port,
                         const HeaderList& headers, const std::string& body) {
    HeaderList all = headers;
    if (!body.empty() || method == "POST" || method == "PUT") {
        all.emplace_back("Content-Length", std::to_string(body.size()));
    }
    all.emplace_back("Connection", "close");
    return request_head(method, target, port, all) + body;
}

std::string comparable_body(const HttpResponse& r) {
    std::string body = r.body;
    const std::string cid = r.header("X-Correlation-Id");
    if (!cid.empty()) {
        for (size_t at = body.find(cid); at != std::string::npos; at = body.find(cid, at)) {
            body.replace(at, cid.size(), "<correlation-id>");
        }
    }
    static const std::regex kCorrelationId("req-[0-9a-f]+-[0-9a-f]+");
    return std::regex_replace(body, kCorrelationId, "<correlation-id>");
}

std::string describe(const std::optional<HttpResponse>& r) {
    if (!r) return "(no response)";
    return r->status_line + " " + r->body.substr(0, 300);
}

std::string describe(const StreamOutcome& o) {
    return "sent " + std::to_string(o.bytes_sent / 1024) + " KiB in " +
           std::to_string(static_cast<long long>(ms(o.elapsed))) + " ms" +
           (o.finished ? ", all of it" : "") + (o.answered ? ", answered" : "") +
           (o.closed ? ", closed by the server" : "") +
           (o.stalled ? ", stalled (the server stopped reading without answering)" : "");
}

// ---- RawConnection ----

std::unique_ptr<RawConnection> RawConnection::open(int port, const std::string& source,
                                                   milliseconds timeout, std::string* error) {
    const auto fail = [error](const std::string& what, int err) {
        if (error != nullptr) *error = what + ": " + std::strerror(err);
        return std::unique_ptr<RawConnection>();
    };
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return fail("socket", errno);
    std::unique_ptr<RawConnection> conn(new RawConnection(fd));  // owns fd from here
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
#ifdef IP_BIND_ADDRESS_NO_PORT
    // Let connect() pick the source port per destination, so thousands of
    // short connections from one source address do not run out of ports.
    ::setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
#endif
    sockaddr_in local{};
    local.sin_family = AF_INET;
    if (::inet_pton(AF_INET, source.c_str(), &local.sin_addr) != 1) {
        return fail("source address '" + source + "'", EINVAL);
    }
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&local), sizeof local) != 0) {
        return fail("bind " + source, errno);
    }
    sockaddr_in remote{};
    remote.sin_family = AF_INET;
    remote.sin_port = htons(static_cast<uint16_t>(port));
    ::inet_pton(AF_INET, kLoopback, &remote.sin_addr);
    const std::string where = "connect " + source + " -> 127.0.0.1:" + std::to_string(port);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&remote), sizeof remote) != 0) {
        if (errno != EINPROGRESS) return fail(where, errno);
        pollfd p{fd, POLLOUT, 0};
        const int r = ::poll(&p, 1, static_cast<int>(timeout.count()));
        if (r == 0) return fail(where, ETIMEDOUT);
        if (r < 0) return fail(where, errno);
        int err = 0;
        socklen_t len = sizeof err;
        ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
        if (err != 0) return fail(where, err);
    }
    return conn;
}

RawConnection::~RawConnection() {
    if (fd_ >= 0) ::close(fd_);
}

bool RawConnection::send_all(std::string_view bytes, milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    size_t off = 0;
    while (off < bytes.size()) {
        const ssize_t n = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
        if (n > 0) {
            off += static_cast<size_t>(n);
            sent_ += static_cast<size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            const int left = poll_ms(deadline);
            if (left == 0) return false;
            pollfd p{fd_, POLLOUT, 0};
            ::poll(&p, 1, left);
            continue;
        }
        write_failed_ = true;  // EPIPE or ECONNRESET: what the server said is still readable
        return false;
    }
    return true;
}

bool RawConnection::recv_once() {
    char buf[16384];
    while (true) {
        const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
        if (n > 0) {
            received_.append(buf, static_cast<size_t>(n));
            return true;
        }
        if (n == 0) {
            closed_ = true;
            return true;
        }
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return false;
        closed_ = true;
        reset_ = true;
        return true;
    }
}

bool RawConnection::drain() {
    while (!closed_ && recv_once()) {
    }
    return !closed_;
}

bool RawConnection::read_until(const std::function<bool()>& done, milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (true) {
        drain();
        if (done()) return true;
        if (closed_) return false;
        const int left = poll_ms(deadline);
        if (left == 0) return false;
        pollfd p{fd_, POLLIN, 0};
        ::poll(&p, 1, left);
    }
}

std::optional<HttpResponse> RawConnection::read_response(milliseconds timeout) {
    read_until(
        [this] {
            const auto r = parse_response(received_, closed_);
            return r && r->complete;
        },
        timeout);
    return parse_response(received_, closed_);
}

bool RawConnection::wait_closed(milliseconds timeout) {
    return read_until([this] { return closed_; }, timeout);
}

StreamOutcome RawConnection::stream(const std::function<bool(std::string&)>& next_piece,
                                    milliseconds stall_timeout) {
    StreamOutcome out;
    const auto start = Clock::now();
    auto last_progress = start;
    std::string piece;
    size_t off = 0;
    while (true) {
        drain();
        if (!received_.empty() || closed_) break;
        if (off == piece.size()) {
            piece.clear();
            off = 0;
            if (!next_piece(piece)) {
                out.finished = true;
                break;
            }
            continue;
        }
        const ssize_t n = ::send(fd_, piece.data() + off, piece.size() - off, MSG_NOSIGNAL);
        if (n > 0) {
            off += static_cast<size_t>(n);
            sent_ += static_cast<size_t>(n);
            out.bytes_sent += static_cast<size_t>(n);
            last_progress = Clock::now();
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (Clock::now() - last_progress >= stall_timeout) {
                out.stalled = true;
                break;
            }
            pollfd p{fd_, POLLIN | POLLOUT, 0};
            ::poll(&p, 1, 50);
            continue;
        }
        write_failed_ = true;
        break;
    }
    drain();
    out.answered = !received_.empty();
    out.closed = closed_ || write_failed_;
    if (out.answered || out.closed) out.stalled = false;
    out.elapsed = Clock::now() - start;
    return out;
}

Connections open_many(int port, int n, const std::vector<std::string>& sources,
                      std::string* error) {
    Connections out;
    out.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
        const std::string source = sources.empty()
                                       ? std::string(kLoopback)
                                       : sources[static_cast<size_t>(i) % sources.size()];
        auto c = RawConnection::open(port, source, milliseconds(2000), error);
        if (!c) break;
        out.push_back(std::move(c));
    }
    return out;
}

void wait_any(const Connections& conns, milliseconds timeout) {
    std::vector<pollfd> fds;
    for (const auto& c : conns) {
        if (!c->closed()) fds.push_back(pollfd{c->fd(), POLLIN, 0});
    }
    if (fds.empty()) return;
    ::poll(fds.data(), fds.size(), static_cast<int>(std::max<long long>(0, timeout.count())));
}

std::vector<double> close_times(const Connections& conns, milliseconds timeout,
                                Clock::time_point since) {
    std::vector<double> at(conns.size(), -1);
    const auto deadline = Clock::now() + timeout;
    while (true) {
        size_t open = 0;
        for (size_t i = 0; i < conns.size(); ++i) {
            if (at[i] >= 0) continue;
            conns[i]->drain();
            if (conns[i]->closed()) {
                at[i] = ms(Clock::now() - since) / 1000.0;
            } else {
                ++open;
            }
        }
        const int left = poll_ms(deadline);
        if (open == 0 || left == 0) return at;
        wait_any(conns, milliseconds(std::min(left, 50)));
    }
}

std::optional<HttpResponse> answer_without_or_with_request(RawConnection& conn, int port,
                                                           milliseconds first_wait) {
    auto res = conn.read_response(first_wait);
    if (res || conn.closed()) return res;
    conn.send_all(http_request("GET", "/livez", port), milliseconds(1000));
    return conn.read_response(milliseconds(2000));
}

Exchange roundtrip(int port, const std::string& request, milliseconds timeout,
                   const std::string& source) {
    Exchange ex;
    const auto start = Clock::now();
    auto conn = RawConnection::open(port, source, timeout, &ex.error);
    if (!conn) {
        ex.elapsed = Clock::now() - start;
        return ex;
    }
    // A server may answer and close before it takes every byte; the answer
    // is read either way.
    conn->send_all(request, timeout);
    const auto left = std::chrono::duration_cast<milliseconds>(timeout - (Clock::now() - start));
    ex.response = conn->read_response(std::max(left, milliseconds(0)));
    ex.elapsed = Clock::now() - start;
    ex.closed = conn->closed();
    if (!ex.response) {
        ex.error = conn->closed() ? "closed without an answer"
                                  : "no answer within " + std::to_string(timeout.count()) + " ms";
    } else if (!ex.response->complete) {
        ex.error = "incomplete answer: " + describe(ex.response);
    }
    return ex;
}

bool eventually(const std::function<bool()>& pred, milliseconds timeout, milliseconds every) {
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
        if (pred()) return true;
        std::this_thread::sleep_for(every);
    }
    return pred();
}

double median(std::vector<double> values) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const size_t mid = values.size() / 2;
    return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// ---- LivenessProbe ----

LivenessProbe::LivenessProbe(int port, milliseconds interval, milliseconds timeout)
    : port_(port), interval_(interval), timeout_(timeout), thread_([this] { run(); }) {}

LivenessProbe::~LivenessProbe() {
    stop();
}

void LivenessProbe::run() {
    const std::string request = http_request("GET", "/livez", port_);
    // Probe first, then wait: even an attack shorter than the interval is
    // covered by one probe.
    while (true) {
        const auto next = Clock::now() + interval_;
        const Exchange ex = roundtrip(port_, request, timeout_);
        const bool ok = ex.response && ex.response->complete && ex.response->status == 200;
        std::unique_lock<std::mutex> lock(mu_);
        ++report_.probes;
        latencies_.push_back(ms(ex.elapsed));
        report_.max_ms = std::max(report_.max_ms, ms(ex.elapsed));
        if (!ok) {
            ++report_.failures;
            if (report_.failure_samples.size() < 5) {
                report_.failure_samples.push_back(
                    (ex.response ? describe(ex.response) : ex.error) + " after " +
                    std::to_string(static_cast<long long>(ms(ex.elapsed))) + " ms");
            }
        }
        if (cv_.wait_until(lock, next, [this] { return stopping_; })) return;
    }
}

LivenessProbe::Report LivenessProbe::stop() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stopping_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    std::lock_guard<std::mutex> lock(mu_);
    report_.p50_ms = median(latencies_);
    return report_;
}

// ---- Resident memory ----

namespace {

int64_t status_field_bytes(pid_t pid, const std::string& field) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    const std::string prefix = field + ":";
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(prefix, 0) == 0) {
            // "VmRSS:	   12345 kB"
            return static_cast<int64_t>(std::strtoll(line.c_str() + prefix.size(), nullptr, 10)) *
                   1024;
        }
    }
    return -1;
}

}  // namespace

int64_t rss_bytes(pid_t pid) {
    return status_field_bytes(pid, "VmRSS");
}

int64_t peak_rss_bytes(pid_t pid) {
    return status_field_bytes(pid, "VmHWM");
}

bool reset_peak_rss(pid_t pid) {
    const std::string path = "/proc/" + std::to_string(pid) + "/clear_refs";
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool ok = ::write(fd, "5", 1) == 1;
    ::close(fd);
    return ok;
}

RssWatch::RssWatch(pid_t pid, milliseconds every)
    : pid_(pid),
      every_(every),
      baseline_(rss_bytes(pid)),
      kernel_peak_(reset_peak_rss(pid)),
      sampled_peak_(baseline_),
      thread_([this] { run(); }) {}

RssWatch::~RssWatch() {
    stop();
}

void RssWatch::run() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!cv_.wait_for(lock, every_, [this] { return stopping_; })) {
        lock.unlock();
        const int64_t now = rss_bytes(pid_);
        lock.lock();
        sampled_peak_ = std::max(sampled_peak_, now);
    }
}

void RssWatch::stop() {
    if (!thread_.joinable()) return;
    {
        std::lock_guard<std::mutex> lock(mu_);
        stopping_ = true;
    }
    cv_.notify_all();
    thread_.join();
    sampled_peak_ = std::max(sampled_peak_, rss_bytes(pid_));
    if (kernel_peak_) kernel_peak_bytes_ = peak_rss_bytes(pid_);
}

int64_t RssWatch::peak_bytes() const {
    return std::max(sampled_peak_, kernel_peak_ ? kernel_peak_bytes_ : int64_t{-1});
}

int64_t RssWatch::growth_bytes() const {
    if (baseline_ < 0) return 0;
    return std::max<int64_t>(0, peak_bytes() - baseline_);
}

// ---- Payloads ----

std::string deep_arrays(int depth) {
    const size_t n = static_cast<size_t>(depth);
    return std::string(n, '[') + std::string(n, ']');
}

std::string deep_objects(int depth) {
    const size_t n = static_cast<size_t>(depth);
    std::string out;
    out.reserve(n * 6 + 1);
    for (size_t i = 0; i < n; ++i) out += "{\"a\":";
    out += "0";
    out.append(n, '}');
    return out;
}

std::function<bool(std::string&)> chunked_body(size_t total, size_t chunk) {
    return [sent = size_t{0}, done = false, total, chunk,
            payload = std::string(chunk, 'a')](std::string& out) mutable {
        if (done) return false;
        if (sent >= total) {
            out = "0\r\n\r\n";
            done = true;
            return true;
        }
        const size_t n = std::min(chunk, total - sent);
        char size_line[32];
        std::snprintf(size_line, sizeof size_line, "%zx\r\n", n);
        out += size_line;
        out.append(payload, 0, n);
        out += "\r\n";
        sent += n;
        return true;
    };
}

std::function<bool(std::string&)> header_lines(size_t total, size_t line_bytes) {
    return [sent = size_t{0}, next = 0, done = false, total, line_bytes](std::string& out) mutable {
        if (done) return false;
        if (sent >= total) {
            out = "\r\n";
            done = true;
            return true;
        }
        for (int i = 0; i < 16 && sent < total; ++i) {
            const std::string name = "X-Pad-" + std::to_string(next++) + ": ";
            const size_t fill = line_bytes > name.size() + 3 ? line_bytes - name.size() - 2 : 1;
            out += name;
            out.append(fill, 'a');
            out += "\r\n";
            sent += name.size() + fill + 2;
        }
        return true;
    };
}

std::function<bool(std::string&)> starting_with(std::string first,
                                                std::function<bool(std::string&)> rest) {
    return [first = std::move(first), rest = std::move(rest),
            given = false](std::string& out) mutable {
        if (!given) {
            given = true;
            out = first;
            return true;
        }
        return rest(out);
    };
}

}  // namespace yuzu::testing::hostile
