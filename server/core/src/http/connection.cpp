#include "http/connection.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <utility>

#include "yuzu/common/ascii.hpp"
#include "yuzu/common/correlation_id.hpp"

namespace yuzu::http {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// Reads poll in slices this long so a server stop is noticed promptly.
constexpr milliseconds kStopCheckSlice{100};

// A held header block is at most this big, and a body at most this big is
// copied behind it to go out in one send; a bigger one is sent on its own.
constexpr size_t kMaxHeldHeaderBytes = size_t{16} * 1024;
constexpr size_t kMaxCoalescedBodyBytes = size_t{64} * 1024;

// A status line and header fields, ending with the empty line.
bool is_header_block(std::string_view bytes) {
    return bytes.size() <= kMaxHeldHeaderBytes && bytes.starts_with("HTTP/1.") &&
           bytes.ends_with("\r\n\r\n");
}

// Whether a header block announces its body's length. Only such a block is
// held: a streamed body (chunked, server-sent events) may come from a
// provider that blocks before its first chunk, and httplib 0.11.4 does not
// ask is_writable() before calling it, so a held block would wait with it.
bool declares_content_length(std::string_view block) {
    constexpr std::string_view kField = "\r\ncontent-length:";
    for (size_t at = block.find("\r\n"); at != std::string_view::npos;
         at = block.find("\r\n", at + 2)) {
        if (istarts_with_ascii(block.substr(at), kField)) return true;
    }
    return false;
}

std::string json_escape(const char* text) {
    std::string out;
    for (const char* p = text; *p; ++p) {
        if (*p == '"' || *p == '\\') out += '\\';
        out += *p;
    }
    return out;
}

}  // namespace

const char* reason_phrase(int status) {
    switch (status) {
        case 200:
            return "OK";
        case 204:
            return "No Content";
        case 400:
            return "Bad Request";
        case 401:
            return "Unauthorized";
        case 404:
            return "Not Found";
        case 408:
            return "Request Timeout";
        case 411:
            return "Length Required";
        case 413:
            return "Payload Too Large";
        case 429:
            return "Too Many Requests";
        case 431:
            return "Request Header Fields Too Large";
        case 500:
            return "Internal Server Error";
        case 501:
            return "Not Implemented";
        case 503:
            return "Service Unavailable";
        default:
            return "Error";
    }
}

size_t chunked_framing_allowance(size_t max_body) {
    return std::max<size_t>(size_t{64} * 1024, max_body / 8);
}

int status_for(LimitHit hit) {
    switch (hit) {
        case LimitHit::kHeaderTimeout:
        case LimitHit::kBodyTimeout:
            return 408;
        case LimitHit::kHeaderTooLarge:
            return 431;
        case LimitHit::kBodyTooLarge:
            return 413;
        case LimitHit::kNone:
            break;
    }
    return 400;
}

ConnectionStream::ConnectionStream(Connection& conn, const ConnectionLimits& limits,
                                   const std::atomic<bool>& stopping)
    : conn_(conn), limits_(limits), stopping_(stopping) {}

void ConnectionStream::begin_request() {
    phase_ = Phase::kHeader;
    deadline_ = steady_clock::now() + limits_.header;
    phase_bytes_ = 0;
    header_lines_ = 0;
    header_pos_ = HeaderPos::kRequestLine;
    escape_left_ = 0;
    hit_ = LimitHit::kNone;
    may_hold_header_block_ = true;
}

void ConnectionStream::begin_body() {
    phase_ = Phase::kBody;
    deadline_ = steady_clock::now() + limits_.body;
    phase_bytes_ = 0;
}

bool ConnectionStream::has_pending() const {
    return conn_.pending() > 0 || (conn_.ssl != nullptr && SSL_pending(conn_.ssl) > 0);
}

bool ConnectionStream::is_readable() const {
    return has_pending();
}

