#include "approval_schema.hpp"

#include <array>

namespace yuzu::approval {
namespace {

constexpr store::Migration kCreateApprovals{1, "create_approvals",
                                            R"sql(
CREATE TABLE approvals(
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
    id               TEXT NOT NULL UNIQUE CHECK (length(id) = 32),
    definition_id    TEXT NOT NULL,
    submitted_by     TEXT NOT NULL,
    scope_expression TEXT NOT NULL,
    surface          TEXT NOT NULL CHECK (surface IN ('mcp', 'rest', 'schedule')),
    state            TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'rejected',
                                                    'expired', 'consumed')),
    reviewer         TEXT NOT NULL DEFAULT '',
    comment          TEXT NOT NULL DEFAULT '',
    created_at_ms    INTEGER NOT NULL,
    decided_at_ms    INTEGER NOT NULL DEFAULT 0,
    consumed_at_ms   INTEGER,
    CHECK ((state = 'consumed') = (consumed_at_ms IS NOT NULL))
);
CREATE INDEX approvals_by_state ON approvals(state, created_at_ms);
CREATE INDEX approvals_by_submitter ON approvals(submitted_by, definition_id, state);

CREATE TRIGGER approvals_final_states BEFORE UPDATE ON approvals
WHEN OLD.state IN ('rejected', 'expired', 'consumed')
BEGIN
    SELECT RAISE(ABORT, 'an approval in a final state cannot change');
END;
)sql"};

}  // namespace

std::span<const store::Migration> approval_migrations() {
    static const std::array<store::Migration, 1> kMigrations = {kCreateApprovals};
    return kMigrations;
}

}  // namespace yuzu::approval
