#include "yuzu/auth/session_store.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include "yuzu/auth/random.hpp"
#include "yuzu/auth/token_codec.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::auth {
namespace {

// base64url without padding of kSessionSecretBytes bytes.
constexpr size_t kCookieSecretLength = (kSessionSecretBytes * 4 + 2) / 3;
constexpr size_t kMaxUserAgentBytes = 512;
constexpr size_t kMaxSourceIpBytes = 64;
constexpr int kCreateAttempts = 3;

bool looks_like_cookie_secret(std::string_view value) {
    if (value.size() != kCookieSecretLength) return false;
    return std::all_of(value.begin(), value.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
               c == '-' || c == '_';
    });
}

Result<std::string> random_base64url(size_t nbytes) {
    auto bytes = random_bytes(nbytes);
    if (!bytes.ok()) return bytes.status();
    return base64url_encode(
        std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
}

// Cut at a byte limit without splitting a UTF-8 sequence.
std::string_view truncate_utf8(std::string_view s, size_t max_bytes) {
    if (s.size() <= max_bytes) return s;
    size_t end = max_bytes;
    while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
    return s.substr(0, end);
}

}  // namespace

SessionStore::SessionStore(store::Database& db, const Clock& clock, SessionStoreOptions options)
    : db_(db), clock_(clock), options_(options) {}

Result<NewSession> SessionStore::create(std::string_view username, std::string_view source_ip,
                                        std::string_view user_agent) {
    if (username.empty()) return Status::InvalidArgument("session username must not be empty");
    const int64_t now_ms = clock_.now_ms();

    auto conn = db_.lock();
    auto insert = conn.prepare(
        "INSERT INTO web_sessions(session_id, secret_hash, username, csrf_token, source_ip, "
        "user_agent, created_at_ms, last_seen_at_ms) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)");
    if (!insert.ok()) return insert.status();
    // A 64-bit session id colliding is not expected; fresh secrets fix it.
    for (int attempt = 0; attempt < kCreateAttempts; ++attempt) {
        auto secret = random_base64url(kSessionSecretBytes);
        if (!secret.ok()) return secret.status();
        auto csrf = random_base64url(kSessionSecretBytes);
        if (!csrf.ok()) return csrf.status();
        const std::string hash = sha256_hex(*secret);
        NewSession session{std::move(secret).value(), std::move(csrf).value(),
                           hash.substr(0, kSessionIdLength)};
        insert->bind(1, session.session_id).bind(2, hash).bind(3, username);
        insert->bind(4, session.csrf_token)
            .bind(5, truncate_utf8(source_ip, kMaxSourceIpBytes))
            .bind(6, truncate_utf8(user_agent, kMaxUserAgentBytes))
            .bind(7, now_ms);
        Status inserted = insert->run();
        if (inserted.code() == StatusCode::kAlreadyExists) continue;
        YUZU_RETURN_IF_ERROR(inserted);
        return session;
    }
    return Status::Internal("could not allocate a unique session id; try again");
}

Result<Session> SessionStore::lookup(std::string_view cookie_secret) {
    if (!looks_like_cookie_secret(cookie_secret)) {
        return Status::Unauthenticated("malformed session cookie");
    }
    const std::string hash = sha256_hex(cookie_secret);
    const int64_t now_ms = clock_.now_ms();

    auto conn = db_.lock();
    std::optional<Session> found;
    std::string stored_hash;
    {
        auto stmt = conn.prepare(
            "SELECT session_id, username, csrf_token, source_ip, user_agent, created_at_ms, "
            "last_seen_at_ms, mfa_verified_at_ms, secret_hash FROM web_sessions "
            "WHERE secret_hash = ?1");
        if (!stmt.ok()) return stmt.status();
        auto row = stmt->bind(1, hash).step();
        if (!row.ok()) return row.status();
        if (*row) {
            found = Session{stmt->column_text(0),  stmt->column_text(1), stmt->column_text(2),
                            stmt->column_text(3),  stmt->column_text(4), stmt->column_int64(5),
                            stmt->column_int64(6), stmt->column_int64(7)};
            stored_hash = stmt->column_text(8);
        }
    }
    if (!found || !constant_time_equal(stored_hash, hash)) {
        return Status::Unauthenticated("unknown session");
    }
    Session& session = *found;

    const bool too_old = now_ms - session.created_at_ms >= options_.absolute_lifetime_ms;
    const bool idle = now_ms - session.last_seen_at_ms >= options_.idle_timeout_ms;
    if (too_old || idle) {
        auto del = conn.prepare("DELETE FROM web_sessions WHERE session_id = ?1");
        if (!del.ok()) return del.status();
        YUZU_RETURN_IF_ERROR(del->bind(1, session.session_id).run());
        return Status::Unauthenticated(too_old ? "session expired" : "session idle timeout");
    }

    if (now_ms - session.last_seen_at_ms >= options_.touch_resolution_ms) {
        auto touch =
            conn.prepare("UPDATE web_sessions SET last_seen_at_ms = ?1 WHERE session_id = ?2");
        if (!touch.ok()) return touch.status();
        YUZU_RETURN_IF_ERROR(touch->bind(1, now_ms).bind(2, session.session_id).run());
        session.last_seen_at_ms = now_ms;
    }
    return std::move(session);
}

Status SessionStore::destroy(std::string_view cookie_secret) {
    if (!looks_like_cookie_secret(cookie_secret)) return Status::Ok();
    auto conn = db_.lock();
    auto del = conn.prepare("DELETE FROM web_sessions WHERE secret_hash = ?1");
    if (!del.ok()) return del.status();
    return del->bind(1, sha256_hex(cookie_secret)).run();
}

Result<int> SessionStore::destroy_all_for_user(std::string_view username) {
    auto conn = db_.lock();
    auto del = conn.prepare("DELETE FROM web_sessions WHERE username = ?1");
    if (!del.ok()) return del.status();
    YUZU_RETURN_IF_ERROR(del->bind(1, username).run());
    return conn.changes();
}

Status SessionStore::record_mfa_proof(std::string_view session_id, int64_t now_ms) {
    auto conn = db_.lock();
    auto update =
        conn.prepare("UPDATE web_sessions SET mfa_verified_at_ms = ?1 WHERE session_id = ?2");
    if (!update.ok()) return update.status();
    YUZU_RETURN_IF_ERROR(update->bind(1, now_ms).bind(2, session_id).run());
    if (conn.changes() == 0) {
        return Status::NotFound("session '" + std::string(session_id) + "' not found");
    }
    return Status::Ok();
}

bool SessionStore::check_csrf(const Session& session, std::string_view presented) {
    if (presented.empty() || session.csrf_token.empty()) return false;
    return constant_time_equal(session.csrf_token, presented);
}

Result<int> SessionStore::prune_expired() {
    const int64_t now_ms = clock_.now_ms();
    auto conn = db_.lock();
    auto del =
        conn.prepare("DELETE FROM web_sessions WHERE created_at_ms <= ?1 OR last_seen_at_ms <= ?2");
    if (!del.ok()) return del.status();
    del->bind(1, now_ms - options_.absolute_lifetime_ms).bind(2, now_ms - options_.idle_timeout_ms);
    YUZU_RETURN_IF_ERROR(del->run());
    return conn.changes();
}

}  // namespace yuzu::auth
