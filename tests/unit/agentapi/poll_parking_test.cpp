// PollParking and ResultIngest against a fake DeferredReply: what a held poll
// is answered with and when, and what a result's commit decides.
#include "agentapi/poll_parking.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "agentapi/result_ingest.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/fleet/command_queue.hpp"

namespace yuzu::agentapi {
namespace {

using namespace std::chrono_literals;

// Records what was sent, and lets the test play the client hanging up.
class FakeReply final : public http::DeferredReply {
  public:
    void send_json(int status, std::string body, Headers headers) override {
        std::lock_guard lock(mu_);
        if (sent_) return;
        sent_ = true;
        status_ = status;
        body_ = std::move(body);
        headers_ = std::move(headers);
        cv_.notify_all();
    }
    const std::string& correlation_id() const override { return cid_; }
    void on_client_gone(std::function<void()> callback) override {
        std::lock_guard lock(mu_);
        gone_ = std::move(callback);
    }
    void mark_held() override {}

    // Waits up to 5 s for the reply; false if none came.
    bool wait_sent() {
        std::unique_lock lock(mu_);
        return cv_.wait_for(lock, 5s, [this] { return sent_; });
    }
    bool sent() {
        std::lock_guard lock(mu_);
        return sent_;
    }
    int status() {
        std::lock_guard lock(mu_);
        return status_;
    }
    std::string body() {
        std::lock_guard lock(mu_);
        return body_;
    }
    Headers headers() {
        std::lock_guard lock(mu_);
        return headers_;
    }
    void hang_up() {
        std::function<void()> gone;
        {
            std::lock_guard lock(mu_);
            gone = std::move(gone_);
        }
        if (gone) gone();
    }

  private:
    std::mutex mu_;
    std::condition_variable cv_;
    bool sent_ = false;
    int status_ = 0;
    std::string body_;
    Headers headers_;
    std::function<void()> gone_;
    const std::string cid_ = "req-test";
};

fleet::AgentCommand command(const std::string& id) {
    fleet::AgentCommand c;
    c.command_id = id;
    c.execution_id = "e-" + id;
    c.plugin = "os";
    c.action = "info";
    return c;
}

// Answers are the command ids, comma-separated, so tests can read them.
std::string ids_of(const std::string&, const std::vector<fleet::AgentCommand>& commands) {
    std::string out;
    for (const auto& c : commands) out += (out.empty() ? "" : ",") + c.command_id;
    return out;
}

class PollParkingTest : public ::testing::Test {
  protected:
    PollParkingTest() {
        queue_.set_ready_listener([this](const std::string& id) { parking_.on_ready(id); });
    }
    ~PollParkingTest() override { queue_.set_ready_listener({}); }

    ManualClock clock_;
    fleet::CommandQueue queue_{clock_, 8};
    std::atomic<int> touches_{0};
    PollParking parking_{
        queue_, ids_of, 3,
        [this](const std::vector<std::string>& ids) { touches_ += static_cast<int>(ids.size()); },
        20ms};
};

TEST_F(PollParkingTest, AHeldPollIsAnsweredWhenItsAgentGetsACommand) {
    auto a = std::make_shared<FakeReply>();
    auto b = std::make_shared<FakeReply>();
    ASSERT_TRUE(parking_.park("agent-a", a, 30s));
    ASSERT_TRUE(parking_.park("agent-b", b, 30s));
    EXPECT_EQ(parking_.held(), 2u);
    ASSERT_TRUE(queue_.enqueue("agent-a", command("c1")).ok());
    ASSERT_TRUE(a->wait_sent());
    EXPECT_EQ(a->status(), 200);
    EXPECT_EQ(a->body(), "c1");
    EXPECT_FALSE(b->sent()) << "another agent's command wakes nobody else";
    EXPECT_EQ(parking_.held(), 1u);
}

TEST_F(PollParkingTest, AWaitThatEndsIsAnsweredEmpty) {
    auto a = std::make_shared<FakeReply>();
    ASSERT_TRUE(parking_.park("agent-a", a, 50ms));
    ASSERT_TRUE(a->wait_sent());
    EXPECT_EQ(a->body(), "");
    EXPECT_EQ(parking_.held(), 0u);
}

TEST_F(PollParkingTest, ACommandQueuedJustBeforeTheParkIsNotMissed) {
    // Queued while no poll was held (no bell rang for it): the park finds it.
    queue_.set_ready_listener({});
    ASSERT_TRUE(queue_.enqueue("agent-a", command("c1")).ok());
    queue_.set_ready_listener([this](const std::string& id) { parking_.on_ready(id); });
    auto a = std::make_shared<FakeReply>();
    ASSERT_TRUE(parking_.park("agent-a", a, 30s));
    ASSERT_TRUE(a->wait_sent());
    EXPECT_EQ(a->body(), "c1");
}

TEST_F(PollParkingTest, ANewerPollAnswersTheOlderOneEmpty) {
    auto first = std::make_shared<FakeReply>();
    auto second = std::make_shared<FakeReply>();
    ASSERT_TRUE(parking_.park("agent-a", first, 30s));
    ASSERT_TRUE(parking_.park("agent-a", second, 30s));
    ASSERT_TRUE(first->wait_sent());
    EXPECT_EQ(first->body(), "");
    EXPECT_EQ(parking_.held(), 1u);
    ASSERT_TRUE(queue_.enqueue("agent-a", command("c1")).ok());
    ASSERT_TRUE(second->wait_sent());
    EXPECT_EQ(second->body(), "c1");
}

TEST_F(PollParkingTest, ItHoldsAtMostItsCapacityAndForgetsAClientThatHungUp) {
    std::vector<std::shared_ptr<FakeReply>> held;
    for (const char* id : {"a", "b", "c"}) {
        held.push_back(std::make_shared<FakeReply>());
        ASSERT_TRUE(parking_.park(id, held.back(), 30s));
    }
    EXPECT_FALSE(parking_.park("d", std::make_shared<FakeReply>(), 30s));
    held[1]->hang_up();
    EXPECT_EQ(parking_.held(), 2u);
    EXPECT_TRUE(parking_.park("d", std::make_shared<FakeReply>(), 30s));
}

TEST_F(PollParkingTest, HeldAgentsAreToldStillConnectedAndStopAnswersThemAll) {
    auto a = std::make_shared<FakeReply>();
    ASSERT_TRUE(parking_.park("agent-a", a, 30s));
    const auto until = std::chrono::steady_clock::now() + 5s;
    while (touches_.load() < 2 && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(5ms);
    }
    EXPECT_GE(touches_.load(), 2);
    parking_.stop();
    ASSERT_TRUE(a->sent());
    EXPECT_EQ(a->body(), "");
    EXPECT_FALSE(parking_.park("agent-a", std::make_shared<FakeReply>(), 30s));
}

// The ingest: a sink that answers what the test tells it to.
class ResultIngestTest : public ::testing::Test {
  protected:
    struct Settled {
        std::string command_id;
        StatusCode code;
    };

