#include "yuzu/mcp/agentic/agentic_json.hpp"

#include <nlohmann/json.hpp>

namespace yuzu::mcp::agentic {

nlohmann::json to_json(const ConnectorGap& gap) {
    return {{"topic", gap.topic},
            {"connector", gap.connector},
            {"what_it_would_add", gap.what_it_would_add}};
}

nlohmann::json to_json(const Playbook& playbook) {
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& s : playbook.steps) {
        steps.push_back({{"tool", s.tool},
                         {"purpose", s.purpose},
                         {"arguments", nlohmann::json::parse(s.arguments_json)},
                         {"mutating", s.mutating}});
    }
    return {{"name", playbook.name},
            {"title", playbook.title},
            {"category", playbook.category},
            {"aliases", playbook.aliases},
            {"classification", question_class_name(playbook.question_class)},
            {"expected_first_tool", playbook.expected_first_tool},
            {"connector",
             playbook.connector ? nlohmann::json(*playbook.connector) : nlohmann::json(nullptr)},
            {"summary", playbook.summary},
            {"steps", std::move(steps)},
            {"safety", playbook.safety}};
}

}  // namespace yuzu::mcp::agentic
