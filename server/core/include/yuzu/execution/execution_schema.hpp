// The migrations of executions.db, oldest first: instruction definitions;
// executions, per-agent states and responses; bundles; quarantine history.
#pragma once

#include <span>

#include "yuzu/store/migrations.hpp"

namespace yuzu::execution {

std::span<const store::Migration> execution_migrations();

}  // namespace yuzu::execution
