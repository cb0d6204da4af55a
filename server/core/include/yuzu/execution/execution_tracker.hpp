// ExecutionTracker: runs one plugin action on a set of agents and follows it
// to a terminal status.
//
// An execution has two kinds of id. `execution_id` (32 hex) names the row;
// `command_id` ("<plugin>-<16 hex>") is the client-facing id of the command
// the execution sent, which query_responses accepts as an instruction id.
// Each targeted agent gets its own agent command id (32 hex, random, stored
// in the agent's state row): that is the id the agent sees on its long-poll
// and answers with, so a result is matched to exactly one (execution, agent)
// and a result for another agent's command is refused.
//
// dispatch() persists the execution and every agent's state BEFORE anything
// is queued, so a result can never arrive for an unknown command. Agents the
// registry reports offline are recorded "offline" at once and not queued;
// unknown or revoked agents, and agents whose queue is full, are
// "dispatch_failed"; the rest are queued and "dispatched". A quarantined
// agent is dispatched like any other: it refuses, and its refusal is
// recorded ("refused").
//
// Per-agent states: dispatched → responded | failed | refused | timed_out;
// offline and dispatch_failed are settled from the start. The execution
// completes when no agent is "dispatched": succeeded (every agent succeeded),
// failed (reached agents but none succeeded), completed_with_errors (some
// did), cancelled (no agent could be reached, including an empty target
// list). sweep() times out what is left at the deadline
// (dispatched_at + timeout, default --execution-timeout 120 s) and cancels
// its queued commands.
//
// Every transition is committed and then published on the event bus, in
// commit order: `dispatched` is an execution's first event and `completed`
// its last.
//
// Thread-safety: safe to call from any thread; on_result() is the agent
// plane's CommandResultSink. Lock order: transition_mu_ → executions.db →
// event bus. Registry and queue calls are made with no executions.db lock
// held.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"
#include "yuzu/execution/event_bus.hpp"
#include "yuzu/fleet/command_result.hpp"

namespace yuzu::store {
class Conn;
class Database;
}  // namespace yuzu::store
namespace yuzu::fleet {
class AgentRegistry;
class CommandQueue;
}  // namespace yuzu::fleet

namespace yuzu::execution {

class DefinitionStore;

inline constexpr int64_t kDefaultExecutionTimeoutMs = 120'000;
inline constexpr int64_t kMaxExecutionTimeoutMs = 24LL * 3600 * 1000;
inline constexpr size_t kMaxParams = 32;
inline constexpr size_t kMaxParamKeyBytes = 256;
inline constexpr size_t kMaxParamValueBytes = 64 * 1024;
inline constexpr int kDefaultListLimit = 50;
inline constexpr int kMaxListLimit = 500;

struct TrackerOptions {
    int64_t execution_timeout_ms = kDefaultExecutionTimeoutMs;  // --execution-timeout
    size_t max_agents_per_execution = 10'000;
    // Refuse plugin+action pairs that have no enabled definition.
    bool require_definition = true;
    // How often the thread started by start() sweeps (real time).
    int64_t sweep_interval_ms = 1000;
};

// What to run, where, on whose behalf. Either `definition_id` (plugin and
// action come from the definition; if they are also given they must match)
// or `plugin` + `action`.
struct DispatchSpec {
    std::string definition_id;
    std::string plugin;
    std::string action;
    std::string params_json = "{}";  // a JSON object: ≤32 keys, key ≤256 bytes, value ≤64 KiB
    std::vector<std::string>
        agent_ids;                 // resolved and authorised by the caller; duplicates dropped
    std::string dispatched_by;     // required
    std::string scope_expression;  // recorded as given
    int64_t timeout_ms = 0;        // 0 = TrackerOptions::execution_timeout_ms
};

struct DispatchResult {
    std::string execution_id;
    std::string command_id;
    std::string definition_id;  // "" when no definition matched
    std::string plugin;
    std::string action;
    int agents_targeted = 0;
    int agents_reached = 0;  // queued
    int agents_offline = 0;
    int agents_dispatch_failed = 0;
    std::string status;  // "running", or terminal when nobody was left to wait for
};

struct ExecutionRecord {
    std::string execution_id;
    std::string command_id;
    std::string definition_id;
    std::string plugin;
    std::string action;
    std::string params_json;
    std::string scope_expression;
    std::string dispatched_by;
    int64_t dispatched_at_ms = 0;
    int64_t timeout_ms = 0;
    int64_t deadline_ms = 0;
    int64_t completed_at_ms = 0;  // 0 while running
    std::string status;
    ExecutionCounts counts;
};

struct AgentExecutionState {
    std::string agent_id;
    std::string agent_command_id;  // the id the agent sees
    std::string state;  // dispatched|responded|failed|refused|timed_out|offline|dispatch_failed
    std::string error;
    int64_t updated_at_ms = 0;
    int ordinal = 0;  // position in the dispatch, from 0
};

// Which of an execution's agents to read, in dispatch order: those after
// ordinal `after` (-1: from the first), at most `limit` of them.
struct AgentRange {
    int after = -1;
    size_t limit = SIZE_MAX;
};

struct ExecutionFilter {
    std::string definition_id;
    std::string status;  // one of the execution statuses when set
    std::string dispatched_by;
    int limit = kDefaultListLimit;  // clamped to 1..kMaxListLimit
    std::string cursor;             // next_cursor of the previous page; "" = newest first
};

struct ExecutionPage {
    std::vector<ExecutionRecord> executions;  // newest first
    std::string next_cursor;                  // "" on the last page
};

// running | succeeded | completed_with_errors | failed | cancelled
bool is_execution_status(const std::string& status);
bool is_terminal_status(const std::string& status);

class ExecutionTracker {
  public:
    // db (executions.db, migrated), definitions, registry, queue, bus and
    // clock must outlive the tracker.
    ExecutionTracker(store::Database& db, const DefinitionStore& definitions,
                     fleet::AgentRegistry& registry, fleet::CommandQueue& queue,
                     ExecutionEventBus& bus, const Clock& clock, TrackerOptions options = {});
    ~ExecutionTracker();  // stops the sweeper
    ExecutionTracker(const ExecutionTracker&) = delete;
    ExecutionTracker& operator=(const ExecutionTracker&) = delete;

