#include "yuzu/auth/mfa_service.hpp"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "support/temp_dir.hpp"
#include "yuzu/auth/auth_schema.hpp"
#include "yuzu/auth/secret_box.hpp"
#include "yuzu/auth/totp.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/store/database.hpp"
#include "yuzu/store/migrations.hpp"

namespace yuzu::auth {
namespace {

using yuzu::testing::TempDir;

// Stands in for the identity migration (version 1) so these tests need only
// the credential schema.
constexpr store::Migration kIdentityStub{1, "identity_stub", "CREATE TABLE identity_stub(x);"};

constexpr int64_t kStepMs = kTotpStepSeconds * 1000;

std::string file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

SecretBox test_box() {
    std::array<uint8_t, kSecretBoxKeyBytes> key{};
    for (size_t i = 0; i < key.size(); ++i) key[i] = static_cast<uint8_t>(0x5a ^ (i * 13));
    auto box = SecretBox::from_key(key);
    EXPECT_TRUE(box.ok());
    return std::move(box).value();
}

std::vector<uint8_t> decode(const std::string& secret_base32) {
    auto key = base32_decode(secret_base32);
    EXPECT_TRUE(key.ok()) << secret_base32;
    return key.ok() ? *key : std::vector<uint8_t>{};
}

class MfaServiceTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auto db = store::Database::open(db_path_);
        ASSERT_TRUE(db.ok()) << db.status().to_string();
        db_ = std::move(db).value();
        const std::array<store::Migration, 2> migrations{kIdentityStub, kCredentialSchemaMigration};
        Status migrated = store::apply_migrations(*db_, "auth.db", migrations, clock_);
        ASSERT_TRUE(migrated.ok()) << migrated.to_string();
        mfa_ = std::make_unique<MfaService>(*db_, box_, clock_);
    }

    // The code an authenticator app shows offset_steps steps from now.
    std::string code(const std::string& secret, int64_t offset_steps = 0) const {
        return totp_at(decode(secret), clock_.now_s() + offset_steps * kTotpStepSeconds);
    }

    // Six digits that match none of the steps now-2 .. now+2.
    std::string wrong_code(const std::string& secret) const {
        for (int candidate = 0;; ++candidate) {
            char buf[16];
            std::snprintf(buf, sizeof buf, "%06d", candidate);
            bool matches = false;
            for (int off = -2; off <= 2; ++off) matches = matches || code(secret, off) == buf;
            if (!matches) return buf;
        }
    }

    // Enrolled and activated; the clock is then moved to the next step so a
    // fresh code is available.
    std::string enroll_active(const std::string& user = "alice") {
        auto e = mfa_->enroll(user);
        EXPECT_TRUE(e.ok()) << e.status().to_string();
        if (!e.ok()) return {};
        Status activated = mfa_->activate(user, code(e->secret_base32));
        EXPECT_TRUE(activated.ok()) << activated.to_string();
        clock_.advance_ms(kStepMs);
        return e->secret_base32;
    }

    void expect_code(const Status& s, StatusCode code, std::string_view message = {}) {
        EXPECT_EQ(s.code(), code) << s.to_string();
        if (!message.empty()) {
            EXPECT_EQ(s.message(), message);
        }
    }

    TempDir dir_;
    const std::string db_path_ = (dir_ / "auth.db").string();
    ManualClock clock_;
    SecretBox box_ = test_box();
    std::unique_ptr<store::Database> db_;
    std::unique_ptr<MfaService> mfa_;
};

