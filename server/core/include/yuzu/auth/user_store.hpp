// UserStore: local user accounts in auth.db — creation, password login with
// a back-off lockout, unlock, password changes.
//
// Login rules:
// - Every refusal (unknown user, wrong password, locked account) is the same
//   Unauthenticated status with the same message, kLoginRefusedMessage, and
//   costs one password-hash verification: a locked account's own hash, an
//   unknown user's a dummy hash of the same cost. Neither the answer nor its
//   timing tells which it was; only the AuthOutcome, for the audit row, does.
// - kMaxConsecutiveFailedLogins wrong passwords in a row lock the account
//   for kFirstLockoutMs; each failure after that lock has ended locks it
//   again for twice as long as the last, up to kMaxLockoutMs
//   (lockout_duration_ms()). While locked even the right password is refused
//   and attempts do not count. A lock ends by itself (by the injected clock)
//   or at unlock(); a successful login resets the count.
// - A lock throttles password guessing and nothing else: the user's tokens
//   and web sessions keep working.
// - Unknown usernames are counted the same way, in memory (at most
//   max_tracked_unknown_users names; the least recently tried is forgotten
//   first), so a name that does not exist locks after the same failures as
//   one that does.
// - After a successful login a hash made with older parameters is replaced.
//
// The slow hash runs without holding the database lock, and each counter
// update is one short transaction that reads and writes the row, so
// concurrent attempts on one account neither serialise all of auth.db nor
// lose a failure.
//
// Thread-safety: safe to call from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
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
inline constexpr int64_t kFirstLockoutMs = 60'000;   // the lock the limit brings
inline constexpr int64_t kMaxLockoutMs = 3'600'000;  // where doubling stops
inline constexpr size_t kMaxTrackedUnknownUsers = 10'000;
inline constexpr int64_t kUserExistsCacheMs = 1'000;
inline constexpr size_t kMinPasswordChars = 12;                  // UTF-8 code points
inline constexpr size_t kMaxPasswordLength = kMaxPasswordBytes;  // bytes (1024)
// The one answer to every refused login, whatever the reason.
inline constexpr std::string_view kLoginRefusedMessage =
    "invalid username or password, or too many failed attempts; try again later";

// How long the failure that brings the consecutive count to `failures` locks
// the account: 0 below kMaxConsecutiveFailedLogins, then
// kFirstLockoutMs * 2^(failures - kMaxConsecutiveFailedLogins), at most
// kMaxLockoutMs (1, 2, 4, 8, 16, 32, then 60 minutes).
int64_t lockout_duration_ms(int failures);

// A user as the API shows it; never carries the password hash.
struct User {
    std::string username;
    int64_t created_at_ms = 0;
    bool locked = false;          // locked now: locked_until_ms is ahead of the store's clock
    int64_t locked_at_ms = 0;     // when the latest lock began; 0 if none since success or unlock
    int64_t locked_until_ms = 0;  // when the latest lock ends or ended; 0 if none
    int failed_logins = 0;        // consecutive failures since the last success or unlock
    std::vector<std::string> global_roles;  // sorted
};

// What a login attempt came to, for the caller's audit row. The caller of
// POST /login sees none of this: every refusal answers the same.
enum class AuthOutcome {
    kOk,              // right password, account usable
    kBadCredentials,  // wrong password for an existing account that is not locked
    kUnknownUser,     // no such user (and the name has not reached the limit)
    kLocked,          // the account (or unknown name) is locked; the attempt was refused
    kJustLocked,      // a wrong password that reached the limit and locked it
    kError,           // the store failed; nothing was decided
};
// "ok", "bad_credentials", "unknown_user", "locked", "just_locked", "error".
std::string_view auth_outcome_name(AuthOutcome outcome);

// ^[a-z][a-z0-9._-]{1,63}$ — InvalidArgument stating the rule otherwise.
Status validate_username(std::string_view username);
// 12..1024 characters (at least 12 UTF-8 code points, at most 1024 bytes).
Status validate_password(std::string_view password);

struct UserStoreOptions {
    // scrypt cost N = 2^password_log_n for new hashes. Lower it only in tests.
    int password_log_n = kScryptDefaultLogN;
    // How many unknown usernames the failure count is kept for.
    size_t max_tracked_unknown_users = kMaxTrackedUnknownUsers;
};

class UserStore {
  public:
    // db must already be migrated with auth_migrations() and outlive the
    // store; so must clock.
    explicit UserStore(store::Database& db, const Clock& clock = SystemClock::instance(),
                       UserStoreOptions options = {});
    ~UserStore();
    UserStore(const UserStore&) = delete;
    UserStore& operator=(const UserStore&) = delete;

    // InvalidArgument (bad username, password or unknown role name),
    // AlreadyExists (username taken). Roles are built-in role names,
    // assigned globally.
    Status create_user(const std::string& username, std::string_view password,
                       const std::vector<std::string>& roles);

    // The user on success. Otherwise Unauthenticated with
    // kLoginRefusedMessage for every refusal (unknown user, wrong password,
    // locked), or the store error. outcome, when given, says which (see
    // AuthOutcome).
    Result<User> authenticate(const std::string& username, std::string_view password,
                              AuthOutcome* outcome = nullptr);

    // Clears the lock and the failure count. NotFound if no such user.
    Status unlock(const std::string& username);

    // Replaces the password (rules as create_user). Leaves lock state alone:
    // a locked account stays locked until the lock ends or unlock(). NotFound
    // if no such user.
    Status set_password(const std::string& username, std::string_view new_password);

    Result<User> get_user(const std::string& username) const;  // NotFound
    // Whether the account exists, for the per-request check that a token's
    // or session's owner is still there. An answer of yes is remembered for
    // kUserExistsCacheMs (no API removes a user; this bounds how long one
    // removed from auth.db by hand keeps its tokens working), so a busy
    // token costs one read of auth.db a second, not one per request.
    Result<bool> user_exists(const std::string& username) const;
    Result<std::vector<User>> list_users() const;  // ordered by username
    Result<bool> has_users() const;

  private:
    struct UnknownUsers;  // user_store.cpp
    struct KnownUsers;    // user_store.cpp

    Result<std::string> hash(std::string_view password) const;
    bool hash_is_current(std::string_view encoded) const;
    Result<User> record_success(const std::string& username, const std::string& old_hash,
                                const std::string& new_hash, int64_t now_ms, AuthOutcome* outcome);
    // kBadCredentials, kJustLocked, or kLocked if a concurrent attempt locked it.
    Result<AuthOutcome> record_failure(const std::string& username, int64_t now_ms);
    // kUnknownUser, kJustLocked or kLocked, as record_failure for a real account.
    AuthOutcome record_unknown_failure(const std::string& username, int64_t now_ms);

    store::Database& db_;
    const Clock& clock_;
    const UserStoreOptions options_;
    const std::string dummy_hash_;           // verified for unknown users
    std::unique_ptr<UnknownUsers> unknown_;  // failure counts of names with no account
    std::unique_ptr<KnownUsers> known_;      // recent yes answers of user_exists()
};

}  // namespace yuzu::auth
