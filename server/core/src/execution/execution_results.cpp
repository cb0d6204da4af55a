// ExecutionTracker: agents' results, deadlines and completion.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cassert>
#include <exception>
#include <utility>

#include "execution/execution_rows.hpp"
#include "execution/json_text.hpp"
#include "yuzu/execution/execution_tracker.hpp"
#include "yuzu/fleet/command_queue.hpp"

namespace yuzu::execution {
namespace {

constexpr size_t kMaxErrorBytes = 4096;

bool is_result_status(const std::string& status) {
    return status == "success" || status == "failure" || status == "refused" || status == "timeout";
}

std::string agent_state_for(const std::string& result_status) {
    if (result_status == "success") return "responded";
    if (result_status == "refused") return "refused";
    return "failed";
}

std::string bounded_text(const std::string& text) {
    return valid_utf8(std::string_view(text).substr(0, kMaxErrorBytes));
}

ExecutionEvent make_event(ExecutionEventType type, const std::string& execution_id,
                          const std::string& status, const ExecutionCounts& counts, int64_t at_ms) {
    ExecutionEvent event;
    event.type = type;
    event.execution_id = execution_id;
    event.status = status;
    event.counts = counts;
    event.at_ms = at_ms;
    return event;
}

}  // namespace

Status ExecutionTracker::on_result(const std::string& agent_id,
                                   const fleet::CommandResult& result) {
    std::string status = result.status;
    std::string error = bounded_text(result.error);
    if (!is_result_status(status)) {
        std::string note =
            "agent reported an unknown status '" + bounded_text(status.substr(0, 32)) + "'";
        error = error.empty() ? note : note + ": " + error;
        status = "failure";
    }
    const std::string output = canonical_output(result.output_json, error);
    const std::string state = agent_state_for(status);
    const int64_t now_ms = clock_.now_ms();

    std::lock_guard order(transition_mu_);
    std::string execution_id;
    std::optional<std::string> completed;
    ExecutionCounts counts;
    {
        auto conn = db_.lock();
        auto tx = conn.transaction();
        if (!tx.ok()) return tx.status();
        {
            auto find = conn.prepare(
                "SELECT execution_id, agent_id, state FROM execution_agents WHERE command_id = ?1");
            if (!find.ok()) return find.status();
            find->bind(1, result.command_id);
            auto row = find->step();
            if (!row.ok()) return row.status();
            if (!*row || find->column_text(1) != agent_id) {
                return Status::NotFound("command '" + bounded_text(result.command_id) +
                                        "' was not sent to agent '" + bounded_text(agent_id) + "'");
            }
            execution_id = find->column_text(0);
            const std::string current = find->column_text(2);
            if (current != "dispatched") {
                return Status::FailedPrecondition("agent '" + agent_id +
                                                  "' has already settled command '" +
                                                  result.command_id + "' (" + current + ")");
            }
        }
        auto insert = conn.prepare(
            "INSERT INTO responses(execution_id, agent_id, status, output, error, duration_ms, "
            "received_at_ms) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
        if (!insert.ok()) return insert.status();
        insert->bind(1, execution_id).bind(2, agent_id).bind(3, status).bind(4, output);
        insert->bind(5, error).bind(6, std::max<int64_t>(0, result.duration_ms)).bind(7, now_ms);
        YUZU_RETURN_IF_ERROR(insert->run());
        auto settled = settle_agent(conn, execution_id, agent_id, state, error, now_ms);
        if (!settled.ok()) return settled.status();
        assert(*settled && "the row was read as dispatched inside this transaction");
        auto done = complete_if_settled(conn, execution_id, now_ms);
        if (!done.ok()) return done.status();
        completed = *done;
        auto tally = tally_states(conn, execution_id);
        if (!tally.ok()) return tally.status();
        counts = to_counts(*tally);
        YUZU_RETURN_IF_ERROR(tx.commit());
    }
    const std::string execution_status = completed.value_or("running");
    ExecutionEvent event = make_event(state == "responded" ? ExecutionEventType::kAgentResponded
                                                           : ExecutionEventType::kAgentFailed,
                                      execution_id, execution_status, counts, now_ms);
    event.agent_id = agent_id;
    event.agent_state = state;
    event.error = error;
    bus_.publish(std::move(event));
    if (completed) {
        bus_.publish(
            make_event(ExecutionEventType::kCompleted, execution_id, *completed, counts, now_ms));
    }
    return Status::Ok();
}

fleet::CommandResultSink ExecutionTracker::result_sink() {
    return [this](const std::string& agent_id, const fleet::CommandResult& result) {
        try {
            Status recorded = on_result(agent_id, result);
            if (recorded.code() == StatusCode::kFailedPrecondition ||
                recorded.code() == StatusCode::kNotFound) {
                spdlog::info("execution result ignored: {}", recorded.message());
            } else if (!recorded.ok()) {
                spdlog::error("execution result of agent {} for command {} not recorded: {}",
                              agent_id, result.command_id, recorded.to_string());
            }
        } catch (const std::exception& e) {
            // The sink runs on an agent-plane worker: nothing may escape it.
            spdlog::error("execution result of agent {} not recorded: {}", agent_id, e.what());
        }
    };
}

Result<int> ExecutionTracker::sweep(int64_t now_ms) {
    std::vector<std::string> due;
    {
        auto conn = db_.lock();
        auto stmt = conn.prepare(
            "SELECT execution_id FROM executions WHERE status = 'running' AND deadline_ms <= ?1 "
            "ORDER BY deadline_ms");
        if (!stmt.ok()) return stmt.status();
        stmt->bind(1, now_ms);
        auto ids = store::read_text_column(*stmt);
        if (!ids.ok()) return ids.status();
        due = std::move(ids).value();
    }
    int completed = 0;
    for (const auto& id : due) {
        auto done = time_out(id, now_ms);
        if (!done.ok()) return done.status();
        if (*done) ++completed;
    }
    return completed;
}

Result<bool> ExecutionTracker::time_out(const std::string& execution_id, int64_t now_ms) {
    std::lock_guard order(transition_mu_);
    std::vector<std::pair<std::string, std::string>> expired;  // agent id, agent command id
    std::optional<std::string> completed;
    ExecutionCounts counts;
    std::string error;
    {
        auto conn = db_.lock();
        auto tx = conn.transaction();
        if (!tx.ok()) return tx.status();
        auto record = load_execution(conn, execution_id);
        if (!record.ok()) return record.status();
        if (!record->has_value() || (*record)->status != "running") return false;
        error = "no result within " + std::to_string((*record)->timeout_ms / 1000) + " s";
        {
            auto stmt = conn.prepare(
                "SELECT agent_id, command_id FROM execution_agents WHERE execution_id = ?1 AND "
                "state = 'dispatched' ORDER BY ordinal");
            if (!stmt.ok()) return stmt.status();
            stmt->bind(1, execution_id);
            for (;;) {
                auto row = stmt->step();
                if (!row.ok()) return row.status();
                if (!*row) break;
                expired.emplace_back(stmt->column_text(0), stmt->column_text(1));
            }
        }
        for (const auto& [agent_id, command_id] : expired) {
            auto settled = settle_agent(conn, execution_id, agent_id, "timed_out", error, now_ms);
            if (!settled.ok()) return settled.status();
        }
        auto done = complete_if_settled(conn, execution_id, now_ms);
        if (!done.ok()) return done.status();
        completed = *done;
        auto tally = tally_states(conn, execution_id);
        if (!tally.ok()) return tally.status();
        counts = to_counts(*tally);
        YUZU_RETURN_IF_ERROR(tx.commit());
    }
    // A late answer now finds no queued command, so the agent plane drops it.
    for (const auto& [agent_id, command_id] : expired) queue_.cancel(agent_id, command_id);
    const std::string execution_status = completed.value_or("running");
    for (const auto& [agent_id, command_id] : expired) {
        ExecutionEvent event = make_event(ExecutionEventType::kAgentTimedOut, execution_id,
                                          execution_status, counts, now_ms);
        event.agent_id = agent_id;
        event.agent_state = "timed_out";
        event.error = error;
        bus_.publish(std::move(event));
    }
    if (completed) {
        bus_.publish(
            make_event(ExecutionEventType::kCompleted, execution_id, *completed, counts, now_ms));
    }
    return completed.has_value();
}

Status ExecutionTracker::finish_if_settled(const std::string& execution_id) {
    std::lock_guard order(transition_mu_);
    const int64_t now_ms = clock_.now_ms();
    std::optional<std::string> completed;
    ExecutionCounts counts;
    {
        auto conn = db_.lock();
        auto tx = conn.transaction();
        if (!tx.ok()) return tx.status();
        auto done = complete_if_settled(conn, execution_id, now_ms);
        if (!done.ok()) return done.status();
        completed = *done;
        if (!completed) return Status::Ok();
        auto tally = tally_states(conn, execution_id);
        if (!tally.ok()) return tally.status();
        counts = to_counts(*tally);
        YUZU_RETURN_IF_ERROR(tx.commit());
    }
    bus_.publish(
        make_event(ExecutionEventType::kCompleted, execution_id, *completed, counts, now_ms));
    return Status::Ok();
}

}  // namespace yuzu::execution
