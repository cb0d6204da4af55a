// The SELECT both ResponseStore::query() and aggregate() run: the responses
// of one execution, or of every execution whose command_id or
// definition_id is the instruction id, optionally of one agent and status,
// oldest first.
#pragma once

#include <string>

#include "yuzu/common/status.hpp"
#include "yuzu/execution/response_store.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::execution {

struct ResponseSelection {
    std::string execution_id;
    std::string instruction_id;
    std::string agent_id;
    std::string status;
    int64_t sql_limit = -1;  // -1 = no limit
};

// InvalidArgument when neither id is given or the status is unknown.
Status check_selection(const ResponseSelection& selection);
// The prepared, bound statement; read rows with read_response().
Result<store::Statement> select_responses(store::Conn& conn, const ResponseSelection& selection);
ResponseRow read_response(const store::Statement& stmt);

}  // namespace yuzu::execution
