#include "yuzu/execution/bundle_service.hpp"

#include <algorithm>
#include <utility>

#include "execution/identifiers.hpp"
#include "execution/json_text.hpp"
#include "yuzu/execution/definition_store.hpp"
#include "yuzu/execution/execution_tracker.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::execution {
namespace {

constexpr size_t kMaxAgentIdBytes = 128;
constexpr size_t kMaxActorBytes = 256;

// The one message for unknown, malformed and not-yours ids.
Status bundle_not_found() {
    return Status::NotFound("bundle not found");
}

// A scope expression naming the one agent, for the execution rows.
std::string agent_scope(const std::string& agent_id) {
    std::string quoted;
    for (char c : agent_id) {
        if (c == '"' || c == '\\') quoted += '\\';
        quoted += c;
    }
    return "agent_id = \"" + quoted + "\"";
}

// A step as the tracker would check it alone (definition, parameter
// schema); `canonical` receives its params re-serialised.
Status check_step(const BundleStep& step, size_t index, const ExecutionTracker& tracker,
                  std::string& canonical) {
    const std::string where = "step " + std::to_string(index + 1) + ": ";
    auto params = canonical_params(step.params_json, where + "params");
    if (!params.ok()) return params.status();
    canonical = std::move(params).value();
    DispatchSpec spec;
    spec.plugin = step.plugin;
    spec.action = step.action;
    spec.params_json = canonical;
    Status s = tracker.check_dispatchable(spec);
    if (!s.ok()) return Status(s.code(), where + s.message());
    return Status::Ok();
}

std::string step_state(const std::string& execution_id, const std::string& agent_state) {
    if (execution_id.empty()) return "dispatch_failed";
    if (agent_state == "dispatched") return "pending";
    if (agent_state == "responded" || agent_state == "failed" || agent_state == "refused") {
        return "responded";
    }
    if (agent_state == "timed_out") return "timed_out";
    return "dispatch_failed";  // offline, dispatch_failed
}

}  // namespace

BundleService::BundleService(store::Database& db, const DefinitionStore& definitions,
                             ExecutionTracker& tracker, const Clock& clock)
    : db_(db), definitions_(definitions), tracker_(tracker), clock_(clock) {}

Status BundleService::check_steps(const std::vector<BundleStep>& steps) const {
    if (steps.empty() || steps.size() > kMaxBundleSteps) {
        return Status::InvalidArgument("a bundle has 1 to 32 steps");
    }
    std::string canonical;
    for (size_t i = 0; i < steps.size(); ++i) {
        YUZU_RETURN_IF_ERROR(check_step(steps[i], i, tracker_, canonical));
    }
    return Status::Ok();
}

