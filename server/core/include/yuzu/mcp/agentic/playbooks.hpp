// The incident playbooks: eight enterprise incident shapes, each with the
// tool to call first, the read-only steps that gather endpoint evidence, and
// the safety rules for any change. They name tools and inventory sources,
// never findings: every fact an LLM reports comes from calling the steps on
// the live fleet.
//
// Thread-safety: immutable static data; safe from any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "yuzu/mcp/agentic/question_classifier.hpp"

namespace yuzu::mcp::agentic {

struct PlaybookStep {
    std::string tool;
    std::string purpose;
    // Example arguments as JSON text ("{}" when none are needed).
    std::string arguments_json = "{}";
    // The step changes endpoints: it must go through an approval ticket.
    bool mutating = false;
};

struct Playbook {
    std::string name;  // "patch_or_reboot_risk"
    std::string title;
    std::string category;  // unique across playbooks
    std::vector<std::string> aliases;
    QuestionClass question_class = QuestionClass::kAnswerableNow;
    std::string expected_first_tool;
    std::optional<std::string> connector;  // set when the platform is a connector gap
    std::string summary;
    std::vector<PlaybookStep> steps;
    std::vector<std::string> safety;
};

// In a stable order.
const std::vector<Playbook>& playbooks();

enum class PlaybookMatch { kName, kCategory, kAlias };
std::string_view playbook_match_name(PlaybookMatch m);

struct FoundPlaybook {
    const Playbook* playbook = nullptr;
    PlaybookMatch matched_by = PlaybookMatch::kName;
};

// Exact match of `scenario`, read as lower-case ASCII words joined by "_"
// (so "Check-Point", "check point" and "check_point" agree), on a name, then
// a category, then an alias.
std::optional<FoundPlaybook> find_playbook(std::string_view scenario);

}  // namespace yuzu::mcp::agentic
