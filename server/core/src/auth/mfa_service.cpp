#include "yuzu/auth/mfa_service.hpp"

#include <openssl/crypto.h>

#include <cassert>
#include <optional>
#include <utility>
#include <vector>

#include "yuzu/auth/secret_box.hpp"
#include "yuzu/auth/totp.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::auth {
namespace {

constexpr std::string_view kStatePending = "pending";
constexpr std::string_view kStateActive = "active";

struct Factor {
    std::string sealed_secret;
    std::string state;
    int64_t last_used_step = kTotpNoStepUsed;
};

// Holds a decrypted TOTP key and wipes it when it goes out of scope.
class PlainKey {
  public:
    PlainKey() = default;
    explicit PlainKey(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {}
    PlainKey(const PlainKey&) = delete;
    PlainKey& operator=(const PlainKey&) = delete;
    ~PlainKey() {
        if (!bytes_.empty()) OPENSSL_cleanse(bytes_.data(), bytes_.size());
    }
    const std::vector<uint8_t>& bytes() const { return bytes_; }

  private:
    std::vector<uint8_t> bytes_;
};

Status not_enrolled() {
    return Status::FailedPrecondition("mfa_not_enrolled");
}

Result<std::optional<Factor>> load_factor(store::Conn& conn, std::string_view username) {
    auto stmt = conn.prepare(
        "SELECT sealed_secret, state, last_used_step FROM totp_factors WHERE username = ?1");
    if (!stmt.ok()) return stmt.status();
    auto row = stmt->bind(1, username).step();
    if (!row.ok()) return row.status();
    std::optional<Factor> factor;
    if (*row) factor = Factor{stmt->column_text(0), stmt->column_text(1), stmt->column_int64(2)};
    return factor;
}

// The factor's key in the clear, or Internal if it cannot be decrypted (the
// secrets key changed or the row was tampered with: an operator must act).
Result<std::vector<uint8_t>> open_key(const SecretBox& box, const std::string& sealed,
                                      const std::string& associated_data,
                                      std::string_view username) {
    auto opened = box.open(sealed, associated_data);
    if (!opened.ok()) {
        return Status::Internal("the TOTP secret of user '" + std::string(username) +
                                "' could not be decrypted (was the secrets key file replaced?); "
                                "an administrator must reset this user's MFA");
    }
    std::string base32 = std::move(opened).value();
    auto key = base32_decode(base32);
    OPENSSL_cleanse(base32.data(), base32.size());
    if (!key.ok()) {
        return Status::Internal("the stored TOTP secret of user '" + std::string(username) +
                                "' is not valid base32");
    }
    return std::move(key).value();
}

}  // namespace

bool mfa_proof_fresh(int64_t verified_at_ms, int64_t now_ms) {
    return verified_at_ms > 0 && now_ms >= verified_at_ms &&
           now_ms - verified_at_ms < kMfaProofLifetimeMs;
}

MfaService::MfaService(store::Database& db, const SecretBox& box, const Clock& clock,
                       MfaOptions options)
    : db_(db), box_(box), clock_(clock), options_(options) {
    assert(options_.max_failures > 0);
}

std::string MfaService::associated_data(std::string_view username) const {
    return "totp:" + std::string(username);
}

Result<Enrollment> MfaService::enroll(std::string_view username, std::string_view issuer) {
    if (username.empty()) return Status::InvalidArgument("username must not be empty");
    if (issuer.empty()) return Status::InvalidArgument("TOTP issuer must not be empty");
    const int64_t now_ms = clock_.now_ms();

    auto conn = db_.lock();
    auto tx = conn.transaction();
    if (!tx.ok()) return tx.status();
    {
        auto existing = load_factor(conn, username);
        if (!existing.ok()) return existing.status();
        if (existing->has_value() && (*existing)->state == kStateActive) {
            return Status::FailedPrecondition(
                "TOTP is already active; an administrator must reset it before enrolling again");
        }
    }
    auto secret = generate_totp_secret();
    if (!secret.ok()) return secret.status();
    auto sealed = box_.seal(*secret, associated_data(username));
    if (!sealed.ok()) return sealed.status();

    auto upsert = conn.prepare(
        "INSERT INTO totp_factors(username, sealed_secret, state, last_used_step, created_at_ms, "
        "activated_at_ms) VALUES(?1, ?2, 'pending', -1, ?3, 0) "
        "ON CONFLICT(username) DO UPDATE SET sealed_secret = excluded.sealed_secret, "
        "state = 'pending', last_used_step = -1, created_at_ms = excluded.created_at_ms, "
        "activated_at_ms = 0");
    if (!upsert.ok()) return upsert.status();
    YUZU_RETURN_IF_ERROR(upsert->bind(1, username).bind(2, *sealed).bind(3, now_ms).run());
    YUZU_RETURN_IF_ERROR(tx.commit());

    Enrollment enrollment;
    enrollment.otpauth_uri = otpauth_uri(issuer, username, *secret);
    enrollment.secret_base32 = std::move(secret).value();
    return enrollment;
}

Status MfaService::activate(std::string_view username, std::string_view code) {
    const int64_t now_ms = clock_.now_ms();
    auto conn = db_.lock();
    auto tx = conn.transaction();
    YUZU_RETURN_IF_ERROR(tx.status());
    auto factor = load_factor(conn, username);
    if (!factor.ok()) return factor.status();
    if (!factor->has_value()) {
        return Status::FailedPrecondition("no pending TOTP enrollment for user '" +
                                          std::string(username) + "'; enroll first");
    }
    if ((*factor)->state != kStatePending) {
        return Status::FailedPrecondition("TOTP is already active for user '" +
                                          std::string(username) + "'");
    }
    auto opened = open_key(box_, (*factor)->sealed_secret, associated_data(username), username);
    if (!opened.ok()) return opened.status();
    const PlainKey key(std::move(opened).value());
    const auto step = totp_verify(key.bytes(), code, now_ms / 1000, (*factor)->last_used_step);
    if (!step) return Status::PermissionDenied("invalid TOTP code");

    auto update = conn.prepare(
        "UPDATE totp_factors SET state = 'active', last_used_step = ?1, activated_at_ms = ?2 "
        "WHERE username = ?3 AND state = 'pending'");
    if (!update.ok()) return update.status();
    YUZU_RETURN_IF_ERROR(update->bind(1, *step).bind(2, now_ms).bind(3, username).run());
    return tx.commit();
}

Status MfaService::verify(std::string_view username, std::string_view code) {
    const int64_t now_ms = clock_.now_ms();
    const int64_t window_start = now_ms - options_.failure_window_ms;
    auto conn = db_.lock();
    auto tx = conn.transaction();
    YUZU_RETURN_IF_ERROR(tx.status());
    auto factor = load_factor(conn, username);
    if (!factor.ok()) return factor.status();
    if (!factor->has_value() || (*factor)->state != kStateActive) return not_enrolled();

    {
        // The max_failures-th most recent failure inside the window: while it
        // exists the user is locked out, until it ages out of the window.
        auto limit = conn.prepare(
            "SELECT failed_at_ms FROM totp_failures WHERE username = ?1 AND failed_at_ms > ?2 "
            "ORDER BY failed_at_ms DESC LIMIT 1 OFFSET ?3");
        if (!limit.ok()) return limit.status();
        auto row = limit->bind(1, username)
                       .bind(2, window_start)
                       .bind(3, options_.max_failures - 1)
                       .step();
        if (!row.ok()) return row.status();
        if (*row) {
            const int64_t retry_ms = limit->column_int64(0) + options_.failure_window_ms - now_ms;
            return Status::ResourceExhausted("too many failed TOTP codes; try again in " +
                                             std::to_string((retry_ms + 999) / 1000) + " s");
        }
    }

    auto opened = open_key(box_, (*factor)->sealed_secret, associated_data(username), username);
    if (!opened.ok()) return opened.status();
    const PlainKey key(std::move(opened).value());
    const auto step = totp_verify(key.bytes(), code, now_ms / 1000, (*factor)->last_used_step);

    if (!step) {
        auto prune =
            conn.prepare("DELETE FROM totp_failures WHERE username = ?1 AND failed_at_ms <= ?2");
        if (!prune.ok()) return prune.status();
        YUZU_RETURN_IF_ERROR(prune->bind(1, username).bind(2, window_start).run());
        auto record =
            conn.prepare("INSERT INTO totp_failures(username, failed_at_ms) VALUES(?1, ?2)");
        if (!record.ok()) return record.status();
        YUZU_RETURN_IF_ERROR(record->bind(1, username).bind(2, now_ms).run());
        YUZU_RETURN_IF_ERROR(tx.commit());
        return Status::PermissionDenied("invalid or reused TOTP code");
    }

    // The step must be persisted before success is reported (no reuse).
    auto update = conn.prepare(
        "UPDATE totp_factors SET last_used_step = ?1 WHERE username = ?2 AND last_used_step < ?1");
    if (!update.ok()) return update.status();
    YUZU_RETURN_IF_ERROR(update->bind(1, *step).bind(2, username).run());
    if (conn.changes() != 1) return Status::PermissionDenied("invalid or reused TOTP code");
    auto clear = conn.prepare("DELETE FROM totp_failures WHERE username = ?1");
    if (!clear.ok()) return clear.status();
    YUZU_RETURN_IF_ERROR(clear->bind(1, username).run());
    return tx.commit();
}

bool MfaService::is_active(std::string_view username) const {
    auto conn = db_.lock();
    auto factor = load_factor(conn, username);
    return factor.ok() && factor->has_value() && (*factor)->state == kStateActive;
}

Status MfaService::disable(std::string_view username) {
    auto conn = db_.lock();
    auto tx = conn.transaction();
    YUZU_RETURN_IF_ERROR(tx.status());
    auto del = conn.prepare("DELETE FROM totp_factors WHERE username = ?1");
    if (!del.ok()) return del.status();
    YUZU_RETURN_IF_ERROR(del->bind(1, username).run());
    if (conn.changes() == 0) {
        return Status::NotFound("user '" + std::string(username) + "' has no TOTP factor");
    }
    auto clear = conn.prepare("DELETE FROM totp_failures WHERE username = ?1");
    if (!clear.ok()) return clear.status();
    YUZU_RETURN_IF_ERROR(clear->bind(1, username).run());
    return tx.commit();
}

}  // namespace yuzu::auth
