#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

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

TEST(ConnectionStream, AClosedPeerIsNotWritable) {
    Pair p;
    const auto limits = small_limits();
    std::atomic<bool> stopping{false};
    ConnectionStream s(p.conn, limits, stopping);
    EXPECT_TRUE(s.is_writable());
    ::shutdown(p.client, SHUT_WR);
    EXPECT_FALSE(s.is_writable());
}

}  // namespace
}  // namespace yuzu::http
