// ExecutionTracker: agents' results, deadlines and completion.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cassert>
#include <exception>
#include <map>
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

// The statements a batch runs for every result, prepared once for the batch.
struct ExecutionTracker::ResultStatements {
    store::Conn& conn;
    store::Statement find;
    store::Statement insert;
    store::Statement settle;

    static Result<ResultStatements> prepare(store::Conn& conn) {
        auto find = conn.prepare(
            "SELECT execution_id, agent_id, state FROM execution_agents WHERE command_id = ?1");
        if (!find.ok()) return find.status();
        auto insert = conn.prepare(
            "INSERT INTO responses(execution_id, agent_id, status, output, error, duration_ms, "
            "received_at_ms) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
        if (!insert.ok()) return insert.status();
        auto settle = prepare_settle_agent(conn);
        if (!settle.ok()) return settle.status();
        return ResultStatements{conn, std::move(find).value(), std::move(insert).value(),
                                std::move(settle).value()};
    }
};

// One result checked and written inside the caller's transaction. The
// execution id on success; NotFound / FailedPrecondition change nothing.
Result<std::string> ExecutionTracker::record_result(ResultStatements& sql,
                                                    const std::string& agent_id,
                                                    const fleet::CommandResult& result,
                                                    int64_t now_ms, PendingEvent& event) {
    std::string status = result.status;
    std::string error = bounded_text(result.error);
    if (!is_result_status(status)) {
        std::string note =
            "agent reported an unknown status '" + bounded_text(status.substr(0, 32)) + "'";
        error = error.empty() ? note : note + ": " + error;
        status = "failure";
    }
    std::string execution_id;
    {
        store::Statement& find = sql.find;
        find.bind(1, result.command_id);
        auto row = find.step();
        if (!row.ok()) return row.status();
        const bool ours = *row && find.column_text(1) == agent_id;
        const std::string current = ours ? find.column_text(2) : std::string();
        if (ours) execution_id = find.column_text(0);
        find.reset();
        if (!ours) {
            return Status::NotFound("command '" + bounded_text(result.command_id) +
                                    "' was not sent to agent '" + bounded_text(agent_id) + "'");
        }
        if (current != "dispatched") {
            return Status::FailedPrecondition("agent '" + agent_id +
                                              "' has already settled command '" +
                                              result.command_id + "' (" + current + ")");
        }
    }
    const std::string output = canonical_output(result.output_json, error);
    const std::string state = agent_state_for(status);
    sql.insert.bind(1, execution_id).bind(2, agent_id).bind(3, status).bind(4, output);
    sql.insert.bind(5, error).bind(6, std::max<int64_t>(0, result.duration_ms)).bind(7, now_ms);
    YUZU_RETURN_IF_ERROR(sql.insert.run());
    auto settled = settle_agent(sql.conn, sql.settle, execution_id, agent_id, state, error, now_ms);
    if (!settled.ok()) return settled.status();
    assert(*settled && "the row was read as dispatched inside this transaction");
    event.execution_id = execution_id;
    event.agent_id = agent_id;
    event.state = state;
    event.error = error;
    return execution_id;
}

Status ExecutionTracker::on_result(const std::string& agent_id,
                                   const fleet::CommandResult& result) {
    return on_results({fleet::AgentResult{agent_id, result}}).front();
}

std::vector<Status> ExecutionTracker::on_results(const std::vector<fleet::AgentResult>& batch) {
    std::vector<Status> out = record_batch(batch);
    if (batch.size() < 2 || out.empty() || out.front().ok() ||
        std::any_of(out.begin(), out.end(), [](const Status& s) { return s.ok(); })) {
        return out;
    }
    // The whole batch failed (its transaction rolled back). One result the
    // store refuses must not take the others with it: each is tried again
    // on its own and gets its own verdict.
    const Status& first = out.front();
    const bool whole_batch = std::all_of(out.begin(), out.end(), [&](const Status& s) {
        return s.code() == first.code() && s.message() == first.message();
    });
    if (!whole_batch) return out;
    for (size_t i = 0; i < batch.size(); ++i) out[i] = record_batch({batch[i]}).front();
    return out;
}

std::vector<Status> ExecutionTracker::record_batch(const std::vector<fleet::AgentResult>& batch) {
    std::vector<Status> out(batch.size());
    if (batch.empty()) return out;
    const int64_t now_ms = clock_.now_ms();
    std::vector<PendingEvent> events;
    // Per execution touched: its final status (if this batch completed it)
    // and its counts after the batch.
    std::map<std::string, std::pair<std::optional<std::string>, ExecutionCounts>> touched;

    std::lock_guard order(transition_mu_);
    Status failed = [&]() -> Status {
        auto conn = db_.lock();
        auto tx = conn.transaction();
        if (!tx.ok()) return tx.status();
        auto sql = ResultStatements::prepare(conn);
        if (!sql.ok()) return sql.status();
        for (size_t i = 0; i < batch.size(); ++i) {
            PendingEvent event;
            auto recorded = record_result(*sql, batch[i].agent_id, batch[i].result, now_ms, event);
            if (!recorded.ok()) {
                const StatusCode code = recorded.status().code();
                // Not this agent's, or settled already: nothing written.
                if (code != StatusCode::kNotFound && code != StatusCode::kFailedPrecondition) {
                    return recorded.status();
                }
                out[i] = recorded.status();
                continue;
            }
            touched.try_emplace(*recorded);
            events.push_back(std::move(event));
        }
        for (auto& [execution_id, result] : touched) {
            StateTally tally;
            auto done = complete_if_settled(conn, execution_id, now_ms, &tally);
            if (!done.ok()) return done.status();
            result.first = *done;
            result.second = to_counts(tally);
        }
        return tx.commit();
    }();
    if (!failed.ok()) {
        // The transaction rolled back: nothing of this batch was recorded.
        for (Status& s : out) s = failed;
        return out;
    }
    for (const PendingEvent& pending : events) {
        const auto& [completed, counts] = touched.at(pending.execution_id);
        ExecutionEvent event =
            make_event(pending.state == "responded" ? ExecutionEventType::kAgentResponded
                                                    : ExecutionEventType::kAgentFailed,
                       pending.execution_id, completed.value_or("running"), counts, now_ms);
        event.agent_id = pending.agent_id;
        event.agent_state = pending.state;
        event.error = pending.error;
        bus_.publish(std::move(event));
    }
    for (const auto& [execution_id, result] : touched) {
        if (result.first) {
            bus_.publish(make_event(ExecutionEventType::kCompleted, execution_id, *result.first,
                                    result.second, now_ms));
        }
    }
    return out;
}

fleet::CommandResultSink ExecutionTracker::result_sink() {
    return [this](const std::vector<fleet::AgentResult>& batch) -> std::vector<Status> {
        try {
            std::vector<Status> recorded = on_results(batch);
            for (size_t i = 0; i < recorded.size(); ++i) {
                const Status& s = recorded[i];
                if (s.code() == StatusCode::kFailedPrecondition ||
                    s.code() == StatusCode::kNotFound) {
                    spdlog::info("execution result ignored: {}", s.message());
                } else if (!s.ok()) {
                    spdlog::error("execution result of agent {} for command {} not recorded: {}",
                                  batch[i].agent_id, batch[i].result.command_id, s.to_string());
                }
            }
            return recorded;
        } catch (const std::exception& e) {
            // The sink runs on the agent plane's ingest thread: nothing may escape it.
            spdlog::error("{} execution results not recorded: {}", batch.size(), e.what());
            return std::vector<Status>(batch.size(),
                                       Status::Internal("execution results not recorded"));
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
        auto settle = prepare_settle_agent(conn);
        if (!settle.ok()) return settle.status();
        for (const auto& [agent_id, command_id] : expired) {
            auto settled =
                settle_agent(conn, *settle, execution_id, agent_id, "timed_out", error, now_ms);
            if (!settled.ok()) return settled.status();
        }
        StateTally tally;
        auto done = complete_if_settled(conn, execution_id, now_ms, &tally);
        if (!done.ok()) return done.status();
        completed = *done;
        counts = to_counts(tally);
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
        StateTally tally;
        auto done = complete_if_settled(conn, execution_id, now_ms, &tally);
        if (!done.ok()) return done.status();
        completed = *done;
        if (!completed) return Status::Ok();
        counts = to_counts(tally);
        YUZU_RETURN_IF_ERROR(tx.commit());
    }
    bus_.publish(
        make_event(ExecutionEventType::kCompleted, execution_id, *completed, counts, now_ms));
    return Status::Ok();
}

}  // namespace yuzu::execution
