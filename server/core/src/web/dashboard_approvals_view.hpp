// Private to the web module: the Approvals page's content, rendered from
// plain values so it can be tested without a server or a database.
//
// Thread-safety: pure functions; safe to call from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "yuzu/approval/approval.hpp"

namespace yuzu::web {

// Everything the Approvals page shows, gathered by its route handler.
struct ApprovalsView {
    std::string username;      // the signed-in reviewer
    bool mfa_active = false;   // has an active TOTP factor; else the enrolment section shows
    bool may_approve = false;  // RBAC grants Approval:Approve
    std::vector<approval::Approval> pending;  // newest first
    bool truncated = false;                   // more pending tickets than listed
    std::string list_error;                   // a store failure, shown instead of the list
    int64_t now_ms = 0;
};

// The HTML for <main>: the enrolment section (without an active factor),
// the pending list with Approve/Reject buttons, and the TOTP prompt dialog
// that /ui/app.js drives. Every value from a ticket is escaped.
std::string render_approvals_body(const ApprovalsView& view);

// An ISO 8601 UTC time ("2025-01-31T12:00:00Z") for a tooltip.
std::string iso_utc(int64_t unix_ms);

}  // namespace yuzu::web
