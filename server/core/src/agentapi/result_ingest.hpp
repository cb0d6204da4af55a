// ResultIngest: agents' command results, recorded by group commit.
//
// A result upload waits here (its reply deferred, no worker held) until the
// ingest thread writes it with every other result waiting, in one
// transaction. Only then is the command taken off the agent's queue and the
// agent answered 204, so an acknowledged result is always on disk, and a
// result the store could not take is answered 503 with Retry-After while
// the command stays queued: the agent sends it again. When the queue is
// full, submit() says so and the route answers 503 at once.
//
// Thread-safety: every public member may be called from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "yuzu/common/status.hpp"
#include "yuzu/fleet/command_queue.hpp"
#include "yuzu/fleet/command_result.hpp"
#include "yuzu/http/deferred_reply.hpp"

namespace yuzu::agentapi {

class ResultIngest {
  public:
    struct Item {
        fleet::AgentResult result;
        std::shared_ptr<http::DeferredReply> reply;
        int then_poll_s = -1;  // >= 0: the reply becomes a long-poll of that many seconds
        // When the upload arrived: the poll's wait counts from here, so the
        // agent's read timeout (wait plus slack) holds whatever the commit took.
        std::chrono::steady_clock::time_point received = std::chrono::steady_clock::now();
    };
    // What became of one result once its batch was written: its Status
    // from the sink (Ok when no sink is wired), for the route's metrics and
    // answer. Runs on the ingest thread, before the reply is sent.
    using Settled = std::function<void(const Item& item, const Status& status)>;

    // `niceness` is added to the ingest thread's nice value.
    ResultIngest(fleet::CommandQueue& queue, Settled settled, size_t capacity, size_t max_batch,
                 int niceness = 0);
    ~ResultIngest();
    ResultIngest(const ResultIngest&) = delete;
    ResultIngest& operator=(const ResultIngest&) = delete;

    // Set before the first submit (the executions module is wired after
    // the agent plane; the server does so before it serves). Without one a
    // result is only matched against the command queue: nothing is written.
    void set_sink(fleet::CommandResultSink sink);
    // False when `capacity` results are waiting or after stop().
    bool submit(Item item);
    // Writes what is waiting, then joins the thread; later submits fail.
    void stop();

    size_t depth() const;
    // A store fault that may pass: the agent is asked to send the result again.
    static bool is_transient(StatusCode code);

  private:
    void run() noexcept;
    bool run_once();  // one batch; false once stopped and drained
    void write(std::vector<Item>& batch);

    fleet::CommandQueue& queue_;
    const Settled settled_;
    const size_t capacity_;
    const size_t max_batch_;
    const int niceness_;

    mutable std::mutex mu_;
    std::condition_variable ready_;
    // Guarded by mu_:
    std::vector<Item> waiting_;
    fleet::CommandResultSink sink_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace yuzu::agentapi
