// The enterprise-it-v1 golden prompt pack: realistic incident questions with
// the first tool, the allowed tool path at a stated tier, the rubric and the
// safety behaviour (server/core/src/mcp/agentic/enterprise-it-v1.json,
// compiled in). Served as yuzu://golden-prompts/enterprise-it-v1 and
// replayed against a live server by tests/e2e/sdk_agentic.mjs.
#pragma once

#include <string_view>

namespace yuzu::mcp::agentic {

// The pack's JSON text, exactly as in the repo.
std::string_view golden_pack_enterprise_it_v1();

}  // namespace yuzu::mcp::agentic
