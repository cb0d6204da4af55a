// The question classifier and the playbook table, as pure functions.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "yuzu/mcp/agentic/playbooks.hpp"
#include "yuzu/mcp/agentic/question_classifier.hpp"

namespace yuzu::mcp::agentic {
namespace {

std::string class_of(std::string_view question) {
    return std::string(question_class_name(classify_question(question).question_class));
}

TEST(QuestionClassifier, EachClassFromItsKeywords) {
    EXPECT_EQ(class_of("Why is the OpenShift ingress cluster operator degraded?"),
              "requires_external_connector");
    EXPECT_EQ(class_of("patch and reboot the web servers tonight"), "unsafe_without_approval");
    EXPECT_EQ(class_of("docker buildx fails on the CI runners"), "answerable_with_live_dispatch");
    EXPECT_EQ(class_of("What is the weather in Leeds?"), "outside_yuzu_scope");
    EXPECT_EQ(class_of("How many agents run Debian 12?"), "answerable_now");
    EXPECT_EQ(class_of(""), "answerable_now");
}

TEST(QuestionClassifier, AChangeOutranksEverythingAndAConnectorOutranksADispatch) {
    // "restart" makes it unsafe even though postgres is a connector gap.
    const auto c = classify_question("Postgres is slow on db-02, restart it");
    EXPECT_EQ(c.question_class, QuestionClass::kUnsafeWithoutApproval);
    ASSERT_EQ(c.connector_gaps.size(), 1u);
    EXPECT_EQ(c.connector_gaps[0].topic, "database");
    EXPECT_EQ(class_of("the node pool on our kubernetes cluster"), "requires_external_connector");
}

TEST(QuestionClassifier, MatchesWholeWordsAndPhrasesWhateverTheCaseOrPunctuation) {
    EXPECT_EQ(class_of("pods in CrashLoopBackOff, again!"), "requires_external_connector");
    EXPECT_EQ(classify_question("pods in CrashLoopBackOff").matched_terms,
              (std::vector<std::string>{"crashloopbackoff", "pods"}));
    // "nodes" is not "node", "rebooting" is not "reboot", "vmstat" is not "vm".
    EXPECT_EQ(class_of("how many nodes report vmstat"), "answerable_now");
    EXPECT_EQ(class_of("Shut Down the printer service"), "unsafe_without_approval");
    EXPECT_EQ(class_of("lock-contention on the orders DB"), "requires_external_connector");
    // Bytes outside ASCII separate words; they never join or hide a keyword.
    EXPECT_EQ(class_of("\xE2\x82\xAC"
                       "reboot"
                       "\xE2\x82\xAC"),
              "unsafe_without_approval");
    EXPECT_EQ(class_of("re\xC3\xA9"
                       "boot"),
              "answerable_now");
}

TEST(QuestionClassifier, ACollaborationQuestionIsAnsweredFromEndpointsWithItsGapNamed) {
    const auto c = classify_question("Teams calls keep freezing in Leeds");
    EXPECT_EQ(c.question_class, QuestionClass::kAnswerableWithLiveDispatch);
    ASSERT_EQ(c.connector_gaps.size(), 1u);
    EXPECT_EQ(c.connector_gaps[0].topic, "teams_zoom");
    EXPECT_FALSE(c.rationale.empty());
}

TEST(QuestionClassifier, KnownConnectorGapsAreListedOnceEach) {
    std::set<std::string> topics;
    for (const auto& g : known_connector_gaps()) {
        EXPECT_TRUE(topics.insert(g.topic).second) << g.topic;
        EXPECT_FALSE(g.connector.empty());
        EXPECT_FALSE(g.what_it_would_add.empty());
    }
    EXPECT_TRUE(topics.count("openshift"));
    EXPECT_TRUE(topics.count("kvm_libvirt"));
    EXPECT_TRUE(topics.count("database"));
    EXPECT_TRUE(topics.count("teams_zoom"));
    EXPECT_TRUE(topics.count("registry"));
}

TEST(QuestionClassifier, QuestionWordsAreLowerCaseAsciiRuns) {
    EXPECT_EQ(question_words("  Node.js -- v20 "), (std::vector<std::string>{"node", "js", "v20"}));
    EXPECT_TRUE(question_words("\xFF\xFE").empty());
}

TEST(Playbooks, EightWithUniqueNamesCategoriesAndAliases) {
    ASSERT_EQ(playbooks().size(), 8u);
    std::set<std::string> keys;
    for (const auto& p : playbooks()) {
        SCOPED_TRACE(p.name);
        EXPECT_TRUE(keys.insert(p.name).second);
        EXPECT_TRUE(keys.insert(p.category).second);
        for (const auto& alias : p.aliases) EXPECT_TRUE(keys.insert(alias).second) << alias;
        EXPECT_EQ(p.expected_first_tool, "get_fleet_posture_fast");
        ASSERT_FALSE(p.steps.empty());
        EXPECT_EQ(p.steps.front().tool, p.expected_first_tool);
        EXPECT_FALSE(p.safety.empty());
        EXPECT_EQ(p.connector.has_value(),
                  p.question_class == QuestionClass::kRequiresExternalConnector);
        for (const auto& step : p.steps) {
            EXPECT_TRUE(nlohmann::json::accept(step.arguments_json)) << step.arguments_json;
            EXPECT_TRUE(nlohmann::json::parse(step.arguments_json).is_object());
        }
    }
    for (const char* name : {"openshift_cluster_operator_degraded", "container_build_failure",
                             "collaboration_quality_issue", "endpoint_security_client_outage",
                             "patch_or_reboot_risk", "database_client_or_host_bottleneck",
                             "java_node_service_degradation", "kvm_libvirt_host_issue"}) {
        EXPECT_TRUE(keys.count(name)) << name;
    }
}

TEST(Playbooks, FoundByNameCategoryOrAliasInAnyCaseWithSpacesOrHyphens) {
    auto by = [](std::string_view s) -> std::pair<std::string, std::string> {
        auto f = find_playbook(s);
        if (!f) return {"", ""};
        return {f->playbook->name, std::string(playbook_match_name(f->matched_by))};
    };
    EXPECT_EQ(by("patch_or_reboot_risk"),
              std::make_pair(std::string("patch_or_reboot_risk"), std::string("name")));
    EXPECT_EQ(by("Collaboration"),
              std::make_pair(std::string("collaboration_quality_issue"), std::string("category")));
    EXPECT_EQ(by("  postgres "), std::make_pair(std::string("database_client_or_host_bottleneck"),
                                                std::string("alias")));
    EXPECT_EQ(by("Spring Cloud Gateway").first, "java_node_service_degradation");
    EXPECT_EQ(by("check-point").first, "endpoint_security_client_outage");
    EXPECT_EQ(by("Check - Point").first, "endpoint_security_client_outage");
    EXPECT_EQ(by("patch  tuesday\r\n").first, "patch_or_reboot_risk");
    EXPECT_EQ(by("__postgres__").first, "database_client_or_host_bottleneck");
    EXPECT_EQ(by("a").first, "");
    EXPECT_EQ(by("").first, "");
    EXPECT_EQ(by("postgres; drop table").first, "");
}

}  // namespace
}  // namespace yuzu::mcp::agentic
