// The agentic read tools over the live fleet: get_fleet_posture_fast (the
// cheap first read, cached per caller view) and summarize_working_set (a
// narrative of the fleet, one agent or one execution, with links to read
// next). Both are read-only and answer at the readonly tier.
#include <spdlog/spdlog.h>

#include "agentic_tool_support.hpp"
#include "yuzu/access/agent_scope.hpp"
#include "yuzu/access/permission_check.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/execution/executions.hpp"
#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/fleet/fleet.hpp"
#include "yuzu/fleet/inventory_store.hpp"
#include "yuzu/mcp/agentic/fleet_posture.hpp"
#include "yuzu/mcp/yuzu_catalogue.hpp"

namespace yuzu::mcp {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;
using nlohmann::json;

const Permission kInfraRead{Securable::kInfrastructure, Operation::kRead};
const Permission kPolicyRead{Securable::kPolicy, Operation::kRead};
const Permission kPerfRead{Securable::kGuaranteedState, Operation::kRead};
const Permission kExecutionRead{Securable::kExecution, Operation::kRead};

constexpr int kDefaultWorkingSetLimit = 25;
constexpr int kMaxWorkingSetLimit = 100;

struct AgenticDeps {
    auth::Identity& identity;
    fleet::Fleet& fleet;
    execution::Executions* executions;  // null: kind "execution" is unavailable
    const ToolCatalogue& tools;
    const ResourceCatalogue& resources;
    const Clock& clock;
    std::shared_ptr<agentic::PostureCache> cache;
};

// The caller's view for a second permission a fact needs; nullopt when the
// caller holds it nowhere (or its tier does not allow it). A store that
// cannot answer fails the call: "not held" would be wrong, and cached.
Result<std::optional<agentic::AgentView>> view_for(const AgenticDeps& deps,
                                                   const auth::Principal& who, Permission what) {
    if (!access::check_direct_tier(who, what).ok()) return std::optional<agentic::AgentView>{};
    auto view = access::acting_view(deps.identity.authorizer(), deps.fleet, who, what);
    if (view.ok()) return std::optional<agentic::AgentView>{*view};
    if (view.status().code() == StatusCode::kPermissionDenied) {
        return std::optional<agentic::AgentView>{};
    }
    spdlog::warn("fleet posture: the {} view could not be read: {}", auth::permission_name(what),
                 view.status().message());
    return view.status();
}

Result<agentic::PostureRead> read_posture(const AgenticDeps& deps, const ToolCall& call, int ttl) {
    agentic::PostureViews views;
    views.agents = call.view;
    auto policy = view_for(deps, call.principal, kPolicyRead);
    if (!policy.ok()) return policy.status();
    auto perf = view_for(deps, call.principal, kPerfRead);
    if (!perf.ok()) return perf.status();
    views.policy = std::move(*policy);
    views.perf = std::move(*perf);
    return deps.cache->read(views, ttl);
}

const json kFactSchema = {{"type", "object"},
                          {"properties", {{"available", {{"type", "boolean"}}}}},
                          {"required", {"available"}}};

ToolSpec posture_tool(const AgenticDeps& deps) {
    ToolSpec spec;
    spec.name = "get_fleet_posture_fast";
    spec.title = "Fleet posture (fast)";
    spec.description =
        "Call this first. The fleet you can see in one cheap read: agents registered, online, "
        "offline and quarantined; the OS mix; compliance counts; device performance; pending "
        "reboots and failed services from inventory; what could not be read (partial, "
        "missing_sources, source_notes) and what Yuzu never collects (not_collected); and "
        "read-only tools to call next. Served from a shared cache no older than ttl_seconds "
        "(default 30); data_age_seconds says how old this reading is.";
    spec.input_schema = {{"type", "object"},
                         {"properties",
                          {{"ttl_seconds",
                            {{"type", "integer"},
                             {"minimum", agentic::kMinPostureTtlSeconds},
                             {"maximum", agentic::kMaxPostureTtlSeconds},
                             {"default", agentic::kDefaultPostureTtlSeconds},
                             {"description", "accept a cached reading up to this old"}}}}},
                         {"additionalProperties", false}};
    spec.output_schema = {
        {"type", "object"},
        {"properties",
         {{"generated_at", {{"type", "integer"}}},
          {"data_age_seconds", {{"type", "integer"}, {"minimum", 0}}},
          {"cache", {{"type", "string"}, {"enum", {"hit", "miss"}}}},
          {"cache_ttl_seconds", {{"type", "integer"}}},
          {"partial", {{"type", "boolean"}}},
          {"missing_sources", {{"type", "array"}, {"items", {{"type", "string"}}}}},
          {"source_notes", {{"type", "object"}}},
          {"not_collected", {{"type", "array"}}},
          {"agents", kFactSchema},
          {"os_mix", {{"type", "object"}, {"additionalProperties", {{"type", "integer"}}}}},
          {"compliance", kFactSchema},
          {"device_performance", kFactSchema},
          {"reboot_pending", kFactSchema},
          {"failed_services", kFactSchema},
          {"recommended_next_tools", next_tools_schema()}}},
        {"required",
         {"generated_at", "data_age_seconds", "cache", "cache_ttl_seconds", "partial",
          "missing_sources", "source_notes", "not_collected", "agents", "compliance",
          "device_performance", "reboot_pending", "failed_services", "recommended_next_tools"}}};
    spec.tier_key = kInfraRead;
    spec.access = ToolAccess{kInfraRead, AccessScope::kView, ""};
    spec.handler = [deps](const ToolCall& call) -> Result<json> {
        const int ttl =
            call.arguments.value("ttl_seconds", int64_t{agentic::kDefaultPostureTtlSeconds});
        auto posture = read_posture(deps, call, ttl);
        if (!posture.ok()) return posture.status();
        const agentic::PostureRead& read = *posture;
        json out = *read.posture;
        const int64_t age = read.age_ms / 1000;
        out["data_age_seconds"] = age;
        out["cache"] = read.cache_hit ? "hit" : "miss";
        out["cache_ttl_seconds"] = ttl;
        out["recommended_next_tools"] = reachable_read_tools(deps.tools, call.principal.mcp_tier,
                                                             out["recommended_next_tools"]);
        if (call.audit_note) {
            *call.audit_note =
                read.cache_hit ? "cache_hit age_seconds=" + std::to_string(age) : "cache_miss";
        }
        return out;
    };
    return spec;
}

// --- summarize_working_set -------------------------------------------------

json link(const AgenticDeps& deps, const std::string& uri, const std::string& why) {
    if (deps.resources.find(uri) == nullptr) return nullptr;
    return {{"uri", uri}, {"name", why}};
}

json links(const AgenticDeps& deps, std::initializer_list<std::pair<const char*, const char*>> l) {
    json out = json::array();
    for (const auto& [uri, why] : l) {
        json one = link(deps, uri, why);
        if (!one.is_null()) out.push_back(std::move(one));
    }
    return out;
}

std::string fact_line(const json& fact, const std::string& what) {
    if (!fact.value("available", false)) {
        return what + ": not available (" + fact.value("reason", std::string("unknown")) + ").";
    }
    return what + ": " + std::to_string(fact.value("affected", int64_t{0})) + " of " +
           std::to_string(fact.value("reporting", int64_t{0})) + " reporting agents.";
}

Result<json> summarize_fleet(const AgenticDeps& deps, const ToolCall& call, int limit) {
    auto read = read_posture(deps, call, agentic::kDefaultPostureTtlSeconds);
    if (!read.ok()) return read.status();
    const json& p = *read->posture;
    const json& agents = p.at("agents");
    std::string narrative;
    if (agents.value("available", false)) {
        narrative = "You can see " + std::to_string(agents.value("registered", int64_t{0})) +
                    " agents: " + std::to_string(agents.value("online", int64_t{0})) + " online, " +
                    std::to_string(agents.value("offline", int64_t{0})) + " offline, " +
                    std::to_string(agents.value("quarantined", int64_t{0})) + " quarantined.";
        std::string mix;
        for (const auto& [os, n] : p.at("os_mix").items()) {
            mix += (mix.empty() ? "" : ", ") + os + " " + std::to_string(n.get<int64_t>());
        }
        if (!mix.empty()) narrative += " OS mix: " + mix + ".";
    } else {
        narrative = "The agent registry could not be read.";
    }
    const json& c = p.at("compliance");
    if (c.value("available", false)) {
        narrative += " Compliance: " + std::to_string(c.value("non_compliant", int64_t{0})) +
                     " non-compliant of " + std::to_string(c.value("total_checks", int64_t{0})) +
                     " checks.";
    } else {
        narrative += " Compliance: not available (" + c.value("reason", std::string()) + ").";
    }
    narrative += " " + fact_line(p.at("reboot_pending"), "Pending reboots");
    narrative += " " + fact_line(p.at("failed_services"), "Failed services");
    narrative +=
        " Not collected by Yuzu: network performance, application event signals, "
        "platform internals.";

    // The agents that need attention first: offline or quarantined.
    json attention = json::array();
    if (auto all = deps.fleet.registry().list(); all.ok()) {
        for (const auto& a : *all) {
            if (static_cast<int>(attention.size()) == limit) break;
            if (call.view && !call.view->count(a.agent_id)) continue;
            if (a.online && !a.quarantined) continue;
            attention.push_back({{"agent_id", a.agent_id},
                                 {"hostname", a.hostname},
                                 {"online", a.online},
                                 {"quarantined", a.quarantined}});
        }
    }
    json facts = {{"agents", agents},
                  {"os_mix", p.value("os_mix", json::object())},
                  {"compliance", c},
                  {"reboot_pending", p.at("reboot_pending")},
                  {"failed_services", p.at("failed_services")},
                  {"needs_attention", std::move(attention)},
                  {"generated_at", p.at("generated_at")}};
    return json{
        {"found", true},
        {"narrative", narrative},
        {"facts", std::move(facts)},
        {"resource_links", links(deps, {{"yuzu://server/health", "server health"},
                                        {"yuzu://compliance/fleet", "fleet compliance"},
                                        {"yuzu://capabilities", "what you can ask at your tier"},
                                        {"yuzu://operating-model", "how to work safely"}})},
        {"recommended_next_tools", reachable_read_tools(deps.tools, call.principal.mcp_tier,
                                                        p.at("recommended_next_tools"))}};
}

json not_found(const std::string& what, const std::string& id) {
    return {{"found", false},
            {"narrative", "No " + what + " '" + id.substr(0, 64) +
                              "' is in your view: it does not exist, or you cannot see it."},
            {"facts", json::object()},
            {"recommended_next_tools", json::array()}};
}

// Agent-reported text in a sentence: JSON-quoted, so it reads as a value
// and never as the server's own words.
std::string quoted(const std::string& text) {
    return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<json> summarize_agent(const AgenticDeps& deps, const ToolCall& call, const std::string& id,
                             int limit) {
    // Outside the view and unknown read alike (the access layer's rule):
    // nothing about the agent is read before visibility is settled.
    const Status visible = access::require_visible_agent(deps.identity.authorizer(), deps.fleet,
                                                         call.principal, kInfraRead, id);
    if (visible.code() == StatusCode::kNotFound) return not_found("agent", id);
    YUZU_RETURN_IF_ERROR(visible);
    auto agent = deps.fleet.registry().get(id);
    if (!agent.ok()) return agent.status();
    auto items = deps.fleet.inventory().for_agent(id);
    if (!items.ok()) return items.status();
    json sources = json::array();
    int ok = 0;
    std::string unavailable;
    {
        for (const auto& item : *items) {
            if (item.status == "ok") {
                ++ok;
            } else {
                unavailable += (unavailable.empty() ? "" : ", ") + item.source;
            }
            if (static_cast<int>(sources.size()) < limit) {
                sources.push_back({{"source", item.source},
                                   {"status", item.status},
                                   {"collected_at", item.collected_at_ms / 1000}});
            }
        }
    }
    const auto& a = *agent;
    const int64_t seen_ago = std::max<int64_t>(0, deps.clock.now_ms() - a.last_seen_ms) / 1000;
    std::string narrative = "Agent " + quoted(a.hostname) + " (" + a.agent_id + ") runs " +
                            (a.os.empty() ? std::string("an unknown OS") : quoted(a.os)) +
                            (a.os_version.empty() ? "" : " " + quoted(a.os_version)) + " on " +
                            quoted(a.arch) + ", is " + (a.online ? "online" : "offline") +
                            ", last seen " + std::to_string(seen_ago) + " s ago" +
                            (a.quarantined ? ", and is quarantined" : "") + ". It reported " +
                            std::to_string(ok) + " inventory source(s) with data";
    narrative += unavailable.empty() ? "." : "; unavailable: " + unavailable + ".";
    json facts = {{"hostname", a.hostname},       {"os", a.os},
                  {"os_version", a.os_version},   {"arch", a.arch},
                  {"online", a.online},           {"last_seen", a.last_seen_ms / 1000},
                  {"quarantined", a.quarantined}, {"inventory_sources", std::move(sources)}};
    json next = json::array({{{"tool", "get_agent_details"},
                              {"arguments", {{"agent_id", id}}},
                              {"reason", "tags, groups and self-description"}},
                             {{"tool", "get_agent_inventory"},
                              {"arguments", {{"agent_id", id}}},
                              {"reason", "every inventory source in full"}}});
    return json{{"found", true},
                {"narrative", narrative},
                {"facts", std::move(facts)},
                {"resource_links", links(deps, {{"yuzu://server/health", "server health"},
                                                {"yuzu://operating-model", "how to work safely"}})},
                {"recommended_next_tools",
                 reachable_read_tools(deps.tools, call.principal.mcp_tier, next)}};
}

Result<json> summarize_execution(const AgenticDeps& deps, const ToolCall& call,
                                 const std::string& id) {
    if (deps.executions == nullptr) {
        return Status::InvalidArgument("kind 'execution' is not offered on this server");
    }
    // Executions are read under Execution:Read, checked like any tool's
    // permission: the tier first, then the caller's view.
    YUZU_RETURN_IF_ERROR(access::check_direct_tier(call.principal, kExecutionRead));
    // Holding Execution:Read on no agent at all is a refusal, before the
    // tracker is read; an execution outside a non-empty view reads as missing.
    if (auto held = access::acting_view(deps.identity.authorizer(), deps.fleet, call.principal,
                                        kExecutionRead);
        !held.ok()) {
        return held.status();
    }
    auto found = access::visible_execution(deps.identity.authorizer(), deps.fleet,
                                           deps.executions->tracker(), call.principal,
                                           kExecutionRead, id, access::AgentPage{0, 0});
    if (!found.ok()) {
        if (found.status().code() == StatusCode::kNotFound) return not_found("execution", id);
        return found.status();
    }
    const auto& r = found->record;
    const auto& n = r.counts;
    std::string narrative = "Execution " + r.execution_id + " (" + r.plugin + "." + r.action +
                            ") dispatched by " + r.dispatched_by + ": " + r.status + "; " +
                            std::to_string(n.responded) + " of " + std::to_string(n.targeted) +
                            " agents responded (" + std::to_string(n.success) + " succeeded, " +
                            std::to_string(n.failure) + " failed, " +
                            std::to_string(n.outstanding) + " outstanding).";
    json facts = {{"plugin", r.plugin},
                  {"action", r.action},
                  {"status", r.status},
                  {"dispatched_by", r.dispatched_by},
                  {"dispatched_at", r.dispatched_at_ms / 1000},
                  {"agents_targeted", n.targeted},
                  {"agents_responded", n.responded},
                  {"agents_success", n.success},
                  {"agents_failure", n.failure},
                  {"agents_outstanding", n.outstanding}};
    json next = json::array({{{"tool", "get_execution_status"},
                              {"arguments", {{"execution_id", id}}},
                              {"reason", "per-agent states"}},
                             {{"tool", "query_responses"},
                              {"arguments", {{"execution_id", id}}},
                              {"reason", "the agents' answers"}}});
    return json{{"found", true},
                {"narrative", narrative},
                {"facts", std::move(facts)},
                {"resource_links", links(deps, {{"yuzu://operating-model", "how to work safely"}})},
                {"recommended_next_tools",
                 reachable_read_tools(deps.tools, call.principal.mcp_tier, next)}};
}

ToolSpec working_set_tool(const AgenticDeps& deps) {
    ToolSpec spec;
    spec.name = "summarize_working_set";
    spec.title = "Summarize a working set";
    spec.description =
        "A short narrative of what you are working on, with its facts, yuzu:// resources to "
        "read and read-only tools to call next: kind fleet (the agents you can see, those "
        "needing attention first), agent (one agent by id) or execution (one execution by id; "
        "needs Execution:Read). An agent or execution you cannot see reads exactly like one "
        "that does not exist (found: false).";
    spec.input_schema = {
        {"type", "object"},
        {"properties",
         {{"kind",
           {{"type", "string"}, {"enum", {"fleet", "agent", "execution"}}, {"default", "fleet"}}},
          {"id",
           {{"type", "string"},
            {"minLength", 1},
            {"maxLength", 128},
            {"description", "the agent_id or execution_id (kinds agent and execution)"}}},
          {"limit",
           {{"type", "integer"},
            {"minimum", 1},
            {"maximum", kMaxWorkingSetLimit},
            {"default", kDefaultWorkingSetLimit}}}}},
        {"additionalProperties", false}};
    spec.output_schema = {
        {"type", "object"},
        {"properties",
         {{"kind", {{"type", "string"}}},
          {"id", {{"type", {"string", "null"}}}},
          {"found", {{"type", "boolean"}}},
          {"narrative", {{"type", "string"}, {"minLength", 1}}},
          {"facts", {{"type", "object"}}},
          {"resource_links",
           {{"type", "array"},
            {"items",
             {{"type", "object"},
              {"properties", {{"uri", {{"type", "string"}}}, {"name", {{"type", "string"}}}}},
              {"required", {"uri", "name"}}}}}},
          {"recommended_next_tools", next_tools_schema()}}},
        {"required",
         {"kind", "id", "found", "narrative", "facts", "resource_links",
          "recommended_next_tools"}}};
    spec.tier_key = kInfraRead;
    // As the posture: a caller that sees no agent is refused, rather than
    // told how many it cannot see.
    spec.access = ToolAccess{kInfraRead, AccessScope::kView, ""};
    spec.handler = [deps](const ToolCall& call) -> Result<json> {
        const std::string kind = call.arguments.value("kind", "fleet");
        const int limit = call.arguments.value("limit", kDefaultWorkingSetLimit);
        const bool has_id = call.arguments.contains("id");
        const std::string id = call.arguments.value("id", "");
        Result<json> summary = Status::InvalidArgument("kind '" + kind + "' needs an id");
        if (kind == "fleet") {
            summary = summarize_fleet(deps, call, limit);
        } else if (has_id && kind == "agent") {
            summary = summarize_agent(deps, call, id, limit);
        } else if (has_id) {
            summary = summarize_execution(deps, call, id);
        }
        if (!summary.ok()) return summary.status();
        json out = std::move(*summary);
        out["kind"] = kind;
        out["id"] = kind == "fleet" || !has_id ? json(nullptr) : json(id);
        if (!out.contains("resource_links")) out["resource_links"] = json::array();
        return out;
    };
    return spec;
}

}  // namespace

Status register_posture_tools(ToolCatalogue& tools, const ResourceCatalogue& resources,
                              const CatalogueDeps& deps) {
    if (deps.fleet == nullptr) return Status::Ok();
    agentic::PostureSources sources{deps.fleet, deps.compliance};
    AgenticDeps d{deps.identity,
                  *deps.fleet,
                  deps.executions,
                  tools,
                  resources,
                  deps.clock,
                  std::make_shared<agentic::PostureCache>(sources, deps.clock)};
    YUZU_RETURN_IF_ERROR(tools.add(posture_tool(d)));
    return tools.add(working_set_tool(d));
}

}  // namespace yuzu::mcp
