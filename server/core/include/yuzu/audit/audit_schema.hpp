// The migrations of audit.db.
//
// Version 1 creates audit_events, its indexes (timestamp, principal, action)
// and the append-only triggers: UPDATE is always refused, and DELETE is
// refused unless the one-row audit_prune_gate table is open, which only
// SqliteAuditLog::prune_older_than() does, inside its own transaction. The
// triggers stop accidental or ad-hoc edits; they are not tamper-proofing
// against someone who can write the file.
//
// Version 2 rebuilds audit_events with the same columns, ids, sequence,
// indexes and triggers, its `result` CHECK written as comparisons instead
// of an IN list (which SQLite evaluated by building a temporary b-tree on
// every INSERT).
#pragma once

#include <span>

#include "yuzu/store/migrations.hpp"

namespace yuzu::audit {

std::span<const store::Migration> audit_migrations();

}  // namespace yuzu::audit
