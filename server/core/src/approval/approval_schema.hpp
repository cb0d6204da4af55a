// The migrations of approvals.db. Private to the approval module.
//
// Version 1 creates approvals: one row per ticket, `seq` giving a stable
// newest-first order for paging. A CHECK ties consumed_at_ms to the consumed
// state, and a trigger refuses any change to a row in a final state
// (rejected, expired, consumed), so a bug cannot revive a used ticket.
#pragma once

#include <span>

#include "yuzu/store/migrations.hpp"

namespace yuzu::approval {

std::span<const store::Migration> approval_migrations();

}  // namespace yuzu::approval
