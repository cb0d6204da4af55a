// The built-in instruction catalogue: one definition per plugin action the
// agent ships (agent/src/plugins), with the JSON Schema of its parameters and
// the columns of its result. DefinitionStore::seed_builtins() inserts them.
#pragma once

#include <vector>

#include "yuzu/execution/definition_store.hpp"

namespace yuzu::execution {

// Valid specs (the definition store's tests check each one); ids are
// "plugin.action".
const std::vector<DefinitionSpec>& builtin_definitions();

}  // namespace yuzu::execution