    void start(std::function<std::vector<Status>(const std::vector<fleet::AgentResult>&)> sink) {
        ingest_ = std::make_unique<ResultIngest>(
            queue_,
            [this](const ResultIngest::Item& item, const Status& s) {
                std::lock_guard lock(mu_);
                settled_.push_back({item.result.result.command_id, s.code()});
                item.reply->send_json(s.ok() ? 204 : 503, "");
            },
            4, 100);
        ingest_->set_sink(std::move(sink));
    }

    std::shared_ptr<FakeReply> submit(const std::string& command_id) {
        auto reply = std::make_shared<FakeReply>();
        fleet::AgentResult r;
        r.agent_id = "agent-a";
        r.result.command_id = command_id;
        r.result.status = "success";
        EXPECT_TRUE(ingest_->submit({r, reply}));
        return reply;
    }

    ManualClock clock_;
    fleet::CommandQueue queue_{clock_, 8};
    std::unique_ptr<ResultIngest> ingest_;
    std::mutex mu_;
    std::vector<Settled> settled_;
};

TEST_F(ResultIngestTest, ARecordedResultIsTakenOffTheQueueAndAcknowledged) {
    ASSERT_TRUE(queue_.enqueue("agent-a", command("c1")).ok());
    ASSERT_EQ(queue_.take("agent-a").size(), 1u);
    std::atomic<size_t> batches{0};
    start([&](const std::vector<fleet::AgentResult>& batch) {
        ++batches;
        return std::vector<Status>(batch.size(), Status::Ok());
    });
    auto reply = submit("c1");
    ASSERT_TRUE(reply->wait_sent());
    EXPECT_EQ(reply->status(), 204);
    EXPECT_EQ(queue_.queued("agent-a"), 0u);
}

TEST_F(ResultIngestTest, AResultTheStoreCouldNotTakeStaysQueuedForTheResend) {
    ASSERT_TRUE(queue_.enqueue("agent-a", command("c1")).ok());
    ASSERT_EQ(queue_.take("agent-a").size(), 1u);
    std::atomic<int> calls{0};
    start([&](const std::vector<fleet::AgentResult>& batch) {
        const bool first = calls++ == 0;
        return std::vector<Status>(batch.size(),
                                   first ? Status::Unavailable("busy") : Status::Ok());
    });
    auto refused = submit("c1");
    ASSERT_TRUE(refused->wait_sent());
    EXPECT_EQ(refused->status(), 503);
    EXPECT_EQ(queue_.queued("agent-a"), 1u) << "the command waits for the resend";
    auto resent = submit("c1");
    ASSERT_TRUE(resent->wait_sent());
    EXPECT_EQ(resent->status(), 204);
    EXPECT_EQ(queue_.queued("agent-a"), 0u);
}

TEST_F(ResultIngestTest, WhatIsWaitingIsWrittenBeforeStopAndLaterSubmitsFail) {
    std::mutex gate;
    gate.lock();  // holds the first batch inside the sink
    start([&](const std::vector<fleet::AgentResult>& batch) {
        std::lock_guard wait(gate);
        return std::vector<Status>(batch.size(), Status::Ok());
    });
    std::vector<std::shared_ptr<FakeReply>> replies;
    for (const char* id : {"c1", "c2", "c3", "c4"}) replies.push_back(submit(id));
    // Four wait (one may be in the sink already): the capacity is 4.
    fleet::AgentResult extra;
    extra.agent_id = "agent-a";
    extra.result.command_id = "c9";
    std::thread stopper([&] { ingest_->stop(); });
    gate.unlock();
    stopper.join();
    for (auto& r : replies) EXPECT_TRUE(r->sent());
    EXPECT_FALSE(ingest_->submit({extra, std::make_shared<FakeReply>()}));
}

}  // namespace
}  // namespace yuzu::agentapi
