// One accepted client connection and the httplib::Stream that serves its
// requests with total deadlines and byte caps.
//
// cpp-httplib 0.11.4 only bounds each single read (a client that trickles a
// byte per read timeout holds a worker forever) and caps neither header size
// nor chunked bodies. ConnectionStream is the stream httplib reads from
// instead of its own: every read and write is bounded by a deadline for the
// whole phase (headers, body, one response write), and the bytes of each
// phase are counted against the listener's limits. When a limit trips the
// stream remembers which one, so the listener can answer with the right
// status (408, 413, 431) and close the connection.
//
// cpp-httplib writes a response's header block and its body in two calls.
// The stream holds the header block back and sends it with the body in one
// send, so a response is one TCP segment and one wake-up of the client
// instead of two. Only a block with a Content-Length is held: a streamed
// body's provider may block before its first chunk. Held bytes go out with
// the body, before any read, at is_writable() and at flush().
#pragma once

#include <httplib.h>
#include <openssl/ssl.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

namespace yuzu::http {

class DeferredAnswer;

using SteadyTime = std::chrono::steady_clock::time_point;

struct ConnectionLimits {
    std::chrono::milliseconds idle{5000};     // no byte of a next request
    std::chrono::milliseconds header{10000};  // request line + headers, from the first byte
    std::chrono::milliseconds body{30000};    // the body, from the end of the headers
    std::chrono::milliseconds write{10000};   // one write call
    size_t max_header_bytes = size_t{32} * 1024;
    size_t max_header_count = 100;
    size_t max_body = size_t{4} * 1024 * 1024;
    size_t keep_alive_max_count = 100;
};

// Raw body bytes allowed past max_body for chunked framing (size lines and
// CRLFs); the decoded body is checked against max_body exactly.
size_t chunked_framing_allowance(size_t max_body);

struct Connection {
    int fd = -1;
    std::string peer;  // remote address, no port
    int peer_port = 0;
    // This end's address, read once (httplib asks on every request).
    std::string local_ip;
    int local_port = -1;  // -1: not read yet
    SSL* ssl = nullptr;   // set once the TLS handshake is done
    // Bytes received but not consumed yet: the gate reads a plain-HTTP
    // request's header block (and whatever followed it) before a worker
    // takes the connection.
    std::string buffered;
    size_t buffered_offset = 0;
    size_t requests_served = 0;
    bool header_complete = false;  // `buffered` holds a whole header block
    bool lingering = false;        // refused; draining before the close
    bool holds_body_slot = false;  // served while its body was still arriving
    // A worker read the start of the next request but not enough to serve
    // it: the poller scans `buffered` as soon as it watches the connection.
    bool scan_when_watched = false;
    // A handler deferred its answer (see deferred_answer.hpp): the worker
    // hands the connection to it instead of back to the poller.
    std::shared_ptr<DeferredAnswer> deferred;
    // A deferred answer, formatted and waiting for a worker to write it.
    std::string pending_reply;
    bool close_after_reply = false;

    size_t pending() const { return buffered.size() - buffered_offset; }
};

// Which limit ended a request, if any.
enum class LimitHit { kNone, kHeaderTimeout, kHeaderTooLarge, kBodyTimeout, kBodyTooLarge };

// The HTTP status a tripped limit is answered with.
int status_for(LimitHit hit);

class ConnectionStream final : public httplib::Stream {
  public:
    ConnectionStream(Connection& conn, const ConnectionLimits& limits,
                     const std::atomic<bool>& stopping);

    // Starts the next request on this connection: the header phase, with its
    // deadline from now.
    void begin_request();
    // The headers have been parsed; the body phase starts (its deadline and
    // byte count from now).
    void begin_body();
    LimitHit limit_hit() const { return hit_; }
    // Whether the current request got past its headers (the body phase).
    bool in_body() const { return phase_ == Phase::kBody; }
    // Decrypted or received bytes already waiting for the next request.
    bool has_pending() const;
    // From now on writes are dropped (reported as written): the handler
    // deferred its answer, which is written later in its own bytes.
    void discard_writes() { discard_writes_ = true; }
    // Sends a header block write() held back; false when it could not be
    // sent (the connection is then unusable). Call once a request is served.
    bool flush() const;

    bool is_readable() const override;
    bool is_writable() const override;
    ssize_t read(char* ptr, size_t size) override;
    ssize_t write(const char* ptr, size_t size) override;
    void get_remote_ip_and_port(std::string& ip, int& port) const override;
    void get_local_ip_and_port(std::string& ip, int& port) const override;
    socket_t socket() const override { return conn_.fd; }

  private:
    enum class Phase { kHeader, kBody };
    // Where in the header block the next byte falls. cpp-httplib 0.11.4
    // percent-decodes every field value it parses ("a%41" becomes "aA"),
    // so a value would be checked as something other than what the client,
    // and any proxy before us, sent. Each '%' in a value is therefore
    // handed to it as "%25", which it decodes back to '%'. The request
    // line is left alone: its target is meant to be decoded.
    //
    // The block ends where cpp-httplib's header loop ends: at a line that is
    // exactly CRLF. It skips a line ended by a bare LF, and one that is only
    // CRs, so those are header lines here too.
    enum class HeaderPos { kRequestLine, kLineStart, kLineStartCR, kName, kValue, kDone };
    // Waits until the socket is ready for `events` or `deadline` passes;
    // false on timeout, error, or a server stop (reads only).
    bool wait_for(short events, SteadyTime deadline, bool is_read) const;
    ssize_t read_transport(char* ptr, size_t size, SteadyTime deadline);
    // read() within the header block but for the one-buffered-byte case.
    ssize_t read_header_bytes(char* ptr, size_t size);
    // What read() does but for the escaping: the bytes as they arrived.
    ssize_t read_raw(char* ptr, size_t size);
    // Moves header_pos_ past one byte of the header block.
    void track_header_byte(char c);
    // Adds n header bytes just read to the phase's counts; false (and the
    // limit recorded) once they pass a header limit.
    bool count_header_bytes(const char* ptr, size_t n);
    // The request line, the header lines and the empty line ending them.
    bool within_header_limits() const {
        return phase_bytes_ <= limits_.max_header_bytes &&
               header_lines_ <= limits_.max_header_count + 2;
    }
    // Writes all of [ptr, ptr + size) within the write deadline.
    bool send_all(const char* ptr, size_t size) const;

    Connection& conn_;
    const ConnectionLimits& limits_;
    const std::atomic<bool>& stopping_;
    Phase phase_ = Phase::kHeader;
    SteadyTime deadline_{};
    size_t phase_bytes_ = 0;
    size_t header_lines_ = 0;
    HeaderPos header_pos_ = HeaderPos::kRequestLine;
    int escape_left_ = 0;  // bytes of "25" still owed after a value's '%'
    LimitHit hit_ = LimitHit::kNone;
    bool discard_writes_ = false;
    // The first write of a request's response may be held (see above).
    bool may_hold_header_block_ = false;
    // Mutable: is_writable() is const in httplib::Stream and must send it.
    mutable std::string held_;
};

// The numeric address and port of a socket's peer (or, with peer = false,
// its own end); empty and 0 when the socket has none.
void socket_address(int fd, bool peer, std::string& ip, int& port);

// The reason phrase of a status line ("Error" for one not listed).
const char* reason_phrase(int status);

// Sends a complete minimal response (status line, Content-Type JSON body,
// Connection: close, optional Retry-After) on a non-blocking socket without
// waiting; used where no worker is involved (refusals at admission).
void send_refusal(int fd, int status, const char* message, int retry_after_s);

}  // namespace yuzu::http
