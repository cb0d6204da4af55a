#include "yuzu/auth/token_store.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cassert>
#include <optional>
#include <utility>

#include "yuzu/auth/token_codec.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::auth {
namespace {

// One api_tokens row as stored; pending_hash is empty when no rotation is
// pending (NULL in the table).
struct TokenRow {
    std::string id;
    std::string hash;
    std::string pending_hash;
    int64_t pending_created_at = 0;
    int64_t rotation_deadline = 0;
    std::string name;
    std::string owner;
    std::string tier;
    int64_t created_at = 0;
    int64_t expires_at = 0;
    int64_t last_used_at = 0;
    bool revoked = false;

    bool has_pending() const { return !pending_hash.empty(); }
};

constexpr std::string_view kSelectRow =
    "SELECT token_id, token_hash, pending_hash, pending_created_at, rotation_deadline, name, "
    "owner, mcp_tier, created_at, expires_at, last_used_at, revoked FROM api_tokens ";

constexpr int kCreateAttempts = 3;

std::string select_rows(std::string_view tail) {
    std::string sql(kSelectRow);
    sql.append(tail);
    return sql;
}

TokenRow read_row(const store::Statement& s) {
    TokenRow row;
    row.id = s.column_text(0);
    row.hash = s.column_text(1);
    row.pending_hash = s.column_text(2);
    row.pending_created_at = s.column_int64(3);
    row.rotation_deadline = s.column_int64(4);
    row.name = s.column_text(5);
    row.owner = s.column_text(6);
    row.tier = s.column_text(7);
    row.created_at = s.column_int64(8);
    row.expires_at = s.column_int64(9);
    row.last_used_at = s.column_int64(10);
    row.revoked = s.column_int64(11) != 0;
    return row;
}

// The single row matching the prepared statement's binds, if any.
Result<std::optional<TokenRow>> fetch_one(store::Statement& stmt) {
    auto has_row = stmt.step();
    if (!has_row.ok()) return has_row.status();
    std::optional<TokenRow> row;
    if (*has_row) row = read_row(stmt);
    stmt.reset();  // no statement stays active across a later COMMIT
    return row;
}

Result<std::optional<TokenRow>> fetch_by_id(store::Conn& conn, std::string_view id) {
    auto stmt = conn.prepare(select_rows("WHERE token_id = ?1"));
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, id);
    return fetch_one(*stmt);
}

bool is_expired(int64_t expires_at_s, int64_t now_s) {
    return expires_at_s != 0 && now_s >= expires_at_s;
}

bool is_valid_tier(std::string_view tier) {
    return tier.empty() || tier == "readonly" || tier == "operator" || tier == "supervised";
}

bool is_valid_name(std::string_view name) {
    if (name.empty() || name.size() > kTokenNameMaxLength) return false;
    return std::none_of(name.begin(), name.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u < 0x20 || u == 0x7f;
    });
}

// The same answer for an unknown id and for a token the actor may not touch,
// so the API is no oracle for other people's token ids.
Status token_not_found(std::string_view id) {
    return Status::NotFound("API token '" + std::string(id) + "' not found");
}

Status check_expiry(std::string_view tier, int64_t expires_at_s, int64_t now_s) {
    if (!tier.empty()) {
        if (expires_at_s <= now_s || expires_at_s - now_s > kMcpTokenMaxLifetimeS) {
            return Status::InvalidArgument(
                "an MCP token (non-empty mcp_tier) must expire in the future and at most 90 days "
                "from now; expires_at is in Unix epoch seconds");
        }
        return Status::Ok();
    }
    if (expires_at_s < 0 || (expires_at_s != 0 && expires_at_s <= now_s)) {
        return Status::InvalidArgument(
            "expires_at must be 0 (never) or a future time in Unix epoch seconds");
    }
    return Status::Ok();
}

TokenInfo to_info(const TokenRow& row, int64_t now_s) {
    TokenInfo info;
    info.id = row.id;
    info.name = row.name;
    info.owner = row.owner;
    info.mcp_tier = row.tier;
    info.created_at_s = row.created_at;
    info.expires_at_s = row.expires_at;
    info.last_used_at_s = row.last_used_at;
    info.revoked = row.revoked;
    // Past the deadline the pending secret is, in effect, the only one.
    info.rotation_pending = row.has_pending() && now_s < row.rotation_deadline;
    return info;
}

}  // namespace

TokenStore::TokenStore(store::Database& db, const Clock& clock, TokenStoreOptions options)
    : db_(db), clock_(clock), options_(options) {
    assert(options_.cache_max_entries > 0);
    assert(options_.rotation_grace_s >= 0);
}

