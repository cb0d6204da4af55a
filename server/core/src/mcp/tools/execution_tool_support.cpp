#include "execution_tool_support.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "yuzu/audit/audit_log.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/auth/rbac.hpp"
#include "yuzu/auth/roles.hpp"
#include "yuzu/execution/definition_store.hpp"
#include "yuzu/execution/executions.hpp"
#include "yuzu/fleet/fleet.hpp"
#include "yuzu/mcp/retry.hpp"
#include "yuzu/metrics/builder.hpp"

namespace yuzu::mcp {

PollCounter::PollCounter(metrics::Registry* registry) {
    if (registry == nullptr) return;
    family_ = &metrics::BuildCounter()
                   .Name("yuzu_mcp_poll_total")
                   .Help(
                       "Result polls served by get_execution_status, query_responses and "
                       "get_bundle_result, by tool and verdict (ready, not_ready, not_found).")
                   .Register(*registry);
}

void PollCounter::count(std::string_view tool, std::string_view result) const {
    if (family_ == nullptr) return;
    family_->Add({{"tool", std::string(tool)}, {"result", std::string(result)}}).Increment();
}

std::optional<ExecutionToolDeps> execution_tool_deps(const CatalogueDeps& deps) {
    if (deps.fleet == nullptr || deps.executions == nullptr) return std::nullopt;
    return ExecutionToolDeps{deps.identity, *deps.fleet, *deps.executions, deps.audit,
                             PollCounter(deps.metrics)};
}

void add_poll_verdict(nlohmann::json& payload, const PollCounter& polls, std::string_view tool,
                      bool ready) {
    payload["ready"] = ready;
    if (!ready) payload["retry_after_ms"] = kMcpResultPollRetryMs;
    polls.count(tool, ready ? "ready" : "not_ready");
}

Result<VisibleExecution> visible_execution(const ExecutionToolDeps& deps,
                                           const auth::Principal& who, auth::Permission what,
                                           const std::string& execution_id,
                                           const access::AgentPage& page) {
    return access::visible_execution(deps.identity.authorizer(), deps.fleet,
                                     deps.executions.tracker(), who, what, execution_id, page);
}

Status as_argument_error(Status s) {
    if (s.code() == StatusCode::kFailedPrecondition) return Status::InvalidArgument(s.message());
    return s;
}

void audit_row(audit::AuditLog& audit, const ToolCall& call, const std::string& action,
               const std::string& target_type, const std::string& target_id,
               const std::string& result, const std::string& detail) {
    audit::AuditEvent ev;
    ev.principal = call.principal.username;
    ev.principal_kind = std::string(auth::principal_kind_name(call.principal.kind));
    ev.action = action;
    ev.target_type = target_type;
    ev.target_id = target_id;
    ev.detail = detail;
    ev.source_ip = call.source_ip;
    ev.result = audit::parse_audit_result(result).value_or(audit::AuditResult::kError);
    ev.correlation_id = call.correlation_id;
    if (Status s = audit.record(std::move(ev)); !s.ok()) {
        spdlog::error("correlation_id={} audit write for {} failed: {}", call.correlation_id,
                      action, s.message());
    }
}

void audit_dispatch(audit::AuditLog& audit, const ToolCall& call,
                    const execution::DispatchResult& r) {
    const std::string detail = r.plugin + "." + r.action + " command_id=" + r.command_id +
                               " execution_id=" + r.execution_id +
                               " agents_targeted=" + std::to_string(r.agents_targeted) +
                               " agents_reached=" + std::to_string(r.agents_reached) + " via=mcp";
    audit_row(audit, call, "execution.dispatch", "execution", r.execution_id,
              r.agents_reached > 0 ? "success" : "failure", detail);
}

std::string lower_ascii(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) {
        return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    });
    return text;
}

}  // namespace yuzu::mcp
