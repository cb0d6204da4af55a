// ExecutionTracker: dispatch and the sweeper's lifecycle. Results, timeouts
// and completion are in execution_results.cpp; reads in execution_queries.cpp.
#include "yuzu/execution/execution_tracker.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cassert>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>
#include <utility>

#include "execution/execution_rows.hpp"
#include "execution/identifiers.hpp"
#include "execution/json_text.hpp"
#include "yuzu/common/json_parse.hpp"
#include "yuzu/common/thread_guard.hpp"
#include "yuzu/execution/definition_store.hpp"
#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/fleet/command_queue.hpp"
#include "yuzu/jsonschema/parameter_check.hpp"

namespace yuzu::execution {

// One targeted agent as dispatch() classified it.
struct ExecutionTracker::Target {
    std::string agent_id;
    std::string command_id;  // what the agent sees
    std::string state;       // dispatched | offline | dispatch_failed
    std::string error;
};

namespace {

constexpr size_t kMaxAgentIdBytes = 128;
constexpr size_t kMaxActorBytes = 256;
constexpr size_t kMaxScopeBytes = 4096;
constexpr int64_t kMinTimeoutMs = 1000;

// The agent's own plugin timeout: three quarters of the execution's, so an
// agent that has to give up on a plugin still reports before the server
// stops waiting.
int agent_timeout_s(int64_t execution_timeout_ms) {
    const int64_t s = execution_timeout_ms * 3 / 4 / 1000;
    return static_cast<int>(std::clamp<int64_t>(s, 1, 24 * 3600));
}

// The definition to record and the plugin/action to send.
struct Resolved {
    std::string definition_id;
    std::string plugin;
    std::string action;
};

Result<Resolved> resolve(const DispatchSpec& spec, const DefinitionStore& definitions,
                         bool require_definition) {
    Resolved out{"", spec.plugin, spec.action};
    if (!spec.definition_id.empty()) {
        auto def = definitions.get(spec.definition_id);
        if (!def.ok()) return def.status();
        if ((!spec.plugin.empty() && spec.plugin != def->plugin) ||
            (!spec.action.empty() && spec.action != def->action)) {
            return Status::InvalidArgument("plugin/action do not match definition '" + def->id +
                                           "' (" + def->plugin + "." + def->action + ")");
        }
        if (!def->enabled) {
            return Status::FailedPrecondition("instruction definition '" + def->id +
                                              "' is disabled; enable it to run it");
        }
        return Resolved{def->id, def->plugin, def->action};
    }
    if (!is_plugin_name(spec.plugin)) {
        return Status::InvalidArgument("plugin must be 1 to 64 characters of [a-z0-9_]");
    }
    if (!is_plugin_name(spec.action)) {
        return Status::InvalidArgument("action must be 1 to 64 characters of [a-z0-9_]");
    }
    auto def = definitions.find(spec.plugin, spec.action);
    if (def.ok()) {
        if (!def->enabled) {
            return Status::FailedPrecondition("instruction definition '" + def->id + "' for " +
                                              spec.plugin + "." + spec.action +
                                              " is disabled; enable it to run it");
        }
        out.definition_id = def->id;
    } else if (def.status().code() != StatusCode::kNotFound) {
        return def.status();
    } else if (require_definition) {
        return Status::NotFound("no instruction definition for " + spec.plugin + "." + spec.action +
                                "; list the definitions to see what can run");
    }
    return out;
}

// params (canonical text) against the definition's parameter_schema.
Status check_definition_params(const DefinitionStore& definitions, const Resolved& resolved,
                               const std::string& params_json) {
    if (resolved.definition_id.empty()) return Status::Ok();
    auto def = definitions.get(resolved.definition_id);
    if (!def.ok()) return def.status();
    nlohmann::json params = parse_json_or_discarded(params_json);
    if (params.is_discarded()) return Status::InvalidArgument("params must be a JSON object");
    return jsonschema::check_parameters(def->parameter_schema_json, params, "params");
}

// Above this many targets a dispatch reads the registry once, whole.
constexpr size_t kReadWholeRegistryAbove = 64;

Result<std::vector<std::string>> unique_agents(const std::vector<std::string>& ids, size_t max) {
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const auto& id : ids) {
        if (!is_printable_text(id, kMaxAgentIdBytes)) {
            return Status::InvalidArgument(
                "agent ids must be 1 to 128 characters without control characters");
        }
        if (seen.insert(id).second) out.push_back(id);
    }
    if (out.size() > max) {
        return Status::InvalidArgument("an execution targets at most " + std::to_string(max) +
                                       " agents; " + std::to_string(out.size()) + " were given");
    }
    return out;
}

}  // namespace

