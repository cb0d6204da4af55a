#include "fleet/fleet_schema.hpp"

#include <array>

namespace yuzu::fleet {
namespace {

// Times are Unix milliseconds. Secrets are never stored: tokens appear only
// as their SHA-256 (hex). Every per-agent table cascades from agents so a
// removed agent leaves nothing behind.
//
// agents.signed_off is set by a clean "goodbye" and cleared when the agent is
// seen again; "online" is computed at read time from last_seen_ms.
// The perf_* columns are NULL when the agent could not measure the value (or
// sent no sample at its last heartbeat; then perf_at_ms is NULL too).
constexpr store::Migration kCreateFleet{1, "create_fleet",
                                        R"sql(
CREATE TABLE agents(
    agent_id            TEXT PRIMARY KEY,
    hostname            TEXT NOT NULL,
    os                  TEXT NOT NULL,
    os_version          TEXT NOT NULL,
    arch                TEXT NOT NULL,
    version             TEXT NOT NULL,
    source_ip           TEXT NOT NULL,
    enrollment_token_id TEXT NOT NULL,
    enrolled_at_ms      INTEGER NOT NULL,
    first_seen_ms       INTEGER NOT NULL,
    last_seen_ms        INTEGER NOT NULL,
    signed_off          INTEGER NOT NULL DEFAULT 0 CHECK (signed_off IN (0, 1)),
    signed_off_at_ms    INTEGER NOT NULL DEFAULT 0,
    uptime_s            INTEGER NOT NULL DEFAULT -1,
    perf_at_ms          INTEGER,
    perf_cpu_pct        REAL,
    perf_mem_used_pct   REAL,
    perf_disk_used_pct  REAL,
    perf_load1          REAL,
    quarantined         INTEGER NOT NULL DEFAULT 0 CHECK (quarantined IN (0, 1)),
    quarantine_reason   TEXT NOT NULL DEFAULT '',
    quarantined_by      TEXT NOT NULL DEFAULT '',
    quarantined_at_ms   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX agents_by_hostname ON agents(hostname);

CREATE TABLE device_tokens(
    token_hash    TEXT PRIMARY KEY,
    agent_id      TEXT NOT NULL REFERENCES agents(agent_id) ON DELETE CASCADE,
    created_at_ms INTEGER NOT NULL,
    revoked_at_ms INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX device_tokens_by_agent ON device_tokens(agent_id);

CREATE TABLE enrollment_tokens(
    token_id      TEXT PRIMARY KEY,
    token_hash    TEXT NOT NULL UNIQUE,
    created_by    TEXT NOT NULL,
    note          TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    expires_at_ms INTEGER NOT NULL,
    max_uses      INTEGER NOT NULL CHECK (max_uses >= 0),
    uses          INTEGER NOT NULL DEFAULT 0 CHECK (uses >= 0),
    revoked       INTEGER NOT NULL DEFAULT 0 CHECK (revoked IN (0, 1)),
    revoked_at_ms INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE inventory(
    agent_id        TEXT NOT NULL REFERENCES agents(agent_id) ON DELETE CASCADE,
    source          TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('ok', 'unavailable')),
    reason          TEXT NOT NULL,
    data_json       TEXT NOT NULL,
    collected_at_ms INTEGER NOT NULL,
    received_at_ms  INTEGER NOT NULL,
    PRIMARY KEY (agent_id, source)
);
CREATE INDEX inventory_by_source ON inventory(source, agent_id);

CREATE TABLE installed_software(
    agent_id TEXT NOT NULL REFERENCES agents(agent_id) ON DELETE CASCADE,
    name     TEXT NOT NULL,
    version  TEXT NOT NULL,
    arch     TEXT NOT NULL,
    PRIMARY KEY (agent_id, name, version, arch)
);
CREATE INDEX installed_software_by_name ON installed_software(name, agent_id);

CREATE TABLE tags(
    agent_id      TEXT NOT NULL REFERENCES agents(agent_id) ON DELETE CASCADE,
    key           TEXT NOT NULL,
    value         TEXT NOT NULL,
    source        TEXT NOT NULL CHECK (source IN ('api', 'mcp', 'agent')),
    updated_at_ms INTEGER NOT NULL,
    PRIMARY KEY (agent_id, key)
);
CREATE INDEX tags_by_key ON tags(key, value);
)sql"};

// The digest of an agent's last full inventory report: a later report with
// the same digest is confirmed without its sources (docs/agent-protocol.md).
constexpr store::Migration kInventoryDigests{2, "inventory_digests",
                                             R"sql(
CREATE TABLE inventory_digests(
    agent_id       TEXT PRIMARY KEY REFERENCES agents(agent_id) ON DELETE CASCADE,
    sha256         TEXT NOT NULL,
    received_at_ms INTEGER NOT NULL
);
)sql"};

}  // namespace

std::span<const store::Migration> fleet_migrations() {
    static const std::array<store::Migration, 2> kMigrations = {kCreateFleet, kInventoryDigests};
    return kMigrations;
}

}  // namespace yuzu::fleet
