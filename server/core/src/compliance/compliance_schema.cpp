#include "compliance/compliance_schema.hpp"

#include <array>
#include <cassert>
#include <nlohmann/json.hpp>

#include "yuzu/auth/random.hpp"
#include "yuzu/common/json_text.hpp"
#include "yuzu/compliance/rule.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::compliance {
namespace {

// Times are Unix milliseconds. A policy's rule is stored as its canonical
// JSON (to_json(Rule)). Results hold the latest evaluation only: each
// evaluation of a policy replaces all of its rows, and deleting a policy
// deletes its results.
constexpr store::Migration kCreateCompliance{1, "create_compliance",
                                             R"sql(
CREATE TABLE policies(
    policy_id        TEXT PRIMARY KEY,
    name             TEXT NOT NULL UNIQUE,
    description      TEXT NOT NULL DEFAULT '',
    enabled          INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    scope_expression TEXT NOT NULL DEFAULT '',
    rule_json        TEXT NOT NULL,
    created_by       TEXT NOT NULL,
    created_at_ms    INTEGER NOT NULL,
    updated_at_ms    INTEGER NOT NULL
);
CREATE TABLE results(
    policy_id       TEXT NOT NULL REFERENCES policies(policy_id) ON DELETE CASCADE,
    agent_id        TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('compliant', 'non_compliant', 'unknown')),
    detail          TEXT NOT NULL,
    evaluated_at_ms INTEGER NOT NULL,
    PRIMARY KEY (policy_id, agent_id)
) WITHOUT ROWID;
CREATE INDEX results_by_agent ON results(agent_id);
CREATE TABLE store_state(
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
INSERT INTO store_state(key, value) VALUES('seed_pending', '1');
)sql"};

constexpr std::array<store::Migration, 1> kMigrations{kCreateCompliance};

struct Seed {
    const char* name;
    const char* description;
    const char* rule;
};

// Real checks over what agents report. "At least 10 % memory available" is
// not among them: it needs available_bytes / total_bytes, a ratio of two
// fields, which the rule language (a field against a constant) cannot say.
constexpr std::array<Seed, 3> kSeeds{{
    {"No pending reboot",
     "The host does not need a reboot to finish installing updates "
     "(reboot_pending.pending is false).",
     R"({"source": "reboot_pending", "select": [],
         "assert": {"field": "pending", "op": "eq", "value": false}, "mode": "all"})"},
    {"Root filesystem below 90 %",
     "The filesystem mounted at / is less than 90 % full (disks, used_pct as "
     "df reports it).",
     R"({"source": "disks", "select": [{"field": "mount", "op": "eq", "value": "/"}],
         "assert": {"field": "used_pct", "op": "lt", "value": 90}, "mode": "all"})"},
    {"sshd not listening on all IPv4 addresses",
     "Nothing listens on TCP port 22 bound to 0.0.0.0; SSH should be bound to "
     "a management "
     "address only.",
     R"({"source": "listening_sockets",
         "select": [{"field": "port", "op": "eq", "value": 22},
                    {"field": "address", "op": "eq", "value": "0.0.0.0"}],
         "assert": null, "mode": "none"})"},
}};

}  // namespace

std::span<const store::Migration> compliance_migrations() {
    return kMigrations;
}

Status seed_policies_once(store::Database& db, const Clock& clock) {
    auto conn = db.lock();
    auto tx = conn.transaction();
    if (!tx.ok()) return tx.status();
    auto pending = conn.prepare("SELECT 1 FROM store_state WHERE key = 'seed_pending'");
    if (!pending.ok()) return pending.status();
    auto row = pending->step();
    if (!row.ok()) return row.status();
    pending->reset();
    if (!*row) return Status::Ok();

    auto insert = conn.prepare(
        "INSERT INTO policies(policy_id, name, description, "
        "enabled, scope_expression, "
        "rule_json, created_by, created_at_ms, updated_at_ms) "
        "VALUES(?1, ?2, ?3, 1, '', ?4, 'system', ?5, ?5)");
    if (!insert.ok()) return insert.status();
    const int64_t now_ms = clock.now_ms();
    for (const Seed& seed : kSeeds) {
        auto rule = parse_rule_text(seed.rule);
        assert(rule.ok() && "a seeded rule must be valid");
        if (!rule.ok()) return Status::Internal("seeded policy rule: " + rule.status().message());
        auto id = auth::random_hex(6);
        if (!id.ok()) return id.status();
        insert->bind(1, *id).bind(2, seed.name).bind(3, seed.description);
        insert->bind(4, dump_json(to_json(*rule))).bind(5, now_ms);
        YUZU_RETURN_IF_ERROR(insert->run());
    }
    YUZU_RETURN_IF_ERROR(conn.exec("DELETE FROM store_state WHERE key = 'seed_pending'"));
    return tx.commit();
}

}  // namespace yuzu::compliance