ExecutionTracker::ExecutionTracker(store::Database& db, const DefinitionStore& definitions,
                                   fleet::AgentRegistry& registry, fleet::CommandQueue& queue,
                                   ExecutionEventBus& bus, const Clock& clock,
                                   TrackerOptions options)
    : db_(db),
      definitions_(definitions),
      registry_(registry),
      queue_(queue),
      bus_(bus),
      clock_(clock),
      options_(options) {
    assert(options_.execution_timeout_ms >= kMinTimeoutMs);
    assert(options_.sweep_interval_ms > 0);
}

ExecutionTracker::~ExecutionTracker() {
    stop();
}

Status ExecutionTracker::check_dispatchable(const DispatchSpec& spec) const {
    auto resolved = resolve(spec, definitions_, options_.require_definition);
    if (!resolved.ok()) return resolved.status();
    auto params = canonical_params(spec.params_json, "params");
    if (!params.ok()) return params.status();
    return check_definition_params(definitions_, *resolved, *params);
}

Result<DispatchResult> ExecutionTracker::dispatch(const DispatchSpec& spec) {
    if (!is_printable_text(spec.dispatched_by, kMaxActorBytes)) {
        return Status::InvalidArgument("dispatched_by must name who dispatched the execution");
    }
    if (!is_free_text(spec.scope_expression, kMaxScopeBytes) ||
        valid_utf8(spec.scope_expression) != spec.scope_expression) {
        return Status::InvalidArgument("scope_expression must be at most 4096 bytes of text");
    }
    const int64_t timeout_ms =
        spec.timeout_ms == 0 ? options_.execution_timeout_ms : spec.timeout_ms;
    if (timeout_ms < kMinTimeoutMs || timeout_ms > kMaxExecutionTimeoutMs) {
        return Status::InvalidArgument("timeout must be between 1 s and 24 h");
    }
    auto resolved = resolve(spec, definitions_, options_.require_definition);
    if (!resolved.ok()) return resolved.status();
    auto params = canonical_params(spec.params_json, "params");
    if (!params.ok()) return params.status();
    YUZU_RETURN_IF_ERROR(check_definition_params(definitions_, *resolved, *params));
    auto agents = unique_agents(spec.agent_ids, options_.max_agents_per_execution);
    if (!agents.ok()) return agents.status();

    // Classify every target before taking any lock of ours: a few targets
    // are read one by one, many with one read of the whole registry.
    Result<std::vector<fleet::AgentRecord>> registered = std::vector<fleet::AgentRecord>();
    if (agents->size() > kReadWholeRegistryAbove) {
        registered = registry_.list();
    } else {
        for (const auto& agent_id : *agents) {
            auto one = registry_.get(agent_id);
            if (one.ok()) {
                registered->push_back(std::move(one).value());
            } else if (one.status().code() != StatusCode::kNotFound) {
                registered = one.status();
                break;
            }
        }
    }
    std::unordered_map<std::string, const fleet::AgentRecord*> by_id;
    if (registered.ok()) {
        by_id.reserve(registered->size());
        for (const auto& a : *registered) by_id.emplace(a.agent_id, &a);
    }
    std::vector<Target> targets;
    targets.reserve(agents->size());
    for (const auto& agent_id : *agents) {
        auto command_id = new_agent_command_id();
        if (!command_id.ok()) return command_id.status();
        Target t{agent_id, std::move(command_id).value(), "dispatched", ""};
        const auto found = by_id.find(agent_id);
        const fleet::AgentRecord* record = found == by_id.end() ? nullptr : found->second;
        if (!registered.ok()) {
            t.state = "dispatch_failed";
            t.error = "agent registry unavailable: " + registered.status().message();
        } else if (record == nullptr) {
            t.state = "dispatch_failed";
            t.error = "agent is not registered";
        } else if (record->device_revoked) {
            t.state = "dispatch_failed";
            t.error = "agent's device token is revoked";
        } else if (!record->online) {
            t.state = "offline";
            t.error = "agent was offline at dispatch";
        }
        targets.push_back(std::move(t));
    }

    ExecutionRecord record;
    auto execution_id = new_execution_id();
    if (!execution_id.ok()) return execution_id.status();
    auto command_id = new_command_id(resolved->plugin);
    if (!command_id.ok()) return command_id.status();
    record.execution_id = std::move(execution_id).value();
    record.command_id = std::move(command_id).value();
    record.definition_id = resolved->definition_id;
    record.plugin = resolved->plugin;
    record.action = resolved->action;
    record.params_json = *params;
    record.scope_expression = spec.scope_expression;
    record.dispatched_by = spec.dispatched_by;
    record.dispatched_at_ms = clock_.now_ms();
    record.timeout_ms = timeout_ms;
    record.deadline_ms = record.dispatched_at_ms + timeout_ms;
    record.status = "running";
    YUZU_RETURN_IF_ERROR(persist_dispatch(record, targets));

    DispatchResult result;
    result.execution_id = record.execution_id;
    result.command_id = record.command_id;
    result.definition_id = record.definition_id;
    result.plugin = record.plugin;
    result.action = record.action;
    result.agents_targeted = static_cast<int>(targets.size());
    for (const Target& t : targets) {
        if (t.state == "offline") ++result.agents_offline;
        if (t.state == "dispatch_failed") ++result.agents_dispatch_failed;
        if (t.state != "dispatched") continue;
        fleet::AgentCommand command;
        command.command_id = t.command_id;
        command.execution_id = record.execution_id;
        command.plugin = record.plugin;
        command.action = record.action;
        command.params_json = record.params_json;
        command.timeout_s = agent_timeout_s(timeout_ms);
        Status queued = queue_.enqueue(t.agent_id, std::move(command));
        if (queued.ok()) {
            ++result.agents_reached;
            continue;
        }
        ++result.agents_dispatch_failed;
        record_dispatch_failure(record.execution_id, t, "could not queue: " + queued.message());
    }
    YUZU_RETURN_IF_ERROR(finish_if_settled(record.execution_id));
    auto now = get(record.execution_id);
    result.status = now.ok() ? now->status : "running";
    return result;
}

