// auth.db version 1: users, global role assignments, management groups, their
// members and group-scoped role assignments; version 3: login locks that end
// by themselves.
//
// Role names are not foreign keys: roles are compiled in (roles.cpp) and the
// stores validate names before writing. Group-role principals are not foreign
// keys either, because principal_type leaves room for principals other than
// users. Times are Unix milliseconds.
#include "yuzu/auth/auth_schema.hpp"

namespace yuzu::auth {

const store::Migration kIdentitySchemaMigration = {
    1,
    "create_identity",
    R"sql(
CREATE TABLE users (
    username TEXT PRIMARY KEY,
    password_hash TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    password_changed_at_ms INTEGER NOT NULL,
    failed_logins INTEGER NOT NULL DEFAULT 0 CHECK (failed_logins >= 0),
    locked INTEGER NOT NULL DEFAULT 0 CHECK (locked IN (0, 1)),
    locked_at_ms INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE user_roles (
    username TEXT NOT NULL REFERENCES users(username) ON DELETE CASCADE,
    role_name TEXT NOT NULL,
    granted_at_ms INTEGER NOT NULL,
    PRIMARY KEY (username, role_name)
);

-- parent_id is NULL only for the root group; the API shows it as "".
CREATE TABLE management_groups (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    parent_id TEXT REFERENCES management_groups(id),
    membership_type TEXT NOT NULL CHECK (membership_type IN ('static', 'dynamic')),
    scope_expression TEXT NOT NULL DEFAULT '',
    created_by TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    CHECK ((id = '000000000000') = (parent_id IS NULL)),
    UNIQUE (parent_id, name)
);
CREATE INDEX management_groups_by_parent ON management_groups(parent_id);

CREATE TABLE management_group_members (
    group_id TEXT NOT NULL REFERENCES management_groups(id) ON DELETE CASCADE,
    agent_id TEXT NOT NULL,
    source TEXT NOT NULL CHECK (source IN ('static', 'dynamic')),
    added_at_ms INTEGER NOT NULL,
    PRIMARY KEY (group_id, agent_id)
);
CREATE INDEX management_group_members_by_agent ON management_group_members(agent_id);

CREATE TABLE management_group_roles (
    group_id TEXT NOT NULL REFERENCES management_groups(id) ON DELETE CASCADE,
    principal_type TEXT NOT NULL,  -- 'user' today; validated by ManagementGroupStore
    principal_id TEXT NOT NULL,
    role_name TEXT NOT NULL,
    granted_at_ms INTEGER NOT NULL,
    PRIMARY KEY (group_id, principal_type, principal_id, role_name)
);
CREATE INDEX management_group_roles_by_principal
    ON management_group_roles(principal_type, principal_id);

-- The root group: every agent belongs to it implicitly.
INSERT INTO management_groups(id, name, description, parent_id, membership_type,
                              scope_expression, created_by, created_at_ms, updated_at_ms)
VALUES ('000000000000', 'All devices', 'Every agent, whatever group it is in', NULL,
        'static', '', 'system', CAST(strftime('%s', 'now') AS INTEGER) * 1000,
        CAST(strftime('%s', 'now') AS INTEGER) * 1000);
)sql",
};

// Version 3. Before it a lock lasted until an administrator cleared it, so
// five wrong passwords for the only administrator locked everybody out for
// good. Now a lock ends at locked_until_ms (UserStore's back-off), and the
// old `locked` flag is neither read nor written; it stays only because
// dropping a column means rebuilding the table.
const store::Migration kLockExpiryMigration = {
    3,
    "lock_expiry",
    R"sql(
ALTER TABLE users ADD COLUMN locked_until_ms INTEGER NOT NULL DEFAULT 0;

-- A lock from before version 3 ends as the first step of the back-off would
-- have ended it, 60 s after it began, so an upgrade frees a locked account.
UPDATE users SET locked_until_ms = locked_at_ms + 60000 WHERE locked = 1;
UPDATE users SET locked = 0;
)sql",
};

}  // namespace yuzu::auth
