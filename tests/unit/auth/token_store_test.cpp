#include "yuzu/auth/token_store.hpp"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/temp_dir.hpp"
#include "yuzu/auth/auth_schema.hpp"
#include "yuzu/auth/token_codec.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/store/database.hpp"
#include "yuzu/store/migrations.hpp"

namespace yuzu::auth {
namespace {

using yuzu::testing::TempDir;

// Stands in for the identity migration (version 1) so these tests need only
// the credential schema.
constexpr store::Migration kIdentityStub{1, "identity_stub", "CREATE TABLE identity_stub(x);"};

constexpr int64_t kDay = 24 * 3600;

std::string file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Everything SQLite has written for the database: the main file and its WAL.
std::string stored_bytes(const std::string& db_path) {
    return file_bytes(db_path) + file_bytes(db_path + "-wal");
}

class TokenStoreTest : public ::testing::Test {
  protected:
    void SetUp() override { open_store({}); }

    void open_store(TokenStoreOptions options) {
        store_.reset();
        if (!db_) {
            auto db = store::Database::open(db_path_);
            ASSERT_TRUE(db.ok()) << db.status().to_string();
            db_ = std::move(db).value();
            const std::array<store::Migration, 2> migrations{kIdentityStub,
                                                             kCredentialSchemaMigration};
            Status migrated = store::apply_migrations(*db_, "auth.db", migrations, clock_);
            ASSERT_TRUE(migrated.ok()) << migrated.to_string();
        }
        store_ = std::make_unique<TokenStore>(*db_, clock_, options);
    }

    int64_t now_s() const { return clock_.now_s(); }

    CreatedToken make(const std::string& owner, const std::string& name = "ci",
                      const std::string& tier = "", int64_t expires_at_s = 0) {
        auto created = store_->create(owner, name, tier, expires_at_s);
        EXPECT_TRUE(created.ok()) << created.status().to_string();
        return created.ok() ? std::move(created).value() : CreatedToken{};
    }

    void exec(const std::string& sql) {
        auto conn = db_->lock();
        Status s = conn.exec(sql);
        ASSERT_TRUE(s.ok()) << s.to_string();
    }

    void expect_unauthenticated(std::string_view raw, std::string_view why) {
        auto r = store_->validate(raw);
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.status().code(), StatusCode::kUnauthenticated);
        EXPECT_EQ(r.status().message(), why);
    }