Result<BundleDispatch> BundleService::execute(const BundleRequest& request) {
    if (!is_printable_text(request.requester, kMaxActorBytes)) {
        return Status::InvalidArgument("a bundle needs the requester's name");
    }
    if (!is_printable_text(request.agent_id, kMaxAgentIdBytes)) {
        return Status::InvalidArgument("agent_id must name one agent");
    }
    if (request.steps.empty() || request.steps.size() > kMaxBundleSteps) {
        return Status::InvalidArgument("a bundle has 1 to 32 steps");
    }
    std::vector<std::string> params(request.steps.size());
    for (size_t i = 0; i < request.steps.size(); ++i) {
        YUZU_RETURN_IF_ERROR(check_step(request.steps[i], i, tracker_, params[i]));
    }
    auto bundle_id = new_bundle_id();
    if (!bundle_id.ok()) return bundle_id.status();

    BundleDispatch out;
    out.bundle_id = std::move(bundle_id).value();
    out.agent_id = request.agent_id;
    out.expected = static_cast<int>(request.steps.size());
    {
        auto conn = db_.lock();
        auto tx = conn.transaction();
        if (!tx.ok()) return tx.status();
        auto bundle = conn.prepare(
            "INSERT INTO bundles(bundle_id, agent_id, owner, step_count, created_at_ms) VALUES(?1, "
            "?2, ?3, ?4, ?5)");
        if (!bundle.ok()) return bundle.status();
        bundle->bind(1, out.bundle_id).bind(2, request.agent_id).bind(3, request.requester);
        bundle->bind(4, out.expected).bind(5, clock_.now_ms());
        YUZU_RETURN_IF_ERROR(bundle->run());
        auto step = conn.prepare(
            "INSERT INTO bundle_steps(bundle_id, step_index, plugin, action, params) VALUES(?1, "
            "?2, ?3, ?4, ?5)");
        if (!step.ok()) return step.status();
        for (size_t i = 0; i < request.steps.size(); ++i) {
            step->bind(1, out.bundle_id).bind(2, static_cast<int64_t>(i));
            step->bind(3, request.steps[i].plugin).bind(4, request.steps[i].action);
            step->bind(5, params[i]);
            YUZU_RETURN_IF_ERROR(step->run());
        }
        YUZU_RETURN_IF_ERROR(tx.commit());
    }

    for (size_t i = 0; i < request.steps.size(); ++i) {
        DispatchSpec spec;
        spec.plugin = request.steps[i].plugin;
        spec.action = request.steps[i].action;
        spec.params_json = params[i];
        spec.agent_ids = {request.agent_id};
        spec.dispatched_by = request.requester;
        spec.scope_expression = agent_scope(request.agent_id);
        spec.timeout_ms = request.timeout_ms;
        auto dispatched = tracker_.dispatch(spec);
        auto conn = db_.lock();
        auto update = conn.prepare(
            "UPDATE bundle_steps SET execution_id = ?3, dispatch_error = ?4 WHERE bundle_id = ?1 "
            "AND step_index = ?2");
        if (!update.ok()) return update.status();
        update->bind(1, out.bundle_id).bind(2, static_cast<int64_t>(i));
        update->bind(3, dispatched.ok() ? dispatched->execution_id : std::string());
        update->bind(4, dispatched.ok() ? std::string() : dispatched.status().message());
        YUZU_RETURN_IF_ERROR(update->run());
        if (dispatched.ok()) out.dispatched += dispatched->agents_reached;
    }
    return out;
}

Result<BundleResult> BundleService::get(const std::string& bundle_id, const std::string& requester,
                                        bool is_admin) const {
    if (!is_bundle_id(bundle_id)) return bundle_not_found();
    BundleResult out;
    auto conn = db_.lock();
    {
        auto bundle = conn.prepare(
            "SELECT agent_id, owner, step_count, created_at_ms FROM bundles WHERE bundle_id = ?1");
        if (!bundle.ok()) return bundle.status();
        auto row = bundle->bind(1, bundle_id).step();
        if (!row.ok()) return row.status();
        if (!*row) return bundle_not_found();
        out.owner = bundle->column_text(1);
        if (out.owner != requester && !is_admin) return bundle_not_found();
        out.bundle_id = bundle_id;
        out.agent_id = bundle->column_text(0);
        out.expected = static_cast<int>(bundle->column_int64(2));
        out.created_at_ms = bundle->column_int64(3);
    }
    auto steps = conn.prepare(
        "SELECT s.step_index, s.plugin, s.action, s.execution_id, s.dispatch_error, a.state, "
        "a.error, r.status, r.output, r.error FROM bundle_steps s LEFT JOIN execution_agents a ON "
        "a.execution_id = s.execution_id AND a.agent_id = ?2 LEFT JOIN responses r ON "
        "r.execution_id = s.execution_id AND r.agent_id = ?2 WHERE s.bundle_id = ?1 ORDER BY "
        "s.step_index");
    if (!steps.ok()) return steps.status();
    steps->bind(1, bundle_id).bind(2, out.agent_id);
    for (;;) {
        auto row = steps->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        BundleStepResult step;
        step.index = static_cast<int>(steps->column_int64(0));
        step.plugin = steps->column_text(1);
        step.action = steps->column_text(2);
        step.execution_id = steps->column_text(3);
        step.state = step_state(step.execution_id, steps->column_text(5));
        if (step.state == "responded") {
            step.status = steps->column_text(7);
            step.output_json = steps->column_text(8);
            step.error = steps->column_text(9);
            ++out.received;
            if (step.status == "success") ++out.succeeded;
        } else {
            step.error = step.execution_id.empty() ? steps->column_text(4) : steps->column_text(6);
        }
        out.steps.push_back(std::move(step));
    }
    out.complete = std::none_of(out.steps.begin(), out.steps.end(),
                                [](const BundleStepResult& s) { return s.state == "pending"; });
    return out;
}

}  // namespace yuzu::execution