Result<CreatedToken> TokenStore::create(std::string_view owner, std::string_view name,
                                        std::string_view mcp_tier, int64_t expires_at_s) {
    if (owner.empty()) return Status::InvalidArgument("token owner must not be empty");
    if (!is_valid_name(name)) {
        return Status::InvalidArgument(
            "token name must be 1 to 128 characters without control characters");
    }
    if (!is_valid_tier(mcp_tier)) {
        return Status::InvalidArgument(
            "mcp_tier must be one of readonly, operator, supervised or empty");
    }
    const int64_t now_s = clock_.now_s();
    YUZU_RETURN_IF_ERROR(check_expiry(mcp_tier, expires_at_s, now_s));

    auto conn = db_.lock();
    auto tx = conn.transaction();
    if (!tx.ok()) return tx.status();
    {
        auto count = conn.prepare(
            "SELECT COUNT(*) FROM api_tokens WHERE owner = ?1 AND revoked = 0 "
            "AND (expires_at = 0 OR expires_at > ?2)");
        if (!count.ok()) return count.status();
        count->bind(1, owner).bind(2, now_s);
        auto row = count->step();
        if (!row.ok()) return row.status();
        assert(*row);
        if (static_cast<uint64_t>(count->column_int64(0)) >= options_.max_active_tokens_per_owner) {
            return Status::ResourceExhausted(
                "user '" + std::string(owner) + "' already has " +
                std::to_string(options_.max_active_tokens_per_owner) +
                " active API tokens; revoke one before creating another");
        }
    }
    auto insert = conn.prepare(
        "INSERT INTO api_tokens(token_id, token_hash, name, owner, mcp_tier, created_at, "
        "expires_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    if (!insert.ok()) return insert.status();

    // A collision of 96-bit ids is not expected in practice; a fresh secret
    // is the answer if one ever happens.
    for (int attempt = 0; attempt < kCreateAttempts; ++attempt) {
        auto secret = generate_api_token();
        if (!secret.ok()) return secret.status();
        const std::string hash = sha256_hex(*secret);
        const std::string id = hash.substr(0, kTokenDisplayIdLength);
        insert->bind(1, id).bind(2, hash).bind(3, name).bind(4, owner).bind(5, mcp_tier);
        insert->bind(6, now_s).bind(7, expires_at_s);
        Status inserted = insert->run();
        if (inserted.code() == StatusCode::kAlreadyExists) continue;
        YUZU_RETURN_IF_ERROR(inserted);
        YUZU_RETURN_IF_ERROR(tx.commit());

        CreatedToken created;
        created.info.id = id;
        created.info.name = std::string(name);
        created.info.owner = std::string(owner);
        created.info.mcp_tier = std::string(mcp_tier);
        created.info.created_at_s = now_s;
        created.info.expires_at_s = expires_at_s;
        created.secret = std::move(secret).value();
        return created;
    }
    return Status::Internal("could not allocate a unique API token id; try again");
}

Result<std::vector<TokenInfo>> TokenStore::list(std::string_view owner) const {
    const int64_t now_s = clock_.now_s();
    auto conn = db_.lock();
    auto stmt = conn.prepare(select_rows("WHERE owner = ?1 ORDER BY created_at DESC, rowid DESC"));
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, owner);
    std::vector<TokenInfo> out;
    for (;;) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        out.push_back(to_info(read_row(*stmt), now_s));
    }
    return out;
}

Result<TokenInfo> TokenStore::get(std::string_view id) const {
    const int64_t now_s = clock_.now_s();
    auto conn = db_.lock();
    auto row = fetch_by_id(conn, id);
    if (!row.ok()) return row.status();
    if (!row->has_value()) return token_not_found(id);
    return to_info(**row, now_s);
}

Status TokenStore::revoke(std::string_view id, std::string_view actor, bool actor_is_admin) {
    std::vector<std::string> stale_hashes;
    {
        auto conn = db_.lock();
        auto row = fetch_by_id(conn, id);
        if (!row.ok()) return row.status();
        if (!row->has_value()) return token_not_found(id);
        const TokenRow& token = **row;
        if (token.owner != actor && !actor_is_admin) return token_not_found(id);

        auto update = conn.prepare(
            "UPDATE api_tokens SET revoked = 1, revoked_at = ?1 WHERE token_id = ?2 AND "
            "revoked = 0");
        if (!update.ok()) return update.status();
        YUZU_RETURN_IF_ERROR(update->bind(1, clock_.now_s()).bind(2, id).run());
        stale_hashes = {token.hash, token.pending_hash};
    }
    invalidate(stale_hashes);
    return Status::Ok();
}

