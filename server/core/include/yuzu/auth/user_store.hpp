// UserStore: local user accounts in auth.db — creation, password login with
// lockout, unlock, password changes.
//
// Login rules:
// - Unknown user and wrong password answer the same Unauthenticated message,
//   and an unknown user's attempt is verified against a dummy hash of the
//   same cost, so neither the answer nor its timing tells which it was.
// - kMaxConsecutiveFailedLogins wrong passwords in a row lock the account;
//   a locked account refuses even the right password (PermissionDenied)
//   until unlock(). A successful login resets the count.
// - After a successful login a hash made with older parameters is replaced.
//
// The slow hash runs without holding the database lock, and the counter
// updates are single conditional statements, so concurrent attempts on one
// account neither serialise all of auth.db nor lose a failure.
//
// Thread-safety: safe to call from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "yuzu/auth/password_hash.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::store {
class Database;
class Conn;
}  // namespace yuzu::store

namespace yuzu::auth {

inline constexpr int kMaxConsecutiveFailedLogins = 5;
inline constexpr size_t kMinPasswordChars = 12;                  // UTF-8 code points
inline constexpr size_t kMaxPasswordLength = kMaxPasswordBytes;  // bytes (1024)

// A user as the API shows it; never carries the password hash.
struct User {
    std::string username;
    int64_t created_at_ms = 0;
    bool locked = false;
    int64_t locked_at_ms = 0;               // 0 unless locked
    int failed_logins = 0;                  // consecutive failures since the last success or unlock
    std::vector<std::string> global_roles;  // sorted
};

// What a login attempt came to, for the caller's audit row.
enum class AuthOutcome {
    kOk,              // right password, account usable
    kBadCredentials,  // unknown user or wrong password (indistinguishable to the caller)
    kLocked,          // the account was already locked; the password was not checked
    kJustLocked,      // a wrong password that reached the limit and locked the account
    kError,           // the store failed; nothing was decided
};
// "ok", "bad_credentials", "locked", "just_locked", "error".
std::string_view auth_outcome_name(AuthOutcome outcome);

// ^[a-z][a-z0-9._-]{1,63}$ — InvalidArgument stating the rule otherwise.
Status validate_username(std::string_view username);
// 12..1024 characters (at least 12 UTF-8 code points, at most 1024 bytes).
Status validate_password(std::string_view password);

struct UserStoreOptions {
    // scrypt cost N = 2^password_log_n for new hashes. Lower it only in tests.
    int password_log_n = kScryptDefaultLogN;
};

class UserStore {
  public:
    // db must already be migrated with kIdentitySchemaMigration and outlive
    // the store; so must clock.
    explicit UserStore(store::Database& db, const Clock& clock = SystemClock::instance(),
                       UserStoreOptions options = {});

    // InvalidArgument (bad username, password or unknown role name),
    // AlreadyExists (username taken). Roles are built-in role names,
    // assigned globally.
    Status create_user(const std::string& username, std::string_view password,
                       const std::vector<std::string>& roles);

    // The user on success. Otherwise Unauthenticated (unknown user or wrong
    // password, one message), PermissionDenied (locked), or the store error.
    // outcome, when given, says which (see AuthOutcome).
    Result<User> authenticate(const std::string& username, std::string_view password,
                              AuthOutcome* outcome = nullptr);

    // Clears the lock and the failure count. NotFound if no such user.
    Status unlock(const std::string& username);

    // Replaces the password (rules as create_user). Leaves lock state alone:
    // a locked account stays locked until unlock(). NotFound if no such user.
    Status set_password(const std::string& username, std::string_view new_password);

    Result<User> get_user(const std::string& username) const;  // NotFound
    Result<std::vector<User>> list_users() const;              // ordered by username
    Result<bool> has_users() const;

  private:
    Result<std::string> hash(std::string_view password) const;
    bool hash_is_current(std::string_view encoded) const;
    Result<User> record_success(const std::string& username, const std::string& old_hash,
                                const std::string& new_hash, AuthOutcome* outcome);
    // kBadCredentials, kJustLocked, or kLocked if a concurrent attempt locked it.
    Result<AuthOutcome> record_failure(const std::string& username);

    store::Database& db_;
    const Clock& clock_;
    const UserStoreOptions options_;
    const std::string dummy_hash_;  // verified for unknown users
};

}  // namespace yuzu::auth
