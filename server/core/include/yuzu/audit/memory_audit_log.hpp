// MemoryAuditLog: an in-memory AuditLog for the tests of other modules.
//
// Same semantics as SqliteAuditLog (field caps, id and timestamp filling,
// filters, paging), proven by the shared typed tests, plus events() for
// assertions.
//
// Thread-safety: safe to call from any thread.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "yuzu/audit/audit_log.hpp"
#include "yuzu/common/clock.hpp"

namespace yuzu::audit {

class MemoryAuditLog final : public AuditLog {
  public:
    // `clock` must outlive the log.
    explicit MemoryAuditLog(const Clock& clock = SystemClock::instance()) : clock_(clock) {}

    Status record(AuditEvent event) override;
    Result<AuditPage> query(const AuditQuery& q) const override;

    // Every recorded row, in the order recorded (ids ascending).
    std::vector<AuditEvent> events() const;

  private:
    const Clock& clock_;

    mutable std::mutex mu_;
    // Guarded by mu_:
    std::vector<AuditEvent> events_;
    int64_t last_id_ = 0;
};

}  // namespace yuzu::audit
