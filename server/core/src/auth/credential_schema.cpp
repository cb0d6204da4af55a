// Migration 2 of auth.db: the credential half of the identity layer.
//
// Secrets never reach these tables in the clear: API tokens and web session
// cookies are stored as SHA-256 hex of the raw value, TOTP seeds sealed with
// SecretBox. Owners and usernames are plain text without foreign keys to the
// users table, so that deleting a user is an explicit decision of the caller
// (revoke tokens, destroy sessions, reset MFA) and not a cascade.
#include "yuzu/auth/auth_schema.hpp"

namespace yuzu::auth {

const store::Migration kCredentialSchemaMigration{2, "create_credentials",
                                                  R"sql(
CREATE TABLE api_tokens(
    token_id            TEXT PRIMARY KEY,            -- display id: first 24 hex of sha256(first secret)
    token_hash          TEXT NOT NULL UNIQUE,        -- sha256 hex of the primary secret
    pending_hash        TEXT UNIQUE,                 -- sha256 hex of a rotated-in secret, until confirmed
    pending_created_at  INTEGER NOT NULL DEFAULT 0,  -- unix s when the pending secret was issued
    rotation_deadline   INTEGER NOT NULL DEFAULT 0,  -- unix s when the primary secret stops validating
    name                TEXT NOT NULL,
    owner               TEXT NOT NULL,
    mcp_tier            TEXT NOT NULL DEFAULT ''
                        CHECK (mcp_tier IN ('', 'readonly', 'operator', 'supervised')),
    created_at          INTEGER NOT NULL,            -- unix s
    expires_at          INTEGER NOT NULL DEFAULT 0,  -- unix s; 0 = never
    last_used_at        INTEGER NOT NULL DEFAULT 0,  -- unix s; 0 = never used
    revoked             INTEGER NOT NULL DEFAULT 0 CHECK (revoked IN (0, 1)),
    revoked_at          INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX api_tokens_by_owner ON api_tokens(owner, created_at);

CREATE TABLE web_sessions(
    session_id          TEXT PRIMARY KEY,            -- first 16 hex of sha256(cookie secret)
    secret_hash         TEXT NOT NULL UNIQUE,        -- sha256 hex of the cookie secret
    username            TEXT NOT NULL,
    csrf_token          TEXT NOT NULL,
    source_ip           TEXT NOT NULL DEFAULT '',
    user_agent          TEXT NOT NULL DEFAULT '',
    created_at_ms       INTEGER NOT NULL,
    last_seen_at_ms     INTEGER NOT NULL,
    mfa_verified_at_ms  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX web_sessions_by_user ON web_sessions(username);
CREATE INDEX web_sessions_by_created ON web_sessions(created_at_ms);
CREATE INDEX web_sessions_by_last_seen ON web_sessions(last_seen_at_ms);

CREATE TABLE totp_factors(
    username            TEXT PRIMARY KEY,
    sealed_secret       TEXT NOT NULL,               -- SecretBox, associated data "totp:" + username
    state               TEXT NOT NULL CHECK (state IN ('pending', 'active')),
    last_used_step      INTEGER NOT NULL DEFAULT -1, -- highest TOTP step ever accepted
    created_at_ms       INTEGER NOT NULL,
    activated_at_ms     INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE totp_failures(
    username            TEXT NOT NULL,
    failed_at_ms        INTEGER NOT NULL
);
CREATE INDEX totp_failures_by_user ON totp_failures(username, failed_at_ms);
)sql"};

}  // namespace yuzu::auth
