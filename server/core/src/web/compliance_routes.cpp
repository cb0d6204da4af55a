// Compliance and device-performance REST routes.
//
//   GET    /api/v1/policies[?enabled=true|false]        Policy:Read
//   POST   /api/v1/policies                             Policy:Write
//   GET    /api/v1/policies/{id}                        Policy:Read
//   PUT    /api/v1/policies/{id}                        Policy:Write
//   DELETE /api/v1/policies/{id}                        Policy:Delete
//   POST   /api/v1/policies/{id}/evaluate               Policy:Execute
//   GET    /api/v1/policies/{id}/results[?status=&limit=]  Policy:Read
//   GET    /api/v1/compliance/summary[?policy_id=]      Policy:Read
//   GET    /api/v1/compliance/fleet                     Policy:Read
//   GET    /api/v1/dex/perf/fleet                       GuaranteedState:Read
//   GET    /api/v1/dex/perf/devices?metric=&filter=&limit=  GuaranteedState:Read
//
// Reads are scoped by management group like the fleet routes: results and
// counts cover only the agents on which the caller holds the permission
// (globally, or through a group role); a caller holding it nowhere gets 403.
// Writes need the permission globally and are audited.
#include <charconv>
#include <map>
#include <string>

#include "route_access.hpp"
#include "route_registry.hpp"
#include "yuzu/auth/authorizer.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/auth/tier_policy.hpp"
#include "yuzu/compliance/compliance.hpp"
#include "yuzu/compliance/compliance_json.hpp"
#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/fleet/agent_visibility.hpp"
#include "yuzu/fleet/fleet.hpp"