bool ConnectionStream::wait_for(short events, SteadyTime deadline, bool is_read) const {
    for (;;) {
        if (is_read && stopping_.load(std::memory_order_relaxed)) return false;
        const auto now = steady_clock::now();
        if (now >= deadline) return false;
        auto slice = std::chrono::duration_cast<milliseconds>(deadline - now) + milliseconds(1);
        if (is_read) slice = std::min(slice, kStopCheckSlice);
        pollfd pfd{conn_.fd, events, 0};
        const int rc = ::poll(&pfd, 1, static_cast<int>(slice.count()));
        if (rc < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        if (rc == 0) continue;
        if ((pfd.revents & events) != 0) return true;
        // Hang-up without readable data, an error, or a bad descriptor: for a
        // read, let recv report EOF or the error itself.
        return is_read && (pfd.revents & (POLLHUP | POLLERR)) != 0;
    }
}

ssize_t ConnectionStream::read_transport(char* ptr, size_t size, SteadyTime deadline) {
    for (;;) {
        short wait_events = POLLIN;
        if (conn_.ssl == nullptr) {
            const ssize_t r = ::recv(conn_.fd, ptr, size, 0);
            if (r >= 0) return r;
            if (errno == EINTR) continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) return -1;
        } else {
            ERR_clear_error();
            const int r =
                SSL_read(conn_.ssl, ptr, static_cast<int>(std::min<size_t>(size, 1 << 30)));
            if (r > 0) return r;
            const int err = SSL_get_error(conn_.ssl, r);
            if (err == SSL_ERROR_ZERO_RETURN) return 0;
            if (err == SSL_ERROR_WANT_WRITE) {
                wait_events = POLLOUT;
            } else if (err != SSL_ERROR_WANT_READ) {
                ERR_clear_error();
                return -1;
            }
        }
        if (!wait_for(wait_events, deadline, true)) {
            if (steady_clock::now() >= deadline) {
                hit_ = phase_ == Phase::kHeader ? LimitHit::kHeaderTimeout : LimitHit::kBodyTimeout;
            }
            return -1;
        }
    }
}

ssize_t ConnectionStream::read(char* ptr, size_t size) {
    // cpp-httplib reads the request line and header fields one byte at a
    // time. Served from the buffer, such a read is a byte copy plus the
    // header limits' accounting; everything else takes the general path.
    if (size == 1 && phase_ == Phase::kHeader && hit_ == LimitHit::kNone && held_.empty() &&
        escape_left_ == 0 && conn_.pending() > 0) {
        const char c = conn_.buffered[conn_.buffered_offset++];
        if (conn_.pending() == 0) {
            conn_.buffered.clear();
            conn_.buffered_offset = 0;
        }
        ++phase_bytes_;
        if (c == '\n') ++header_lines_;
        if (!within_header_limits()) {
            hit_ = LimitHit::kHeaderTooLarge;
            return -1;
        }
        // Only these bytes move header_pos_ (kDone stays kDone).
        if (c == '\n' || c == ':' || c == '%' || header_pos_ == HeaderPos::kLineStart ||
            header_pos_ == HeaderPos::kLineStartCR) {
            track_header_byte(c);
        }
        *ptr = c;
        return 1;
    }
    if (phase_ == Phase::kHeader && header_pos_ != HeaderPos::kDone && size > 0) {
        return read_header_bytes(ptr, size);
    }
    return read_raw(ptr, size);
}

ssize_t ConnectionStream::read_header_bytes(char* ptr, size_t size) {
    // The header block goes a byte at a time (cpp-httplib asks for one at a
    // time anyway), so that a '%' can be followed by "25". Once a byte is in
    // hand, only bytes already received are added.
    size_t got = 0;
    while (got < size) {
        if (escape_left_ > 0) {
            ptr[got++] = escape_left_-- == 2 ? '2' : '5';
            continue;
        }
        if (header_pos_ == HeaderPos::kDone || (got > 0 && !has_pending())) break;
        const ssize_t n = read_raw(ptr + got, 1);
        if (n <= 0) return got > 0 ? static_cast<ssize_t>(got) : n;
        track_header_byte(ptr[got++]);
    }
    return static_cast<ssize_t>(got);
}

