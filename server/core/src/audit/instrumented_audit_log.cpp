#include "yuzu/audit/instrumented_audit_log.hpp"

#include "yuzu/metrics/builder.hpp"
#include "yuzu/metrics/scoped_timer.hpp"

namespace yuzu::audit {
namespace {

// A row is one small transaction: sub-millisecond when the page cache takes
// it, tens of milliseconds when it waits on an fsync or a busy lock.
metrics::BucketBoundaries audit_write_buckets() {
    return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1};
}

}  // namespace

InstrumentedAuditLog::InstrumentedAuditLog(AuditLog& inner, metrics::Registry& registry)
    : inner_(inner),
      write_seconds_(metrics::BuildHistogram()
                         .Name("yuzu_audit_write_duration_seconds")
                         .Help("Time to commit one audit row, in seconds, failed writes included.")
                         .Register(registry)
                         .Add({}, audit_write_buckets())),
      write_failures_(metrics::BuildCounter()
                          .Name("yuzu_audit_write_failures_total")
                          .Help("Audit rows that could not be written; each is a hole in the "
                                "security record.")
                          .Register(registry)
                          .Add({})) {}

Status InstrumentedAuditLog::record(AuditEvent event) {
    metrics::ScopedTimer timer(write_seconds_);
    Status s = inner_.record(std::move(event));
    timer.Stop();
    if (!s.ok()) write_failures_.Increment();
    return s;
}

Result<AuditPage> InstrumentedAuditLog::query(const AuditQuery& q) const {
    return inner_.query(q);
}

}  // namespace yuzu::audit