namespace yuzu::web {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;
using compliance::AgentView;
using nlohmann::json;

constexpr char kPolicyId[] = "([0-9a-f]{12})";
constexpr char kTarget[] = "policy";
const Permission kPolicyRead{Securable::kPolicy, Operation::kRead};
const Permission kDexRead{Securable::kGuaranteedState, Operation::kRead};

bool service_available(const WebContext& ctx, httplib::Response& res) {
    if (ctx.compliance != nullptr && ctx.fleet != nullptr) return true;
    http::write_error(res, 503, "this server runs without the compliance service");
    return false;
}

// ---- policies ---------------------------------------------------------------

void list_policies(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                   const auth::Principal& who) {
    if (!service_available(ctx, res)) return;
    AgentView view;
    if (!reader_view(ctx, req, res, who, kPolicyRead, "policy.list", kTarget, view)) return;
    const auto enabled = query_param(req, "enabled");
    if (enabled && *enabled != "true" && *enabled != "false") {
        http::write_error(res, 400, "enabled must be true or false");
        return;
    }
    auto policies = ctx.compliance->policies().list();
    if (!policies.ok()) {
        write_status(res, policies.status());
        return;
    }
    json list = json::array();
    for (const auto& p : *policies) {
        if (enabled && (*enabled == "true") != p.enabled) continue;
        list.push_back(compliance::to_json(p));
    }
    http::write_json(res, 200, json{{"policies", std::move(list)}});
}

void create_policy(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                   const auth::Principal& who) {
    if (!service_available(ctx, res)) return;
    if (!permitted(ctx, req, res, who, {Securable::kPolicy, Operation::kWrite}, "policy.create",
                   kTarget, ""))
        return;
    auto body = parse_json_body(req, res);
    if (!body) return;
    auto spec = compliance::new_policy_from_json(*body, who.username);
    Result<compliance::Policy> created = spec.ok() ? ctx.compliance->policies().create(*spec)
                                                   : Result<compliance::Policy>(spec.status());
    const Status st = created.ok() ? Status::Ok() : created.status();
    audit_request(ctx, req, res, &who, "policy.create", kTarget, created.ok() ? created->id : "",
                  audit_result_for(st), created.ok() ? "name=" + created->name : st.message());
    if (!created.ok()) {
        write_status(res, st);
        return;
    }
    http::write_json(res, 201, compliance::to_json(*created));
}

void get_policy(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                const auth::Principal& who) {
    if (!service_available(ctx, res)) return;
    const std::string id = req.matches[1];
    AgentView view;
    if (!reader_view(ctx, req, res, who, kPolicyRead, "policy.get", kTarget, view)) return;
    auto policy = ctx.compliance->policies().get(id);
    if (!policy.ok()) {
        write_status(res, policy.status());
        return;
    }
    auto summary = ctx.compliance->summary(id, view);
    if (!summary.ok()) {
        write_status(res, summary.status());
        return;
    }
    json out = compliance::to_json(*policy);
    out["summary"] = compliance::to_json(*summary);
    http::write_json(res, 200, out);
}

void update_policy(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                   const auth::Principal& who) {
    if (!service_available(ctx, res)) return;
    const std::string id = req.matches[1];
    if (!permitted(ctx, req, res, who, {Securable::kPolicy, Operation::kWrite}, "policy.update",
                   kTarget, id))
        return;
    auto body = parse_json_body(req, res);
    if (!body) return;
    auto update = compliance::policy_update_from_json(*body);
    Result<compliance::Policy> updated = update.ok()
                                             ? ctx.compliance->policies().update(id, *update)
                                             : Result<compliance::Policy>(update.status());
    const Status st = updated.ok() ? Status::Ok() : updated.status();
    std::string changed;
    for (auto it = body->begin(); it != body->end(); ++it) {
        changed += (changed.empty() ? "" : ",") + it.key();
    }
    audit_request(ctx, req, res, &who, "policy.update", kTarget, id, audit_result_for(st),
                  st.ok() ? "fields=" + changed : st.message());
    if (!updated.ok()) {
        write_status(res, st);
        return;
    }
    http::write_json(res, 200, compliance::to_json(*updated));
}

void delete_policy(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                   const auth::Principal& who) {
    if (!service_available(ctx, res)) return;
    const std::string id = req.matches[1];
    if (!permitted(ctx, req, res, who, {Securable::kPolicy, Operation::kDelete}, "policy.delete",
                   kTarget, id))
        return;
    const Status st = ctx.compliance->policies().remove(id);
    audit_request(ctx, req, res, &who, "policy.delete", kTarget, id, audit_result_for(st),
                  st.ok() ? "" : st.message());
    if (!st.ok()) {
        write_status(res, st);
        return;
    }
    res.status = 204;
}

void evaluate_policy(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                     const auth::Principal& who) {
    if (!service_available(ctx, res)) return;
    const std::string id = req.matches[1];
    if (!permitted(ctx, req, res, who, {Securable::kPolicy, Operation::kExecute}, "policy.evaluate",
                   kTarget, id))
        return;
    auto report = ctx.compliance->evaluator().evaluate_policy(id);
    const Status st = report.ok() ? Status::Ok() : report.status();
    audit_request(ctx, req, res, &who, "policy.evaluate", kTarget, id, audit_result_for(st),
                  report.ok() ? "checks=" + std::to_string(report->checks) : st.message());
    if (!report.ok()) {
        write_status(res, st);
        return;
    }
    // Execute is fleet-wide, but the counts shown are the caller's view
    // (none without Policy:Read anywhere).
    json out = {{"policy_id", id}, {"evaluated_at", report->evaluated_at_ms / 1000}};
    auto view = execution::agent_view(ctx.identity.authorizer(), *ctx.fleet, who, kPolicyRead);
    if (view.ok() && !(*view && (*view)->empty())) {
        auto summary = ctx.compliance->summary(id, *view);
        if (summary.ok()) out["summary"] = compliance::to_json(*summary);
    }
    http::write_json(res, 200, out);
}

void policy_results(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                    const auth::Principal& who) {
    if (!service_available(ctx, res)) return;
    const std::string id = req.matches[1];
    AgentView view;
    if (!reader_view(ctx, req, res, who, kPolicyRead, "policy.results", kTarget, view)) return;
    const int limit = query_limit(req, res, 100, compliance::kMaxResultQueryLimit);
    if (limit < 0) return;
    compliance::ResultQuery q;
    q.policy_id = id;
    q.only_agents = view;
    q.limit = limit;
    if (auto status = query_param(req, "status")) {
        q.status = compliance::parse_check_status(*status);
        if (!q.status) {
            http::write_error(res, 400, "status must be compliant, non_compliant or unknown");
            return;
        }
    }
    auto policy = ctx.compliance->policies().get(id);
    if (!policy.ok()) {
        write_status(res, policy.status());
        return;
    }
    auto rows = ctx.compliance->results().query(q);
    auto agents = ctx.fleet->registry().list();
    if (!rows.ok() || !agents.ok()) {
        write_status(res, !rows.ok() ? rows.status() : agents.status());
        return;
    }
    std::map<std::string, std::string> hostnames;
    for (const auto& a : *agents) hostnames[a.agent_id] = a.hostname;
    json list = json::array();
    for (const auto& r : rows->first) {
        json row = compliance::to_json(r);
        auto h = hostnames.find(r.agent_id);
        row["hostname"] = h == hostnames.end() ? "" : h->second;
        list.push_back(std::move(row));
    }
    http::write_json(
        res, 200,
        json{{"policy_id", id}, {"results", std::move(list)}, {"truncated", rows->second}});
}

// ---- compliance counts ----------------------------------------------------------

void compliance_summary(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                        const auth::Principal& who) {
    if (!service_available(ctx, res)) return;
    AgentView view;
    if (!reader_view(ctx, req, res, who, kPolicyRead, "compliance.summary", kTarget, view)) return;
    if (auto id = query_param(req, "policy_id")) {
        auto summary = ctx.compliance->summary(*id, view);
        if (!summary.ok()) {
            write_status(res, summary.status());
            return;
        }
        http::write_json(res, 200, compliance::to_json(*summary));
        return;
    }
    auto all = ctx.compliance->summaries(view);
    if (!all.ok()) {
        write_status(res, all.status());
        return;
    }
    json list = json::array();
    for (const auto& s : *all) list.push_back(compliance::to_json(s));
    http::write_json(res, 200, json{{"policies", std::move(list)}});
}

void compliance_fleet(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                      const auth::Principal& who) {
    if (!service_available(ctx, res)) return;
    AgentView view;
    if (!reader_view(ctx, req, res, who, kPolicyRead, "compliance.fleet", kTarget, view)) return;
    auto fleet = ctx.compliance->fleet_compliance(view);
    if (!fleet.ok()) {
        write_status(res, fleet.status());
        return;
    }
    http::write_json(res, 200, compliance::to_json(*fleet));
}

// ---- device performance -----------------------------------------------------------

void dex_perf_fleet(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                    const auth::Principal& who) {
    if (!service_available(ctx, res)) return;
    AgentView view;
    if (!reader_view(ctx, req, res, who, kDexRead, "dex.perf.fleet", kTarget, view)) return;
    auto stats = ctx.compliance->dex().fleet_stats(view);
    if (!stats.ok()) {
        write_status(res, stats.status());
        return;
    }
    http::write_json(res, 200, compliance::to_json(*stats));
}

void dex_perf_devices(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                      const auth::Principal& who) {
    if (!service_available(ctx, res)) return;
    AgentView view;
    if (!reader_view(ctx, req, res, who, kDexRead, "dex.perf.devices", kTarget, view)) return;
    const auto metric_name = query_param(req, "metric").value_or("cpu");
    const auto metric = compliance::parse_perf_metric(metric_name);
    if (!metric) {
        http::write_error(res, 400, "metric must be cpu, mem, disk or load");
        return;
    }
    const auto filter = query_param(req, "filter").value_or("");
    if (!filter.empty() && filter != "not_reporting") {
        http::write_error(res, 400, "filter must be not_reporting or absent");
        return;
    }
    const int limit = query_limit(req, res, 50, compliance::kMaxPerfDeviceLimit);
    if (limit < 0) return;
    json list = json::array();
    if (filter == "not_reporting") {
        auto silent = ctx.compliance->dex().not_reporting(limit, view);
        if (!silent.ok()) {
            write_status(res, silent.status());
            return;
        }
        for (const auto& d : *silent) list.push_back(compliance::to_json(d));
    } else {
        auto devices = ctx.compliance->dex().devices(*metric, limit, view);
        if (!devices.ok()) {
            write_status(res, devices.status());
            return;
        }
        for (const auto& d : *devices) list.push_back(compliance::to_json(d));
    }
    http::write_json(res, 200,
                     json{{"metric", compliance::perf_metric_name(*metric)},
                          {"filter", filter.empty() ? json(nullptr) : json(filter)},
                          {"devices", std::move(list)}});
}

}  // namespace

