#include "agentapi/result_ingest.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "yuzu/common/thread_guard.hpp"
#include "yuzu/common/thread_priority.hpp"

namespace yuzu::agentapi {

ResultIngest::ResultIngest(fleet::CommandQueue& queue, Settled settled, size_t capacity,
                           size_t max_batch, int niceness)
    : queue_(queue),
      settled_(std::move(settled)),
      capacity_(capacity),
      max_batch_(std::max<size_t>(1, max_batch)),
      niceness_(niceness) {
    thread_ = std::thread([this]() noexcept { run(); });
}

ResultIngest::~ResultIngest() {
    stop();
}

void ResultIngest::set_sink(fleet::CommandResultSink sink) {
    std::lock_guard lock(mu_);
    sink_ = std::move(sink);
}

bool ResultIngest::submit(Item item) {
    {
        std::lock_guard lock(mu_);
        if (stopping_ || waiting_.size() >= capacity_) return false;
        waiting_.push_back(std::move(item));
    }
    ready_.notify_one();
    return true;
}

void ResultIngest::stop() {
    {
        std::lock_guard lock(mu_);
        if (stopping_) return;
        stopping_ = true;
    }
    ready_.notify_one();
    if (thread_.joinable()) thread_.join();
}

size_t ResultIngest::depth() const {
    std::lock_guard lock(mu_);
    return waiting_.size();
}

void ResultIngest::run() noexcept {
    if (Status s = lower_thread_priority(niceness_); !s.ok()) {
        spdlog::warn("agent.result_ingest: {}", s.message());
    }
    for (bool more = true; more;) {
        // A batch that throws is logged and counted; its replies are
        // dropped, which closes their connections, and the agents retry.
        if (!run_guarded("agent.result_ingest", [this, &more] { more = run_once(); })) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    }
}

bool ResultIngest::run_once() {
    std::vector<Item> batch;
    {
        std::unique_lock lock(mu_);
        ready_.wait(lock, [this] { return stopping_ || !waiting_.empty(); });
        if (waiting_.empty()) return false;  // stopping and drained
        const size_t n = std::min(max_batch_, waiting_.size());
        batch.assign(std::make_move_iterator(waiting_.begin()),
                     std::make_move_iterator(waiting_.begin() + static_cast<long>(n)));
        waiting_.erase(waiting_.begin(), waiting_.begin() + static_cast<long>(n));
    }
    write(batch);
    return true;
}

void ResultIngest::write(std::vector<Item>& batch) {
    fleet::CommandResultSink sink;
    {
        std::lock_guard lock(mu_);
        sink = sink_;
    }
    std::vector<Status> statuses(batch.size());
    if (sink) {
        std::vector<fleet::AgentResult> results;
        results.reserve(batch.size());
        for (const Item& item : batch) results.push_back(item.result);
        statuses = sink(results);
        if (statuses.size() != batch.size()) {
            statuses.assign(batch.size(), Status::Internal("result sink answered out of step"));
        }
    }
    for (size_t i = 0; i < batch.size(); ++i) {
        const Item& item = batch[i];
        const std::string& agent_id = item.result.agent_id;
        const std::string& command_id = item.result.result.command_id;
        if (!sink) {
            // Nothing records results: the queue alone says whether it was
            // this agent's command.
            settled_(item, queue_.complete(agent_id, command_id)
                               ? Status::Ok()
                               : Status::NotFound("no such command for this agent"));
            continue;
        }
        // Anything but a passing fault is final: the command is done with
        // (recorded, not this agent's, settled already, or refused for good).
        // After a passing fault it stays queued and the agent sends it again.
        if (!is_transient(statuses[i].code())) queue_.complete(agent_id, command_id);
        settled_(item, statuses[i]);
    }
}

bool ResultIngest::is_transient(StatusCode code) {
    return code == StatusCode::kUnavailable || code == StatusCode::kInternal ||
           code == StatusCode::kResourceExhausted;
}

}  // namespace yuzu::agentapi