Result<CreatedToken> TokenStore::rotate(std::string_view id, std::string_view actor) {
    const int64_t now_s = clock_.now_s();
    TokenRow token;
    std::vector<std::string> stale_hashes;
    std::string secret;
    {
        auto conn = db_.lock();
        auto tx = conn.transaction();
        if (!tx.ok()) return tx.status();
        auto row = fetch_by_id(conn, id);
        if (!row.ok()) return row.status();
        if (!row->has_value() || (*row)->owner != actor) return token_not_found(id);
        token = std::move(**row);
        if (token.revoked) {
            return Status::FailedPrecondition("API token '" + token.id +
                                              "' is revoked and cannot be rotated");
        }
        if (is_expired(token.expires_at, now_s)) {
            return Status::FailedPrecondition("API token '" + token.id +
                                              "' has expired; create a new token instead");
        }
        stale_hashes = {token.hash, token.pending_hash};

        auto fresh = generate_api_token();
        if (!fresh.ok()) return fresh.status();
        secret = std::move(fresh).value();

        if (token.has_pending() && now_s >= token.rotation_deadline) {
            // The old secret has already lapsed: the pending one is primary now.
            token.hash = token.pending_hash;
            token.rotation_deadline = now_s + options_.rotation_grace_s;
        } else if (!token.has_pending()) {
            token.rotation_deadline = now_s + options_.rotation_grace_s;
        }
        // Replacing a pending secret keeps the old secret's deadline: rotating
        // again must not extend the life of the secret being retired.
        token.pending_hash = sha256_hex(secret);
        token.pending_created_at = now_s;

        auto update = conn.prepare(
            "UPDATE api_tokens SET token_hash = ?1, pending_hash = ?2, pending_created_at = ?3, "
            "rotation_deadline = ?4 WHERE token_id = ?5");
        if (!update.ok()) return update.status();
        update->bind(1, token.hash).bind(2, token.pending_hash).bind(3, now_s);
        update->bind(4, token.rotation_deadline).bind(5, token.id);
        YUZU_RETURN_IF_ERROR(update->run());
        YUZU_RETURN_IF_ERROR(tx.commit());
    }
    invalidate(stale_hashes);

    CreatedToken created;
    created.info = to_info(token, now_s);
    created.secret = std::move(secret);
    return created;
}

Status TokenStore::confirm_rotation(std::string_view id, std::string_view actor) {
    std::vector<std::string> stale_hashes;
    {
        auto conn = db_.lock();
        auto row = fetch_by_id(conn, id);
        if (!row.ok()) return row.status();
        if (!row->has_value() || (*row)->owner != actor) return token_not_found(id);
        const TokenRow& token = **row;
        if (token.revoked) {
            return Status::FailedPrecondition("API token '" + token.id + "' is revoked");
        }
        if (!token.has_pending()) {
            return Status::FailedPrecondition("API token '" + token.id +
                                              "' has no rotation pending; rotate it first");
        }
        auto update = conn.prepare(
            "UPDATE api_tokens SET token_hash = pending_hash, pending_hash = NULL, "
            "pending_created_at = 0, rotation_deadline = 0 WHERE token_id = ?1 AND "
            "pending_hash = ?2");
        if (!update.ok()) return update.status();
        YUZU_RETURN_IF_ERROR(update->bind(1, token.id).bind(2, token.pending_hash).run());
        stale_hashes = {token.hash, token.pending_hash};
    }
    invalidate(stale_hashes);
    return Status::Ok();
}

Result<TokenInfo> TokenStore::validate(std::string_view raw, TokenRejection* rejection) {
    TokenRejection ignored = TokenRejection::kNone;
    TokenRejection& why = rejection != nullptr ? *rejection : ignored;
    why = TokenRejection::kMalformed;
    // Checked before hashing so oversized input costs nothing.
    if (raw.size() > kPresentedTokenMaxLength) {
        return Status::Unauthenticated("presented token is too long");
    }
    if (!looks_like_api_token(raw)) return Status::Unauthenticated("malformed token");

    // Keyed by the hash, never by the raw secret: timing of the map lookup can
    // reveal at most something about a SHA-256 value, not the secret.
    const std::string hash = sha256_hex(raw);
    const int64_t now_ms = clock_.now_ms();
    uint64_t generation = 0;
    std::optional<TokenInfo> cached;
    {
        std::lock_guard lock(cache_mu_);
        auto it = cache_.find(hash);
        if (it != cache_.end()) {
            if (now_ms < it->second.valid_until_ms) {
                cached = it->second.info;
            } else {
                cache_.erase(it);
            }
        }
        generation = generation_;
    }
    if (cached) {
        why = TokenRejection::kNone;
        touch_last_used(*cached, hash, now_ms / 1000);
        return std::move(*cached);
    }
    return validate_uncached(hash, now_ms, generation, why);
}

