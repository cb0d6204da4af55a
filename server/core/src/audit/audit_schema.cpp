#include "yuzu/audit/audit_schema.hpp"

#include <array>

namespace yuzu::audit {
namespace {

// AUTOINCREMENT so an id is never handed out twice, even after pruning.
// The (x, timestamp_ms) indexes also carry the rowid, so a filtered query
// reads rows already in (timestamp_ms, id) order.
constexpr store::Migration kCreateAuditEvents{1, "create_audit_events",
                                              R"sql(
CREATE TABLE audit_events(
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    timestamp_ms   INTEGER NOT NULL,
    principal      TEXT NOT NULL,
    principal_kind TEXT NOT NULL,
    action         TEXT NOT NULL,
    target_type    TEXT NOT NULL,
    target_id      TEXT NOT NULL,
    detail         TEXT NOT NULL,
    source_ip      TEXT NOT NULL,
    user_agent     TEXT NOT NULL,
    result         TEXT NOT NULL CHECK (result IN ('success', 'failure', 'denied', 'error',
                                                   'pending', 'approved', 'rejected', 'consumed')),
    correlation_id TEXT NOT NULL
);
CREATE INDEX audit_events_by_time ON audit_events(timestamp_ms);
CREATE INDEX audit_events_by_principal ON audit_events(principal, timestamp_ms);
CREATE INDEX audit_events_by_action ON audit_events(action, timestamp_ms);

CREATE TABLE audit_prune_gate(
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    open INTEGER NOT NULL CHECK (open IN (0, 1))
);
INSERT INTO audit_prune_gate(id, open) VALUES (1, 0);

CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
BEGIN
    SELECT RAISE(ABORT, 'audit_events is append-only: rows cannot be updated');
END;
CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
WHEN (SELECT open FROM audit_prune_gate WHERE id = 1) IS NOT 1
BEGIN
    SELECT RAISE(ABORT, 'audit_events is append-only: rows are removed only by retention pruning');
END;
)sql"};

}  // namespace

std::span<const store::Migration> audit_migrations() {
    static const std::array<store::Migration, 1> kMigrations = {kCreateAuditEvents};
    return kMigrations;
}

}  // namespace yuzu::audit