void ConnectionStream::track_header_byte(char c) {
    switch (header_pos_) {
        case HeaderPos::kRequestLine:
            if (c == '\n') header_pos_ = HeaderPos::kLineStart;
            break;
        case HeaderPos::kLineStart:
            if (c == '\r') {
                header_pos_ = HeaderPos::kLineStartCR;
            } else if (c == ':') {
                header_pos_ = HeaderPos::kValue;
            } else if (c != '\n') {  // a bare "\n" line is skipped: the next starts
                header_pos_ = HeaderPos::kName;
            }
            break;
        case HeaderPos::kLineStartCR:
            // Exactly "\r\n" ends the block; "\r\r\n" or "\rX..." is a line.
            if (c == '\n') {
                header_pos_ = HeaderPos::kDone;
            } else if (c == ':') {
                header_pos_ = HeaderPos::kValue;
            } else {
                header_pos_ = HeaderPos::kName;
            }
            break;
        case HeaderPos::kName:
            if (c == ':') header_pos_ = HeaderPos::kValue;
            if (c == '\n') header_pos_ = HeaderPos::kLineStart;
            break;
        case HeaderPos::kValue:
            if (c == '%') escape_left_ = 2;
            if (c == '\n') header_pos_ = HeaderPos::kLineStart;
            break;
        case HeaderPos::kDone:
            break;
    }
}

ssize_t ConnectionStream::read_raw(char* ptr, size_t size) {
    // A client waiting for an interim answer (100 Continue) must get it
    // before its body is read.
    if (!flush()) return -1;
    if (hit_ != LimitHit::kNone || size == 0) return hit_ == LimitHit::kNone ? 0 : -1;
    if (phase_ == Phase::kBody) {
        const size_t cap = limits_.max_body + chunked_framing_allowance(limits_.max_body);
        if (phase_bytes_ >= cap) {
            hit_ = LimitHit::kBodyTooLarge;
            return -1;
        }
        size = std::min(size, cap - phase_bytes_);
    }
    ssize_t n = 0;
    if (conn_.pending() > 0) {
        n = static_cast<ssize_t>(std::min(size, conn_.pending()));
        std::memcpy(ptr, conn_.buffered.data() + conn_.buffered_offset, static_cast<size_t>(n));
        conn_.buffered_offset += static_cast<size_t>(n);
        if (conn_.pending() == 0) {
            conn_.buffered.clear();
            conn_.buffered_offset = 0;
        }
    } else {
        // The deadline covers the whole phase, so a client whose next byte
        // is always just in time still runs out of it.
        if (steady_clock::now() >= deadline_) {
            hit_ = phase_ == Phase::kHeader ? LimitHit::kHeaderTimeout : LimitHit::kBodyTimeout;
            return -1;
        }
        n = read_transport(ptr, size, deadline_);
        if (n <= 0) return n;
    }
    if (phase_ == Phase::kHeader) return count_header_bytes(ptr, static_cast<size_t>(n)) ? n : -1;
    phase_bytes_ += static_cast<size_t>(n);
    return n;
}

bool ConnectionStream::count_header_bytes(const char* ptr, size_t n) {
    phase_bytes_ += n;
    header_lines_ += static_cast<size_t>(std::count(ptr, ptr + n, '\n'));
    if (!within_header_limits()) {
        hit_ = LimitHit::kHeaderTooLarge;
        return false;
    }
    return true;
}

ssize_t ConnectionStream::write(const char* ptr, size_t size) {
    if (discard_writes_) return static_cast<ssize_t>(size);
    const std::string_view bytes(ptr, size);
    if (std::exchange(may_hold_header_block_, false) && held_.empty() && is_header_block(bytes) &&
        declares_content_length(bytes)) {
        held_.assign(bytes);
        return static_cast<ssize_t>(size);
    }
    if (!held_.empty() && size <= kMaxCoalescedBodyBytes) {
        held_.append(bytes);
        const bool sent = send_all(held_.data(), held_.size());
        held_.clear();
        return sent ? static_cast<ssize_t>(size) : -1;
    }
    if (!flush()) return -1;
    return send_all(ptr, size) ? static_cast<ssize_t>(size) : -1;
}

bool ConnectionStream::flush() const {
    if (held_.empty()) return true;
    const bool sent = send_all(held_.data(), held_.size());
    held_.clear();
    return sent;
}

