// The migrations of fleet.db, oldest first. Private to the fleet module:
// Fleet::open() applies them; tests use them to build a store by hand.
#pragma once

#include <span>

#include "yuzu/store/migrations.hpp"

namespace yuzu::fleet {

std::span<const store::Migration> fleet_migrations();

}  // namespace yuzu::fleet