void register_compliance_routes(http::HttpServer& server, const WebContext& ctx) {
    if (ctx.compliance == nullptr || ctx.fleet == nullptr) return;
    const std::string policy = std::string("/api/v1/policies/") + kPolicyId;
    server.get("/api/v1/policies", "/api/v1/policies", with_principal(ctx, list_policies));
    server.post("/api/v1/policies", "/api/v1/policies", with_principal(ctx, create_policy));
    server.get(policy, "/api/v1/policies/{id}", with_principal(ctx, get_policy));
    server.put(policy, "/api/v1/policies/{id}", with_principal(ctx, update_policy));
    server.del(policy, "/api/v1/policies/{id}", with_principal(ctx, delete_policy));
    server.post(policy + "/evaluate", "/api/v1/policies/{id}/evaluate",
                with_principal(ctx, evaluate_policy));
    server.get(policy + "/results", "/api/v1/policies/{id}/results",
               with_principal(ctx, policy_results));
    server.get("/api/v1/compliance/summary", "/api/v1/compliance/summary",
               with_principal(ctx, compliance_summary));
    server.get("/api/v1/compliance/fleet", "/api/v1/compliance/fleet",
               with_principal(ctx, compliance_fleet));
    server.get("/api/v1/dex/perf/fleet", "/api/v1/dex/perf/fleet",
               with_principal(ctx, dex_perf_fleet));
    server.get("/api/v1/dex/perf/devices", "/api/v1/dex/perf/devices",
               with_principal(ctx, dex_perf_devices));
}

}  // namespace yuzu::web