bool ConnectionStream::send_all(const char* ptr, size_t size) const {
    const SteadyTime deadline = steady_clock::now() + limits_.write;
    size_t done = 0;
    while (done < size) {
        short wait_events = POLLOUT;
        if (conn_.ssl == nullptr) {
            const ssize_t r = ::send(conn_.fd, ptr + done, size - done, MSG_NOSIGNAL);
            if (r > 0) {
                done += static_cast<size_t>(r);
                continue;
            }
            if (r < 0 && errno == EINTR) continue;
            if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return false;
        } else {
            const int chunk = static_cast<int>(std::min<size_t>(size - done, 1 << 30));
            ERR_clear_error();
            const int r = SSL_write(conn_.ssl, ptr + done, chunk);
            if (r > 0) {
                done += static_cast<size_t>(r);
                continue;
            }
            const int err = SSL_get_error(conn_.ssl, r);
            if (err == SSL_ERROR_WANT_READ) {
                wait_events = POLLIN;
            } else if (err != SSL_ERROR_WANT_WRITE) {
                ERR_clear_error();
                return false;
            }
        }
        if (!wait_for(wait_events, deadline, false)) return false;
    }
    return true;
}

bool ConnectionStream::is_writable() const {
    // httplib asks before each chunk of a streamed body: the held header
    // block goes out now, not with a chunk that may be minutes away.
    if (!flush()) return false;
    if (!wait_for(POLLOUT, steady_clock::now() + limits_.write, false)) return false;
    // A peer that closed its end reads as EOF: stop streaming to it.
    char byte;
    const ssize_t r = ::recv(conn_.fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (r == 0) return false;
    return r > 0 || errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
}

void ConnectionStream::get_remote_ip_and_port(std::string& ip, int& port) const {
    ip = conn_.peer;
    port = conn_.peer_port;
}

void ConnectionStream::get_local_ip_and_port(std::string& ip, int& port) const {
    if (conn_.local_port < 0)
        socket_address(conn_.fd, /*peer=*/false, conn_.local_ip, conn_.local_port);
    ip = conn_.local_ip;
    port = conn_.local_port;
}

void socket_address(int fd, bool peer, std::string& ip, int& port) {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    ip.clear();
    port = 0;
    auto* raw = reinterpret_cast<sockaddr*>(&addr);
    if ((peer ? ::getpeername(fd, raw, &len) : ::getsockname(fd, raw, &len)) != 0) return;
    char text[INET6_ADDRSTRLEN] = {0};
    if (addr.ss_family == AF_INET) {
        const auto* in = reinterpret_cast<const sockaddr_in*>(&addr);
        ::inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
        port = ntohs(in->sin_port);
    } else if (addr.ss_family == AF_INET6) {
        const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&addr);
        ::inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
        port = ntohs(in6->sin6_port);
    }
    ip = text;
}

void send_refusal(int fd, int status, const char* message, int retry_after_s) {
    const std::string cid = next_correlation_id();
    const std::string body = "{\"error\":{\"code\":" + std::to_string(status) + ",\"message\":\"" +
                             json_escape(message) + "\",\"correlation_id\":\"" + cid + "\"}}";
    std::string head =
        "HTTP/1.1 " + std::to_string(status) + " " + reason_phrase(status) +
        "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
        "\r\nCache-Control: no-store\r\nConnection: close\r\nX-Correlation-Id: " + cid + "\r\n";
    if (retry_after_s > 0) head += "Retry-After: " + std::to_string(retry_after_s) + "\r\n";
    const std::string response = head + "\r\n" + body;
    // Best effort and never blocking: the socket's send buffer is empty, so a
    // few hundred bytes fit at once.
    (void)::send(fd, response.data(), response.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    // Read what the client already sent, so closing does not turn into a
    // reset that could destroy the answer before the client reads it.
    char sink[4096];
    for (int i = 0; i < 16; ++i) {
        if (::recv(fd, sink, sizeof sink, MSG_DONTWAIT) <= 0) break;
    }
    ::shutdown(fd, SHUT_WR);
}

}  // namespace yuzu::http
