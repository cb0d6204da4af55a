// Keep-alive over raw sockets: after an answer the worker waits a moment for
// the client's next request and serves it without the poller's hand-off.
// Whatever arrives in that moment but cannot be served yet (half a header
// block, a body still on its way, too many header bytes, a close) ends up
// exactly where it would without the wait; and a connection that keeps its
// worker busy that way never shuts out another one.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "yuzu/http/server.hpp"
#include "yuzu/metrics/registry.hpp"

namespace yuzu::http {
namespace {

using namespace std::chrono_literals;

class Socket {
  public:
    explicit Socket(int port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = htons(static_cast<uint16_t>(port));
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
        timeval tv{10, 0};
        ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    }
    ~Socket() {
        if (fd_ >= 0) ::close(fd_);
    }
    bool connected() const { return connected_; }

    bool send(std::string_view bytes) {
        while (!bytes.empty()) {
            const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
            if (n <= 0) return false;
            bytes.remove_prefix(static_cast<size_t>(n));
        }
        return true;
    }

    // One response: its status (0 when the connection closed or timed out
    // first) and its body, framed by Content-Length.
    std::pair<int, std::string> response() {
        size_t header_end;
        while ((header_end = buffer_.find("\r\n\r\n")) == std::string::npos) {
            if (!fill()) return {0, ""};
        }
        const std::string head = buffer_.substr(0, header_end);
        const int status = std::stoi(head.substr(head.find(' ') + 1, 3));
        size_t length = 0;
        if (const size_t at = head.find("Content-Length: "); at != std::string::npos) {
            length = std::stoul(head.substr(at + 16));
        }
        while (buffer_.size() < header_end + 4 + length) {
            if (!fill()) return {0, ""};
        }
        std::string body = buffer_.substr(header_end + 4, length);
        buffer_.erase(0, header_end + 4 + length);
        return {status, body};
    }

    void shutdown_write() { ::shutdown(fd_, SHUT_WR); }

    // True when the server closed the connection (within the read timeout).
    bool closed_by_server() {
        char c;
        return ::recv(fd_, &c, 1, 0) == 0;
    }

  private:
    bool fill() {
        char chunk[4096];
        const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
        if (n <= 0) return false;
        buffer_.append(chunk, static_cast<size_t>(n));
        return true;
    }

    int fd_;
    bool connected_ = false;
    std::string buffer_;
};

std::string get_request(const std::string& path) {
    return "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
}

class KeepAliveTest : public ::testing::Test {
  protected:
    void start(int workers, int max_connections = 1024) {
        ServerOptions so;
        so.max_connections = max_connections;
        so.name = "keepalive-test";
        so.host = "127.0.0.1";
        so.port = 0;
        so.worker_threads = workers;
        so.keep_alive_max_count = 100'000;
        auto server = HttpServer::create(so, metrics_);
        ASSERT_TRUE(server.ok()) << server.status().to_string();
        server_ = std::move(server).value();
        server_->get("/hello", "/hello", [](const httplib::Request&, httplib::Response& res) {
            res.set_content("hello", "text/plain");
        });
        server_->post("/echo", "/echo", [](const httplib::Request& req, httplib::Response& res) {
            res.set_content(req.body, "text/plain");
        });
        ASSERT_TRUE(server_->bind().ok());
        serving_ = std::thread([this] { server_->serve(); });
    }

    void TearDown() override {
        if (server_) server_->stop();
        if (serving_.joinable()) serving_.join();
    }

    int port() const { return server_->port(); }

