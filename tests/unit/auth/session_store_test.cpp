#include "yuzu/auth/session_store.hpp"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <fstream>
#include <iterator>
#include <memory>
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

constexpr int64_t kMinute = 60'000;
constexpr int64_t kHour = 60 * kMinute;

std::string file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class SessionStoreTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auto db = store::Database::open(db_path_);
        ASSERT_TRUE(db.ok()) << db.status().to_string();
        db_ = std::move(db).value();
        const std::array<store::Migration, 2> migrations{kIdentityStub, kCredentialSchemaMigration};
        Status migrated = store::apply_migrations(*db_, "auth.db", migrations, clock_);
        ASSERT_TRUE(migrated.ok()) << migrated.to_string();
        store_ = std::make_unique<SessionStore>(*db_, clock_);
    }

    NewSession login(const std::string& username = "alice") {
        auto s = store_->create(username, "192.0.2.7", "Mozilla/5.0 (test)");
        EXPECT_TRUE(s.ok()) << s.status().to_string();
        return s.ok() ? std::move(s).value() : NewSession{};
    }

    int64_t session_rows() {
        auto conn = db_->lock();
        auto stmt = conn.prepare("SELECT COUNT(*) FROM web_sessions");
        EXPECT_TRUE(stmt.ok());
        auto row = stmt->step();
        EXPECT_TRUE(row.ok() && *row);
        return stmt->column_int64(0);
    }

    void expect_unauthenticated(std::string_view cookie, std::string_view why) {
        auto r = store_->lookup(cookie);
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.status().code(), StatusCode::kUnauthenticated);
        EXPECT_EQ(r.status().message(), why);
    }

    TempDir dir_;
    const std::string db_path_ = (dir_ / "auth.db").string();
    ManualClock clock_;
    std::unique_ptr<store::Database> db_;
    std::unique_ptr<SessionStore> store_;
};

TEST_F(SessionStoreTest, CreateReturnsRandomSecretsAndADerivedId) {
    const NewSession s = login();
    for (const std::string& value : {s.cookie_secret, s.csrf_token}) {
        EXPECT_EQ(value.size(), 43u);
        auto decoded = base64url_decode(value);
        ASSERT_TRUE(decoded.ok()) << value;
        EXPECT_EQ(decoded->size(), kSessionSecretBytes);
    }
    EXPECT_NE(s.cookie_secret, s.csrf_token);
    EXPECT_EQ(s.session_id, sha256_hex(s.cookie_secret).substr(0, 16));

    const NewSession other = login();
    EXPECT_NE(other.cookie_secret, s.cookie_secret);
    EXPECT_NE(other.csrf_token, s.csrf_token);
    EXPECT_NE(other.session_id, s.session_id);
}

TEST_F(SessionStoreTest, LookupReturnsTheSession) {
    const int64_t t0 = clock_.now_ms();
    const NewSession s = login("alice");
    auto found = store_->lookup(s.cookie_secret);
    ASSERT_TRUE(found.ok()) << found.status().to_string();
    EXPECT_EQ(found->session_id, s.session_id);
    EXPECT_EQ(found->username, "alice");
    EXPECT_EQ(found->csrf_token, s.csrf_token);
    EXPECT_EQ(found->source_ip, "192.0.2.7");
    EXPECT_EQ(found->user_agent, "Mozilla/5.0 (test)");
    EXPECT_EQ(found->created_at_ms, t0);
    EXPECT_EQ(found->last_seen_at_ms, t0);
    EXPECT_EQ(found->mfa_verified_at_ms, 0);
}

TEST_F(SessionStoreTest, CreateRejectsAnEmptyUsernameAndTruncatesLongUserAgents) {
    EXPECT_EQ(store_->create("", "ip", "ua").status().code(), StatusCode::kInvalidArgument);
    auto s = store_->create("alice", "ip", std::string(2000, 'u'));
    ASSERT_TRUE(s.ok());
    auto found = store_->lookup(s->cookie_secret);
    ASSERT_TRUE(found.ok());
    EXPECT_EQ(found->user_agent, std::string(512, 'u'));
}

