// TokenStore::validate()'s reason for a refusal (TokenRejection), from the
// same single lookup that refuses: what the 401's error_description names.
#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <string>

#include "support/temp_dir.hpp"
#include "yuzu/auth/auth_schema.hpp"
#include "yuzu/auth/token_store.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/store/database.hpp"
#include "yuzu/store/migrations.hpp"

namespace yuzu::auth {
namespace {

using yuzu::testing::TempDir;

constexpr store::Migration kIdentityStub{1, "identity_stub", "CREATE TABLE identity_stub(x);"};

class TokenRejectionTest : public ::testing::Test {
  protected:
    void SetUp() override { open_store({}); }

    void open_store(TokenStoreOptions options) {
        store_.reset();
        if (!db_) {
            auto db = store::Database::open((dir_ / "auth.db").string());
            ASSERT_TRUE(db.ok()) << db.status().to_string();
            db_ = std::move(db).value();
            const std::array<store::Migration, 2> migrations{kIdentityStub,
                                                             kCredentialSchemaMigration};
            Status migrated = store::apply_migrations(*db_, "auth.db", migrations, clock_);
            ASSERT_TRUE(migrated.ok()) << migrated.to_string();
        }
        store_ = std::make_unique<TokenStore>(*db_, clock_, options);
    }

    CreatedToken make(int64_t expires_at_s = 0) {
        auto created = store_->create("alice", "ci", "", expires_at_s);
        EXPECT_TRUE(created.ok()) << created.status().to_string();
        return created.ok() ? std::move(created).value() : CreatedToken{};
    }

    TokenRejection rejection_of(std::string_view raw) {
        TokenRejection why = TokenRejection::kNone;
        auto r = store_->validate(raw, &why);
        EXPECT_FALSE(r.ok());
        return why;
    }

    TempDir dir_;
    ManualClock clock_;
    std::unique_ptr<store::Database> db_;
    std::unique_ptr<TokenStore> store_;
};

TEST_F(TokenRejectionTest, AcceptedTokenSaysNone) {
    const CreatedToken t = make();
    TokenRejection why = TokenRejection::kUnknown;
    ASSERT_TRUE(store_->validate(t.secret, &why).ok());
    EXPECT_EQ(why, TokenRejection::kNone);
    why = TokenRejection::kUnknown;
    ASSERT_TRUE(store_->validate(t.secret, &why).ok());  // from the cache
    EXPECT_EQ(why, TokenRejection::kNone);
}

TEST_F(TokenRejectionTest, MalformedAndUnknown) {
    EXPECT_EQ(rejection_of(""), TokenRejection::kMalformed);
    EXPECT_EQ(rejection_of(std::string(300, 'a')), TokenRejection::kMalformed);
    EXPECT_EQ(rejection_of("yuzu_" + std::string(32, '!')), TokenRejection::kMalformed);
    EXPECT_EQ(rejection_of("yuzu_" + std::string(32, 'a')), TokenRejection::kUnknown);
}

TEST_F(TokenRejectionTest, RevokedEvenWhenCached) {
    const CreatedToken t = make();
    ASSERT_TRUE(store_->validate(t.secret).ok());
    ASSERT_TRUE(store_->revoke(t.info.id, "alice", false).ok());
    EXPECT_EQ(rejection_of(t.secret), TokenRejection::kRevoked);
}

TEST_F(TokenRejectionTest, ExpiredEvenWhenCached) {
    const CreatedToken t = make(clock_.now_s() + 10);
    ASSERT_TRUE(store_->validate(t.secret).ok());
    clock_.advance_ms(10'000);
    EXPECT_EQ(rejection_of(t.secret), TokenRejection::kExpired);
}

TEST_F(TokenRejectionTest, RevokedWinsOverExpired) {
    const CreatedToken t = make(clock_.now_s() + 10);
    ASSERT_TRUE(store_->revoke(t.info.id, "alice", false).ok());
    clock_.advance_ms(20'000);
    EXPECT_EQ(rejection_of(t.secret), TokenRejection::kRevoked);
}

TEST_F(TokenRejectionTest, SupersededAfterTheRotationGracePeriod) {
    open_store({.rotation_grace_s = 60});
    const CreatedToken t = make();
    auto rotated = store_->rotate(t.info.id, "alice");
    ASSERT_TRUE(rotated.ok()) << rotated.status().to_string();
    clock_.advance_ms(60'000);
    EXPECT_EQ(rejection_of(t.secret), TokenRejection::kSuperseded);
    TokenRejection why = TokenRejection::kUnknown;
    EXPECT_TRUE(store_->validate(rotated->secret, &why).ok());
    EXPECT_EQ(why, TokenRejection::kNone);
}

TEST_F(TokenRejectionTest, TheReasonIsOptional) {
    const CreatedToken t = make();
    ASSERT_TRUE(store_->revoke(t.info.id, "alice", false).ok());
    auto r = store_->validate(t.secret);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(), "token revoked");
}

}  // namespace
}  // namespace yuzu::auth
