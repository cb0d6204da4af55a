// The CA tools through the real pipeline and the whole catalogue: what each
// tier may do, and that a refused or gated call revokes nothing.
#include <gtest/gtest.h>

#include "full_catalogue_fixture.hpp"
#include "support/csr_maker.hpp"
#include "yuzu/mcp/error_codes.hpp"
#include "yuzu/pki/certificate_authority.hpp"

namespace yuzu::mcp::testing {
namespace {

class PkiToolsTest : public FullCatalogue {
  protected:
    std::string issue_agent_certificate() {
        pki::IssueRequest r;
        r.purpose = pki::Purpose::kAgent;
        r.csr_pem = ::yuzu::testing::make_test_key().csr_pem;
        r.common_name = "agent-1";
        r.agent_id = "agent-1";
        r.issued_by = "enrollment";
        auto issued = ca_->issue(r);
        EXPECT_TRUE(issued.ok()) << issued.status().to_string();
        return issued.ok() ? issued->certificate.serial_hex : "";
    }
    bool revoked(const std::string& serial) { return ca_->find(serial)->revoked(); }
    int64_t crl_number() { return ca_->generations()->front().crl_number; }
};

TEST_F(PkiToolsTest, ListWorksOnEveryTierAndPages) {
    issue_agent_certificate();
    issue_agent_certificate();
    for (const char* tier : {"readonly", "operator", "supervised"}) {
        auto out = call_full(token_of("admin", tier), "list_issued_certs", {{"limit", 1}});
        ASSERT_TRUE(out.result) << tier << " " << (out.error ? out.error->message : "");
        const json& sc = (*out.result)["structuredContent"];
        EXPECT_EQ(sc["count"], 1);
        EXPECT_TRUE(sc["has_more"].get<bool>());
        EXPECT_EQ(sc["next_offset"], 1);
        EXPECT_EQ(sc["items"][0]["status"], "active");
    }
}

TEST_F(PkiToolsTest, RevokeIsRefusedBelowSupervisedAndGatedAtIt) {
    const std::string serial = issue_agent_certificate();
    const int64_t crl_before = crl_number();
    for (const char* tier : {"readonly", "operator"}) {
        auto out =
            call_full(token_of("admin", tier), "revoke_certificate", {{"serial_hex", serial}});
        ASSERT_TRUE(out.error) << tier;
        EXPECT_EQ(out.error->code, kTierDenied) << tier;
    }
    auto gated =
        call_full(token_of("admin", "supervised"), "revoke_certificate", {{"serial_hex", serial}});
    ASSERT_TRUE(gated.error);
    EXPECT_EQ(gated.error->code, kApprovalRequired);
    EXPECT_FALSE(revoked(serial));
    EXPECT_EQ(crl_number(), crl_before) << "no CRL was published";

    // An untiered session revokes at once; the CRL is republished.
    auto done = call_full(admin, "revoke_certificate", {{"serial_hex", serial}});
    ASSERT_TRUE(done.result) << (done.error ? done.error->message : "");
    EXPECT_TRUE(revoked(serial));
    EXPECT_EQ(crl_number(), crl_before + 1);
    auto twice = call_full(admin, "revoke_certificate", {{"serial_hex", serial}});
    ASSERT_TRUE(twice.error);
    EXPECT_EQ(twice.error->code, kInvalidParams) << "already revoked";
    auto unknown = call_full(admin, "revoke_certificate", {{"serial_hex", "ABCDEF"}});
    ASSERT_TRUE(unknown.error);
    EXPECT_EQ(unknown.error->code, kInvalidParams);
}

TEST_F(PkiToolsTest, ConfirmEngineRotationNeedsAPendingRotationToTheGivenGeneration) {
    auto none = call_full(admin, "confirm_engine_rotation", {{"to_generation", 2}});
    ASSERT_TRUE(none.error);
    ASSERT_TRUE(ca_->start_rotation("admin").ok());
    auto wrong = call_full(admin, "confirm_engine_rotation", {{"to_generation", 3}});
    ASSERT_TRUE(wrong.error);
    auto operator_call =
        call_full(token_of("admin", "operator"), "confirm_engine_rotation", {{"to_generation", 2}});
    ASSERT_TRUE(operator_call.error);
    EXPECT_EQ(operator_call.error->code, kTierDenied);
    auto done = call_full(admin, "confirm_engine_rotation", {{"to_generation", 2}});
    ASSERT_TRUE(done.result) << (done.error ? done.error->message : "");
    EXPECT_EQ((*done.result)["structuredContent"]["retired_generation"], 1);
    EXPECT_FALSE(ca_->rotation_status()->pending);
}

}  // namespace
}  // namespace yuzu::mcp::testing