TEST_F(SessionStoreTest, CookieSecretIsNeverWrittenToTheDatabaseFile) {
    std::vector<NewSession> sessions;
    for (int i = 0; i < 4; ++i) sessions.push_back(login("marker-user-" + std::to_string(i)));
    ASSERT_TRUE(store_->lookup(sessions[1].cookie_secret).ok());

    const std::string bytes = file_bytes(db_path_) + file_bytes(db_path_ + "-wal");
    EXPECT_NE(bytes.find("marker-user-2"), std::string::npos) << "the scan sees stored rows";
    EXPECT_NE(bytes.find(sha256_hex(sessions[3].cookie_secret)), std::string::npos);
    for (const auto& s : sessions) {
        EXPECT_EQ(bytes.find(s.cookie_secret), std::string::npos);
        // Nor its raw bytes.
        auto raw = base64url_decode(s.cookie_secret);
        ASSERT_TRUE(raw.ok());
        EXPECT_EQ(bytes.find(*raw), std::string::npos);
    }
}

TEST_F(SessionStoreTest, UnknownAndMalformedCookiesAreUnauthenticated) {
    login();
    const NewSession never_stored{std::string(43, 'A'), "", ""};
    expect_unauthenticated(never_stored.cookie_secret, "unknown session");
    expect_unauthenticated("", "malformed session cookie");
    expect_unauthenticated(std::string(44, 'A'), "malformed session cookie");
    expect_unauthenticated(std::string(42, 'A') + "=", "malformed session cookie");
    expect_unauthenticated(std::string(100000, 'A'), "malformed session cookie");
}

TEST_F(SessionStoreTest, AbsoluteLifetimeEndsAnActiveSession) {
    const NewSession s = login();
    // Busy all day: a lookup every 20 minutes keeps the idle timer at bay.
    for (int i = 0; i < 23; ++i) {
        clock_.advance_ms(20 * kMinute);
        ASSERT_TRUE(store_->lookup(s.cookie_secret).ok()) << "after " << (i + 1) * 20 << " min";
    }
    clock_.advance_ms(20 * kMinute);  // 8 h since login
    expect_unauthenticated(s.cookie_secret, "session expired");
    EXPECT_EQ(session_rows(), 0);
    expect_unauthenticated(s.cookie_secret, "unknown session");
}

TEST_F(SessionStoreTest, IdleTimeoutEndsAQuietSession) {
    const NewSession s = login();
    const NewSession other = login("bob");
    clock_.advance_ms(30 * kMinute - 1);
    ASSERT_TRUE(store_->lookup(s.cookie_secret).ok());
    clock_.advance_ms(30 * kMinute - 1);
    ASSERT_TRUE(store_->lookup(s.cookie_secret).ok()) << "the last lookup reset the idle timer";
    clock_.advance_ms(30 * kMinute);
    expect_unauthenticated(s.cookie_secret, "session idle timeout");
    expect_unauthenticated(other.cookie_secret, "session idle timeout");
    EXPECT_EQ(session_rows(), 0);
}

