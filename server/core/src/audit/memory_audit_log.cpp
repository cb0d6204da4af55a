#include "yuzu/audit/memory_audit_log.hpp"

#include <algorithm>
#include <exception>
#include <utility>

#include "yuzu/audit/audit_filter.hpp"
#include "yuzu/audit/field_limits.hpp"

namespace yuzu::audit {

Status MemoryAuditLog::record(AuditEvent event) {
    try {
        apply_field_limits(event);
        if (event.timestamp_ms <= 0) event.timestamp_ms = clock_.now_ms();
        std::lock_guard<std::mutex> lock(mu_);
        event.id = ++last_id_;
        events_.push_back(std::move(event));
        return Status::Ok();
    } catch (const std::exception& e) {  // allocation failure; keep the no-throw promise
        return Status::Internal(std::string("audit: cannot record event in memory: ") + e.what());
    }
}

Result<AuditPage> MemoryAuditLog::query(const AuditQuery& q) const {
    auto filter = AuditFilter::compile(q);
    if (!filter.ok()) return filter.status();

    std::vector<AuditEvent> rows;
    {
        std::lock_guard<std::mutex> lock(mu_);
        for (const AuditEvent& e : events_) {
            if (filter->matches(e)) rows.push_back(e);
        }
    }
    const auto newest_first = [](const AuditEvent& a, const AuditEvent& b) {
        return a.timestamp_ms != b.timestamp_ms ? a.timestamp_ms > b.timestamp_ms : a.id > b.id;
    };
    const size_t wanted = std::min(rows.size(), static_cast<size_t>(filter->limit) + 1);
    std::partial_sort(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(wanted), rows.end(),
                      newest_first);
    rows.resize(wanted);
    return filter->make_page(std::move(rows));
}

std::vector<AuditEvent> MemoryAuditLog::events() const {
    std::lock_guard<std::mutex> lock(mu_);
    return events_;
}

}  // namespace yuzu::audit
