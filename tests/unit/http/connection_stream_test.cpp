#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "http/connection.hpp"

namespace yuzu::http {
namespace {

using std::chrono::milliseconds;

// A connected socket pair: `conn` is the server's end (non-blocking, as
// the gate leaves it), `client` the peer the test writes from.
struct Pair {
    Pair() {
        int fds[2];
        EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
        conn.fd = fds[0];
        client = fds[1];
        ::fcntl(conn.fd, F_SETFL, ::fcntl(conn.fd, F_GETFL, 0) | O_NONBLOCK);
    }
    ~Pair() {
        ::close(conn.fd);
        ::close(client);
    }
    void send(const std::string& bytes) const {
        ASSERT_EQ(::write(client, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
    }
    Connection conn;
    int client = -1;
};

ConnectionLimits small_limits() {
    ConnectionLimits l;
    l.header = milliseconds(300);
    l.body = milliseconds(300);
    l.max_header_bytes = 64;
    l.max_header_count = 3;
    l.max_body = 1000;
    return l;
}

// Reads until the stream fails or `limit` bytes came; returns the count.
size_t drain(ConnectionStream& s, size_t limit) {
    size_t total = 0;
    char buf[256];
    while (total < limit) {
        const ssize_t n = s.read(buf, sizeof buf);
        if (n <= 0) break;
        total += static_cast<size_t>(n);
    }
    return total;
}

// What the peer can read right now, without waiting.
std::string readable_now(int fd) {
    std::string out;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n <= 0) return out;
        out.append(buf, static_cast<size_t>(n));
    }
}

constexpr char kHeaderBlock[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n";

TEST(ConnectionStream, HeaderBytesOverTheCapStopTheRead) {
    Pair p;
    const auto limits = small_limits();
    std::atomic<bool> stopping{false};
    ConnectionStream s(p.conn, limits, stopping);
    s.begin_request();
    p.send(std::string(200, 'a'));
    EXPECT_LE(drain(s, 1000), limits.max_header_bytes);
    EXPECT_EQ(s.limit_hit(), LimitHit::kHeaderTooLarge);
    EXPECT_EQ(status_for(s.limit_hit()), 431);
}

TEST(ConnectionStream, TooManyHeaderLinesStopTheRead) {
    Pair p;
    const auto limits = small_limits();
    std::atomic<bool> stopping{false};
    ConnectionStream s(p.conn, limits, stopping);
    s.begin_request();
    p.send("G\na\nb\nc\nd\ne\nf\n");
    drain(s, 1000);
    EXPECT_EQ(s.limit_hit(), LimitHit::kHeaderTooLarge);
}

TEST(ConnectionStream, TricklingHeadersMeetOneDeadlineForTheWholeBlock) {
    Pair p;
    const auto limits = small_limits();
    std::atomic<bool> stopping{false};
    ConnectionStream s(p.conn, limits, stopping);
    s.begin_request();
    const auto start = std::chrono::steady_clock::now();
    char byte;
    size_t got = 0;
    // Each byte arrives well within any per-read timeout, yet the total
    // deadline still ends the header phase.
    for (int i = 0; i < 20; ++i) {
        p.send("x");
        if (s.read(&byte, 1) != 1) break;
        ++got;
        ::usleep(50 * 1000);
    }
    EXPECT_LT(got, 20u);
    EXPECT_EQ(s.limit_hit(), LimitHit::kHeaderTimeout);
    EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(900));
}

TEST(ConnectionStream, BodyBytesAreCappedWhateverTheFraming) {
    Pair p;
    const auto limits = small_limits();
    std::atomic<bool> stopping{false};
    ConnectionStream s(p.conn, limits, stopping);
    s.begin_request();
    s.begin_body();
    const size_t cap = limits.max_body + chunked_framing_allowance(limits.max_body);
    p.send(std::string(cap + 500, 'b'));
    EXPECT_EQ(drain(s, cap + 1000), cap);
    EXPECT_EQ(s.limit_hit(), LimitHit::kBodyTooLarge);
    EXPECT_EQ(status_for(s.limit_hit()), 413);
}

TEST(ConnectionStream, ASilentBodyTimesOut) {
    Pair p;
    const auto limits = small_limits();
    std::atomic<bool> stopping{false};
    ConnectionStream s(p.conn, limits, stopping);
    s.begin_request();
    s.begin_body();
    char buf[8];
    EXPECT_EQ(s.read(buf, sizeof buf), -1);
    EXPECT_EQ(s.limit_hit(), LimitHit::kBodyTimeout);
    EXPECT_EQ(status_for(s.limit_hit()), 408);
}

TEST(ConnectionStream, AStopEndsAWaitingReadWithoutBlamingTheClient) {
    Pair p;
    auto limits = small_limits();
    limits.body = std::chrono::seconds(30);
    std::atomic<bool> stopping{true};
    ConnectionStream s(p.conn, limits, stopping);
    s.begin_request();
    s.begin_body();
    const auto start = std::chrono::steady_clock::now();
    char buf[8];
    EXPECT_EQ(s.read(buf, sizeof buf), -1);
    EXPECT_EQ(s.limit_hit(), LimitHit::kNone);
    EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(500));
}

TEST(ConnectionStream, BytesTheGateAlreadyReadComeFirst) {
    Pair p;
    p.conn.buffered = "GET / HTTP/1.1\r\n\r\nrest";
    const auto limits = small_limits();
    std::atomic<bool> stopping{false};
    ConnectionStream s(p.conn, limits, stopping);
    s.begin_request();
    std::string got(18, '\0');
    ASSERT_EQ(s.read(got.data(), got.size()), 18);
    EXPECT_EQ(got, "GET / HTTP/1.1\r\n\r\n");
    EXPECT_TRUE(s.has_pending());
    char rest[8];
    EXPECT_EQ(s.read(rest, sizeof rest), 4);
    EXPECT_FALSE(s.has_pending());
}

// cpp-httplib reads the request line and header fields one byte per
// read(); bytes already buffered take a fast path that must count against
// the same limits as bytes read from the socket.
size_t read_bytewise(ConnectionStream& s, size_t limit) {
    size_t total = 0;
    char byte = 0;
    while (total < limit && s.read(&byte, 1) == 1) ++total;
    return total;
}

TEST(ConnectionStream, BufferedHeaderBytesReadOneAtATimeMeetTheByteCap) {
    Pair p;
    p.conn.buffered = std::string(200, 'a');
    const auto limits = small_limits();
    std::atomic<bool> stopping{false};
    ConnectionStream s(p.conn, limits, stopping);
    s.begin_request();
    EXPECT_EQ(read_bytewise(s, 1000), limits.max_header_bytes);
    EXPECT_EQ(s.limit_hit(), LimitHit::kHeaderTooLarge);
    char byte = 0;
    EXPECT_EQ(s.read(&byte, 1), -1);  // and it stays stopped
}

TEST(ConnectionStream, BufferedHeaderLinesReadOneAtATimeMeetTheLineCap) {
    Pair p;
    p.conn.buffered = "G\na\nb\nc\nd\ne\nf\n";
    const auto limits = small_limits();
    std::atomic<bool> stopping{false};
    ConnectionStream s(p.conn, limits, stopping);
    s.begin_request();
    // Five lines (the request line, max_header_count fields, the empty
    // line) and the sixth line's first byte pass; its newline trips the
    // limit, as it does for bytes read from the socket.
    EXPECT_EQ(read_bytewise(s, 1000), 2 * (limits.max_header_count + 2) + 1);
    EXPECT_EQ(s.limit_hit(), LimitHit::kHeaderTooLarge);
}

TEST(ConnectionStream, BufferedBytesReadOneAtATimeThenTheSocket) {
    Pair p;
    p.conn.buffered = "GET";
    const auto limits = small_limits();
    std::atomic<bool> stopping{false};
    ConnectionStream s(p.conn, limits, stopping);
    s.begin_request();
    std::string got;
    char byte = 0;
    for (int i = 0; i < 3; ++i) {
        ASSERT_EQ(s.read(&byte, 1), 1);
        got += byte;
    }
    EXPECT_EQ(got, "GET");
    EXPECT_FALSE(s.has_pending());
    EXPECT_TRUE(p.conn.buffered.empty());  // the drained buffer is released
    p.send(" /");
    ASSERT_EQ(s.read(&byte, 1), 1);
    EXPECT_EQ(byte, ' ');
}

// One read() of up to 512 bytes: what it answered ("" on none).
std::string read_once(ConnectionStream& s) {
    std::string got(512, '\0');
    const ssize_t n = s.read(got.data(), got.size());
    got.resize(n > 0 ? static_cast<size_t>(n) : 0);
    return got;
}

// cpp-httplib percent-decodes every header field value it parses. The
// stream hands it each '%' of a value as "%25", which it decodes back, so
// every check sees the bytes the client sent. The request line (whose
// target is meant to be decoded), field names and the body pass as they are.
TEST(ConnectionStream, APercentInAFieldValueReachesTheParserEscaped) {
    Pair p;
    p.conn.buffered = "GET /a%20b HTTP/1.1\r\nMcp-Name: tools%2Fcall\r\nX%y: 100%\r\n\r\nbody%41";
    auto limits = small_limits();
    limits.max_header_bytes = 1024;
    std::atomic<bool> stopping{false};
    ConnectionStream s(p.conn, limits, stopping);
    s.begin_request();
    std::string got;
    char byte = 0;
    while (s.read(&byte, 1) == 1) {
        got += byte;
        if (got.ends_with("\r\n\r\n")) break;
    }
    EXPECT_EQ(got, "GET /a%20b HTTP/1.1\r\nMcp-Name: tools%252Fcall\r\nX%y: 100%25\r\n\r\n");
    s.begin_body();
    char body[16];
    ASSERT_EQ(s.read(body, sizeof body), 7);
    EXPECT_EQ(std::string(body, 7), "body%41");
}

// cpp-httplib ends its header loop only at a line that is exactly CRLF; it
// skips a line ended by a bare LF and one of CRs alone. Neither may end the
// escaping, or a field after it would be decoded.
TEST(ConnectionStream, OnlyAnExactCrlfLineEndsTheEscaping) {
    Pair p;
    p.conn.buffered = "POST / HTTP/1.1\r\nA: 1\r\n\nB: b%41\r\n\r\r\nC: c%42\r\n\r\nbody%43";
    auto limits = small_limits();
    limits.max_header_bytes = 1024;
    limits.max_header_count = 10;
    std::atomic<bool> stopping{false};
    ConnectionStream s(p.conn, limits, stopping);
    s.begin_request();
    EXPECT_EQ(read_once(s), "POST / HTTP/1.1\r\nA: 1\r\n\nB: b%2541\r\n\r\r\nC: c%2542\r\n\r\n");
    s.begin_body();
    char body[16];
    ASSERT_EQ(s.read(body, sizeof body), 7);
    EXPECT_EQ(std::string(body, 7), "body%43");
}

// The header limits count what arrived, not the escape's extra bytes; a
// read of many bytes stops where the header block ends.
TEST(ConnectionStream, TheEscapeCountsNoBytesAgainstTheHeaderCap) {
    Pair p;
    const std::string block = "G\r\nA:" + std::string(55, '%') + "\r\n\r\n";
    ASSERT_EQ(block.size(), 64u);  // small_limits().max_header_bytes
    p.conn.buffered = block + "next";
    const auto limits = small_limits();
    std::atomic<bool> stopping{false};
    ConnectionStream s(p.conn, limits, stopping);
    s.begin_request();
    const std::string got = read_once(s);
    EXPECT_EQ(s.limit_hit(), LimitHit::kNone);
    EXPECT_EQ(got.size(), block.size() + size_t{2} * 55);  // each '%' followed by "25"
    EXPECT_TRUE(got.ends_with("%25\r\n\r\n"));
    EXPECT_TRUE(s.has_pending());  // "next" is left for what reads on
}

TEST(ConnectionStream, AClosedPeerIsNotWritable) {
    Pair p;
    const auto limits = small_limits();
    std::atomic<bool> stopping{false};
    ConnectionStream s(p.conn, limits, stopping);
    EXPECT_TRUE(s.is_writable());
    ::shutdown(p.client, SHUT_WR);
    EXPECT_FALSE(s.is_writable());
}

// The write side: a stream on a socket pair, and what its peer can read.
class ConnectionStreamWrite : public ::testing::Test {
  protected:
    // Whether the stream took all of `bytes` (sent or held).
    bool put(const std::string& bytes) {
        return s_.write(bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
    }
    std::string peer_reads() const { return readable_now(p_.client); }

    Pair p_;
    const ConnectionLimits limits_ = small_limits();
    std::atomic<bool> stopping_{false};
    ConnectionStream s_{p_.conn, limits_, stopping_};
    const std::string head_ = kHeaderBlock;
};

TEST_F(ConnectionStreamWrite, AHeaderBlockGoesOutWithItsBody) {
    s_.begin_request();
    ASSERT_TRUE(put(head_));
    EXPECT_EQ(peer_reads(), "");  // held for the body
    ASSERT_TRUE(put("ok"));
    EXPECT_EQ(peer_reads(), head_ + "ok");

    // The next request's answer without a body goes out at flush().
    s_.begin_request();
    ASSERT_TRUE(put(head_));
    EXPECT_EQ(peer_reads(), "");
    EXPECT_TRUE(s_.flush());
    EXPECT_EQ(peer_reads(), head_);
    EXPECT_TRUE(s_.flush());  // nothing left: a no-op
    EXPECT_EQ(peer_reads(), "");
}

TEST_F(ConnectionStreamWrite, AHeldHeaderBlockGoesOutBeforeAReadOrAStreamedChunk) {
    // 100 Continue: the client sends its body only once it has the answer.
    s_.begin_request();
    const std::string interim = "HTTP/1.1 100 Continue\r\n\r\n";
    ASSERT_TRUE(put(interim));
    s_.begin_body();
    p_.send("xy");
    char buf[8];
    EXPECT_EQ(s_.read(buf, sizeof buf), 2);
    EXPECT_EQ(peer_reads(), interim);

    // httplib asks is_writable() before each chunk of a streamed body.
    s_.begin_request();
    ASSERT_TRUE(put(head_));
    EXPECT_TRUE(s_.is_writable());
    EXPECT_EQ(peer_reads(), head_);
}

TEST_F(ConnectionStreamWrite, OnlyAResponsesFirstWriteOfAHeaderBlockIsHeld) {
    // No request begun (a deferred reply written whole): sent as it comes.
    ASSERT_TRUE(put(head_));
    EXPECT_EQ(peer_reads(), head_);
    // Bytes that are not a header block are never held.
    s_.begin_request();
    ASSERT_TRUE(put("data: x\n\n"));
    EXPECT_EQ(peer_reads(), "data: x\n\n");
    // A second header block in one response (after an interim answer was
    // sent) is not held either.
    ASSERT_TRUE(put(head_));
    EXPECT_EQ(peer_reads(), head_);
}

TEST_F(ConnectionStreamWrite, AStreamedResponsesHeaderBlockGoesOutAtOnce) {
    // A chunked or event-stream body's provider may wait before its first
    // chunk, and httplib 0.11.4 calls it without asking is_writable(): the
    // status and headers must not wait with it.
    for (const std::string head : {
             "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
             "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n",
             // The field name only inside another field's value.
             "HTTP/1.1 200 OK\r\nX-Note: content-length: 2\r\n\r\n",
         }) {
        s_.begin_request();
        ASSERT_TRUE(put(head));
        EXPECT_EQ(peer_reads(), head);
    }
    // The field is matched whatever its case.
    s_.begin_request();
    const std::string lower = "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n";
    ASSERT_TRUE(put(lower));
    EXPECT_EQ(peer_reads(), "");
    ASSERT_TRUE(put("ok"));
    EXPECT_EQ(peer_reads(), lower + "ok");
}

TEST_F(ConnectionStreamWrite, ABodyTooBigToCopyFollowsItsHeaderBlock) {
    s_.begin_request();
    const std::string body(100 * 1024, 'b');
    // The reader drains while the stream writes, as a real client does.
    std::string got;
    std::thread reader([&] {
        char buf[65536];
        while (got.size() < head_.size() + body.size()) {
            const ssize_t n = ::recv(p_.client, buf, sizeof buf, 0);
            if (n <= 0) return;
            got.append(buf, static_cast<size_t>(n));
        }
    });
    EXPECT_TRUE(put(head_));
    EXPECT_TRUE(put(body));
    ::shutdown(p_.conn.fd, SHUT_WR);  // the reader stops at EOF if bytes went missing
    reader.join();
    EXPECT_EQ(got, head_ + body);
}

}  // namespace
}  // namespace yuzu::http
