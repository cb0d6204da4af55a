// InstrumentedAuditLog: an AuditLog that forwards to another and measures
// it: yuzu_audit_write_duration_seconds (every record() call, committed or
// not) and yuzu_audit_write_failures_total (rows that were not stored, so
// the security record has a hole). yuzu-server hands this one to every
// surface; the store behind it stays the only writer.
//
// Thread-safety: as the wrapped log; the metrics are lock-free.
#pragma once

#include "yuzu/audit/audit_log.hpp"

namespace yuzu::metrics {
class Registry;
class Counter;
class Histogram;
}  // namespace yuzu::metrics

namespace yuzu::audit {

class InstrumentedAuditLog final : public AuditLog {
  public:
    // `inner` and `registry` must outlive this object.
    InstrumentedAuditLog(AuditLog& inner, metrics::Registry& registry);

    Status record(AuditEvent event) override;
    Result<AuditPage> query(const AuditQuery& q) const override;

  private:
    AuditLog& inner_;
    metrics::Histogram& write_seconds_;
    metrics::Counter& write_failures_;
};

}  // namespace yuzu::audit
