// The page shell and the Approvals page content, rendered from plain values:
// escaping of every ticket field, no inline script or style, and which
// controls a reviewer gets.
#include <gtest/gtest.h>

#include <regex>

#include "web/dashboard_approvals_view.hpp"
#include "web/dashboard_page.hpp"

namespace yuzu::web {
namespace {

constexpr int64_t kNow = 1'750'000'000'000;

approval::Approval ticket(const std::string& id, const std::string& submitter,
                          const std::string& args) {
    approval::Approval a;
    a.id = id;
    a.definition_id = "mcp.create_management_group";
    a.submitted_by = submitter;
    a.scope_expression = args;
    a.created_at_ms = kNow - 3 * 60'000;
    return a;
}

ApprovalsView reviewer_view() {
    ApprovalsView v;
    v.username = "approver";
    v.mfa_active = true;
    v.may_approve = true;
    v.now_ms = kNow;
    return v;
}

size_t count(const std::string& haystack, const std::string& needle) {
    size_t n = 0;
    for (size_t pos = haystack.find(needle); pos != std::string::npos;
         pos = haystack.find(needle, pos + needle.size()))
        ++n;
    return n;
}

// No inline script, no inline style, no event-handler attributes: the CSP
// would block them, and their absence is what lets it be strict.
void expect_csp_clean(const std::string& html) {
    EXPECT_FALSE(std::regex_search(html, std::regex("<script(?![^>]*\\bsrc=)")))
        << "a <script> without src";
    EXPECT_EQ(html.find("<style"), std::string::npos);
    EXPECT_FALSE(std::regex_search(html, std::regex("\\sstyle=")));
    EXPECT_FALSE(std::regex_search(html, std::regex("\\son[a-z]+=", std::regex::icase)));
    EXPECT_EQ(html.find("javascript:"), std::string::npos);
}

TEST(DashboardApprovalsView, EscapesEveryTicketField) {
    ApprovalsView v = reviewer_view();
    auto a = ticket("0123456789abcdef0123456789abcdef", "eve\"><img src=x>",
                    R"({"description":"<script>window.__xss=1</script>","name":"g'1"})");
    a.definition_id = "mcp.<b>tool</b>";
    v.pending.push_back(a);
    const std::string html = render_approvals_body(v);
    EXPECT_EQ(html.find("<script>window"), std::string::npos);
    EXPECT_NE(html.find("&lt;script&gt;window.__xss=1&lt;/script&gt;"), std::string::npos);
    EXPECT_NE(html.find("eve&quot;&gt;&lt;img src=x&gt;"), std::string::npos);
    EXPECT_NE(html.find("mcp.&lt;b&gt;tool&lt;/b&gt;"), std::string::npos);
    EXPECT_NE(html.find("&quot;g&#39;1&quot;"), std::string::npos);
    EXPECT_EQ(html.find("<img"), std::string::npos);
    expect_csp_clean(html);
}

TEST(DashboardApprovalsView, ListsPendingTicketsWithArgumentsPrettyPrinted) {
    ApprovalsView v = reviewer_view();
    v.pending.push_back(ticket("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "admin", R"({"a":1,"b":"x"})"));
    v.pending.push_back(ticket("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "admin", "{}"));
    const std::string html = render_approvals_body(v);
    EXPECT_EQ(count(html, "<tr data-approval-id="), 2u);
    EXPECT_NE(html.find("data-approval-id=\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\""),
              std::string::npos);
    EXPECT_NE(html.find("{\n  &quot;a&quot;: 1,\n  &quot;b&quot;: &quot;x&quot;\n}"),
              std::string::npos);
    EXPECT_NE(html.find(">3m</time>"), std::string::npos);
    EXPECT_NE(html.find("<td class=\"submitter\">admin</td>"), std::string::npos);
    EXPECT_EQ(count(html, "data-action=\"approve\">"), 2u) << "enabled buttons";
    EXPECT_EQ(html.find("id=\"mfa-enrol\""), std::string::npos) << "MFA is active";
    EXPECT_NE(html.find("id=\"approvals-empty\" hidden"), std::string::npos);
    EXPECT_NE(html.find("<dialog id=\"totp-dialog\">"), std::string::npos);
}

TEST(DashboardApprovalsView, EmptyListSaysSo) {
    const std::string html = render_approvals_body(reviewer_view());
    EXPECT_NE(html.find("<p class=\"muted\" id=\"approvals-empty\">No requests"),
              std::string::npos);
    EXPECT_EQ(html.find("<tr data-approval-id="), std::string::npos);
}

TEST(DashboardApprovalsView, WithoutAnActiveFactorShowsEnrolmentAndDisablesDecisions) {
    ApprovalsView v = reviewer_view();
    v.mfa_active = false;
    v.pending.push_back(ticket("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "admin", "{}"));
    const std::string html = render_approvals_body(v);
    EXPECT_NE(html.find("id=\"mfa-enrol\""), std::string::npos);
    EXPECT_NE(html.find("id=\"enrol-start\""), std::string::npos);
    EXPECT_EQ(count(html, " disabled title=\"Set up two-factor authentication first.\""), 2u);
    expect_csp_clean(html);
}

TEST(DashboardApprovalsView, TheSubmitterCannotDecideItsOwnTicket) {
    ApprovalsView v = reviewer_view();
    v.pending.push_back(ticket("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "approver", "{}"));
    v.pending.push_back(ticket("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "admin", "{}"));
    const std::string html = render_approvals_body(v);
    EXPECT_EQ(count(html, " disabled title=\"You submitted this request"), 2u);
    EXPECT_EQ(count(html, "data-action=\"approve\">"), 1u) << "the other ticket stays decidable";
}

TEST(DashboardApprovalsView, WithoutApprovePermissionEveryDecisionIsDisabled) {
    ApprovalsView v = reviewer_view();
    v.may_approve = false;
    v.pending.push_back(ticket("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "admin", "{}"));
    const std::string html = render_approvals_body(v);
    EXPECT_EQ(count(html, " disabled title=\"Your roles do not include Approval:Approve.\""), 2u);
}

TEST(DashboardApprovalsView, AStoreFailureIsShownInsteadOfTheList) {
    ApprovalsView v = reviewer_view();
    v.list_error = "approvals.db is <busy>";
    const std::string html = render_approvals_body(v);
    EXPECT_NE(html.find("could not be loaded: approvals.db is &lt;busy&gt;"), std::string::npos);
    EXPECT_EQ(html.find("id=\"approvals\""), std::string::npos);
}

TEST(DashboardApprovalsView, FormatsIsoTimesInUtc) {
    EXPECT_EQ(iso_utc(0), "1970-01-01T00:00:00Z");
    EXPECT_EQ(iso_utc(1'750'000'000'999), "2025-06-15T15:06:40Z");
}

TEST(DashboardPage, ShellLoadsOnlyTheOwnScriptAndStylesheet) {
    Page page;
    page.title = "A <title>";
    page.page_id = "login";
    page.body_html = "<p>body</p>\n";
    const std::string html = render_page(page);
    EXPECT_NE(html.find("<title>A &lt;title&gt; - Yuzu</title>"), std::string::npos);
    EXPECT_NE(html.find("<script src=\"/ui/app.js\" defer></script>"), std::string::npos);
    EXPECT_NE(html.find("<link rel=\"stylesheet\" href=\"/ui/app.css\">"), std::string::npos);
    EXPECT_NE(html.find("<body data-page=\"login\">"), std::string::npos);
    EXPECT_NE(html.find("<main>\n<p>body</p>\n</main>"), std::string::npos);
    EXPECT_EQ(html.find("yuzu-csrf"), std::string::npos) << "no session, no token";
    EXPECT_EQ(html.find("/logout"), std::string::npos);
    EXPECT_EQ(html.find("http"), std::string::npos) << "nothing from another origin";
    expect_csp_clean(html);
}

TEST(DashboardPage, SignedInShellCarriesUserCsrfTokenAndLogoutForm) {
    http::Authenticated who;
    who.principal.username = "ann<e>";
    who.csrf_token = "tok\"en";
    who.via_cookie = true;
    Page page;
    page.title = "Approvals";
    page.page_id = "approvals";
    page.session = &who;
    page.data_attrs = " data-mfa-valid-ms=\"0\"";
    const std::string html = render_page(page);
    EXPECT_NE(html.find("<meta name=\"yuzu-csrf\" content=\"tok&quot;en\">"), std::string::npos);
    EXPECT_NE(html.find("<strong id=\"current-user\">ann&lt;e&gt;</strong>"), std::string::npos);
    EXPECT_NE(html.find("<form class=\"logout\" method=\"post\" action=\"/logout\">"),
              std::string::npos);
    EXPECT_NE(html.find("name=\"csrf_token\" value=\"tok&quot;en\""), std::string::npos);
    EXPECT_NE(html.find("<body data-page=\"approvals\" data-mfa-valid-ms=\"0\">"),
              std::string::npos);
    expect_csp_clean(html);
}

}  // namespace
}  // namespace yuzu::web