TEST_F(SessionStoreTest, LastSeenIsWrittenAtMostOnceAMinute) {
    const int64_t t0 = clock_.now_ms();
    const NewSession s = login();
    clock_.advance_ms(59'999);
    EXPECT_EQ(store_->lookup(s.cookie_secret)->last_seen_at_ms, t0);
    clock_.advance_ms(1);
    EXPECT_EQ(store_->lookup(s.cookie_secret)->last_seen_at_ms, t0 + kMinute);
    clock_.advance_ms(30'000);
    EXPECT_EQ(store_->lookup(s.cookie_secret)->last_seen_at_ms, t0 + kMinute);
}

TEST_F(SessionStoreTest, DestroyEndsOnlyThatSession) {
    const NewSession a = login();
    const NewSession b = login();
    ASSERT_TRUE(store_->destroy(a.cookie_secret).ok());
    expect_unauthenticated(a.cookie_secret, "unknown session");
    EXPECT_TRUE(store_->lookup(b.cookie_secret).ok());
    EXPECT_TRUE(store_->destroy(a.cookie_secret).ok()) << "logout twice is fine";
    EXPECT_TRUE(store_->destroy("garbage").ok());
}

TEST_F(SessionStoreTest, DestroyAllForUserLeavesOtherUsersAlone) {
    const NewSession a1 = login("alice");
    const NewSession a2 = login("alice");
    const NewSession b = login("bob");
    auto ended = store_->destroy_all_for_user("alice");
    ASSERT_TRUE(ended.ok());
    EXPECT_EQ(*ended, 2);
    expect_unauthenticated(a1.cookie_secret, "unknown session");
    expect_unauthenticated(a2.cookie_secret, "unknown session");
    EXPECT_TRUE(store_->lookup(b.cookie_secret).ok());
    EXPECT_EQ(*store_->destroy_all_for_user("alice"), 0);
}

TEST_F(SessionStoreTest, MfaProofIsRecordedOnTheSession) {
    const NewSession s = login();
    const int64_t proof_at = clock_.now_ms() + 1234;
    ASSERT_TRUE(store_->record_mfa_proof(s.session_id, proof_at).ok());
    auto found = store_->lookup(s.cookie_secret);
    ASSERT_TRUE(found.ok());
    EXPECT_EQ(found->mfa_verified_at_ms, proof_at);
    EXPECT_EQ(store_->record_mfa_proof("0123456789abcdef", proof_at).code(), StatusCode::kNotFound);
}

TEST_F(SessionStoreTest, CsrfCheckNeedsTheExactToken) {
    const NewSession s = login();
    auto session = store_->lookup(s.cookie_secret);
    ASSERT_TRUE(session.ok());
    EXPECT_TRUE(SessionStore::check_csrf(*session, s.csrf_token));
    EXPECT_FALSE(SessionStore::check_csrf(*session, ""));
    EXPECT_FALSE(SessionStore::check_csrf(*session, s.csrf_token.substr(0, 42)));
    EXPECT_FALSE(SessionStore::check_csrf(*session, s.csrf_token + "x"));
    EXPECT_FALSE(SessionStore::check_csrf(*session, s.cookie_secret));
    std::string flipped = s.csrf_token;
    flipped.back() = flipped.back() == 'A' ? 'B' : 'A';
    EXPECT_FALSE(SessionStore::check_csrf(*session, flipped));

    Session without_token = *session;
    without_token.csrf_token.clear();
    EXPECT_FALSE(SessionStore::check_csrf(without_token, ""));
}

TEST_F(SessionStoreTest, PruneExpiredRemovesOldAndIdleSessions) {
    const NewSession old_busy = login("old");
    clock_.advance_ms(7 * kHour + 40 * kMinute);
    const NewSession idle = login("idle");
    const NewSession live = login("live");
    // old_busy stays active the whole time (the store cannot see that
    // without lookups, so touch it directly).
    {
        auto conn = db_->lock();
        auto stmt =
            conn.prepare("UPDATE web_sessions SET last_seen_at_ms = ?1 WHERE username = 'old'");
        ASSERT_TRUE(stmt.ok());
        ASSERT_TRUE(stmt->bind(1, clock_.now_ms()).run().ok());
    }
    clock_.advance_ms(20 * kMinute);  // old_busy reaches 8 h
    ASSERT_TRUE(store_->lookup(live.cookie_secret).ok());
    clock_.advance_ms(10 * kMinute);  // idle reaches 30 min without a lookup

    auto pruned = store_->prune_expired();
    ASSERT_TRUE(pruned.ok()) << pruned.status().to_string();
    EXPECT_EQ(*pruned, 2);
    EXPECT_EQ(session_rows(), 1);
    EXPECT_TRUE(store_->lookup(live.cookie_secret).ok());
    EXPECT_EQ(*store_->prune_expired(), 0);
}

TEST_F(SessionStoreTest, ConcurrentLoginsAndLookups) {
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 25; ++i) {
                auto s = store_->create("user" + std::to_string(t), "ip", "ua");
                if (!s.ok() || !store_->lookup(s->cookie_secret).ok() ||
                    !store_->destroy(s->cookie_secret).ok()) {
                    failures.fetch_add(1);
                }
            }
        });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(session_rows(), 0);
}

}  // namespace
}  // namespace yuzu::auth
