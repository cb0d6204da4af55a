#include "yuzu/auth/user_store.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <memory>
#include <span>
#include <thread>
#include <vector>

#include "yuzu/auth/auth_schema.hpp"
#include "yuzu/store/database.hpp"
#include "yuzu/store/migrations.hpp"

namespace yuzu::auth {
namespace {

constexpr int kTestLogN = 10;  // 1 MiB per hash: fast tests
constexpr const char* kAlicePassword = "alice's long password";

std::unique_ptr<store::Database> open_auth_db() {
    auto db = store::Database::open(":memory:");
    EXPECT_TRUE(db.ok()) << db.status().to_string();
    if (!db.ok()) return nullptr;
    Status migrated = store::apply_migrations(**db, "auth.db", auth_migrations());
    EXPECT_TRUE(migrated.ok()) << migrated.to_string();
    return std::move(*db);
}

// The refusal every failed login answers, whatever the reason.
void expect_refused(const Result<User>& r) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kUnauthenticated);
    EXPECT_EQ(r.status().message(), kLoginRefusedMessage);
}

std::string stored_hash(store::Database& db, const std::string& username) {
    auto conn = db.lock();
    auto stmt = conn.prepare("SELECT password_hash FROM users WHERE username = ?");
    if (!stmt.ok()) return "";
    auto row = stmt->bind(1, username).step();
    return row.ok() && *row ? stmt->column_text(0) : "";
}

class UserStoreTest : public ::testing::Test {
  protected:
    void SetUp() override {
        db_ = open_auth_db();
        ASSERT_NE(db_, nullptr);
        users_ = std::make_unique<UserStore>(*db_, clock_, UserStoreOptions{kTestLogN});
        ASSERT_TRUE(users_->create_user("alice", kAlicePassword, {"Operator"}).ok());
    }

    // Authenticates and returns the outcome, checking the status agrees.
    AuthOutcome attempt(const std::string& user, std::string_view password) {
        AuthOutcome outcome = AuthOutcome::kError;
        auto r = users_->authenticate(user, password, &outcome);
        EXPECT_EQ(r.ok(), outcome == AuthOutcome::kOk) << r.status().to_string();
        return outcome;
    }

    ManualClock clock_;
    std::unique_ptr<store::Database> db_;
    std::unique_ptr<UserStore> users_;
};

TEST_F(UserStoreTest, CreatedUserHasRolesAndTimes) {
    clock_.set_ms(1'800'000'000'000);
    ASSERT_TRUE(users_->create_user("bob", "bob's long password", {"Viewer", "Operator"}).ok());
    auto bob = users_->get_user("bob");
    ASSERT_TRUE(bob.ok()) << bob.status().to_string();
    EXPECT_EQ(bob->username, "bob");
    EXPECT_EQ(bob->created_at_ms, 1'800'000'000'000);
    EXPECT_FALSE(bob->locked);
    EXPECT_EQ(bob->failed_logins, 0);
    EXPECT_EQ(bob->global_roles, (std::vector<std::string>{"Operator", "Viewer"}));
    // Only a hash is stored, made with the configured cost.
    const std::string hash = stored_hash(*db_, "bob");
    EXPECT_EQ(hash.rfind("$scrypt$ln=10,r=8,p=1$", 0), 0u) << hash;
    EXPECT_EQ(hash.find("bob's long password"), std::string::npos);
}

TEST_F(UserStoreTest, UsernameRules) {
    for (const char* good : {"ab", "bob", "a.b-c_d", "x9", "operator-01",
                             "a123456789012345678901234567890123456789012345678901234567890123"}) {
        EXPECT_TRUE(validate_username(good).ok()) << good;
    }
    for (const char* bad : {"", "a", "Bob", "9lives", "-dash", ".dot", "has space", "caf\xc3\xa9",
                            "a1234567890123456789012345678901234567890123456789012345678901234",
                            "semi;colon", "UPPER"}) {
        Status s = validate_username(bad);
        EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << bad;
        Status created = users_->create_user(bad, "a long enough password", {});
        EXPECT_EQ(created.code(), StatusCode::kInvalidArgument) << bad;
    }
    EXPECT_NE(validate_username("A").message().find("lowercase letter"), std::string::npos);
}

