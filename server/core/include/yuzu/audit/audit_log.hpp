// AuditLog: the one recording call every surface uses, and the audit query.
//
// Implementations: SqliteAuditLog (audit.db, production) and MemoryAuditLog
// (a fake for tests of other modules). Both apply field_limits.hpp on record
// and the filter semantics of audit_filter.hpp on query.
//
// Thread-safety: every implementation is safe to call from any thread.
#pragma once

#include "yuzu/audit/audit_event.hpp"
#include "yuzu/audit/audit_query.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::audit {

class AuditLog {
  public:
    virtual ~AuditLog() = default;

    // Appends `event` and returns once the row is committed, so the caller
    // answers its client only after the trail holds the row. The log assigns
    // the id and, when timestamp_ms <= 0, the timestamp; over-long text is
    // cut, never refused. A non-ok Status means the row was not stored; the
    // caller decides whether to go ahead (e.g. with audit_persisted:false).
    // Never throws.
    virtual Status record(AuditEvent event) = 0;

    // One page of matching rows, newest first. InvalidArgument for a
    // malformed cursor, an unknown result name, a misplaced '*' in the action
    // filter, or a negative time bound.
    virtual Result<AuditPage> query(const AuditQuery& q) const = 0;
};

}  // namespace yuzu::audit
