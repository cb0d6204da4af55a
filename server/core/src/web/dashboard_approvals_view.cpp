#include "dashboard_approvals_view.hpp"

#include <ctime>

#include "dashboard_text.hpp"

namespace yuzu::web {
namespace {

// Shown while the reviewer has no active factor: enrol, then activate with
// a first code. app.js calls the MFA routes and fills in the secret.
std::string enrolment_section() {
    return R"(<section class="panel" id="mfa-enrol">
<h2>Set up two-factor authentication</h2>
<p>Approving or rejecting a request needs a code from an authenticator app (TOTP).
Start enrolment, add the secret to your app, then confirm with the code it shows.</p>
<button type="button" id="enrol-start">Start enrolment</button>
<div id="enrol-details" hidden>
<p>Secret: <code class="secret" id="enrol-secret"></code></p>
<p>Or as a URI: <code class="secret" id="enrol-uri"></code></p>
<form id="enrol-activate">
<label for="enrol-code">Code from your app</label>
<input id="enrol-code" name="code" class="code" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code" required>
<div class="actions"><button type="submit">Activate</button></div>
</form>
</div>
<p class="error" id="enrol-error" role="alert" hidden></p>
</section>
)";
}

// Why this reviewer cannot decide this ticket, or "" when they can.
std::string decide_blocked_reason(const ApprovalsView& view, const approval::Approval& a) {
    if (!view.may_approve) return "Your roles do not include Approval:Approve.";
    if (a.submitted_by == view.username) {
        return "You submitted this request; someone else must review it.";
    }
    if (!view.mfa_active) return "Set up two-factor authentication first.";
    return "";
}

std::string approval_row(const ApprovalsView& view, const approval::Approval& a) {
    const std::string id = html_escape(a.id);
    const std::string blocked = decide_blocked_reason(view, a);
    const std::string disabled =
        blocked.empty() ? "" : " disabled title=\"" + html_escape(blocked) + "\"";
    std::string out;
    out += "<tr data-approval-id=\"" + id + "\">\n";
    out += "<td class=\"tool\"><code>" + html_escape(a.definition_id) + "</code></td>\n";
    out += "<td class=\"submitter\">" + html_escape(a.submitted_by) + "</td>\n";
    out += "<td class=\"age\"><time datetime=\"" + iso_utc(a.created_at_ms) + "\" title=\"" +
           iso_utc(a.created_at_ms) + "\">" + format_age(view.now_ms - a.created_at_ms) +
           "</time></td>\n";
    out +=
        "<td><pre class=\"args\">" + html_escape(pretty_json(a.scope_expression)) + "</pre></td>\n";
    out += "<td class=\"decide\">";
    out += "<button type=\"button\" class=\"approve\" data-action=\"approve\"" + disabled +
           ">Approve</button>";
    out += "<button type=\"button\" class=\"reject\" data-action=\"reject\"" + disabled +
           ">Reject</button>";
    if (!blocked.empty()) out += "<p class=\"muted\">" + html_escape(blocked) + "</p>";
    out += "</td>\n</tr>\n";
    return out;
}

std::string pending_section(const ApprovalsView& view) {
    std::string out = "<section class=\"panel\">\n<h1>Pending approvals</h1>\n";
    out +=
        "<p class=\"status\" id=\"approvals-status\" role=\"status\" "
        "hidden></p>\n";
    if (!view.list_error.empty()) {
        out +=
            "<p class=\"error\" role=\"alert\">The pending requests could not "
            "be loaded: " +
            html_escape(view.list_error) + "</p>\n</section>\n";
        return out;
    }
    out +=
        "<table id=\"approvals\">\n<thead><tr><th>Tool</th><th>Submitted "
        "by</th><th>Age</th>"
        "<th>Arguments</th><th>Decision</th></tr></thead>\n<tbody>\n";
    for (const auto& a : view.pending) out += approval_row(view, a);
    out += "</tbody>\n</table>\n";
    out += std::string("<p class=\"muted\" id=\"approvals-empty\"") +
           (view.pending.empty() ? "" : " hidden") + ">No requests are waiting for approval.</p>\n";
    if (view.truncated) {
        out += "<p class=\"muted\">Showing the newest " + std::to_string(view.pending.size()) +
               " pending requests; decide these to see older ones.</p>\n";
    }
    out += "</section>\n";
    return out;
}

// The prompt app.js opens for a decision: a TOTP code (hidden while the
// session's step-up proof is fresh) and an optional comment.
std::string decision_dialog() {
    return R"(<dialog id="totp-dialog">
<form id="totp-form">
<h2 id="totp-title"></h2>
<div id="totp-code-row">
<label for="totp-code">Authenticator code</label>
<input id="totp-code" name="code" class="code" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code">
</div>
<label for="totp-comment">Comment (optional)</label>
<input id="totp-comment" name="comment" type="text" maxlength="1024">
<p class="error" id="totp-error" role="alert" hidden></p>
<div class="actions"><button type="submit" id="totp-confirm">Confirm</button><button type="button" id="totp-cancel">Cancel</button></div>
</form>
</dialog>
)";
}

}  // namespace

std::string iso_utc(int64_t unix_ms) {
    const std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
    std::tm tm{};
    if (gmtime_r(&t, &tm) == nullptr) return "";
    char buf[32];
    const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return std::string(buf, n);
}

std::string render_approvals_body(const ApprovalsView& view) {
    std::string out;
    if (!view.mfa_active) out += enrolment_section();
    out += pending_section(view);
    out += decision_dialog();
    return out;
}

}  // namespace yuzu::web
