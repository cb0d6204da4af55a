// BundleService: 1–32 plugin actions run on one agent as one request. Each
// step is an ordinary execution (its own execution_id and command), sent
// asynchronously; the bundle (tables bundles, bundle_steps) remembers who
// asked, the steps in request order and which execution each became, so the
// result can be collated at any time, also after a restart.
//
// Step states: pending (dispatched, no answer yet), responded (the agent
// answered; `status` says how), dispatch_failed (agent offline, unknown, or
// its queue full, so never sent), timed_out (sent, but no answer before the
// execution's deadline).
//
// Only the dispatcher or an administrator reads a bundle; anyone else gets
// exactly the NotFound an unknown id gets, so bundle ids are no oracle.
//
// Thread-safety: safe to call from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::store {
class Database;
}

namespace yuzu::execution {

class DefinitionStore;
class ExecutionTracker;

inline constexpr size_t kMaxBundleSteps = 32;

struct BundleStep {
    std::string plugin;              // [a-z0-9_]{1,64}
    std::string action;              // [a-z0-9_]{1,64}
    std::string params_json = "{}";  // as DispatchSpec::params_json
};

struct BundleRequest {
    std::string agent_id;
    std::vector<BundleStep> steps;  // 1..kMaxBundleSteps
    std::string requester;          // becomes the owner
    int64_t timeout_ms = 0;         // per step; 0 = the tracker's default
};

struct BundleDispatch {
    std::string bundle_id;  // "bundle-<32 hex>"
    std::string agent_id;
    int expected = 0;    // steps
    int dispatched = 0;  // steps queued to the agent
};

struct BundleStepResult {
    int index = 0;
    std::string plugin;
    std::string action;
    std::string execution_id;  // "" when the step could not be dispatched
    std::string state;         // pending | responded | dispatch_failed | timed_out
    std::string status;        // the agent's status when responded, else ""
    std::string output_json = "null";
    std::string error;
};

struct BundleResult {
    std::string bundle_id;
    std::string agent_id;
    std::string owner;
    int64_t created_at_ms = 0;
    int expected = 0;
    int received = 0;       // steps responded
    int succeeded = 0;      // steps responded with "success"
    bool complete = false;  // no step pending (complete ≠ success: compare succeeded, expected)
    std::vector<BundleStepResult> steps;  // in request order
};

class BundleService {
  public:
    // All arguments outlive the service.
    BundleService(store::Database& db, const DefinitionStore& definitions,
                  ExecutionTracker& tracker, const Clock& clock);

    // Validates every step first — InvalidArgument naming the step and
    // field, NotFound/FailedPrecondition for a step without an enabled
    // definition (when the tracker requires one) — and sends nothing unless
    // all are valid. Returns as soon as the steps are queued; an agent that
    // is offline or unknown makes every step dispatch_failed, not an error.
    Result<BundleDispatch> execute(const BundleRequest& request);
    // What execute() checks of the steps alone (count, plugin/action,
    // definitions, parameter schemas), before any agent or caller:
    // InvalidArgument or NotFound naming the step.
    Status check_steps(const std::vector<BundleStep>& steps) const;
    // NotFound("bundle not found") for an unknown id, a malformed id, and a
    // bundle the requester does not own (unless is_admin).
    Result<BundleResult> get(const std::string& bundle_id, const std::string& requester,
                             bool is_admin) const;

  private:
    store::Database& db_;
    const DefinitionStore& definitions_;
    ExecutionTracker& tracker_;
    const Clock& clock_;
};

}  // namespace yuzu::execution
