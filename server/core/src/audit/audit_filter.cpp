#include "yuzu/audit/audit_filter.hpp"

#include <algorithm>
#include <cassert>
#include <utility>

namespace yuzu::audit {
namespace {

std::string valid_result_names() {
    std::string names;
    for (auto r : {AuditResult::kSuccess, AuditResult::kFailure, AuditResult::kDenied,
                   AuditResult::kError, AuditResult::kPending, AuditResult::kApproved,
                   AuditResult::kRejected, AuditResult::kConsumed}) {
        if (!names.empty()) names += ", ";
        names += audit_result_name(r);
    }
    return names;
}

}  // namespace

Result<AuditFilter> AuditFilter::compile(const AuditQuery& q) {
    AuditFilter f;
    f.principal = q.principal;
    f.target_type = q.target_type;
    f.target_id = q.target_id;

    f.action = q.action;
    if (!f.action.empty() && f.action.back() == '*') {
        f.action.pop_back();
        f.action_is_prefix = true;
    }
    if (f.action.find('*') != std::string::npos) {
        return Status::InvalidArgument("audit action filter '" + q.action +
                                       "': '*' is allowed only as the last character, "
                                       "e.g. 'mcp.*'");
    }

    if (!q.result.empty()) {
        f.result = parse_audit_result(q.result);
        if (!f.result) {
            return Status::InvalidArgument("unknown audit result '" + q.result +
                                           "'; expected one of: " + valid_result_names());
        }
    }

    if (q.since_ms < 0 || q.until_ms < 0) {
        return Status::InvalidArgument(
            "audit time bounds must be Unix milliseconds >= 0 (0 means unbounded)");
    }
    f.since_ms = q.since_ms;
    f.until_ms = q.until_ms;
    f.limit = std::clamp(q.limit, 1, kMaxQueryLimit);

    if (!q.cursor.empty()) {
        auto cursor = AuditCursor::decode(q.cursor);
        if (!cursor.ok()) return cursor.status();
        f.after = *cursor;
    }
    return f;
}

bool AuditFilter::matches(const AuditEvent& e) const {
    if (!principal.empty() && e.principal != principal) return false;
    if (action_is_prefix ? !e.action.starts_with(action) : !action.empty() && e.action != action) {
        return false;
    }
    if (!target_type.empty() && e.target_type != target_type) return false;
    if (!target_id.empty() && e.target_id != target_id) return false;
    if (result && e.result != *result) return false;
    if (since_ms != 0 && e.timestamp_ms < since_ms) return false;
    if (until_ms != 0 && e.timestamp_ms >= until_ms) return false;
    if (after && !after->precedes(e)) return false;
    return true;
}

AuditPage AuditFilter::make_page(std::vector<AuditEvent> rows_newest_first) const {
    assert(rows_newest_first.size() <= static_cast<size_t>(limit) + 1);
    AuditPage page;
    if (rows_newest_first.size() > static_cast<size_t>(limit)) {
        rows_newest_first.resize(static_cast<size_t>(limit));
        page.next_cursor = AuditCursor::after(rows_newest_first.back()).encode();
    }
    page.events = std::move(rows_newest_first);
    return page;
}

}  // namespace yuzu::audit
