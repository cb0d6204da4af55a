// TokenStore: API and MCP bearer tokens kept in auth.db (table api_tokens).
//
// A raw token ("yuzu_" + 32 base62 characters) is returned exactly once, by
// create() or rotate(); only its SHA-256 is stored. A token's id is the display
// id of its first secret (first 24 hex of the hash) and never changes, not
// even across rotation.
//
// Rotation keeps a second, pending secret in the same row. Both secrets
// validate until confirm_rotation() makes the pending one primary, or until
// the grace period after the first unconfirmed rotate() has passed, after
// which the old secret stops validating on its own.
//
// validate() sits on every authenticated request, so a small in-memory cache
// of positive answers (keyed by the SHA-256 of the raw token) sits in front of
// SQLite. revoke(), rotate() and confirm_rotation() evict the token's entries
// before they return, and a generation counter stops a validate() that read
// the row before such a change from re-inserting what it read. A change made
// by another process is seen once an entry's TTL (60 s) has passed.
//
// Thread-safety: safe to call from any thread. The cache has its own mutex,
// never held while the Database's lock is taken.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::store {
class Database;
}

namespace yuzu::auth {

// An MCP token (non-empty tier) must expire no later than this after creation.
inline constexpr int64_t kMcpTokenMaxLifetimeS = 90LL * 24 * 3600;
inline constexpr size_t kTokenNameMaxLength = 128;
// Presented values longer than this are rejected before hashing.
inline constexpr size_t kPresentedTokenMaxLength = 256;

struct TokenInfo {
    std::string id;        // display id: first 24 hex of sha256(first secret)
    std::string name;      // 1..128 characters
    std::string owner;     // the username the token acts as
    std::string mcp_tier;  // "", "readonly", "operator", "supervised"
    int64_t created_at_s = 0;
    int64_t expires_at_s = 0;  // 0 = never
    int64_t last_used_at_s = 0;
    bool revoked = false;
    bool rotation_pending = false;  // a rotated-in secret awaits confirmation

    bool is_mcp() const { return !mcp_tier.empty(); }
};

// Why validate() refused a presented value (kNone when it accepted it).
enum class TokenRejection {
    kNone,
    kMalformed,  // not shaped like a token, or longer than kPresentedTokenMaxLength
    kUnknown,    // no token has this secret
    kRevoked,    // checked before expiry: a revoked token says revoked
    kExpired,
    kSuperseded,   // an old secret whose rotation grace period has passed
    kUnavailable,  // the store could not answer
};

struct CreatedToken {
    TokenInfo info;
    std::string secret;  // the raw token; shown to its owner once, never stored
};

struct TokenStoreOptions {
    int64_t rotation_grace_s = 24 * 3600;  // old secret's life after an unconfirmed rotate()
    int64_t cache_ttl_ms = 60'000;
    size_t cache_max_entries = 10'000;
    size_t max_active_tokens_per_owner = 100;
    int64_t last_used_resolution_s = 60;  // last_used_at is written at most this often
};

class TokenStore {
  public:
    // db must have auth.db's migrations applied and outlive the store; so must
    // clock.
    TokenStore(store::Database& db, const Clock& clock, TokenStoreOptions options = {});
    TokenStore(const TokenStore&) = delete;
    TokenStore& operator=(const TokenStore&) = delete;

    // A new token for owner. InvalidArgument for an empty or over-long name, an
    // unknown tier, an expiry in the past, or an MCP token whose expiry is not
    // within the next 90 days; ResourceExhausted if owner already has the
    // maximum number of active (unrevoked, unexpired) tokens; Unavailable if
    // no entropy is available.
    Result<CreatedToken> create(std::string_view owner, std::string_view name,
                                std::string_view mcp_tier, int64_t expires_at_s);

    // owner's tokens, newest first, revoked and expired ones included.
    Result<std::vector<TokenInfo>> list(std::string_view owner) const;
    // NotFound if no token has this id.
    Result<TokenInfo> get(std::string_view id) const;

    // Revokes the token for good. Only its owner or an admin may; anyone else
    // gets the same NotFound as for an unknown id. Revoking twice is Ok.
    Status revoke(std::string_view id, std::string_view actor, bool actor_is_admin);

    // Issues a new secret for the token, kept pending beside the current one.
    // Rotating again before confirming replaces the pending secret without
    // extending the old secret's deadline. Owner only (others: NotFound);
    // FailedPrecondition for a revoked or expired token.
    Result<CreatedToken> rotate(std::string_view id, std::string_view actor);
    // Makes the pending secret the only one. Owner only (others: NotFound);
    // FailedPrecondition if no rotation is pending or the token is revoked.
    Status confirm_rotation(std::string_view id, std::string_view actor);

    // The token a presented raw value stands for. Unauthenticated if it is
    // malformed, unknown, revoked, expired or a secret superseded by
    // rotation; the message says which (for logs), and so does *rejection
    // when given (for the caller's answer; kNone on success, kUnavailable
    // when the store itself failed). One lookup either way.
    Result<TokenInfo> validate(std::string_view raw, TokenRejection* rejection = nullptr);

    // Entries currently cached (for metrics and tests).
    size_t cached_entries() const;

  private:
    struct CacheEntry {
        TokenInfo info;
        int64_t valid_until_ms = 0;  // TTL, expiry and rotation deadline folded in
    };

    // generation: generation_ as read before the row was; see cache_insert().
    Result<TokenInfo> validate_uncached(const std::string& hash, int64_t now_ms,
                                        uint64_t generation, TokenRejection& why);
    // Writes last_used_at if the stored value is older than the resolution.
    void touch_last_used(TokenInfo& info, const std::string& hash, int64_t now_s);
    // Drops the cache entries of these hashes and bumps the generation.
    void invalidate(const std::vector<std::string>& hashes);
    // Inserts unless the generation moved on since the row was read.
    void cache_insert(const std::string& hash, CacheEntry entry, uint64_t generation,
                      int64_t now_ms);

    store::Database& db_;
    const Clock& clock_;
    const TokenStoreOptions options_;

    mutable std::mutex cache_mu_;
    // Guarded by cache_mu_:
    std::unordered_map<std::string, CacheEntry> cache_;  // key: sha256 hex of the raw token
    uint64_t generation_ = 0;  // bumped by every change that invalidates entries
};

}  // namespace yuzu::auth
