// SQL over executions and execution_agents shared by the tracker's dispatch,
// result, sweep and query paths and by bundles. Every function runs on a
// Conn the caller holds (inside its transaction when it writes).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "yuzu/common/status.hpp"
#include "yuzu/execution/event_bus.hpp"
#include "yuzu/execution/execution_tracker.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::execution {

// Agents of one execution by state.
struct StateTally {
    int dispatched = 0;
    int responded = 0;
    int failed = 0;
    int refused = 0;
    int timed_out = 0;
    int offline = 0;
    int dispatch_failed = 0;

    int total() const {
        return dispatched + responded + failed + refused + timed_out + offline + dispatch_failed;
    }
    // Adds `count` agents in `state`; false for an unknown state.
    bool add(const std::string& state, int count);
};

ExecutionCounts to_counts(const StateTally& tally);
// The terminal status of an execution with nobody outstanding.
std::string settled_status(const StateTally& tally);

Result<StateTally> tally_states(store::Conn& conn, const std::string& execution_id);

// If the execution is running and no agent is outstanding, marks it
// completed with its settled status and returns that status; otherwise
// returns nullopt. `tally`, when given, receives the counts it read.
Result<std::optional<std::string>> complete_if_settled(store::Conn& conn,
                                                       const std::string& execution_id,
                                                       int64_t now_ms, StateTally* tally = nullptr);

// The columns read_execution() expects, for SELECT ... FROM executions.
extern const char* const kExecutionColumns;
ExecutionRecord read_execution(const store::Statement& stmt);
// The execution row (counts included); nullopt when unknown.
Result<std::optional<ExecutionRecord>> load_execution(store::Conn& conn,
                                                      const std::string& execution_id);

// Sets an outstanding agent's state; false when the agent was not
// outstanding (already settled, or unknown).
Result<bool> settle_agent(store::Conn& conn, const std::string& execution_id,
                          const std::string& agent_id, const std::string& state,
                          const std::string& error, int64_t now_ms);
// The same through a statement from prepare_settle_agent(), for callers that
// settle many agents in one transaction.
Result<store::Statement> prepare_settle_agent(store::Conn& conn);
Result<bool> settle_agent(store::Conn& conn, store::Statement& prepared,
                          const std::string& execution_id, const std::string& agent_id,
                          const std::string& state, const std::string& error, int64_t now_ms);

}  // namespace yuzu::execution