    // InvalidArgument (bad spec or params), NotFound (unknown definition, or
    // no definition for plugin.action when one is required),
    // FailedPrecondition (definition disabled), Unavailable/Internal (store).
    Result<DispatchResult> dispatch(const DispatchSpec& spec);
    // What dispatch() checks of the instruction alone, before any target or
    // caller: the definition exists (when one is required) and is enabled,
    // and params is an object matching its parameter_schema: InvalidArgument,
    // NotFound, or FailedPrecondition (disabled, or a schema the validator
    // cannot enforce). The MCP tools run it before the approval gate, so no
    // ticket is minted for a call that could never run.
    Status check_dispatchable(const DispatchSpec& spec) const;

    // An agent's result for its command. NotFound when the command is not
    // this agent's; FailedPrecondition when the agent already settled (a
    // duplicate or a result after the timeout): both change nothing.
    Status on_result(const std::string& agent_id, const fleet::CommandResult& result);
    // Many results in one transaction (the agent plane's group commit): one
    // Status per result, as on_result() would answer. When the batch's
    // transaction fails, each result is tried again alone, so one the store
    // refuses cannot take the others with it.
    std::vector<Status> on_results(const std::vector<fleet::AgentResult>& batch);
    // on_results() wrapped for AgentPlaneContext::on_result (logs refusals).
    fleet::CommandResultSink result_sink();

    // Times out every running execution whose deadline is ≤ now_ms; returns
    // how many it completed.
    Result<int> sweep(int64_t now_ms);
    // A thread that calls sweep(clock.now_ms()) every sweep_interval_ms.
    // start() twice is a no-op; stop() joins and may be called repeatedly.
    void start();
    void stop();

    Result<ExecutionRecord> get(const std::string& execution_id) const;  // NotFound
    // NotFound for an unknown execution. Ordered as dispatched.
    Result<std::vector<AgentExecutionState>> agent_states(const std::string& execution_id,
                                                          const AgentRange& range = {}) const;
    // InvalidArgument for an unknown status or a malformed cursor.
    Result<ExecutionPage> list(const ExecutionFilter& filter) const;
    // Executions still running (not yet settled), for /metrics.
    Result<int64_t> running_count() const;

    const TrackerOptions& options() const { return options_; }

  private:
    struct Target;
    // A recorded result's event, published once its batch has committed.
    struct PendingEvent {
        std::string execution_id;
        std::string agent_id;
        std::string state;
        std::string error;
    };
    struct ResultStatements;  // prepared once per batch (execution_results.cpp)
    // One transaction for the batch; on a store failure every entry carries it.
    std::vector<Status> record_batch(const std::vector<fleet::AgentResult>& batch);
    Result<std::string> record_result(ResultStatements& sql, const std::string& agent_id,
                                      const fleet::CommandResult& result, int64_t now_ms,
                                      PendingEvent& event);
    Status persist_dispatch(const ExecutionRecord& record, const std::vector<Target>& targets);
    void record_dispatch_failure(const std::string& execution_id, const Target& target,
                                 const std::string& error);
    Status finish_if_settled(const std::string& execution_id);
    Result<bool> time_out(const std::string& execution_id, int64_t now_ms);
    void sweeper_loop() noexcept;  // an iteration that throws is logged and retried

    store::Database& db_;
    const DefinitionStore& definitions_;
    fleet::AgentRegistry& registry_;
    fleet::CommandQueue& queue_;
    ExecutionEventBus& bus_;
    const Clock& clock_;
    const TrackerOptions options_;

    // Serialises "commit a transition, then publish it" so events leave in
    // commit order.
    std::mutex transition_mu_;

    std::mutex lifecycle_mu_;  // serialises start()/stop(); guards sweeper_
    std::thread sweeper_;
    std::mutex sweeper_mu_;
    std::condition_variable sweeper_cv_;
    bool sweeper_stop_ = false;  // guarded by sweeper_mu_
};

}  // namespace yuzu::execution