TEST_F(MfaServiceTest, EnrollReturnsASecretAndItsOtpauthUri) {
    auto e = mfa_->enroll("alice");
    ASSERT_TRUE(e.ok()) << e.status().to_string();
    EXPECT_EQ(e->secret_base32.size(), 32u);
    EXPECT_EQ(decode(e->secret_base32).size(), kTotpSecretBytes);
    EXPECT_EQ(e->otpauth_uri, otpauth_uri("Yuzu", "alice", e->secret_base32));
    EXPECT_EQ(e->otpauth_uri.rfind("otpauth://totp/Yuzu:alice?secret=" + e->secret_base32, 0), 0u);
    EXPECT_FALSE(mfa_->is_active("alice")) << "pending until activated";

    auto custom = mfa_->enroll("bob", "Acme Yuzu");
    ASSERT_TRUE(custom.ok());
    EXPECT_EQ(custom->otpauth_uri, otpauth_uri("Acme Yuzu", "bob", custom->secret_base32));
    EXPECT_EQ(mfa_->enroll("", "Yuzu").status().code(), StatusCode::kInvalidArgument);
}

TEST_F(MfaServiceTest, ActivateWithAValidCodeTurnsTheFactorOn) {
    auto e = mfa_->enroll("alice");
    ASSERT_TRUE(e.ok());
    expect_code(mfa_->activate("alice", wrong_code(e->secret_base32)),
                StatusCode::kPermissionDenied);
    EXPECT_FALSE(mfa_->is_active("alice"));
    ASSERT_TRUE(mfa_->activate("alice", code(e->secret_base32)).ok());
    EXPECT_TRUE(mfa_->is_active("alice"));
    EXPECT_FALSE(mfa_->is_active("bob"));
    expect_code(mfa_->activate("alice", code(e->secret_base32, 1)),
                StatusCode::kFailedPrecondition);
}

TEST_F(MfaServiceTest, ActivateWithoutEnrollmentIsAFailedPrecondition) {
    expect_code(mfa_->activate("alice", "123456"), StatusCode::kFailedPrecondition);
}

TEST_F(MfaServiceTest, EnrollWhileActiveIsAFailedPrecondition) {
    enroll_active();
    auto again = mfa_->enroll("alice");
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(again.status().message().rfind("TOTP is already active; ", 0), 0u)
        << again.status().message();
    EXPECT_TRUE(mfa_->is_active("alice"));
}

TEST_F(MfaServiceTest, EnrollingAgainWhilePendingReplacesTheSecret) {
    auto first = mfa_->enroll("alice");
    auto second = mfa_->enroll("alice");
    ASSERT_TRUE(first.ok() && second.ok());
    ASSERT_NE(first->secret_base32, second->secret_base32);
    if (code(first->secret_base32) != code(second->secret_base32)) {
        expect_code(mfa_->activate("alice", code(first->secret_base32)),
                    StatusCode::kPermissionDenied);
    }
    EXPECT_TRUE(mfa_->activate("alice", code(second->secret_base32)).ok());
}

TEST_F(MfaServiceTest, VerifyAcceptsAFreshCode) {
    const std::string secret = enroll_active();
    EXPECT_TRUE(mfa_->verify("alice", code(secret)).ok());
    clock_.advance_ms(kStepMs);
    EXPECT_TRUE(mfa_->verify("alice", code(secret)).ok());
}

