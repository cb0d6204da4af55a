#include "yuzu/execution/quarantine_service.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "execution/identifiers.hpp"
#include "execution/json_text.hpp"
#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::execution {
namespace {

constexpr size_t kMaxActorBytes = 256;

QuarantineStatus from_record(const fleet::AgentRecord& record) {
    QuarantineStatus s;
    s.agent_id = record.agent_id;
    s.quarantined = record.quarantined;
    s.reason = record.quarantine_reason;
    s.quarantined_by = record.quarantined_by;
    s.quarantined_at_ms = record.quarantined_at_ms;
    return s;
}

Status check_actor(const std::string& by) {
    if (!is_printable_text(by, kMaxActorBytes)) {
        return Status::InvalidArgument("a quarantine change needs the name of who makes it");
    }
    return Status::Ok();
}

}  // namespace

QuarantineService::QuarantineService(store::Database& db, fleet::AgentRegistry& registry,
                                     const Clock& clock)
    : db_(db), registry_(registry), clock_(clock) {}

Result<QuarantineStatus> QuarantineService::quarantine(const std::string& agent_id,
                                                       const std::string& reason,
                                                       const std::string& by) {
    YUZU_RETURN_IF_ERROR(check_actor(by));
    if (!is_free_text(reason, kQuarantineReasonMaxBytes) || valid_utf8(reason) != reason) {
        return Status::InvalidArgument(
            "reason must be at most 1024 bytes of UTF-8 text without control characters");
    }
    std::lock_guard change(change_mu_);
    auto current = registry_.get(agent_id);
    if (!current.ok()) return current.status();
    if (current->quarantined) {
        return Status::FailedPrecondition("agent '" + agent_id + "' is already quarantined (by " +
                                          current->quarantined_by + ")");
    }
    YUZU_RETURN_IF_ERROR(registry_.set_quarantine(agent_id, true, reason, by));
    YUZU_RETURN_IF_ERROR(record(agent_id, "quarantine", reason, by, clock_.now_ms()));
    return status(agent_id);
}

Result<QuarantineStatus> QuarantineService::release(const std::string& agent_id,
                                                    const std::string& by) {
    YUZU_RETURN_IF_ERROR(check_actor(by));
    std::lock_guard change(change_mu_);
    auto current = registry_.get(agent_id);
    if (!current.ok()) return current.status();
    if (!current->quarantined) {
        return Status::FailedPrecondition("agent '" + agent_id + "' is not quarantined");
    }
    YUZU_RETURN_IF_ERROR(registry_.set_quarantine(agent_id, false, "", by));
    YUZU_RETURN_IF_ERROR(
        record(agent_id, "release", current->quarantine_reason, by, clock_.now_ms()));
    return status(agent_id);
}

Result<QuarantineStatus> QuarantineService::status(const std::string& agent_id) const {
    auto record = registry_.get(agent_id);
    if (!record.ok()) return record.status();
    return from_record(*record);
}

Result<std::vector<QuarantineEvent>> QuarantineService::history(const std::string& agent_id,
                                                                int limit) const {
    auto conn = db_.lock();
    auto stmt = conn.prepare(
        "SELECT event_id, agent_id, action, reason, actor, at_ms FROM quarantine_history WHERE "
        "agent_id = ?1 ORDER BY event_id DESC LIMIT ?2");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, agent_id).bind(2, std::clamp(limit, 1, 1000));
    std::vector<QuarantineEvent> out;
    for (;;) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        QuarantineEvent e;
        e.id = stmt->column_int64(0);
        e.agent_id = stmt->column_text(1);
        e.action = stmt->column_text(2);
        e.reason = stmt->column_text(3);
        e.actor = stmt->column_text(4);
        e.at_ms = stmt->column_int64(5);
        out.push_back(std::move(e));
    }
    return out;
}

Status QuarantineService::record(const std::string& agent_id, const std::string& action,
                                 const std::string& reason, const std::string& actor,
                                 int64_t at_ms) {
    auto conn = db_.lock();
    auto stmt = conn.prepare(
        "INSERT INTO quarantine_history(agent_id, action, reason, actor, at_ms) VALUES(?1, ?2, ?3, "
        "?4, ?5)");
    Status written = stmt.ok() ? stmt->bind(1, agent_id)
                                     .bind(2, action)
                                     .bind(3, reason)
                                     .bind(4, actor)
                                     .bind(5, at_ms)
                                     .run()
                               : stmt.status();
    if (!written.ok()) {
        // The registry already changed (it is the source of truth the agent
        // sees); say plainly that only the history is missing.
        spdlog::error("quarantine: agent {} {} by {} applied but not recorded in history: {}",
                      agent_id, action, actor, written.to_string());
        return Status(written.code(), "the " + action + " of agent '" + agent_id +
                                          "' took effect but its history row was not written: " +
                                          written.message());
    }
    return Status::Ok();
}

}  // namespace yuzu::execution
