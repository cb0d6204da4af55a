// DeferredReply over a real HttpServer and real sockets: an answer sent
// later from another thread, before or after the worker lets go of the
// connection; a held connection costs no worker; keep-alive after a deferred
// answer; a dropped reply closes the connection; a client that hangs up is
// noticed while the reply is still due.
#include "yuzu/http/deferred_reply.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "yuzu/http/server.hpp"
#include "yuzu/metrics/registry.hpp"

namespace yuzu::http {
namespace {

using namespace std::chrono_literals;

// Replies the test holds until it decides what to do with them.
class Held {
  public:
    void add(std::shared_ptr<DeferredReply> reply) {
        std::lock_guard lock(mu_);
        replies_.push_back(std::move(reply));
        cv_.notify_all();
    }
    // The n-th held reply (0-based), waiting up to 5 s for it.
    std::shared_ptr<DeferredReply> at(size_t n) {
        std::unique_lock lock(mu_);
        cv_.wait_for(lock, 5s, [&] { return replies_.size() > n; });
        return replies_.size() > n ? replies_[n] : nullptr;
    }
    void drop(size_t n) {
        std::lock_guard lock(mu_);
        replies_[n].reset();
    }

  private:
    std::mutex mu_;
    std::condition_variable cv_;
    std::vector<std::shared_ptr<DeferredReply>> replies_;
};

class DeferredReplyTest : public ::testing::Test {
  protected:
    void SetUp() override {
        ServerOptions so;
        so.name = "deferred-test";
        so.host = "127.0.0.1";
        so.port = 0;
        so.worker_threads = 2;  // fewer than the replies held at once below
        auto server = HttpServer::create(so, metrics_);
        ASSERT_TRUE(server.ok()) << server.status().to_string();
        server_ = std::move(server).value();
        server_->get("/later", "/later", [this](const httplib::Request&, httplib::Response& res) {
            auto reply = defer_reply(res);
            ASSERT_NE(reply, nullptr);
            // What the handler writes into res is not what the client gets.
            res.set_content("not this", "text/plain");
            held_.add(std::move(reply));
        });
        server_->get("/now", "/now", [](const httplib::Request&, httplib::Response& res) {
            write_json(res, 200, R"({"now":true})");
        });
        ASSERT_TRUE(server_->bind().ok());
        serving_ = std::thread([this] { server_->serve(); });
    }

    void TearDown() override {
        if (server_) server_->stop();
        if (serving_.joinable()) serving_.join();
    }

    std::unique_ptr<httplib::Client> client() {
        auto c = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
        c->set_read_timeout(10, 0);
        return c;
    }