TEST_F(UserStoreTest, PasswordRules) {
    EXPECT_EQ(validate_password(std::string(11, 'x')).code(), StatusCode::kInvalidArgument);
    EXPECT_TRUE(validate_password(std::string(12, 'x')).ok());
    EXPECT_TRUE(validate_password(std::string(1024, 'x')).ok());
    EXPECT_EQ(validate_password(std::string(1025, 'x')).code(), StatusCode::kInvalidArgument);
    // Characters, not bytes, count towards the minimum: 11 two-byte
    // characters are 22 bytes but still too short.
    std::string eleven_accents, twelve_accents;
    for (int i = 0; i < 11; ++i) eleven_accents += "\xc3\xa9";
    twelve_accents = eleven_accents + "\xc3\xa9";
    EXPECT_EQ(validate_password(eleven_accents).code(), StatusCode::kInvalidArgument);
    EXPECT_TRUE(validate_password(twelve_accents).ok());
    EXPECT_NE(validate_password("short").message().find("at least 12"), std::string::npos);

    Status s = users_->create_user("carol", "short", {});
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(users_->get_user("carol").status().code(), StatusCode::kNotFound);
}

TEST_F(UserStoreTest, UnknownRoleAndDuplicateAreRefused) {
    Status bad_role = users_->create_user("dave", "dave's long password", {"Superuser"});
    EXPECT_EQ(bad_role.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(bad_role.message().find("Superuser"), std::string::npos);
    EXPECT_EQ(users_->get_user("dave").status().code(), StatusCode::kNotFound);

    Status dup = users_->create_user("alice", "another long password", {});
    EXPECT_EQ(dup.code(), StatusCode::kAlreadyExists);
    // The original password still works.
    EXPECT_EQ(attempt("alice", kAlicePassword), AuthOutcome::kOk);
}

TEST_F(UserStoreTest, AuthenticateSucceedsWithRightPassword) {
    AuthOutcome outcome = AuthOutcome::kError;
    auto alice = users_->authenticate("alice", kAlicePassword, &outcome);
    ASSERT_TRUE(alice.ok()) << alice.status().to_string();
    EXPECT_EQ(outcome, AuthOutcome::kOk);
    EXPECT_EQ(alice->username, "alice");
    EXPECT_EQ(alice->global_roles, std::vector<std::string>{"Operator"});
    // No out-parameter needed.
    EXPECT_TRUE(users_->authenticate("alice", kAlicePassword).ok());
}

TEST_F(UserStoreTest, UnknownUserAndWrongPasswordLookTheSame) {
    auto wrong = users_->authenticate("alice", "not alice's password");
    auto unknown = users_->authenticate("mallory", "not alice's password");
    auto malformed = users_->authenticate("Not A Username", "not alice's password");
    ASSERT_FALSE(wrong.ok());
    ASSERT_FALSE(unknown.ok());
    ASSERT_FALSE(malformed.ok());
    EXPECT_EQ(wrong.status().code(), StatusCode::kUnauthenticated);
    EXPECT_EQ(wrong.status().code(), unknown.status().code());
    EXPECT_EQ(wrong.status().message(), unknown.status().message());
    EXPECT_EQ(wrong.status().message(), malformed.status().message());
    EXPECT_EQ(wrong.status().message().find("alice"), std::string::npos);
    EXPECT_EQ(wrong.status().message(), kLoginRefusedMessage);
    // Only the outcome, meant for the audit row, tells them apart.
    EXPECT_EQ(attempt("alice", "wrong again, alice"), AuthOutcome::kBadCredentials);
    EXPECT_EQ(attempt("mallory", "wrong again, alice"), AuthOutcome::kUnknownUser);
    EXPECT_EQ(attempt("Not A Username", "wrong again, alice"), AuthOutcome::kUnknownUser);
}

TEST_F(UserStoreTest, UnknownUserCostsAsMuchAsAWrongPassword) {
    // With a noticeable cost the difference between "hash verified" and "no
    // hash verified" is orders of magnitude; the bound leaves room for noise.
    UserStore slow(*db_, clock_, UserStoreOptions{13});
    ASSERT_TRUE(slow.create_user("slowpoke", "slowpoke's password", {}).ok());
    const auto time_one = [&](const std::string& user) {
        const auto start = std::chrono::steady_clock::now();
        (void)slow.authenticate(user, "a wrong password");
        return std::chrono::steady_clock::now() - start;
    };
    std::vector<std::chrono::nanoseconds> known, unknown;
    for (int i = 0; i < 3; ++i) {
        known.push_back(time_one("slowpoke"));
        unknown.push_back(time_one("nobody-here"));
    }
    std::sort(known.begin(), known.end());
    std::sort(unknown.begin(), unknown.end());
    EXPECT_GT(unknown[1] * 4, known[1]) << "unknown-user logins skip the hash";
}

TEST_F(UserStoreTest, LocksAfterExactlyFiveFailures) {
    clock_.set_ms(1'750'000'000'000);
    for (int i = 1; i < kMaxConsecutiveFailedLogins; ++i) {
        EXPECT_EQ(attempt("alice", "wrong password!"), AuthOutcome::kBadCredentials) << i;
        auto alice = users_->get_user("alice");
        ASSERT_TRUE(alice.ok());
        EXPECT_EQ(alice->failed_logins, i);
        EXPECT_FALSE(alice->locked);
    }
    AuthOutcome outcome = AuthOutcome::kError;
    auto fifth = users_->authenticate("alice", "wrong password!", &outcome);
    EXPECT_EQ(outcome, AuthOutcome::kJustLocked);
    expect_refused(fifth);

    auto alice = users_->get_user("alice");
    ASSERT_TRUE(alice.ok());
    EXPECT_TRUE(alice->locked);
    EXPECT_EQ(alice->failed_logins, kMaxConsecutiveFailedLogins);
    EXPECT_EQ(alice->locked_at_ms, 1'750'000'000'000);
    EXPECT_EQ(alice->locked_until_ms, 1'750'000'000'000 + kFirstLockoutMs);
}

TEST_F(UserStoreTest, LockedAccountRefusesTheRightPasswordWithTheSameAnswer) {
    auto wrong = users_->authenticate("alice", "wrong password!");
    for (int i = 1; i < kMaxConsecutiveFailedLogins; ++i) (void)attempt("alice", "wrong password!");
    AuthOutcome outcome = AuthOutcome::kError;
    auto r = users_->authenticate("alice", kAlicePassword, &outcome);
    EXPECT_EQ(outcome, AuthOutcome::kLocked);
    expect_refused(r);
    // Nothing in the answer says "locked": it is a wrong password's answer.
    EXPECT_EQ(r.status().code(), wrong.status().code());
    EXPECT_EQ(r.status().message(), wrong.status().message());
    // Further wrong attempts neither count nor change the lock.
    const int64_t locked_at = clock_.now_ms();
    clock_.advance_ms(30'000);
    EXPECT_EQ(attempt("alice", "wrong password!"), AuthOutcome::kLocked);
    auto alice = users_->get_user("alice");
    ASSERT_TRUE(alice.ok());
    EXPECT_EQ(alice->failed_logins, kMaxConsecutiveFailedLogins);
    EXPECT_EQ(alice->locked_at_ms, locked_at);
    EXPECT_EQ(alice->locked_until_ms, locked_at + kFirstLockoutMs);
}

TEST(LockoutDuration, DoublesFromOneMinuteToAnHour) {
    EXPECT_EQ(lockout_duration_ms(0), 0);
    EXPECT_EQ(lockout_duration_ms(kMaxConsecutiveFailedLogins - 1), 0);
    const int64_t minute = 60'000;
    EXPECT_EQ(lockout_duration_ms(5), 1 * minute);
    EXPECT_EQ(lockout_duration_ms(6), 2 * minute);
    EXPECT_EQ(lockout_duration_ms(7), 4 * minute);
    EXPECT_EQ(lockout_duration_ms(8), 8 * minute);
    EXPECT_EQ(lockout_duration_ms(9), 16 * minute);
    EXPECT_EQ(lockout_duration_ms(10), 32 * minute);
    EXPECT_EQ(lockout_duration_ms(11), 60 * minute);  // 64 minutes, capped
    EXPECT_EQ(lockout_duration_ms(1'000'000), kMaxLockoutMs);
    EXPECT_EQ(lockout_duration_ms(std::numeric_limits<int>::max()), kMaxLockoutMs);
}

TEST_F(UserStoreTest, ALockEndsByItselfAndEachRelockLastsTwiceAsLong) {
    for (int i = 0; i < kMaxConsecutiveFailedLogins; ++i) (void)attempt("alice", "wrong password!");
    // One millisecond before the end the right password is still refused...
    clock_.advance_ms(kFirstLockoutMs - 1);
    EXPECT_EQ(attempt("alice", kAlicePassword), AuthOutcome::kLocked);
    EXPECT_TRUE(users_->get_user("alice")->locked);
    // ...and at the end the lock is gone, though the count remains.
    clock_.advance_ms(1);
    auto alice = users_->get_user("alice");
    ASSERT_TRUE(alice.ok());
    EXPECT_FALSE(alice->locked);
    EXPECT_EQ(alice->failed_logins, kMaxConsecutiveFailedLogins);

    // Each failure after a lock has ended locks again, for twice as long.
    int64_t expected_ms = kFirstLockoutMs;
    for (int failures = kMaxConsecutiveFailedLogins + 1; failures <= 12; ++failures) {
        expected_ms = std::min(expected_ms * 2, kMaxLockoutMs);
        const int64_t now = clock_.now_ms();
        EXPECT_EQ(attempt("alice", "wrong password!"), AuthOutcome::kJustLocked) << failures;
        alice = users_->get_user("alice");
        ASSERT_TRUE(alice.ok());
        EXPECT_EQ(alice->failed_logins, failures);
        EXPECT_EQ(alice->locked_until_ms, now + expected_ms) << failures;
        clock_.advance_ms(expected_ms);
    }
    EXPECT_EQ(expected_ms, kMaxLockoutMs);
    // After the last lock ends the right password works and resets all.
    EXPECT_EQ(attempt("alice", kAlicePassword), AuthOutcome::kOk);
    alice = users_->get_user("alice");
    ASSERT_TRUE(alice.ok());
    EXPECT_EQ(alice->failed_logins, 0);
    EXPECT_EQ(alice->locked_until_ms, 0);
    EXPECT_EQ(alice->locked_at_ms, 0);
    // A fresh count: the next lock is a short one again.
    for (int i = 0; i < kMaxConsecutiveFailedLogins; ++i) (void)attempt("alice", "wrong password!");
    EXPECT_EQ(users_->get_user("alice")->locked_until_ms, clock_.now_ms() + kFirstLockoutMs);
}

TEST_F(UserStoreTest, UnlockClearsTheLock) {
    for (int i = 0; i < kMaxConsecutiveFailedLogins; ++i) (void)attempt("alice", "wrong password!");
    ASSERT_TRUE(users_->get_user("alice")->locked);
    ASSERT_TRUE(users_->unlock("alice").ok());
    auto alice = users_->get_user("alice");
    ASSERT_TRUE(alice.ok());
    EXPECT_FALSE(alice->locked);
    EXPECT_EQ(alice->failed_logins, 0);
    EXPECT_EQ(alice->locked_at_ms, 0);
    EXPECT_EQ(alice->locked_until_ms, 0);
    EXPECT_EQ(attempt("alice", kAlicePassword), AuthOutcome::kOk);
    // A fresh count: four more failures do not lock.
    for (int i = 1; i < kMaxConsecutiveFailedLogins; ++i) (void)attempt("alice", "wrong password!");
    EXPECT_FALSE(users_->get_user("alice")->locked);

    EXPECT_EQ(users_->unlock("nobody").code(), StatusCode::kNotFound);
}

TEST_F(UserStoreTest, UnknownNamesLockAfterFiveFailuresLikeRealOnes) {
    auto wrong = users_->authenticate("alice", "wrong password!");
    for (int i = 1; i < kMaxConsecutiveFailedLogins; ++i) {
        EXPECT_EQ(attempt("mallory", "a guess at it"), AuthOutcome::kUnknownUser) << i;
    }
    AuthOutcome outcome = AuthOutcome::kError;
    auto fifth = users_->authenticate("mallory", "a guess at it", &outcome);
    EXPECT_EQ(outcome, AuthOutcome::kJustLocked);
    expect_refused(fifth);
    EXPECT_EQ(fifth.status().message(), wrong.status().message());
    // Locked: attempts do not count, until the lock ends by itself.
    clock_.advance_ms(kFirstLockoutMs - 1);
    EXPECT_EQ(attempt("mallory", "a guess at it"), AuthOutcome::kLocked);
    clock_.advance_ms(1);
    EXPECT_EQ(attempt("mallory", "a guess at it"), AuthOutcome::kJustLocked);  // the 6th: 2 min
    clock_.advance_ms(2 * kFirstLockoutMs - 1);
    EXPECT_EQ(attempt("mallory", "a guess at it"), AuthOutcome::kLocked);
    clock_.advance_ms(1);
    EXPECT_EQ(attempt("mallory", "a guess at it"), AuthOutcome::kJustLocked);
    // Other names, real or not, are not affected.
    EXPECT_EQ(attempt("trudy", "a guess at it"), AuthOutcome::kUnknownUser);
    EXPECT_EQ(attempt("alice", kAlicePassword), AuthOutcome::kOk);
}

TEST(UserStoreUnknownNames, TheCountIsKeptForABoundedNumberOfNames) {
    auto db = open_auth_db();
    ASSERT_NE(db, nullptr);
    ManualClock clock;
    UserStoreOptions options{kTestLogN};
    options.max_tracked_unknown_users = 3;
    UserStore users(*db, clock, options);
    const auto attempt = [&](const std::string& name) {
        AuthOutcome outcome = AuthOutcome::kError;
        (void)users.authenticate(name, "a guess at it", &outcome);
        return outcome;
    };
    for (int i = 0; i < kMaxConsecutiveFailedLogins; ++i) (void)attempt("eve");
    ASSERT_EQ(attempt("eve"), AuthOutcome::kLocked);
    // Two more names fit beside eve; trying eve again keeps it the most recent.
    EXPECT_EQ(attempt("mallory"), AuthOutcome::kUnknownUser);
    EXPECT_EQ(attempt("eve"), AuthOutcome::kLocked);
    EXPECT_EQ(attempt("trudy"), AuthOutcome::kUnknownUser);
    // A fourth name pushes out the least recently tried (mallory), not eve.
    EXPECT_EQ(attempt("oscar"), AuthOutcome::kUnknownUser);
    EXPECT_EQ(attempt("eve"), AuthOutcome::kLocked);
    // Three more new names push out trudy, oscar and then eve: forgotten, it
    // counts from one again.
    for (const char* name : {"peggy", "victor", "walter"}) (void)attempt(name);
    for (int i = 1; i < kMaxConsecutiveFailedLogins; ++i) {
        EXPECT_EQ(attempt("eve"), AuthOutcome::kUnknownUser) << i;
    }
    EXPECT_EQ(attempt("eve"), AuthOutcome::kJustLocked);
}

TEST_F(UserStoreTest, ALockedAccountCostsAsMuchAsAWrongPassword) {
    // As UnknownUserCostsAsMuchAsAWrongPassword: a locked account that
    // answered without hashing would tell that the name exists.
    UserStore slow(*db_, clock_, UserStoreOptions{13});
    ASSERT_TRUE(slow.create_user("slowpoke", "slowpoke's password", {}).ok());
    ASSERT_TRUE(slow.create_user("lockedout", "lockedout's password", {}).ok());
    for (int i = 0; i < kMaxConsecutiveFailedLogins; ++i) {
        (void)slow.authenticate("lockedout", "a wrong password");
    }
    ASSERT_TRUE(slow.get_user("lockedout")->locked);
    const auto time_one = [&](const std::string& user) {
        const auto start = std::chrono::steady_clock::now();
        (void)slow.authenticate(user, "a wrong password");
        return std::chrono::steady_clock::now() - start;
    };
    std::vector<std::chrono::nanoseconds> unlocked, locked;
    for (int i = 0; i < 3; ++i) {
        unlocked.push_back(time_one("slowpoke"));
        locked.push_back(time_one("lockedout"));
        ASSERT_TRUE(slow.unlock("slowpoke").ok());  // keep slowpoke's count below the limit
    }
    std::sort(unlocked.begin(), unlocked.end());
    std::sort(locked.begin(), locked.end());
    EXPECT_GT(locked[1] * 4, unlocked[1]) << "locked accounts skip the hash";
}

TEST_F(UserStoreTest, SuccessResetsTheFailureCount) {
    for (int i = 1; i < kMaxConsecutiveFailedLogins; ++i) (void)attempt("alice", "wrong password!");
    EXPECT_EQ(attempt("alice", kAlicePassword), AuthOutcome::kOk);
    EXPECT_EQ(users_->get_user("alice")->failed_logins, 0);
    for (int i = 1; i < kMaxConsecutiveFailedLogins; ++i) {
        EXPECT_EQ(attempt("alice", "wrong password!"), AuthOutcome::kBadCredentials);
    }
    EXPECT_FALSE(users_->get_user("alice")->locked);
}

TEST_F(UserStoreTest, ConcurrentFailuresAreAllCounted) {
    std::atomic<int> just_locked{0};
    std::atomic<int> other{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < kMaxConsecutiveFailedLogins; ++i) {
        threads.emplace_back([&] {
            AuthOutcome outcome = AuthOutcome::kError;
            (void)users_->authenticate("alice", "wrong password!", &outcome);
            if (outcome == AuthOutcome::kJustLocked) {
                ++just_locked;
            } else if (outcome != AuthOutcome::kBadCredentials) {
                ++other;
            }
        });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(just_locked.load(), 1);
    EXPECT_EQ(other.load(), 0);
    auto alice = users_->get_user("alice");
    ASSERT_TRUE(alice.ok());
    EXPECT_TRUE(alice->locked);
    EXPECT_EQ(alice->failed_logins, kMaxConsecutiveFailedLogins);
}

TEST_F(UserStoreTest, SetPasswordReplacesTheOldOne) {
    ASSERT_TRUE(users_->set_password("alice", "a brand new password").ok());
    EXPECT_EQ(attempt("alice", kAlicePassword), AuthOutcome::kBadCredentials);
    EXPECT_EQ(attempt("alice", "a brand new password"), AuthOutcome::kOk);
    EXPECT_EQ(users_->set_password("alice", "too short").code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(users_->set_password("nobody", "a brand new password").code(), StatusCode::kNotFound);
}

TEST_F(UserStoreTest, RehashesOnLoginWhenTheCostChanged) {
    const std::string before = stored_hash(*db_, "alice");
    ASSERT_EQ(before.rfind("$scrypt$ln=10,", 0), 0u);
    // Same cost: the hash is left alone.
    EXPECT_EQ(attempt("alice", kAlicePassword), AuthOutcome::kOk);
    EXPECT_EQ(stored_hash(*db_, "alice"), before);
    // A store configured with a higher cost upgrades the row on success only.
    UserStore stronger(*db_, clock_, UserStoreOptions{11});
    EXPECT_FALSE(stronger.authenticate("alice", "wrong password!").ok());
    EXPECT_EQ(stored_hash(*db_, "alice"), before);
    EXPECT_TRUE(stronger.authenticate("alice", kAlicePassword).ok());
    const std::string after = stored_hash(*db_, "alice");
    EXPECT_EQ(after.rfind("$scrypt$ln=11,", 0), 0u) << after;
    EXPECT_TRUE(verify_password(kAlicePassword, after));
}

TEST_F(UserStoreTest, ListUsersIsSortedAndHasRoles) {
    ASSERT_TRUE(users_->create_user("zed", "zed's long password", {}).ok());
    ASSERT_TRUE(users_->create_user("bob", "bob's long password", {"Viewer"}).ok());
    auto all = users_->list_users();
    ASSERT_TRUE(all.ok()) << all.status().to_string();
    ASSERT_EQ(all->size(), 3u);
    EXPECT_EQ((*all)[0].username, "alice");
    EXPECT_EQ((*all)[1].username, "bob");
    EXPECT_EQ((*all)[2].username, "zed");
    EXPECT_EQ((*all)[0].global_roles, std::vector<std::string>{"Operator"});
    EXPECT_EQ((*all)[1].global_roles, std::vector<std::string>{"Viewer"});
    EXPECT_TRUE((*all)[2].global_roles.empty());
}

TEST_F(UserStoreTest, UserExistsTracksTheAccountNotItsLock) {
    auto alice = users_->user_exists("alice");
    ASSERT_TRUE(alice.ok()) << alice.status().to_string();
    EXPECT_TRUE(*alice);
    EXPECT_FALSE(*users_->user_exists("nobody"));
    EXPECT_FALSE(*users_->user_exists("Alice"));  // names are exact, not case-folded

    // A locked account still exists: the lock throttles passwords only.
    for (int i = 0; i < 10; ++i) attempt("alice", "a wrong password, long enough");
    ASSERT_TRUE(users_->get_user("alice")->locked);
    EXPECT_TRUE(*users_->user_exists("alice"));

    {
        auto conn = db_->lock();
        ASSERT_TRUE(conn.exec("DELETE FROM user_roles WHERE username = 'alice'").ok());
        ASSERT_TRUE(conn.exec("DELETE FROM users WHERE username = 'alice'").ok());
    }
    // A yes is remembered for kUserExistsCacheMs, then read again.
    EXPECT_TRUE(*users_->user_exists("alice"));
    clock_.advance_ms(kUserExistsCacheMs - 1);
    EXPECT_TRUE(*users_->user_exists("alice"));
    clock_.advance_ms(1);
    EXPECT_FALSE(*users_->user_exists("alice"));
}

TEST_F(UserStoreTest, UserExistsRemembersOnlyYes) {
    EXPECT_FALSE(*users_->user_exists("bob"));
    ASSERT_TRUE(users_->create_user("bob", "bob's long password", {}).ok());
    EXPECT_TRUE(*users_->user_exists("bob"));
}

TEST(UserStoreEmpty, HasUsersReflectsTheTable) {
    auto db = open_auth_db();
    ASSERT_NE(db, nullptr);
    ManualClock clock;
    UserStore users(*db, clock, UserStoreOptions{kTestLogN});
    auto before = users.has_users();
    ASSERT_TRUE(before.ok());
    EXPECT_FALSE(*before);
    ASSERT_TRUE(users.create_user("first", "the first password", {}).ok());
    EXPECT_TRUE(*users.has_users());
}

TEST(UserStoreMigration, ALockFromBeforeExpiryEndsAMinuteAfterItBegan) {
    // auth.db as version 2 left it: a lock had no end.
    auto opened = store::Database::open(":memory:");
    ASSERT_TRUE(opened.ok());
    auto db = std::move(*opened);
    ASSERT_TRUE(store::apply_migrations(*db, "auth.db", auth_migrations().first(2)).ok());
    const int64_t locked_at = 1'700'000'000'000;
    {
        auto conn = db->lock();
        const std::string rows =
            "INSERT INTO users(username, password_hash, created_at_ms, password_changed_at_ms,"
            " failed_logins, locked, locked_at_ms) VALUES('admin', 'x', 1, 1, 5, 1, " +
            std::to_string(locked_at) + "), ('bob', 'x', 1, 1, 2, 0, 0)";
        ASSERT_TRUE(conn.exec(rows).ok());
    }
    ASSERT_TRUE(store::apply_migrations(*db, "auth.db", auth_migrations()).ok());
    ManualClock clock(locked_at + kFirstLockoutMs - 1);
    UserStore users(*db, clock, UserStoreOptions{kTestLogN});
    auto admin = users.get_user("admin");
    ASSERT_TRUE(admin.ok()) << admin.status().to_string();
    EXPECT_TRUE(admin->locked);
    EXPECT_EQ(admin->locked_until_ms, locked_at + kFirstLockoutMs);
    EXPECT_EQ(admin->failed_logins, 5);
    clock.advance_ms(1);
    EXPECT_FALSE(users.get_user("admin")->locked);
    auto bob = users.get_user("bob");
    ASSERT_TRUE(bob.ok());
    EXPECT_FALSE(bob->locked);
    EXPECT_EQ(bob->locked_until_ms, 0);
    EXPECT_EQ(bob->failed_logins, 2);
}

TEST(AuthOutcomeName, SpellingsForAuditRows) {
    EXPECT_EQ(auth_outcome_name(AuthOutcome::kOk), "ok");
    EXPECT_EQ(auth_outcome_name(AuthOutcome::kBadCredentials), "bad_credentials");
    EXPECT_EQ(auth_outcome_name(AuthOutcome::kUnknownUser), "unknown_user");
    EXPECT_EQ(auth_outcome_name(AuthOutcome::kLocked), "locked");
    EXPECT_EQ(auth_outcome_name(AuthOutcome::kJustLocked), "just_locked");
    EXPECT_EQ(auth_outcome_name(AuthOutcome::kError), "error");
}

}  // namespace
}  // namespace yuzu::auth