TEST_F(MfaServiceTest, VerifyRejectsTheSameCodeTwice) {
    const std::string secret = enroll_active();
    const std::string c = code(secret);
    ASSERT_TRUE(mfa_->verify("alice", c).ok());
    expect_code(mfa_->verify("alice", c), StatusCode::kPermissionDenied,
                "invalid or reused TOTP code");
    clock_.advance_ms(10'000);  // still inside the ±1 step window
    expect_code(mfa_->verify("alice", c), StatusCode::kPermissionDenied,
                "invalid or reused TOTP code");
}

TEST_F(MfaServiceTest, TheActivationCodeCannotBeReplayedAsAProof) {
    auto e = mfa_->enroll("alice");
    ASSERT_TRUE(e.ok());
    const std::string c = code(e->secret_base32);
    ASSERT_TRUE(mfa_->activate("alice", c).ok());
    expect_code(mfa_->verify("alice", c), StatusCode::kPermissionDenied,
                "invalid or reused TOTP code");
}

TEST_F(MfaServiceTest, VerifyToleratesOneStepOfSkewButNotTwo) {
    const std::string secret = enroll_active();
    clock_.advance_ms(5 * kStepMs);  // leave room behind the last used step
    expect_code(mfa_->verify("alice", code(secret, -2)), StatusCode::kPermissionDenied);
    expect_code(mfa_->verify("alice", code(secret, 2)), StatusCode::kPermissionDenied);
    EXPECT_TRUE(mfa_->verify("alice", code(secret, -1)).ok());
    EXPECT_TRUE(mfa_->verify("alice", code(secret, 1)).ok());
    // Having used now+1, the current step's code is no longer acceptable.
    expect_code(mfa_->verify("alice", code(secret, 0)), StatusCode::kPermissionDenied);
}

TEST_F(MfaServiceTest, VerifyWithoutAnActiveFactorIsNotEnrolled) {
    expect_code(mfa_->verify("alice", "123456"), StatusCode::kFailedPrecondition,
                "mfa_not_enrolled");
    auto e = mfa_->enroll("alice");
    ASSERT_TRUE(e.ok());
    expect_code(mfa_->verify("alice", code(e->secret_base32)), StatusCode::kFailedPrecondition,
                "mfa_not_enrolled");
}

TEST_F(MfaServiceTest, FiveFailuresInFiveMinutesLockVerificationUntilTheWindowPasses) {
    const std::string secret = enroll_active();
    for (int i = 0; i < 5; ++i) {
        expect_code(mfa_->verify("alice", wrong_code(secret)), StatusCode::kPermissionDenied);
        clock_.advance_ms(10'000);
    }
    // Locked: even the right code is refused, and is not consumed.
    const Status locked = mfa_->verify("alice", code(secret));
    expect_code(locked, StatusCode::kResourceExhausted);
    EXPECT_NE(locked.message().find("try again in 250 s"), std::string::npos) << locked.message();

    clock_.advance_ms(5 * 60'000 - 50'000 - 1);  // the first failure is not yet 5 min old
    expect_code(mfa_->verify("alice", code(secret)), StatusCode::kResourceExhausted);
    clock_.advance_ms(1);
    EXPECT_TRUE(mfa_->verify("alice", code(secret)).ok());
}

TEST_F(MfaServiceTest, FailuresOutsideTheWindowDoNotCount) {
    const std::string secret = enroll_active();
    for (int i = 0; i < 4; ++i) {
        expect_code(mfa_->verify("alice", wrong_code(secret)), StatusCode::kPermissionDenied);
    }
    clock_.advance_ms(5 * 60'000);
    for (int i = 0; i < 4; ++i) {
        expect_code(mfa_->verify("alice", wrong_code(secret)), StatusCode::kPermissionDenied);
    }
    EXPECT_TRUE(mfa_->verify("alice", code(secret)).ok());
}

TEST_F(MfaServiceTest, ASuccessClearsEarlierFailures) {
    const std::string secret = enroll_active();
    for (int i = 0; i < 4; ++i) {
        expect_code(mfa_->verify("alice", wrong_code(secret)), StatusCode::kPermissionDenied);
    }
    ASSERT_TRUE(mfa_->verify("alice", code(secret)).ok());
    clock_.advance_ms(kStepMs);
    for (int i = 0; i < 4; ++i) {
        expect_code(mfa_->verify("alice", wrong_code(secret)), StatusCode::kPermissionDenied);
    }
    EXPECT_TRUE(mfa_->verify("alice", code(secret)).ok());
}

TEST_F(MfaServiceTest, RateLimitIsPerUserAndSurvivesARestart) {
    const std::string alice = enroll_active("alice");
    const std::string bob = enroll_active("bob");
    for (int i = 0; i < 5; ++i) {
        expect_code(mfa_->verify("alice", wrong_code(alice)), StatusCode::kPermissionDenied);
    }
    mfa_ = std::make_unique<MfaService>(*db_, box_, clock_);
    expect_code(mfa_->verify("alice", code(alice)), StatusCode::kResourceExhausted);
    EXPECT_TRUE(mfa_->verify("bob", code(bob)).ok());
}

TEST_F(MfaServiceTest, SecretIsNeverWrittenToTheDatabaseFile) {
    std::vector<std::string> secrets;
    secrets.push_back(enroll_active("marker-alice"));
    auto pending = mfa_->enroll("marker-bob");
    ASSERT_TRUE(pending.ok());
    secrets.push_back(pending->secret_base32);

    const std::string bytes = file_bytes(db_path_) + file_bytes(db_path_ + "-wal");
    EXPECT_NE(bytes.find("marker-alice"), std::string::npos) << "the scan sees stored rows";
    for (const auto& secret : secrets) {
        EXPECT_EQ(bytes.find(secret), std::string::npos);
        const auto key = decode(secret);
        EXPECT_EQ(bytes.find(std::string(key.begin(), key.end())), std::string::npos);
    }
}

TEST_F(MfaServiceTest, ASealedSecretOnlyOpensForItsOwnUser) {
    const std::string alice = enroll_active("alice");
    enroll_active("mallory");
    {
        // Copy alice's sealed secret into mallory's row.
        auto conn = db_->lock();
        Status copied = conn.exec(
            "UPDATE totp_factors SET sealed_secret = (SELECT sealed_secret FROM totp_factors "
            "WHERE username = 'alice') WHERE username = 'mallory'");
        ASSERT_TRUE(copied.ok()) << copied.to_string();
    }
    const Status s = mfa_->verify("mallory", code(alice));
    EXPECT_EQ(s.code(), StatusCode::kInternal) << s.to_string();
    EXPECT_NE(s.message().find("could not be decrypted"), std::string::npos);
    EXPECT_TRUE(mfa_->verify("alice", code(alice)).ok());
}

TEST_F(MfaServiceTest, DisableResetsTheFactor) {
    const std::string old_secret = enroll_active();
    ASSERT_TRUE(mfa_->disable("alice").ok());
    EXPECT_FALSE(mfa_->is_active("alice"));
    expect_code(mfa_->verify("alice", code(old_secret)), StatusCode::kFailedPrecondition,
                "mfa_not_enrolled");
    expect_code(mfa_->disable("alice"), StatusCode::kNotFound);
    auto again = mfa_->enroll("alice");
    ASSERT_TRUE(again.ok()) << again.status().to_string();
    EXPECT_TRUE(mfa_->activate("alice", code(again->secret_base32)).ok());
}

TEST_F(MfaServiceTest, ConcurrentVerifiesAcceptACodeOnce) {
    const std::string secret = enroll_active();
    for (int round = 0; round < 10; ++round) {
        clock_.advance_ms(kStepMs);
        const std::string c = code(secret);
        std::atomic<int> accepted{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t) {
            threads.emplace_back([&] {
                if (mfa_->verify("alice", c).ok()) accepted.fetch_add(1);
            });
        }
        for (auto& th : threads) th.join();
        EXPECT_EQ(accepted.load(), 1) << "round " << round;
    }
}

TEST(MfaProof, IsFreshForFiveMinutes) {
    const int64_t t = 1'700'000'000'000;
    EXPECT_EQ(kMfaProofLifetimeMs, 300'000);
    EXPECT_FALSE(mfa_proof_fresh(0, t));
    EXPECT_TRUE(mfa_proof_fresh(t, t));
    EXPECT_TRUE(mfa_proof_fresh(t, t + kMfaProofLifetimeMs - 1));
    EXPECT_FALSE(mfa_proof_fresh(t, t + kMfaProofLifetimeMs));
    EXPECT_FALSE(mfa_proof_fresh(t + 1, t)) << "a proof from the future is not trusted";
}

}  // namespace
}  // namespace yuzu::auth
