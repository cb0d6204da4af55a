// MCP resources: server health and the recent audit trail.
#include <spdlog/spdlog.h>

#include "yuzu/access/permission_check.hpp"
#include "yuzu/audit/audit_json.hpp"
#include "yuzu/audit/audit_log.hpp"
#include "yuzu/audit/audit_read.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/common/json_text.hpp"
#include "yuzu/common/readiness.hpp"
#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/fleet/fleet.hpp"
#include "yuzu/mcp/yuzu_catalogue.hpp"

namespace yuzu::mcp {

Status register_resources(ResourceCatalogue& resources, const CatalogueDeps& deps) {
    const Readiness& readiness = deps.readiness;
    const Clock& clock = deps.clock;
    const std::string version = deps.server_version;
    const int64_t started = deps.started_at_ms;
    fleet::Fleet* fleet = deps.fleet;

    ResourceSpec health;
    health.uri = "yuzu://server/health";
    health.name = "server-health";
    health.title = "Server health";
    health.description =
        "Readiness of every store and subsystem, version, uptime and connected agents.";
    health.read = [&readiness, &clock, version, started,
                   fleet](const auth::Principal&) -> Result<std::string> {
        nlohmann::json checks = nlohmann::json::object();
        bool ready = true;
        for (const auto& outcome : readiness.evaluate()) {
            checks[outcome.name] = outcome.status.ok() ? "ok" : outcome.status.message();
            ready = ready && outcome.status.ok();
        }
        nlohmann::json body = {{"status", ready ? "ok" : "degraded"},
                               {"version", version},
                               {"uptime_seconds", (clock.now_ms() - started) / 1000},
                               {"checks", checks}};
        if (fleet != nullptr) {
            body["agents_connected"] = fleet->registry().online_count();
            body["agents_registered"] = fleet->registry().total_count();
        }
        return dump_json(body);
    };
    YUZU_RETURN_IF_ERROR(resources.add(std::move(health)));

    audit::AuditLog& log = deps.audit;
    auth::Identity& identity = deps.identity;
    ResourceSpec recent;
    recent.uri = "yuzu://audit/recent";
    recent.name = "audit-recent";
    recent.title = "Recent audit events";
    recent.description = "The 50 newest audit events.";
    recent.authorize = [&identity](const auth::Principal& who) -> Status {
        return access::require_permission(identity.authorizer(), who,
                                          {auth::Securable::kAuditLog, auth::Operation::kRead});
    };
    recent.read = [&log](const auth::Principal& who) -> Result<std::string> {
        audit::AuditQuery q;
        q.limit = 50;
        auto page = log.query(q);
        // Reading the audit log is itself audited, after the query so the
        // page never holds the row.
        audit::AuditEvent ev;
        ev.principal = who.username;
        ev.principal_kind = std::string(auth::principal_kind_name(who.kind));
        ev.action = std::string(audit::kAuditReadAction);
        ev.target_type = std::string(audit::kAuditReadTargetType);
        ev.target_id = "yuzu://audit/recent";
        ev.detail = audit::audit_read_detail(q, page.ok() ? "" : page.status().message());
        ev.result = page.ok() ? audit::AuditResult::kSuccess : audit::AuditResult::kError;
        if (Status s = log.record(std::move(ev)); !s.ok()) {
            spdlog::error("audit write for audit.read (yuzu://audit/recent) failed: {}",
                          s.message());
        }
        if (!page.ok()) return page.status();
        nlohmann::json events = nlohmann::json::array();
        for (const auto& e : page->events) events.push_back(audit::to_json(e));
        return dump_json(nlohmann::json{{"events", std::move(events)}});
    };
    return resources.add(std::move(recent));
}

}  // namespace yuzu::mcp