    TempDir dir_;
    const std::string db_path_ = (dir_ / "auth.db").string();
    ManualClock clock_;
    std::unique_ptr<store::Database> db_;
    std::unique_ptr<TokenStore> store_;
};

TEST_F(TokenStoreTest, CreateReturnsWellFormedSecretAndDisplayId) {
    const CreatedToken t = make("alice", "deploy");
    EXPECT_EQ(t.secret.size(), kApiTokenLength);
    EXPECT_EQ(t.secret.rfind("yuzu_", 0), 0u);
    EXPECT_TRUE(looks_like_api_token(t.secret));
    EXPECT_EQ(t.info.id, sha256_hex(t.secret).substr(0, 24));
    EXPECT_EQ(t.info.id, token_display_id(t.secret));
    EXPECT_EQ(t.info.name, "deploy");
    EXPECT_EQ(t.info.owner, "alice");
    EXPECT_EQ(t.info.mcp_tier, "");
    EXPECT_EQ(t.info.created_at_s, now_s());
    EXPECT_EQ(t.info.expires_at_s, 0);
    EXPECT_EQ(t.info.last_used_at_s, 0);
    EXPECT_FALSE(t.info.revoked);
    EXPECT_FALSE(t.info.rotation_pending);

    auto got = store_->get(t.info.id);
    ASSERT_TRUE(got.ok()) << got.status().to_string();
    EXPECT_EQ(got->name, "deploy");
    EXPECT_EQ(got->owner, "alice");

    const CreatedToken other = make("alice", "deploy");
    EXPECT_NE(other.secret, t.secret);
    EXPECT_NE(other.info.id, t.info.id);
}

TEST_F(TokenStoreTest, SecretIsNeverWrittenToTheDatabaseFile) {
    std::vector<CreatedToken> tokens;
    for (int i = 0; i < 5; ++i) tokens.push_back(make("alice", "marker-name-" + std::to_string(i)));
    tokens.push_back(make("bob", "marker-mcp", "operator", now_s() + 30 * kDay));
    auto rotated = store_->rotate(tokens[0].info.id, "alice");
    ASSERT_TRUE(rotated.ok()) << rotated.status().to_string();

    const std::string bytes = stored_bytes(db_path_);
    // The scan sees what is stored: the names and hashes are there ...
    EXPECT_NE(bytes.find("marker-name-3"), std::string::npos);
    EXPECT_NE(bytes.find(sha256_hex(tokens[2].secret)), std::string::npos);
    EXPECT_NE(bytes.find(sha256_hex(rotated->secret)), std::string::npos);
    // ... and no secret, not even its random part.
    for (const auto& t : tokens) {
        EXPECT_EQ(bytes.find(t.secret.substr(kApiTokenPrefix.size())), std::string::npos);
    }
    EXPECT_EQ(bytes.find(rotated->secret.substr(kApiTokenPrefix.size())), std::string::npos);
}

TEST_F(TokenStoreTest, McpTokenMustExpireWithinNinetyDays) {
    const int64_t cases[] = {
        0, now_s() + 90 * kDay + 1, now_s() + 365 * kDay, now_s(), now_s() - 10, -5};
    for (int64_t expires : cases) {
        auto r = store_->create("alice", "mcp", "readonly", expires);
        ASSERT_FALSE(r.ok()) << "expires_at " << expires;
        EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
        EXPECT_NE(r.status().message().find("90 days"), std::string::npos) << r.status().message();
    }
    auto at_limit = store_->create("alice", "mcp", "supervised", now_s() + 90 * kDay);
    ASSERT_TRUE(at_limit.ok()) << at_limit.status().to_string();
    EXPECT_EQ(at_limit->info.mcp_tier, "supervised");
    EXPECT_TRUE(at_limit->info.is_mcp());
    EXPECT_EQ(at_limit->info.expires_at_s, now_s() + 90 * kDay);
}

TEST_F(TokenStoreTest, NonMcpTokenMayNeverExpireButNotExpireInThePast) {
    EXPECT_TRUE(store_->create("alice", "forever", "", 0).ok());
    EXPECT_TRUE(store_->create("alice", "a year", "", now_s() + 365 * kDay).ok());
    for (int64_t expires : {now_s(), now_s() - 1, int64_t{-1}}) {
        auto r = store_->create("alice", "past", "", expires);
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    }
}

TEST_F(TokenStoreTest, UnknownTierIsRejected) {
    for (const char* tier : {"admin", "READONLY", "read-only", " operator"}) {
        auto r = store_->create("alice", "t", tier, now_s() + kDay);
        ASSERT_FALSE(r.ok()) << tier;
        EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
        EXPECT_EQ(r.status().message(),
                  "mcp_tier must be one of readonly, operator, supervised or empty");
    }
    for (const char* tier : {"readonly", "operator", "supervised"}) {
        EXPECT_TRUE(store_->create("alice", "t", tier, now_s() + kDay).ok()) << tier;
    }
}

TEST_F(TokenStoreTest, NameIsRequiredAndBounded) {
    for (const std::string& name :
         {std::string(), std::string(129, 'n'), std::string("line\nbreak")}) {
        auto r = store_->create("alice", name, "", 0);
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    }
    EXPECT_TRUE(store_->create("alice", std::string(128, 'n'), "", 0).ok());
    EXPECT_FALSE(store_->create("", "t", "", 0).ok());
}

TEST_F(TokenStoreTest, ListIsSelfScopedNewestFirst) {
    const CreatedToken a1 = make("alice", "first");
    clock_.advance_ms(1000);
    const CreatedToken b1 = make("bob", "bobs");
    clock_.advance_ms(1000);
    const CreatedToken a2 = make("alice", "second");
    const CreatedToken a3 = make("alice", "third");  // same second as a2

    auto alice = store_->list("alice");
    ASSERT_TRUE(alice.ok()) << alice.status().to_string();
    ASSERT_EQ(alice->size(), 3u);
    EXPECT_EQ((*alice)[0].id, a3.info.id);
    EXPECT_EQ((*alice)[1].id, a2.info.id);
    EXPECT_EQ((*alice)[2].id, a1.info.id);
    for (const auto& t : *alice) EXPECT_EQ(t.owner, "alice");

    auto bob = store_->list("bob");
    ASSERT_TRUE(bob.ok());
    ASSERT_EQ(bob->size(), 1u);
    EXPECT_EQ((*bob)[0].id, b1.info.id);

    auto nobody = store_->list("carol");
    ASSERT_TRUE(nobody.ok());
    EXPECT_TRUE(nobody->empty());
}

TEST_F(TokenStoreTest, ActiveTokensPerOwnerAreCapped) {
    std::vector<CreatedToken> tokens;
    for (int i = 0; i < 100; ++i) tokens.push_back(make("alice", "t" + std::to_string(i)));
    auto over = store_->create("alice", "one too many", "", 0);
    ASSERT_FALSE(over.ok());
    EXPECT_EQ(over.status().code(), StatusCode::kResourceExhausted);

    EXPECT_TRUE(store_->create("bob", "unaffected", "", 0).ok());
    ASSERT_TRUE(store_->revoke(tokens[7].info.id, "alice", false).ok());
    EXPECT_TRUE(store_->create("alice", "fits again", "", 0).ok());
    EXPECT_FALSE(store_->create("alice", "full again", "", 0).ok());
}

TEST_F(TokenStoreTest, ExpiredTokensDoNotCountTowardsTheCap) {
    open_store({.max_active_tokens_per_owner = 2});
    make("alice", "short", "", now_s() + 10);
    make("alice", "long", "", 0);
    EXPECT_FALSE(store_->create("alice", "third", "", 0).ok());
    clock_.advance_ms(10'000);
    EXPECT_TRUE(store_->create("alice", "third", "", 0).ok());
}

TEST_F(TokenStoreTest, StrangerRevokeLooksExactlyLikeAnUnknownId) {
    const CreatedToken t = make("alice");
    Status stranger = store_->revoke(t.info.id, "mallory", false);
    ASSERT_EQ(stranger.code(), StatusCode::kNotFound);

    const std::string unknown_id(24, 'a');
    Status unknown = store_->revoke(unknown_id, "mallory", false);
    ASSERT_EQ(unknown.code(), StatusCode::kNotFound);
    // Same wording, with only the id the caller sent in it.
    std::string normalised = stranger.message();
    normalised.replace(normalised.find(t.info.id), t.info.id.size(), unknown_id);
    EXPECT_EQ(normalised, unknown.message());

    EXPECT_TRUE(store_->validate(t.secret).ok());
    EXPECT_FALSE(store_->get(t.info.id)->revoked);
}

TEST_F(TokenStoreTest, OwnerAndAdminCanRevoke) {
    const CreatedToken own = make("alice", "own");
    const CreatedToken theirs = make("bob", "theirs");
    ASSERT_TRUE(store_->revoke(own.info.id, "alice", false).ok());
    ASSERT_TRUE(store_->revoke(theirs.info.id, "admin", true).ok());
    EXPECT_TRUE(store_->get(own.info.id)->revoked);
    EXPECT_TRUE(store_->get(theirs.info.id)->revoked);
    EXPECT_TRUE(store_->revoke(own.info.id, "alice", false).ok()) << "revoking twice is Ok";
    EXPECT_EQ(store_->revoke(std::string(24, 'f'), "admin", true).code(), StatusCode::kNotFound);
}

TEST_F(TokenStoreTest, ValidateAcceptsAndDescribesALiveToken) {
    const CreatedToken t = make("alice", "ops", "operator", now_s() + kDay);
    auto v = store_->validate(t.secret);
    ASSERT_TRUE(v.ok()) << v.status().to_string();
    EXPECT_EQ(v->id, t.info.id);
    EXPECT_EQ(v->owner, "alice");
    EXPECT_EQ(v->mcp_tier, "operator");
    EXPECT_EQ(v->last_used_at_s, now_s());
}

TEST_F(TokenStoreTest, ValidateRejectsMalformedUnknownAndOverlongValues) {
    expect_unauthenticated(std::string(257, 'a'), "presented token is too long");
    expect_unauthenticated("yuzu_" + std::string(252, 'a'), "presented token is too long");
    expect_unauthenticated("yuzu_" + std::string(251, 'a'), "malformed token");
    expect_unauthenticated("", "malformed token");
    expect_unauthenticated("Bearer yuzu_abc", "malformed token");
    expect_unauthenticated("yuzu_" + std::string(32, '!'), "malformed token");
    expect_unauthenticated("yuzu_" + std::string(32, 'a'), "unknown token");
}

TEST_F(TokenStoreTest, RevokedTokenIsRejectedImmediatelyDespiteTheCache) {
    const CreatedToken t = make("alice");
    ASSERT_TRUE(store_->validate(t.secret).ok());
    ASSERT_EQ(store_->cached_entries(), 1u);
    ASSERT_TRUE(store_->revoke(t.info.id, "alice", false).ok());
    expect_unauthenticated(t.secret, "token revoked");
}

TEST_F(TokenStoreTest, ExpiredTokenIsRejectedEvenWhenCached) {
    const CreatedToken t = make("alice", "short", "readonly", now_s() + 20);
    ASSERT_TRUE(store_->validate(t.secret).ok());
    clock_.advance_ms(19'999);
    EXPECT_TRUE(store_->validate(t.secret).ok());
    clock_.advance_ms(1);
    expect_unauthenticated(t.secret, "token expired");
}

TEST_F(TokenStoreTest, CacheAnswersWithinItsTtlAndRereadsAfter) {
    const CreatedToken t = make("alice");
    ASSERT_TRUE(store_->validate(t.secret).ok());
    // A change the store did not make (another process) ...
    exec("UPDATE api_tokens SET revoked = 1");
    clock_.advance_ms(59'000);
    EXPECT_TRUE(store_->validate(t.secret).ok()) << "served from the cache";
    // ... is seen once the entry's 60 s are over.
    clock_.advance_ms(1'000);
    expect_unauthenticated(t.secret, "token revoked");
}

TEST_F(TokenStoreTest, CacheIsBounded) {
    open_store({.cache_max_entries = 2});
    std::vector<CreatedToken> tokens;
    for (int i = 0; i < 5; ++i) tokens.push_back(make("alice", "t" + std::to_string(i)));
    for (int round = 0; round < 2; ++round) {
        for (const auto& t : tokens) {
            EXPECT_TRUE(store_->validate(t.secret).ok());
            EXPECT_LE(store_->cached_entries(), 2u);
        }
    }
}

TEST_F(TokenStoreTest, LastUsedIsWrittenAtMostOnceAMinute) {
    const CreatedToken t = make("alice");
    const int64_t first = now_s();
    ASSERT_TRUE(store_->validate(t.secret).ok());
    EXPECT_EQ(store_->get(t.info.id)->last_used_at_s, first);

    clock_.advance_ms(30'000);
    ASSERT_TRUE(store_->validate(t.secret).ok());
    EXPECT_EQ(store_->get(t.info.id)->last_used_at_s, first);

    clock_.advance_ms(30'000);
    ASSERT_TRUE(store_->validate(t.secret).ok());
    EXPECT_EQ(store_->get(t.info.id)->last_used_at_s, first + 60);

    // The same holds for a validation answered from the cache.
    clock_.advance_ms(59'000);
    ASSERT_TRUE(store_->validate(t.secret).ok());
    EXPECT_EQ(store_->get(t.info.id)->last_used_at_s, first + 60);
}

TEST_F(TokenStoreTest, RotationKeepsBothSecretsUntilConfirmed) {
    const CreatedToken t = make("alice", "rotating");
    ASSERT_TRUE(store_->validate(t.secret).ok());

    auto rotated = store_->rotate(t.info.id, "alice");
    ASSERT_TRUE(rotated.ok()) << rotated.status().to_string();
    EXPECT_NE(rotated->secret, t.secret);
    EXPECT_TRUE(looks_like_api_token(rotated->secret));
    EXPECT_EQ(rotated->info.id, t.info.id) << "the id survives rotation";
    EXPECT_TRUE(rotated->info.rotation_pending);
    EXPECT_TRUE(store_->get(t.info.id)->rotation_pending);

    auto old_ok = store_->validate(t.secret);
    auto new_ok = store_->validate(rotated->secret);
    ASSERT_TRUE(old_ok.ok()) << old_ok.status().to_string();
    ASSERT_TRUE(new_ok.ok()) << new_ok.status().to_string();
    EXPECT_EQ(old_ok->id, t.info.id);
    EXPECT_EQ(new_ok->id, t.info.id);

    ASSERT_TRUE(store_->confirm_rotation(t.info.id, "alice").ok());
    expect_unauthenticated(t.secret, "unknown token");
    auto after = store_->validate(rotated->secret);
    ASSERT_TRUE(after.ok()) << after.status().to_string();
    EXPECT_EQ(after->id, t.info.id);
    EXPECT_FALSE(after->rotation_pending);
    EXPECT_FALSE(store_->get(t.info.id)->rotation_pending);

    auto listed = store_->list("alice");
    ASSERT_TRUE(listed.ok());
    ASSERT_EQ(listed->size(), 1u);
    EXPECT_EQ((*listed)[0].id, t.info.id);
}

TEST_F(TokenStoreTest, GracePeriodRetiresTheOldSecretWithoutConfirmation) {
    open_store({.rotation_grace_s = 3600});
    const CreatedToken t = make("alice");
    auto rotated = store_->rotate(t.info.id, "alice");
    ASSERT_TRUE(rotated.ok());
    ASSERT_TRUE(store_->validate(t.secret).ok());  // both now cached
    ASSERT_TRUE(store_->validate(rotated->secret)->rotation_pending);

    clock_.advance_ms(3600 * 1000 - 1);
    EXPECT_TRUE(store_->validate(t.secret).ok());
    EXPECT_TRUE(store_->validate(rotated->secret)->rotation_pending);  // cached again
    clock_.advance_ms(1);
    expect_unauthenticated(t.secret, "token secret superseded by rotation");
    auto fresh = store_->validate(rotated->secret);
    ASSERT_TRUE(fresh.ok()) << fresh.status().to_string();
    EXPECT_EQ(fresh->id, t.info.id);
    EXPECT_FALSE(fresh->rotation_pending);

    // Confirming late is still accepted and changes nothing visible.
    ASSERT_TRUE(store_->confirm_rotation(t.info.id, "alice").ok());
    EXPECT_TRUE(store_->validate(rotated->secret).ok());
    expect_unauthenticated(t.secret, "unknown token");
}

TEST_F(TokenStoreTest, DefaultGracePeriodIsOneDay) {
    const CreatedToken t = make("alice");
    auto rotated = store_->rotate(t.info.id, "alice");
    ASSERT_TRUE(rotated.ok());
    clock_.advance_ms((kDay - 1) * 1000);
    EXPECT_TRUE(store_->validate(t.secret).ok());
    clock_.advance_ms(1000);
    EXPECT_FALSE(store_->validate(t.secret).ok());
    EXPECT_TRUE(store_->validate(rotated->secret).ok());
}

TEST_F(TokenStoreTest, RotatingAgainReplacesThePendingSecretWithoutExtendingTheOld) {
    open_store({.rotation_grace_s = 3600});
    const CreatedToken t = make("alice");
    auto first = store_->rotate(t.info.id, "alice");
    ASSERT_TRUE(first.ok());
    ASSERT_TRUE(store_->validate(first->secret).ok());  // now cached
    clock_.advance_ms(1800 * 1000);
    auto second = store_->rotate(t.info.id, "alice");
    ASSERT_TRUE(second.ok());
    EXPECT_EQ(second->info.id, t.info.id);

    expect_unauthenticated(first->secret, "unknown token");
    EXPECT_TRUE(store_->validate(second->secret).ok());
    EXPECT_TRUE(store_->validate(t.secret).ok());

    clock_.advance_ms(1800 * 1000);  // an hour after the first rotate
    expect_unauthenticated(t.secret, "token secret superseded by rotation");
    EXPECT_TRUE(store_->validate(second->secret).ok());
}

TEST_F(TokenStoreTest, RotatingAfterTheGracePeriodStartsFromTheSurvivingSecret) {
    open_store({.rotation_grace_s = 3600});
    const CreatedToken t = make("alice");
    auto first = store_->rotate(t.info.id, "alice");
    ASSERT_TRUE(first.ok());
    clock_.advance_ms(3600 * 1000);
    auto second = store_->rotate(t.info.id, "alice");
    ASSERT_TRUE(second.ok());
    expect_unauthenticated(t.secret, "unknown token");
    EXPECT_TRUE(store_->validate(first->secret).ok()) << "survivor of the first rotation";
    EXPECT_TRUE(store_->validate(second->secret).ok());
    ASSERT_TRUE(store_->confirm_rotation(t.info.id, "alice").ok());
    expect_unauthenticated(first->secret, "unknown token");
    EXPECT_TRUE(store_->validate(second->secret).ok());
}

TEST_F(TokenStoreTest, RotationIsForTheOwnerOfALiveToken) {
    const CreatedToken t = make("alice");
    EXPECT_EQ(store_->rotate(t.info.id, "mallory").status().code(), StatusCode::kNotFound);
    EXPECT_EQ(store_->rotate(std::string(24, '0'), "alice").status().code(), StatusCode::kNotFound);
    EXPECT_EQ(store_->confirm_rotation(t.info.id, "alice").code(), StatusCode::kFailedPrecondition)
        << "nothing to confirm";

    auto rotated = store_->rotate(t.info.id, "alice");
    ASSERT_TRUE(rotated.ok());
    EXPECT_EQ(store_->confirm_rotation(t.info.id, "mallory").code(), StatusCode::kNotFound);
    EXPECT_TRUE(store_->validate(t.secret).ok()) << "a stranger's confirm changed nothing";

    ASSERT_TRUE(store_->revoke(t.info.id, "admin", true).ok());
    expect_unauthenticated(rotated->secret, "token revoked");
    expect_unauthenticated(t.secret, "token revoked");
    EXPECT_EQ(store_->rotate(t.info.id, "alice").status().code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(store_->confirm_rotation(t.info.id, "alice").code(), StatusCode::kFailedPrecondition);

    const CreatedToken expiring = make("alice", "x", "", now_s() + 5);
    clock_.advance_ms(5000);
    EXPECT_EQ(store_->rotate(expiring.info.id, "alice").status().code(),
              StatusCode::kFailedPrecondition);
}

TEST_F(TokenStoreTest, GetUnknownIdIsNotFound) {
    EXPECT_EQ(store_->get("nope").status().code(), StatusCode::kNotFound);
}

// A validate() that read the row just before a revoke must not leave a
// positive cache entry behind: once revoke() has returned, every validate()
// that starts afterwards fails. To make such races common, each round first
// rotates the token (emptying its cache entries, so the validators go back to
// SQLite) and revokes it right after, and a last-used write on every
// validation widens the gap between reading a row and caching it.
TEST_F(TokenStoreTest, ValidateRacingRevokeNeverOutlivesIt) {
    open_store({.last_used_resolution_s = 0});
    for (int round = 0; round < 40; ++round) {
        const CreatedToken t = make("alice", "race" + std::to_string(round));
        std::atomic<bool> revoked{false};
        std::atomic<bool> stop{false};
        std::atomic<int> late_successes{0};
        std::vector<std::thread> validators;
        for (int i = 0; i < 3; ++i) {
            validators.emplace_back([&] {
                while (!stop.load()) {
                    const bool after_revoke = revoked.load();
                    const bool ok = store_->validate(t.secret).ok();
                    if (after_revoke && ok) late_successes.fetch_add(1);
                }
            });
        }
        std::this_thread::sleep_for(std::chrono::microseconds(300));
        ASSERT_TRUE(store_->rotate(t.info.id, "alice").ok());
        ASSERT_TRUE(store_->revoke(t.info.id, "alice", false).ok());
        revoked.store(true);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        stop.store(true);
        for (auto& th : validators) th.join();
        EXPECT_EQ(late_successes.load(), 0) << "round " << round;
        EXPECT_FALSE(store_->validate(t.secret).ok());
    }
}

}  // namespace
}  // namespace yuzu::auth
