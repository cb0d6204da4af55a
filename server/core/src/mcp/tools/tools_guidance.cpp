// The agentic guidance tools: classify_operational_question (is a question
// safe, answerable now, a dispatch, or a connector gap?) and
// get_incident_playbook (the eight incident playbooks). Both are advisory
// and read-only; neither reads fleet data nor decides anything the tier
// policy, RBAC or approvals decide.
#include "agentic_tool_support.hpp"
#include "yuzu/mcp/agentic/agentic_json.hpp"
#include "yuzu/mcp/agentic/playbooks.hpp"
#include "yuzu/mcp/agentic/question_classifier.hpp"
#include "yuzu/mcp/yuzu_catalogue.hpp"

namespace yuzu::mcp {
namespace {

using agentic::QuestionClass;
using auth::Operation;
using auth::Permission;
using auth::Securable;
using nlohmann::json;

const Permission kInfraRead{Securable::kInfrastructure, Operation::kRead};
constexpr int kMaxQuestionChars = 2048;

const json kClassEnum = {"unsafe_without_approval", "requires_external_connector",
                         "answerable_with_live_dispatch", "outside_yuzu_scope", "answerable_now"};

// The playbook a question names by one of its words or word pairs (an
// alias such as "postgres" or a name), if any. Categories are plain words
// ("endpoint", "security") that name no incident on their own.
const agentic::Playbook* playbook_named_in(const std::string& question) {
    auto named = [](const std::string& key) -> const agentic::Playbook* {
        auto p = agentic::find_playbook(key);
        if (!p || p->matched_by == agentic::PlaybookMatch::kCategory) return nullptr;
        return p->playbook;
    };
    const auto words = agentic::question_words(question);
    for (size_t i = 0; i < words.size(); ++i) {
        if (i + 1 < words.size()) {
            if (const auto* p = named(words[i] + "_" + words[i + 1])) return p;
        }
        if (const auto* p = named(words[i])) return p;
    }
    return nullptr;
}

// Read-only tools that fit each class; the caller's tier filters them.
json next_tools_for(QuestionClass c, const agentic::Playbook* playbook) {
    json out = json::array();
    auto add = [&out](const char* tool, json args, const char* reason) {
        out.push_back({{"tool", tool}, {"arguments", std::move(args)}, {"reason", reason}});
    };
    add("get_fleet_posture_fast", json::object(),
        "the fleet as it is now, and what is not collected");
    if (playbook != nullptr && c != QuestionClass::kOutsideYuzuScope) {
        add("get_incident_playbook", {{"scenario", playbook->name}},
            "the incident's safe order of steps");
    }
    switch (c) {
        case QuestionClass::kUnsafeWithoutApproval:
            add("preview_scope_targets", {{"expression", "<the narrowed scope>"}},
                "exactly which agents a change would reach");
            add("list_pending_approvals", json::object(), "tickets already waiting for a person");
            break;
        case QuestionClass::kRequiresExternalConnector:
            add("query_installed_software", {{"name", "<the platform's package>"}},
                "which endpoints run the platform");
            add("list_dex_perf_devices", {{"metric", "cpu"}},
                "host-side pressure on those endpoints");
            break;
        case QuestionClass::kAnswerableWithLiveDispatch:
            add("list_definitions", json::object(),
                "the read-only instructions that can be dispatched");
            add("query_inventory", {{"source", "processes"}},
                "the stored reading, to narrow targets before a dispatch");
            break;
        case QuestionClass::kOutsideYuzuScope:
            break;
        case QuestionClass::kAnswerableNow:
            add("list_agents", json::object(), "the agents you can see");
            add("list_inventory_tables", json::object(), "which inventory sources are reported");
            add("get_fleet_compliance", json::object(), "compliance counts");
            break;
    }
    return out;
}

ToolSpec classify_tool(const ToolCatalogue& tools) {
    ToolSpec spec;
    spec.name = "classify_operational_question";
    spec.title = "Classify an operational question";
    spec.description =
        "Advisory: reads a user's question and says whether it asks for a change "
        "(unsafe_without_approval), needs a platform Yuzu does not see "
        "(requires_external_connector), needs a fresh read-only dispatch to endpoints "
        "(answerable_with_live_dispatch), is not about endpoints (outside_yuzu_scope), or can "
        "be answered from what Yuzu already holds (answerable_now); with the rationale, the "
        "connector gaps it touches, the safe first tool and read-only tools to call next. It "
        "decides nothing: tiers, RBAC and approvals still apply to every call.";
    spec.input_schema = {{"type", "object"},
                         {"properties",
                          {{"question",
                            {{"type", "string"},
                             {"minLength", 1},
                             {"maxLength", kMaxQuestionChars},
                             {"description", "the user's question, as data"}}}}},
                         {"required", {"question"}},
                         {"additionalProperties", false}};
    spec.output_schema = {
        {"type", "object"},
        {"properties",
         {{"classification", {{"type", "string"}, {"enum", kClassEnum}}},
          {"rationale", {{"type", "string"}}},
          {"matched_terms", {{"type", "array"}, {"items", {{"type", "string"}}}}},
          {"requires_connector", {{"type", "boolean"}}},
          {"connector_gaps", {{"type", "array"}, {"items", {{"type", "object"}}}}},
          {"safe_first_tool", {{"type", "string"}}},
          {"recommended_next_tools", next_tools_schema()},
          {"approval_required_before_execution", {{"type", "boolean"}}},
          {"dispatch_at_your_tier",
           {{"type", "string"}, {"enum", {"denied", "needs_approval", "runs_at_once"}}}},
          {"advisory", {{"type", "boolean"}, {"const", true}}}}},
        {"required",
         {"classification", "rationale", "matched_terms", "requires_connector", "connector_gaps",
          "safe_first_tool", "recommended_next_tools", "approval_required_before_execution",
          "dispatch_at_your_tier", "advisory"}}};
    spec.tier_key = kInfraRead;
    // It reads no fleet data, only the caller's question and tier.
    spec.access = ToolAccess{kInfraRead, AccessScope::kSelf, ""};
    spec.handler = [&tools](const ToolCall& call) -> Result<json> {
        const std::string question = call.arguments.at("question").get<std::string>();
        const auto c = agentic::classify_question(question);
        const agentic::Playbook* playbook = playbook_named_in(question);
        json gaps = json::array();
        for (const auto& g : c.connector_gaps) gaps.push_back(agentic::to_json(g));
        const std::string_view tier = call.principal.mcp_tier;
        return json{
            {"classification", agentic::question_class_name(c.question_class)},
            {"rationale", c.rationale},
            {"matched_terms", c.matched_terms},
            {"requires_connector", c.question_class == QuestionClass::kRequiresExternalConnector},
            {"connector_gaps", std::move(gaps)},
            {"safe_first_tool", "get_fleet_posture_fast"},
            {"recommended_next_tools",
             reachable_read_tools(tools, tier, next_tools_for(c.question_class, playbook))},
            {"approval_required_before_execution",
             c.question_class == QuestionClass::kUnsafeWithoutApproval},
            {"dispatch_at_your_tier", dispatch_at_tier(tier)},
            {"advisory", true}};
    };
    return spec;
}

ToolSpec playbook_tool(const ToolCatalogue& tools) {
    ToolSpec spec;
    spec.name = "get_incident_playbook";
    spec.title = "Incident playbook";
    spec.description =
        "One of eight incident playbooks by name, category or alias (e.g. "
        "patch_or_reboot_risk, database, postgres, teams, k8s): the first tool to call, the "
        "read-only steps that gather endpoint evidence with example arguments, which steps "
        "would change endpoints (mutating: true, always through an approval), whether the "
        "platform is a connector gap, and the safety rules. yuzu://demo/playbooks lists them "
        "all.";
    spec.input_schema = {{"type", "object"},
                         {"properties",
                          {{"scenario",
                            {{"type", "string"},
                             {"minLength", 1},
                             {"maxLength", kMaxQuestionChars},
                             {"description", "a playbook name, category or alias"}}}}},
                         {"required", {"scenario"}},
                         {"additionalProperties", false}};
    spec.output_schema = {
        {"type", "object"},
        {"properties",
         {{"scenario", {{"type", "string"}}},
          {"title", {{"type", "string"}}},
          {"category", {{"type", "string"}}},
          {"aliases", {{"type", "array"}, {"items", {{"type", "string"}}}}},
          {"matched_by", {{"type", "string"}, {"enum", {"name", "category", "alias"}}}},
          {"classification", {{"type", "string"}, {"enum", kClassEnum}}},
          {"expected_first_tool", {{"type", "string"}}},
          {"requires_connector", {{"type", "boolean"}}},
          {"connector", {{"type", {"string", "null"}}}},
          {"summary", {{"type", "string"}}},
          {"steps",
           {{"type", "array"},
            {"items",
             {{"type", "object"},
              {"properties",
               {{"tool", {{"type", "string"}}},
                {"purpose", {{"type", "string"}}},
                {"arguments", {{"type", "object"}}},
                {"mutating", {{"type", "boolean"}}},
                {"available_at_your_tier", {{"type", "boolean"}}}}},
              {"required",
               {"tool", "purpose", "arguments", "mutating", "available_at_your_tier"}}}}}},
          {"safety", {{"type", "array"}, {"items", {{"type", "string"}}}}}}},
        {"required",
         {"scenario", "title", "category", "aliases", "matched_by", "classification",
          "expected_first_tool", "requires_connector", "connector", "summary", "steps", "safety"}}};
    spec.tier_key = kInfraRead;
    spec.access = ToolAccess{kInfraRead, AccessScope::kSelf, ""};
    spec.checked_handler = [&tools](const ToolCall& call) -> std::variant<json, ToolFailure> {
        const std::string scenario = call.arguments.at("scenario").get<std::string>();
        auto found = agentic::find_playbook(scenario);
        if (!found) {
            return ToolFailure{Status::InvalidArgument("unknown playbook scenario"),
                               "pass a playbook name, category or alias from "
                               "yuzu://demo/playbooks",
                               std::nullopt, "unknown playbook scenario"};
        }
        const agentic::Playbook& p = *found->playbook;
        json out = agentic::to_json(p);
        out.erase("name");
        out["scenario"] = p.name;
        out["matched_by"] = agentic::playbook_match_name(found->matched_by);
        out["requires_connector"] = p.connector.has_value();
        // Which steps this caller's tier can call (possibly behind an approval).
        for (auto& step : out["steps"]) {
            const ToolSpec* spec = tools.find(step["tool"].get<std::string>());
            step["available_at_your_tier"] =
                spec != nullptr && tier_can_reach(*spec, call.principal.mcp_tier);
        }
        return out;
    };
    spec.describe = [](const ToolCall& call) {
        // The scenario is caller text: only a bounded, printable prefix.
        auto it = call.arguments.find("scenario");
        if (it == call.arguments.end() || !it->is_string()) return std::string();
        std::string s = it->get<std::string>().substr(0, 64);
        for (char& c : s) {
            if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
        }
        return "scenario=" +
               nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    };
    return spec;
}

}  // namespace

Status register_guidance_tools(ToolCatalogue& tools, const CatalogueDeps& /*deps*/) {
    YUZU_RETURN_IF_ERROR(tools.add(classify_tool(tools)));
    return tools.add(playbook_tool(tools));
}

}  // namespace yuzu::mcp
