// The SQL of executions.db. JSON columns hold text that the services parsed
// and re-serialised before writing; ids are lowercase hex as the services
// generate them. Per-agent rows and responses belong to their execution and
// go with it.
#include "yuzu/execution/execution_schema.hpp"

#include <array>

namespace yuzu::execution {
namespace {

constexpr store::Migration kDefinitionsMigration{1, "create_definitions", R"sql(
CREATE TABLE definitions(
    definition_id     TEXT PRIMARY KEY,
    name              TEXT NOT NULL,
    version           INTEGER NOT NULL DEFAULT 1,
    plugin            TEXT NOT NULL,
    action            TEXT NOT NULL,
    type              TEXT NOT NULL CHECK (type IN ('question', 'action')),
    description       TEXT NOT NULL DEFAULT '',
    parameter_schema  TEXT NOT NULL,             -- JSON Schema object
    result_columns    TEXT NOT NULL,             -- JSON array of {name, type}
    approval_mode     TEXT NOT NULL CHECK (approval_mode IN ('auto', 'role-gated', 'always')),
    destructive       INTEGER NOT NULL CHECK (destructive IN (0, 1)),
    enabled           INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    builtin           INTEGER NOT NULL CHECK (builtin IN (0, 1)),
    created_at_ms     INTEGER NOT NULL,
    updated_at_ms     INTEGER NOT NULL
);
CREATE UNIQUE INDEX definitions_by_plugin_action ON definitions(plugin, action);
)sql"};

constexpr store::Migration kExecutionsMigration{2, "create_executions", R"sql(
CREATE TABLE executions(
    seq               INTEGER PRIMARY KEY,       -- list order and cursor
    execution_id      TEXT NOT NULL UNIQUE,      -- 32 hex
    command_id        TEXT NOT NULL UNIQUE,      -- "<plugin>-<16 hex>", client-facing
    definition_id     TEXT NOT NULL DEFAULT '',
    plugin            TEXT NOT NULL,
    action            TEXT NOT NULL,
    params            TEXT NOT NULL,             -- JSON object
    scope_expression  TEXT NOT NULL DEFAULT '',
    dispatched_by     TEXT NOT NULL,
    dispatched_at_ms  INTEGER NOT NULL,
    timeout_ms        INTEGER NOT NULL,
    deadline_ms       INTEGER NOT NULL,
    status            TEXT NOT NULL CHECK (status IN ('running', 'succeeded',
                          'completed_with_errors', 'failed', 'cancelled')),
    completed_at_ms   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX executions_running ON executions(status, deadline_ms);
CREATE INDEX executions_by_definition ON executions(definition_id, seq);
CREATE INDEX executions_by_dispatcher ON executions(dispatched_by, seq);

CREATE TABLE execution_agents(
    execution_id      TEXT NOT NULL REFERENCES executions(execution_id) ON DELETE CASCADE,
    agent_id          TEXT NOT NULL,
    ordinal           INTEGER NOT NULL,          -- position in the dispatch request
    command_id        TEXT NOT NULL UNIQUE,      -- 32 hex: what the agent sees and answers
    state             TEXT NOT NULL CHECK (state IN ('dispatched', 'responded', 'failed',
                          'refused', 'timed_out', 'offline', 'dispatch_failed')),
    error             TEXT NOT NULL DEFAULT '',
    updated_at_ms     INTEGER NOT NULL,
    PRIMARY KEY (execution_id, agent_id)
) WITHOUT ROWID;

CREATE TABLE responses(
    response_id       INTEGER PRIMARY KEY,
    execution_id      TEXT NOT NULL REFERENCES executions(execution_id) ON DELETE CASCADE,
    agent_id          TEXT NOT NULL,
    status            TEXT NOT NULL CHECK (status IN ('success', 'failure', 'refused', 'timeout')),
    output            TEXT NOT NULL,             -- JSON
    error             TEXT NOT NULL DEFAULT '',
    duration_ms       INTEGER NOT NULL DEFAULT 0,
    received_at_ms    INTEGER NOT NULL,
    UNIQUE (execution_id, agent_id)
);
CREATE INDEX responses_by_agent ON responses(agent_id, received_at_ms);
)sql"};

constexpr store::Migration kBundlesMigration{3, "create_bundles", R"sql(
CREATE TABLE bundles(
    bundle_id         TEXT PRIMARY KEY,          -- "bundle-<32 hex>"
    agent_id          TEXT NOT NULL,
    owner             TEXT NOT NULL,
    step_count        INTEGER NOT NULL CHECK (step_count BETWEEN 1 AND 32),
    created_at_ms     INTEGER NOT NULL
);
CREATE INDEX bundles_by_owner ON bundles(owner, created_at_ms);

CREATE TABLE bundle_steps(
    bundle_id         TEXT NOT NULL REFERENCES bundles(bundle_id) ON DELETE CASCADE,
    step_index        INTEGER NOT NULL,
    plugin            TEXT NOT NULL,
    action            TEXT NOT NULL,
    params            TEXT NOT NULL,             -- JSON object
    execution_id      TEXT NOT NULL DEFAULT '',  -- '' until dispatched, or when dispatch failed
    dispatch_error    TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (bundle_id, step_index)
) WITHOUT ROWID;
)sql"};

constexpr store::Migration kQuarantineMigration{4, "create_quarantine_history",
                                                R"sql(
CREATE TABLE quarantine_history(
    event_id          INTEGER PRIMARY KEY,
    agent_id          TEXT NOT NULL,
    action            TEXT NOT NULL CHECK (action IN ('quarantine', 'release')),
    reason            TEXT NOT NULL DEFAULT '',
    actor             TEXT NOT NULL,
    at_ms             INTEGER NOT NULL
);
CREATE INDEX quarantine_history_by_agent ON quarantine_history(agent_id, event_id);
)sql"};

// How many agents of each execution are in each state, kept by triggers so
// that no code path can let it drift from execution_agents. Reading progress
// was a GROUP BY over every agent of the execution, which at 10,000 agents
// cost more than recording the answers did. The index serves a page of
// agents in dispatch order without sorting them all.
constexpr store::Migration kTalliesMigration{5, "create_execution_tallies", R"sql(
CREATE TABLE execution_tallies(
    execution_id      TEXT NOT NULL REFERENCES executions(execution_id) ON DELETE CASCADE,
    state             TEXT NOT NULL,
    agents            INTEGER NOT NULL,
    PRIMARY KEY (execution_id, state)
) WITHOUT ROWID;

INSERT INTO execution_tallies(execution_id, state, agents)
    SELECT execution_id, state, COUNT(*) FROM execution_agents GROUP BY execution_id, state;

-- get_execution_status reads a page of agents in dispatch order.
CREATE INDEX execution_agents_in_order ON execution_agents(execution_id, ordinal);

CREATE TRIGGER execution_agents_tally_insert AFTER INSERT ON execution_agents BEGIN
    INSERT INTO execution_tallies(execution_id, state, agents)
        VALUES(NEW.execution_id, NEW.state, 1)
        ON CONFLICT(execution_id, state) DO UPDATE SET agents = agents + 1;
END;

CREATE TRIGGER execution_agents_tally_update AFTER UPDATE OF state ON execution_agents
WHEN OLD.state <> NEW.state BEGIN
    UPDATE execution_tallies SET agents = agents - 1
        WHERE execution_id = OLD.execution_id AND state = OLD.state;
    INSERT INTO execution_tallies(execution_id, state, agents)
        VALUES(NEW.execution_id, NEW.state, 1)
        ON CONFLICT(execution_id, state) DO UPDATE SET agents = agents + 1;
END;

CREATE TRIGGER execution_agents_tally_delete AFTER DELETE ON execution_agents BEGIN
    UPDATE execution_tallies SET agents = agents - 1
        WHERE execution_id = OLD.execution_id AND state = OLD.state;
END;
)sql"};

}  // namespace

std::span<const store::Migration> execution_migrations() {
    static const std::array<store::Migration, 5> kMigrations = {
        kDefinitionsMigration, kExecutionsMigration, kBundlesMigration, kQuarantineMigration,
        kTalliesMigration};
    return kMigrations;
}

}  // namespace yuzu::execution