    metrics::Registry metrics_;
    std::unique_ptr<HttpServer> server_;
    std::thread serving_;
};

TEST_F(KeepAliveTest, ManyRequestsOnOneConnectionAreEachAnswered) {
    start(2);
    Socket s(port());
    ASSERT_TRUE(s.connected());
    for (int i = 0; i < 200; ++i) {
        ASSERT_TRUE(s.send(get_request("/hello")));
        auto [status, body] = s.response();
        ASSERT_EQ(status, 200) << "request " << i;
        EXPECT_EQ(body, "hello");
    }
}

TEST_F(KeepAliveTest, AHeaderBlockSplitAcrossTheWaitIsServedWhenItCompletes) {
    start(2);
    Socket s(port());
    ASSERT_TRUE(s.connected());
    ASSERT_TRUE(s.send(get_request("/hello")));
    ASSERT_EQ(s.response().first, 200);
    // The first half arrives while the worker still waits, the rest long
    // after it has parked the connection with what it read.
    const std::string next = get_request("/hello");
    ASSERT_TRUE(s.send(next.substr(0, 10)));
    std::this_thread::sleep_for(100ms);
    ASSERT_TRUE(s.send(next.substr(10)));
    auto [status, body] = s.response();
    EXPECT_EQ(status, 200);
    EXPECT_EQ(body, "hello");
}

TEST_F(KeepAliveTest, ABodyThatArrivesAfterItsHeadersIsReadWhole) {
    start(2);
    Socket s(port());
    ASSERT_TRUE(s.connected());
    ASSERT_TRUE(s.send(get_request("/hello")));
    ASSERT_EQ(s.response().first, 200);
    ASSERT_TRUE(
        s.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n"
               "Content-Length: 11\r\n\r\n"));
    std::this_thread::sleep_for(100ms);
    ASSERT_TRUE(s.send("hello again"));
    auto [status, body] = s.response();
    EXPECT_EQ(status, 200);
    EXPECT_EQ(body, "hello again");
}

TEST_F(KeepAliveTest, TooManyHeaderBytesInTheWaitAre431) {
    start(2);
    Socket s(port());
    ASSERT_TRUE(s.connected());
    ASSERT_TRUE(s.send(get_request("/hello")));
    ASSERT_EQ(s.response().first, 200);
    // Over the 32 KiB default, sent at once so it lands while the worker waits.
    std::string big = "GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    for (int i = 0; i < 40; ++i)
        big += "X-Filler-" + std::to_string(i) + ": " + std::string(1000, 'a') + "\r\n";
    big += "\r\n";
    ASSERT_TRUE(s.send(big));
    EXPECT_EQ(s.response().first, 431);
}

// Everything the client sends arrives in the wait, so nothing wakes the
// poller again: it must scan what the worker read as soon as it watches the
// connection, or the client hears nothing until the idle timeout.
TEST_F(KeepAliveTest, TooManyHeaderLinesReadInTheWaitAre431AtOnce) {
    start(2);
    Socket s(port());
    ASSERT_TRUE(s.connected());
    ASSERT_TRUE(s.send(get_request("/hello")));
    ASSERT_EQ(s.response().first, 200);
    std::string lines = "GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    for (int i = 0; i < 150; ++i) lines += "X-" + std::to_string(i) + ": v\r\n";
    lines += "\r\n";
    const auto started = std::chrono::steady_clock::now();
    ASSERT_TRUE(s.send(lines));
    EXPECT_EQ(s.response().first, 431);
    EXPECT_LT(std::chrono::steady_clock::now() - started, 3s);
}

TEST_F(KeepAliveTest, AClientThatHangsUpMidRequestIsClosed) {
    start(2);
    for (const auto pause : {0ms, 100ms}) {  // within the worker's wait, and after it
        Socket s(port());
        ASSERT_TRUE(s.connected());
        ASSERT_TRUE(s.send(get_request("/hello")));
        ASSERT_EQ(s.response().first, 200);
        ASSERT_TRUE(s.send("GET /hel"));
        std::this_thread::sleep_for(pause);
        s.shutdown_write();
        const auto started = std::chrono::steady_clock::now();
        EXPECT_TRUE(s.closed_by_server()) << "pause " << pause.count() << " ms";
        // At once, not at the 5 s idle timeout.
        EXPECT_LT(std::chrono::steady_clock::now() - started, 3s);
    }
}

// One worker, and a client that sends its next request the moment it has
// read an answer: the worker must still take a second connection's request
// instead of waiting on the busy one forever.
TEST_F(KeepAliveTest, ABusyConnectionDoesNotShutOutAnother) {
    start(1);
    std::atomic<bool> stop{false};
    std::atomic<int> busy_answers{0};
    std::thread busy([&] {
        Socket s(port());
        if (!s.connected()) return;
        while (!stop.load()) {
            if (!s.send(get_request("/hello")) || s.response().first != 200) return;
            ++busy_answers;
        }
    });
    while (busy_answers.load() < 20) std::this_thread::sleep_for(1ms);
    const auto started = std::chrono::steady_clock::now();
    int served = 0;
    for (int i = 0; i < 20; ++i) {
        Socket other(port());
        ASSERT_TRUE(other.connected());
        ASSERT_TRUE(other.send(get_request("/hello")));
        if (other.response().first == 200) ++served;
    }
    const auto took = std::chrono::steady_clock::now() - started;
    stop = true;
    busy.join();
    EXPECT_EQ(served, 20);
    // Milliseconds when the worker turns to the queue between the busy
    // connection's requests; many seconds when it does not.
    EXPECT_LT(took, 2s) << "other connections waited behind the busy one";
    EXPECT_GT(busy_answers.load(), 20);
}

// At the connection cap, a client that reconnects the moment the server has
// closed its last connection finds the place free: the server gives it back
// before the close is visible, not some time after.
TEST_F(KeepAliveTest, AClosedConnectionsPlaceIsFreeOnceTheClientSeesTheClose) {
    start(2, /*max_connections=*/1);
    for (int i = 0; i < 2000; ++i) {
        Socket s(port());
        ASSERT_TRUE(s.connected());
        ASSERT_TRUE(s.send("GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"));
        const auto [status, body] = s.response();
        ASSERT_EQ(status, 200) << "connection " << i + 1 << ": " << body;
        ASSERT_TRUE(s.closed_by_server()) << "connection " << i + 1;
    }
}

}  // namespace
}  // namespace yuzu::http
