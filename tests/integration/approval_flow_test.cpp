// Ticket-then-recall over real HTTP: a supervised MCP token asks, a second
// administrator with a fresh MFA proof approves over REST, the token recalls
// once, and every other recall is refused the way the seed says.
#include <gtest/gtest.h>

#include <string>

#include "approval_test_helpers.hpp"

namespace yuzu::testing::approvals {
namespace {

TEST(ApprovalFlow, MintApproveRecallAndEveryRefusal) {
    ApprovalFixture f;
    const json args = {{"name", "web-tier"}, {"description", "the web servers"}};

    // First call: -32006 with a pollable ticket.
    const json first = f.mcp(f.supervised, "create_management_group", args);
    ASSERT_EQ(first["error"]["code"], -32006) << first.dump();
    const json& data = first["error"]["data"];
    const std::string id = data["approval_id"];
    ASSERT_EQ(id.size(), 32u);
    EXPECT_EQ(data["status_url"], "/api/v1/approvals/" + id);
    EXPECT_EQ(data["retry_after_ms"], 30000);
    EXPECT_TRUE(data["correlation_id"].is_string());
    EXPECT_TRUE(data["remediation"].is_string());

    // Repeat: the same ticket. A schema-invalid call mints nothing.
    EXPECT_EQ(f.mint("create_management_group", args), id);
    const size_t before = f.approvals_of_admin();
    const json invalid =
        f.mcp(f.supervised, "create_management_group", {{"name", "x"}, {"colour", "red"}});
    EXPECT_EQ(invalid["error"]["code"], -32602) << invalid.dump();
    EXPECT_EQ(f.approvals_of_admin(), before);
    EXPECT_EQ(before, 1u);

    // Recalling while pending answers the same envelope.
    json recall = args;
    recall["approval_id"] = id;
    const json pending = f.mcp(f.supervised, "create_management_group", recall);
    EXPECT_EQ(pending["error"]["code"], -32006);
    EXPECT_EQ(pending["error"]["data"]["approval_id"], id);

    // The status URL reads the ticket.
    auto status = f.client->Get("/api/v1/approvals/" + id, bearer(f.admin_api));
    ASSERT_TRUE(status);
    ASSERT_EQ(status->status, 200) << status->body;
    EXPECT_EQ(json::parse(status->body)["status"], "pending");
    EXPECT_EQ(json::parse(status->body)["definition_id"], "mcp.create_management_group");

    // Tokens can never approve, over REST or MCP.
    for (const std::string& token : {f.admin_api, f.supervised}) {
        auto by_token = f.decide(bearer(token), id);
        ASSERT_TRUE(by_token);
        EXPECT_EQ(by_token->status, 403) << by_token->body;
        EXPECT_EQ(json::parse(by_token->body)["error"]["message"],
                  "approver_assurance_required:non_interactive_session");
    }
    const json over_mcp = f.mcp(f.supervised, "approve_request", {{"approval_id", id}});
    EXPECT_EQ(over_mcp["error"]["code"], -32003);
    EXPECT_EQ(over_mcp["error"]["message"], "approver_assurance_required:non_interactive_session");

    // The reviewer needs a factor and a fresh proof; CSRF as for any cookie
    // route.
    auto no_factor = f.decide(f.reviewer.headers(), id);
    ASSERT_TRUE(no_factor);
    EXPECT_EQ(no_factor->status, 403);
    EXPECT_EQ(json::parse(no_factor->body)["error"]["message"],
              "approver_assurance_required:mfa_not_enrolled");
    ASSERT_FALSE(enrol_and_verify(*f.client, f.reviewer).empty());
    auto no_csrf = f.decide(f.reviewer.headers(false), id);
    ASSERT_TRUE(no_csrf);
    EXPECT_EQ(no_csrf->status, 403);

    // The admin session is the submitter's account: never its own reviewer.
    ASSERT_FALSE(enrol_and_verify(*f.client, f.admin).empty());
    auto own = f.decide(f.admin.headers(), id);
    ASSERT_TRUE(own);
    EXPECT_EQ(own->status, 403) << own->body;

    auto approved = f.decide(f.reviewer.headers(), id, "approve", "/api/approvals/");
    ASSERT_TRUE(approved);
    ASSERT_EQ(approved->status, 200) << approved->body;
    EXPECT_EQ(json::parse(approved->body)["status"], "approved");
    EXPECT_EQ(json::parse(approved->body)["reviewed_by"], kReviewer);
    auto twice = f.decide(f.reviewer.headers(), id, "reject");
    ASSERT_TRUE(twice);
    EXPECT_EQ(twice->status, 409) << twice->body;

    // Another tool or other arguments: a distinct refusal, ticket untouched.
    json wrong = recall;
    wrong["description"] = "something else";
    const json mismatch = f.mcp(f.supervised, "create_management_group", wrong);
    EXPECT_EQ(mismatch["error"]["code"], -32003);
    EXPECT_EQ(mismatch["error"]["message"], "approval_id does not match this tool and arguments");

    // The recall runs the tool once.
    const json done = f.mcp(f.supervised, "create_management_group", recall);
    ASSERT_TRUE(done.contains("result")) << done.dump();
    EXPECT_EQ(done["result"]["structuredContent"]["group"]["name"], "web-tier");
    EXPECT_EQ(f.groups_named("web-tier"), 1u);

    // A replay is refused and runs nothing.
    const json replay = f.mcp(f.supervised, "create_management_group", recall);
    EXPECT_EQ(replay["error"]["code"], -32003);
    EXPECT_TRUE(replay["error"]["data"]["retry_after_ms"].is_null());
    const std::string replay_message = replay["error"]["message"];
    EXPECT_EQ(f.groups_named("web-tier"), 1u);

    // Another principal recalling an approved ticket it read off the list
    // gets exactly the replay's message, and the ticket stays usable.
    const json other_args = {{"name", "db-tier"}};
    const std::string other_id = f.mint("create_management_group", other_args);
    ASSERT_EQ(f.decide(f.reviewer.headers(), other_id)->status, 200);
    const std::string rita_token =
        identity::create_token(*f.client, f.reviewer, "rita-mcp", "supervised", now_s() + 3600);
    json other_recall = other_args;
    other_recall["approval_id"] = other_id;
    const json stolen = f.mcp(rita_token, "create_management_group", other_recall);
    EXPECT_EQ(stolen["error"]["code"], -32003);
    EXPECT_EQ(stolen["error"]["message"].get<std::string>(), replay_message);
    EXPECT_EQ(f.groups_named("db-tier"), 0u);
    EXPECT_TRUE(f.mcp(f.supervised, "create_management_group", other_recall).contains("result"));

    // A rejected ticket reads the same as well.
    const std::string rejected_id = f.mint("unlock_account", {{"username", "rita"}});
    ASSERT_EQ(f.decide(f.reviewer.headers(), rejected_id, "reject", "/api/approvals/")->status,
              200);
    const json rejected =
        f.mcp(f.supervised, "unlock_account", {{"username", "rita"}, {"approval_id", rejected_id}});
    EXPECT_EQ(rejected["error"]["message"].get<std::string>(), replay_message);

    // The trail: minted (pending), consumed, success, and the REST decisions.
    const auto rows = [&](const std::string& q) {
        return identity::audit_events(*f.client, f.admin_api, q).size();
    };
    EXPECT_EQ(rows("action=mcp.create_management_group&result=pending"), 4u);
    EXPECT_EQ(rows("action=mcp.create_management_group&result=consumed"), 2u);
    EXPECT_EQ(rows("action=mcp.create_management_group&result=success"), 2u);
    // Refusals: the schema-invalid call, the mismatch, the replay and the
    // other principal's recall.
    EXPECT_EQ(rows("action=mcp.create_management_group&result=denied"), 4u);
    EXPECT_EQ(rows("action=mcp.unlock_account&result=denied"), 1u);
    EXPECT_EQ(rows("action=approval.approve&result=approved"), 2u);
    EXPECT_EQ(rows("action=approval.reject&result=rejected"), 1u);
    EXPECT_GE(rows("action=approval.approve&result=denied"), 4u);
    EXPECT_EQ(rows("action=mcp.approve_request&result=denied"), 1u);
}

TEST(ApprovalFlow, ListingFiltersAndPages) {
    ApprovalFixture f;
    for (int i = 0; i < 3; ++i)
        f.mint("unlock_account", {{"username", "user" + std::to_string(i)}});
    auto page = f.client->Get("/api/v1/approvals?state=pending&limit=2", bearer(f.admin_api));
    ASSERT_TRUE(page);
    ASSERT_EQ(page->status, 200) << page->body;
    const json first = json::parse(page->body);
    ASSERT_EQ(first["approvals"].size(), 2u);
    const std::string cursor = first["next_cursor"];
    ASSERT_FALSE(cursor.empty());
    auto rest = f.client->Get("/api/v1/approvals?state=pending&limit=2&cursor=" + cursor,
                              bearer(f.admin_api));
    ASSERT_TRUE(rest);
    const json second = json::parse(rest->body);
    ASSERT_EQ(second["approvals"].size(), 1u);
    EXPECT_EQ(second["next_cursor"], "");
    auto none = f.client->Get("/api/v1/approvals?state=approved", bearer(f.admin_api));
    EXPECT_TRUE(json::parse(none->body)["approvals"].empty());
    auto bad = f.client->Get("/api/v1/approvals?state=maybe", bearer(f.admin_api));
    EXPECT_EQ(bad->status, 400);
    auto missing =
        f.client->Get("/api/v1/approvals/0123456789abcdef0123456789abcdef", bearer(f.admin_api));
    EXPECT_EQ(missing->status, 404);
    // The MCP twin lists the same tickets.
    const json listed = f.mcp(f.supervised, "list_pending_approvals", json::object());
    EXPECT_EQ(listed["result"]["structuredContent"]["approvals"].size(), 3u);
}

}  // namespace
}  // namespace yuzu::testing::approvals
