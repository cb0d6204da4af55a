// IdentityResolver on a real auth.db: a token resolves to its owner and tier,
// and stops resolving once its owner is gone (within kUserExistsCacheMs),
// even while the token store still holds the token in its cache; a web
// session ends with its owner too.
#include "yuzu/http/identity_resolver.hpp"

#include <gtest/gtest.h>

#include <string>

#include "support/temp_dir.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/auth/user_store.hpp"
#include "yuzu/common/clock.hpp"

namespace yuzu::http {
namespace {

class IdentityResolverTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auth::IdentityOptions options;
        options.data_dir = dir_.str();
        options.bootstrap_password_value = "identity-resolver-test-password";
        options.user_options.password_log_n = 10;
        clock_.set_ms(SystemClock::instance().now_ms());
        auto identity = auth::Identity::open(options, clock_);
        ASSERT_TRUE(identity.ok()) << identity.status().to_string();
        identity_ = std::move(identity).value();
        ASSERT_TRUE(identity_->users().create_user("nils", "identity-resolver-password", {}).ok());
        const int64_t in_a_day = SystemClock::instance().now_s() + 24 * 3600;
        auto token = identity_->tokens().create("nils", "ci", "readonly", in_a_day);
        ASSERT_TRUE(token.ok()) << token.status().to_string();
        secret_ = token->secret;
        token_id_ = token->info.id;
    }

    AuthFailure failure_of(std::string_view raw) {
        AuthFailure failure = AuthFailure::kNone;
        IdentityResolver resolver(*identity_);
        auto who = resolver.resolve_token(raw, &failure);
        EXPECT_EQ(who.ok(), failure == AuthFailure::kNone);
        return failure;
    }

    testing::TempDir dir_;
    ManualClock clock_;
    std::unique_ptr<auth::Identity> identity_;
    std::string secret_;
    std::string token_id_;
};

TEST_F(IdentityResolverTest, ATokenResolvesToItsOwnerAndTier) {
    IdentityResolver resolver(*identity_);
    auto who = resolver.from_token(secret_);
    ASSERT_TRUE(who.ok()) << who.status().to_string();
    EXPECT_EQ(who->principal.username, "nils");
    EXPECT_EQ(who->principal.kind, auth::PrincipalKind::kMcpToken);
    EXPECT_EQ(who->principal.mcp_tier, "readonly");
    EXPECT_EQ(who->principal.token_id, token_id_);
    EXPECT_EQ(failure_of("yuzu_not_a_real_token_at_all"), AuthFailure::kUnknownToken);
}

TEST_F(IdentityResolverTest, ATokenDiesWithItsOwnerThoughItIsCached) {
    ASSERT_EQ(failure_of(secret_), AuthFailure::kNone);
    ASSERT_GT(identity_->tokens().cached_entries(), 0u);
    {
        auto db = store::Database::open(identity_->db_path());
        ASSERT_TRUE(db.ok()) << db.status().to_string();
        auto conn = (*db)->lock();
        ASSERT_TRUE(conn.exec("DELETE FROM user_roles WHERE username = 'nils'").ok());
        ASSERT_TRUE(conn.exec("DELETE FROM users WHERE username = 'nils'").ok());
    }
    clock_.advance_ms(auth::kUserExistsCacheMs);
    EXPECT_EQ(failure_of(secret_), AuthFailure::kRevokedToken);
}

TEST_F(IdentityResolverTest, ASessionEndsWithItsOwner) {
    auto session = identity_->sessions().create("nils", "127.0.0.1", "test");
    ASSERT_TRUE(session.ok()) << session.status().to_string();
    IdentityResolver resolver(*identity_);
    auto who = resolver.from_session_cookie(session->cookie_secret);
    ASSERT_TRUE(who.ok()) << who.status().to_string();
    EXPECT_EQ(who->principal.username, "nils");
    EXPECT_EQ(who->principal.kind, auth::PrincipalKind::kUserSession);
    {
        // web_sessions does not cascade from users: the row stays, and only
        // the owner check can end it.
        auto db = store::Database::open(identity_->db_path());
        ASSERT_TRUE(db.ok()) << db.status().to_string();
        auto conn = (*db)->lock();
        ASSERT_TRUE(conn.exec("DELETE FROM user_roles WHERE username = 'nils'").ok());
        ASSERT_TRUE(conn.exec("DELETE FROM users WHERE username = 'nils'").ok());
    }
    clock_.advance_ms(auth::kUserExistsCacheMs);
    auto after = resolver.from_session_cookie(session->cookie_secret);
    ASSERT_FALSE(after.ok());
    EXPECT_EQ(after.status().code(), StatusCode::kUnauthenticated);
}

TEST_F(IdentityResolverTest, ARevokedTokenIsRefusedAsRevoked) {
    ASSERT_EQ(failure_of(secret_), AuthFailure::kNone);
    ASSERT_TRUE(identity_->tokens().revoke(token_id_, "nils", false).ok());
    EXPECT_EQ(failure_of(secret_), AuthFailure::kRevokedToken);
}

}  // namespace
}  // namespace yuzu::http
