// The rules a definition must satisfy before it is stored. Returns the spec
// with its JSON re-serialised canonically, or InvalidArgument naming the
// first bad field.
#pragma once

#include "yuzu/common/status.hpp"
#include "yuzu/execution/definition_store.hpp"

namespace yuzu::execution {

Result<DefinitionSpec> validate_definition(const DefinitionSpec& spec);

}  // namespace yuzu::execution
