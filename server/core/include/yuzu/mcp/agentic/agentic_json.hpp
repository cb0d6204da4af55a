// The agentic layer's data as JSON, written once for the tools and the
// resources that show it.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "yuzu/mcp/agentic/playbooks.hpp"
#include "yuzu/mcp/agentic/question_classifier.hpp"

namespace yuzu::mcp::agentic {

// {topic, connector, what_it_would_add}
nlohmann::json to_json(const ConnectorGap& gap);

// {name, title, category, aliases, classification, expected_first_tool,
//  connector (null when none), summary, steps [{tool, purpose, arguments,
//  mutating}], safety}
nlohmann::json to_json(const Playbook& playbook);

}  // namespace yuzu::mcp::agentic