Status ExecutionTracker::persist_dispatch(const ExecutionRecord& record,
                                          const std::vector<Target>& targets) {
    std::lock_guard order(transition_mu_);
    ExecutionCounts counts;
    {
        auto conn = db_.lock();
        auto tx = conn.transaction();
        if (!tx.ok()) return tx.status();
        auto insert = conn.prepare(
            "INSERT INTO executions(execution_id, command_id, definition_id, plugin, action, "
            "params, scope_expression, dispatched_by, dispatched_at_ms, timeout_ms, deadline_ms, "
            "status) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 'running')");
        if (!insert.ok()) return insert.status();
        insert->bind(1, record.execution_id).bind(2, record.command_id);
        insert->bind(3, record.definition_id).bind(4, record.plugin).bind(5, record.action);
        insert->bind(6, record.params_json).bind(7, record.scope_expression);
        insert->bind(8, record.dispatched_by).bind(9, record.dispatched_at_ms);
        insert->bind(10, record.timeout_ms).bind(11, record.deadline_ms);
        YUZU_RETURN_IF_ERROR(insert->run());
        auto agent = conn.prepare(
            "INSERT INTO execution_agents(execution_id, agent_id, ordinal, command_id, state, "
            "error, updated_at_ms) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
        if (!agent.ok()) return agent.status();
        int ordinal = 0;
        StateTally tally;
        for (const Target& t : targets) {
            agent->bind(1, record.execution_id).bind(2, t.agent_id).bind(3, ordinal++);
            agent->bind(4, t.command_id).bind(5, t.state).bind(6, t.error);
            agent->bind(7, record.dispatched_at_ms);
            YUZU_RETURN_IF_ERROR(agent->run());
            tally.add(t.state, 1);
        }
        YUZU_RETURN_IF_ERROR(tx.commit());
        counts = to_counts(tally);
    }
    ExecutionEvent event;
    event.type = ExecutionEventType::kDispatched;
    event.execution_id = record.execution_id;
    event.status = "running";
    event.counts = counts;
    event.at_ms = record.dispatched_at_ms;
    bus_.publish(event);
    for (const Target& t : targets) {
        if (t.state == "dispatched") continue;
        ExecutionEvent agent_event = event;
        agent_event.type = t.state == "offline" ? ExecutionEventType::kAgentOffline
                                                : ExecutionEventType::kAgentFailed;
        agent_event.agent_id = t.agent_id;
        agent_event.agent_state = t.state;
        agent_event.error = t.error;
        bus_.publish(std::move(agent_event));
    }
    return Status::Ok();
}

void ExecutionTracker::record_dispatch_failure(const std::string& execution_id,
                                               const Target& target, const std::string& error) {
    std::lock_guard order(transition_mu_);
    const int64_t now_ms = clock_.now_ms();
    ExecutionCounts counts;
    {
        auto conn = db_.lock();
        auto settled = settle_agent(conn, execution_id, target.agent_id, "dispatch_failed",
                                    valid_utf8(error), now_ms);
        if (settled.ok() && !*settled) return;
        auto tally =
            settled.ok() ? tally_states(conn, execution_id) : Result<StateTally>(settled.status());
        if (!tally.ok()) {
            // The agent stays "dispatched" and the sweeper times it out.
            spdlog::warn("execution {}: could not record that agent {} was not queued: {}",
                         execution_id, target.agent_id, tally.status().to_string());
            return;
        }
        counts = to_counts(*tally);
    }
    ExecutionEvent event;
    event.type = ExecutionEventType::kAgentFailed;
    event.execution_id = execution_id;
    event.agent_id = target.agent_id;
    event.agent_state = "dispatch_failed";
    event.status = "running";
    event.error = error;
    event.counts = counts;
    event.at_ms = now_ms;
    bus_.publish(std::move(event));
}

void ExecutionTracker::start() {
    std::lock_guard lifecycle(lifecycle_mu_);
    if (sweeper_.joinable()) return;
    {
        std::lock_guard lock(sweeper_mu_);
        sweeper_stop_ = false;
    }
    sweeper_ = std::thread([this]() noexcept { sweeper_loop(); });
}

void ExecutionTracker::stop() {
    std::lock_guard lifecycle(lifecycle_mu_);
    if (!sweeper_.joinable()) return;
    {
        std::lock_guard lock(sweeper_mu_);
        sweeper_stop_ = true;
    }
    sweeper_cv_.notify_all();
    sweeper_.join();
}

void ExecutionTracker::sweeper_loop() noexcept {
    for (;;) {
        bool stop = false;
        // A throw is counted and logged; the next interval tries again.
        (void)run_guarded("execution.sweeper", [this, &stop] {
            {
                std::unique_lock lock(sweeper_mu_);
                if (sweeper_cv_.wait_for(lock,
                                         std::chrono::milliseconds(options_.sweep_interval_ms),
                                         [this] { return sweeper_stop_; })) {
                    stop = true;
                    return;
                }
            }
            auto swept = sweep(clock_.now_ms());
            if (!swept.ok()) {
                spdlog::warn("execution sweeper: {}; retrying in {} ms", swept.status().to_string(),
                             options_.sweep_interval_ms);
            }
        });
        if (stop) return;
    }
}

}  // namespace yuzu::execution
