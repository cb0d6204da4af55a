// Schedule REST routes under /api/v1/schedules: list, get, create, update,
// delete, enable and disable. The MCP twin of the list is list_schedules.
//
// Schedule:Read/Write/Delete are fleet-wide (global roles); creating or
// changing a schedule also needs the right to dispatch it by hand now, which
// the schedule service checks (schedules.hpp). Every change writes one audit
// row: schedule.create, schedule.update, schedule.delete, schedule.enable,
// schedule.disable.
#include <string>

#include "route_registry.hpp"
#include "yuzu/schedule/schedule_json.hpp"
#include "yuzu/schedule/schedules.hpp"

namespace yuzu::web {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;
using nlohmann::json;

const Permission kRead{Securable::kSchedule, Operation::kRead};
const Permission kWrite{Securable::kSchedule, Operation::kWrite};
const Permission kDelete{Securable::kSchedule, Operation::kDelete};

constexpr char kScheduleIdPattern[] = "([0-9a-f]{32})";

std::string describe(const schedule::Schedule& s) {
    return "name=" + s.spec.name + " definition_id=" + s.spec.definition_id +
           " frequency=" + std::string(schedule::frequency_type_name(s.spec.frequency.type)) +
           " enabled=" + (s.spec.enabled ? "true" : "false") + " owner=" + s.owner;
}

// Audits `action` on `id` and answers: the schedule with `status`, or the error.
void answer(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
            const auth::Principal& who, const std::string& action, const std::string& id,
            const Result<schedule::Schedule>& result, int status) {
    if (!result.ok()) {
        audit_request(ctx, req, res, &who, action, "schedule", id,
                      audit_result_for(result.status()), result.status().message());
        write_status(res, result.status());
        return;
    }
    audit_request(ctx, req, res, &who, action, "schedule", result->id, "success",
                  describe(*result));
    http::write_json(res, status, schedule::to_json(*result));
}

void list_schedules(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                    const auth::Principal& who) {
    if (!permitted(ctx, req, res, who, kRead, "schedule.list", "schedule", "")) return;
    auto list = ctx.schedules->list();
    if (!list.ok()) {
        write_status(res, list.status());
        return;
    }
    json out = json::array();
    for (const auto& s : *list) out.push_back(schedule::to_json(s));
    http::write_json(res, 200, json{{"schedules", std::move(out)}, {"count", list->size()}});
}

void get_schedule(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                  const auth::Principal& who) {
    const std::string id = req.matches[1];
    if (!permitted(ctx, req, res, who, kRead, "schedule.get", "schedule", id)) return;
    auto s = ctx.schedules->get(id);
    if (!s.ok()) {
        write_status(res, s.status());
        return;
    }
    http::write_json(res, 200, schedule::to_json(*s));
}

void create_schedule(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                     const auth::Principal& who) {
    const std::string action = "schedule.create";
    if (!permitted(ctx, req, res, who, kWrite, action, "schedule", "")) return;
    auto body = parse_json_body(req, res);
    if (!body) return;
    auto spec = schedule::spec_from_json(*body);
    if (!spec.ok()) {
        answer(ctx, req, res, who, action, "", spec.status(), 0);
        return;
    }
    answer(ctx, req, res, who, action, "", ctx.schedules->create(who, *spec), 201);
}

void update_schedule(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                     const auth::Principal& who) {
    const std::string id = req.matches[1];
    const std::string action = "schedule.update";
    if (!permitted(ctx, req, res, who, kWrite, action, "schedule", id)) return;
    auto body = parse_json_body(req, res);
    if (!body) return;
    auto change = schedule::change_from_json(*body);
    if (!change.ok()) {
        answer(ctx, req, res, who, action, id, change.status(), 0);
        return;
    }
    answer(ctx, req, res, who, action, id, ctx.schedules->update(who, id, *change), 200);
}

void delete_schedule(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                     const auth::Principal& who) {
    const std::string id = req.matches[1];
    if (!permitted(ctx, req, res, who, kDelete, "schedule.delete", "schedule", id)) return;
    Status st = ctx.schedules->remove(id);
    audit_request(ctx, req, res, &who, "schedule.delete", "schedule", id, audit_result_for(st),
                  st.message());
    if (!st.ok()) {
        write_status(res, st);
        return;
    }
    res.status = 204;
}

template <bool Enable>
void set_enabled(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                 const auth::Principal& who) {
    const std::string id = req.matches[1];
    const std::string action = Enable ? "schedule.enable" : "schedule.disable";
    if (!permitted(ctx, req, res, who, kWrite, action, "schedule", id)) return;
    answer(ctx, req, res, who, action, id, ctx.schedules->set_enabled(who, id, Enable), 200);
}

}  // namespace

void register_schedule_routes(http::HttpServer& server, const WebContext& ctx) {
    if (ctx.schedules == nullptr) return;
    const std::string one = std::string("/api/v1/schedules/") + kScheduleIdPattern;
    server.get("/api/v1/schedules", "/api/v1/schedules", with_principal(ctx, list_schedules));
    server.post("/api/v1/schedules", "/api/v1/schedules", with_principal(ctx, create_schedule));
    server.get(one, "/api/v1/schedules/{id}", with_principal(ctx, get_schedule));
    server.post(one, "/api/v1/schedules/{id}", with_principal(ctx, update_schedule));
    server.del(one, "/api/v1/schedules/{id}", with_principal(ctx, delete_schedule));
    server.post(one + "/enable", "/api/v1/schedules/{id}/enable",
                with_principal(ctx, set_enabled<true>));
    server.post(one + "/disable", "/api/v1/schedules/{id}/disable",
                with_principal(ctx, set_enabled<false>));
}

}  // namespace yuzu::web