Result<TokenInfo> TokenStore::validate_uncached(const std::string& hash, int64_t now_ms,
                                                uint64_t generation, TokenRejection& why) {
    why = TokenRejection::kUnavailable;  // until the row has been read
    const int64_t now_s = now_ms / 1000;
    std::optional<TokenRow> found;
    {
        auto conn = db_.read();
        auto stmt = conn.prepare(select_rows("WHERE token_hash = ?1 OR pending_hash = ?1"));
        if (!stmt.ok()) return stmt.status();
        stmt->bind(1, hash);
        auto row = fetch_one(*stmt);
        if (!row.ok()) return row.status();
        found = std::move(*row);
    }
    if (!found) {
        why = TokenRejection::kUnknown;
        return Status::Unauthenticated("unknown token");
    }
    const TokenRow& token = *found;
    if (token.revoked) {
        why = TokenRejection::kRevoked;
        return Status::Unauthenticated("token revoked");
    }
    if (is_expired(token.expires_at, now_s)) {
        why = TokenRejection::kExpired;
        return Status::Unauthenticated("token expired");
    }

    const bool is_primary = constant_time_equal(token.hash, hash);
    if (!is_primary && !(token.has_pending() && constant_time_equal(token.pending_hash, hash))) {
        return Status::Internal("token lookup returned a row for another hash");
    }
    const bool retiring = is_primary && token.has_pending();
    if (retiring && now_s >= token.rotation_deadline) {
        why = TokenRejection::kSuperseded;
        return Status::Unauthenticated("token secret superseded by rotation");
    }

    CacheEntry entry;
    entry.info = to_info(token, now_s);
    entry.valid_until_ms = now_ms + options_.cache_ttl_ms;
    if (token.expires_at != 0) {
        entry.valid_until_ms = std::min(entry.valid_until_ms, token.expires_at * 1000);
    }
    if (token.has_pending() && now_s < token.rotation_deadline) {
        // At the deadline the old secret dies and rotation_pending turns false.
        entry.valid_until_ms = std::min(entry.valid_until_ms, token.rotation_deadline * 1000);
    }
    touch_last_used(entry.info, hash, now_s);
    TokenInfo info = entry.info;
    cache_insert(hash, std::move(entry), generation, now_ms);
    why = TokenRejection::kNone;
    return info;
}

void TokenStore::touch_last_used(TokenInfo& info, const std::string& hash, int64_t now_s) {
    if (now_s - info.last_used_at_s < options_.last_used_resolution_s) return;
    {
        auto conn = db_.lock();
        auto update = conn.prepare(
            "UPDATE api_tokens SET last_used_at = ?1 WHERE token_id = ?2 AND last_used_at <= ?3");
        Status written = update.ok() ? update->bind(1, now_s)
                                           .bind(2, info.id)
                                           .bind(3, now_s - options_.last_used_resolution_s)
                                           .run()
                                     : update.status();
        if (!written.ok()) {
            // Bookkeeping only: the token is valid whether or not this lands.
            spdlog::warn("auth: could not record last use of API token {}: {}", info.id,
                         written.to_string());
            return;
        }
    }
    info.last_used_at_s = now_s;
    std::lock_guard lock(cache_mu_);
    auto it = cache_.find(hash);
    if (it != cache_.end()) it->second.info.last_used_at_s = now_s;
}

void TokenStore::invalidate(const std::vector<std::string>& hashes) {
    std::lock_guard lock(cache_mu_);
    for (const auto& hash : hashes) {
        if (!hash.empty()) cache_.erase(hash);
    }
    ++generation_;
}

void TokenStore::cache_insert(const std::string& hash, CacheEntry entry, uint64_t generation,
                              int64_t now_ms) {
    std::lock_guard lock(cache_mu_);
    // Something changed since this entry's row was read: it may be stale.
    if (generation != generation_) return;
    if (cache_.size() >= options_.cache_max_entries && !cache_.contains(hash)) {
        std::erase_if(cache_,
                      [now_ms](const auto& kv) { return now_ms >= kv.second.valid_until_ms; });
        if (cache_.size() >= options_.cache_max_entries) cache_.erase(cache_.begin());
    }
    cache_.insert_or_assign(hash, std::move(entry));
}

size_t TokenStore::cached_entries() const {
    std::lock_guard lock(cache_mu_);
    return cache_.size();
}

}  // namespace yuzu::auth
