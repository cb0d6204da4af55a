// SessionStore: interactive web sessions kept in auth.db (table web_sessions).
//
// A login creates a session and hands out two values:
//   - cookie_secret, for the HttpOnly session cookie. Only its SHA-256 is
//     stored, so a copy of auth.db cannot be replayed as a login;
//   - csrf_token, for the readable yuzu_csrf cookie; state-changing requests
//     echo it in X-CSRF-Token (double submit). It is stored as is: on its own
//     it authenticates nothing.
// session_id (first 16 hex of the cookie secret's hash) names a session in
// logs and audit rows without revealing it.
//
// A session ends at the first of: its absolute lifetime (8 h from login), an
// idle period without lookups (30 min), destroy(). Expired sessions are
// deleted when looked up and by prune_expired(). last_seen is written at most
// once a minute per session, so the idle timeout may end a session up to that
// much early.
//
// Thread-safety: safe to call from any thread; all state is in the Database,
// whose lock serialises access.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::store {
class Database;
}

namespace yuzu::auth {

inline constexpr size_t kSessionSecretBytes = 32;
inline constexpr size_t kSessionIdLength = 16;

struct SessionStoreOptions {
    int64_t absolute_lifetime_ms = 8LL * 3600 * 1000;
    int64_t idle_timeout_ms = 30LL * 60 * 1000;
    int64_t touch_resolution_ms = 60'000;  // last_seen is written at most this often
};

struct NewSession {
    std::string cookie_secret;  // 32 random bytes, base64url; the HttpOnly cookie
    std::string csrf_token;     // 32 random bytes, base64url; the readable yuzu_csrf cookie
    std::string session_id;     // first 16 hex of sha256(cookie_secret); safe to log
};

struct Session {
    std::string session_id;
    std::string username;
    std::string csrf_token;
    std::string source_ip;   // as given at login
    std::string user_agent;  // as given at login, truncated to 512 bytes
    int64_t created_at_ms = 0;
    int64_t last_seen_at_ms = 0;
    int64_t mfa_verified_at_ms = 0;  // 0 = no TOTP proof in this session
};

class SessionStore {
  public:
    // db must have auth.db's migrations applied and outlive the store; so must
    // clock.
    SessionStore(store::Database& db, const Clock& clock, SessionStoreOptions options = {});
    SessionStore(const SessionStore&) = delete;
    SessionStore& operator=(const SessionStore&) = delete;

    // A new session for username (who has just authenticated).
    // InvalidArgument for an empty username; Unavailable if no entropy.
    Result<NewSession> create(std::string_view username, std::string_view source_ip,
                              std::string_view user_agent);

    // The live session behind a cookie value. Unauthenticated if the value is
    // malformed or unknown, or the session has expired (absolute or idle; the
    // row is then deleted). Refreshes last_seen when it is a minute old.
    Result<Session> lookup(std::string_view cookie_secret);

    // Logout. Ok whether or not the session existed.
    Status destroy(std::string_view cookie_secret);
    // Ends every session of username (password change, lockout, user removal);
    // returns how many there were.
    Result<int> destroy_all_for_user(std::string_view username);

    // Records a TOTP step-up proof at now_ms. NotFound if the session is gone.
    Status record_mfa_proof(std::string_view session_id, int64_t now_ms);

    // True iff presented is non-empty and equals the session's CSRF token,
    // compared in constant time.
    static bool check_csrf(const Session& session, std::string_view presented);

    // Deletes every expired session; returns how many. For a periodic sweep.
    Result<int> prune_expired();

  private:
    store::Database& db_;
    const Clock& clock_;
    const SessionStoreOptions options_;
};

}  // namespace yuzu::auth
