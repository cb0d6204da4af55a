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

// The same table with `result` checked by a chain of comparisons. SQLite
// evaluates "result IN (eight values)" by building a temporary b-tree of
// the values on every INSERT; on the tools/call path that was about a
// quarter of the row's insert cost. SQLite cannot alter a CHECK, so the
// table is rebuilt: rows and ids are copied, and the AUTOINCREMENT
// sequence is carried over, so ids pruned above the surviving rows are
// never handed out again. DROP TABLE fires no DELETE trigger; it drops the
// old indexes and triggers, which are created again as in version 1.
constexpr store::Migration kResultCheckWithoutInList{2, "result_check_without_in_list",
                                                     R"sql(
CREATE TABLE audit_events_v2(
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
    result         TEXT NOT NULL CHECK (result = 'success' OR result = 'failure' OR
                                        result = 'denied' OR result = 'error' OR
                                        result = 'pending' OR result = 'approved' OR
                                        result = 'rejected' OR result = 'consumed'),
    correlation_id TEXT NOT NULL
);
INSERT INTO audit_events_v2(id, timestamp_ms, principal, principal_kind, action, target_type,
                            target_id, detail, source_ip, user_agent, result, correlation_id)
    SELECT id, timestamp_ms, principal, principal_kind, action, target_type, target_id, detail,
           source_ip, user_agent, result, correlation_id
    FROM audit_events ORDER BY id;
DELETE FROM sqlite_sequence WHERE name = 'audit_events_v2';
INSERT INTO sqlite_sequence(name, seq)
    SELECT 'audit_events_v2', seq FROM sqlite_sequence WHERE name = 'audit_events';
DROP TABLE audit_events;
ALTER TABLE audit_events_v2 RENAME TO audit_events;

CREATE INDEX audit_events_by_time ON audit_events(timestamp_ms);
CREATE INDEX audit_events_by_principal ON audit_events(principal, timestamp_ms);
CREATE INDEX audit_events_by_action ON audit_events(action, timestamp_ms);

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
    static const std::array<store::Migration, 2> kMigrations = {kCreateAuditEvents,
                                                                kResultCheckWithoutInList};
    return kMigrations;
}

}  // namespace yuzu::audit