    metrics::Registry metrics_;
    std::unique_ptr<HttpServer> server_;
    std::thread serving_;
    Held held_;
};

TEST_F(DeferredReplyTest, TheAnswerSentLaterIsTheOneTheClientGets) {
    auto c = client();
    std::thread sender([&] {
        auto reply = held_.at(0);
        ASSERT_NE(reply, nullptr);
        EXPECT_FALSE(reply->correlation_id().empty());
        std::this_thread::sleep_for(50ms);
        reply->send_json(200, R"({"later":true})", {{"X-Extra", "1"}});
        reply->send_json(500, "{}");  // once: ignored
    });
    auto res = c->Get("/later");
    sender.join();
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
    EXPECT_EQ(res->body, R"({"later":true})");
    EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
    EXPECT_EQ(res->get_header_value("Cache-Control"), "no-store");
    EXPECT_EQ(res->get_header_value("X-Extra"), "1");
    EXPECT_EQ(res->get_header_value("X-Correlation-Id"), held_.at(0)->correlation_id());
}

TEST_F(DeferredReplyTest, HeldRepliesHoldNoWorker) {
    // Two workers, five held requests, and a sixth plain request answered
    // at once; then the held ones in reverse order.
    std::vector<std::thread> clients;
    std::vector<std::string> bodies(5);
    for (int i = 0; i < 5; ++i) {
        clients.emplace_back([&, i] {
            auto res = client()->Get("/later");
            if (res) bodies[i] = res->body;
        });
    }
    for (size_t i = 0; i < 5; ++i) ASSERT_NE(held_.at(i), nullptr);
    // Answered while all five are held: were they holding the two workers,
    // this would wait for a worker until the client's read timeout.
    auto now = client()->Get("/now");
    ASSERT_TRUE(now);
    EXPECT_EQ(now->status, 200);
    for (int i = 4; i >= 0; --i) held_.at(i)->send_json(200, "\"" + std::to_string(i) + "\"");
    for (auto& t : clients) t.join();
    std::set<std::string> got(bodies.begin(), bodies.end());
    EXPECT_EQ(got, (std::set<std::string>{"\"0\"", "\"1\"", "\"2\"", "\"3\"", "\"4\""}));
}

TEST_F(DeferredReplyTest, TheConnectionIsKeptAliveAfterADeferredAnswer) {
    auto c = client();
    c->set_keep_alive(true);
    std::thread sender([&] { held_.at(0)->send_json(200, "1"); });
    auto first = c->Get("/later");
    sender.join();
    ASSERT_TRUE(first);
    EXPECT_EQ(first->get_header_value("Connection"), "keep-alive");
    auto second = c->Get("/now");
    ASSERT_TRUE(second);
    EXPECT_EQ(second->status, 200);
}

TEST_F(DeferredReplyTest, AReplySentInsideTheHandlerStillGoesOut) {
    // Sent from within the handler: the reply is ready before the worker
    // hands the connection over.
    std::atomic<bool> sent{false};
    std::thread sender([&] {
        auto reply = held_.at(0);
        reply->send_json(201, R"({"early":true})");
        sent = true;
    });
    auto res = client()->Get("/later");
    sender.join();
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 201);
    EXPECT_TRUE(sent.load());
}

TEST_F(DeferredReplyTest, ADroppedReplyClosesTheConnection) {
    std::thread dropper([&] {
        ASSERT_NE(held_.at(0), nullptr);
        held_.drop(0);
    });
    auto res = client()->Get("/later");
    dropper.join();
    EXPECT_FALSE(res) << "the connection ends without an answer";
}

TEST_F(DeferredReplyTest, AClientThatHangsUpIsNoticedWhileTheReplyIsDue) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(server_->port()));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    const std::string request = "GET /later HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    ASSERT_EQ(::send(fd, request.data(), request.size(), 0), static_cast<ssize_t>(request.size()));
    auto reply = held_.at(0);
    ASSERT_NE(reply, nullptr);
    // Shared with the callback, which may outlive this test if it fails.
    struct Seen {
        std::mutex mu;
        std::condition_variable cv;
        bool gone = false;
    };
    auto seen = std::make_shared<Seen>();
    reply->on_client_gone([seen] {
        std::lock_guard lock(seen->mu);
        seen->gone = true;
        seen->cv.notify_all();
    });
    ::close(fd);
    std::unique_lock lock(seen->mu);
    EXPECT_TRUE(seen->cv.wait_for(lock, 5s, [&] { return seen->gone; }));
    lock.unlock();
    reply->send_json(200, "{}");  // nothing to send it on: ignored
    // A callback installed afterwards runs at once.
    bool late = false;
    reply->on_client_gone([&] { late = true; });
    EXPECT_TRUE(late);
}

TEST_F(DeferredReplyTest, StoppingTheServerClosesHeldConnections) {
    std::atomic<bool> answered{false};
    std::thread waiter([&] {
        auto res = client()->Get("/later");
        answered = static_cast<bool>(res);
    });
    auto reply = held_.at(0);
    ASSERT_NE(reply, nullptr);
    server_->stop();
    serving_.join();
    server_.reset();  // the listener drains: held connections are closed
    waiter.join();
    EXPECT_FALSE(answered.load());
    reply->send_json(200, "{}");  // the listener is gone: nothing happens
}

TEST(DeferRequest, OutsideAListenerThereIsNothingToDefer) {
    httplib::Response res;
    EXPECT_EQ(defer_reply(res), nullptr);
}

}  // namespace
}  // namespace yuzu::http
