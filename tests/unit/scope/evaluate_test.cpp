// Valid expressions evaluated against the test fleet (see test_fleet.hpp):
// each expectation lists the agents, in fleet order, the expression selects.
#include <gtest/gtest.h>

#include "test_fleet.hpp"
#include "yuzu/scope/scope.hpp"

namespace yuzu::scope {
namespace {

using testing::FakeAgent;
using testing::make_fleet;
using testing::matching;

TEST(ScopeEvaluate, EqualityIsCaseInsensitive) {
    EXPECT_EQ(matching(R"(os = "linux")"), "web1 web2");
    EXPECT_EQ(matching(R"(OS = "LINUX")"), "web1 web2");
    EXPECT_EQ(matching(R"(os != "linux")"), "db1 mac");
    EXPECT_EQ(matching(R"(hostname = "web-02")"), "web2");
    EXPECT_EQ(matching(R"(os = "")"), "");
}

TEST(ScopeEvaluate, BooleansCompareAsText) {
    EXPECT_EQ(matching("online = true"), "web1 db1 mac");
    EXPECT_EQ(matching("online = FALSE"), "web2");
    EXPECT_EQ(matching(R"(online = "true")"), "web1 db1 mac");
    EXPECT_EQ(matching("online != true"), "web2");
}

TEST(ScopeEvaluate, OrderingIsNumericWhenBothSidesAreNumbers) {
    EXPECT_EQ(matching("os_version > 12"), "web1 mac");
    EXPECT_EQ(matching("os_version >= 12"), "web1 web2 mac");
    EXPECT_EQ(matching("os_version < 12"), "db1");
    EXPECT_EQ(matching("os_version <= 10"), "db1");
    EXPECT_EQ(matching("tag:build.id > 8"), "web1");
    EXPECT_EQ(matching("tag:cost < 0"), "mac");
    EXPECT_EQ(matching("tag:cost >= -3.5"), "db1 mac");
    EXPECT_EQ(matching("tag:cost < -0"), "mac");
    EXPECT_EQ(matching("tag:cost > -4 AND tag:cost <= 100.0"), "db1 mac");
}

TEST(ScopeEvaluate, NumericEqualityComparesValues) {
    EXPECT_EQ(matching("os_version = 10"), "db1");
    EXPECT_EQ(matching("os_version = 022.04"), "web1");
    EXPECT_EQ(matching("tag:build.id = 42.000"), "web1");
    EXPECT_EQ(matching("tag:cost = -3.50"), "mac");
    EXPECT_EQ(matching("tag:cost != 100"), "mac");
}

TEST(ScopeEvaluate, OrderingIsLexicographicOtherwise) {
    // A quoted literal is text: "42" < "8" and "22.04" < "9".
    EXPECT_EQ(matching(R"(tag:build.id > "8")"), "");
    EXPECT_EQ(matching(R"(os_version > "9")"), "");
    EXPECT_EQ(matching(R"(os_version = "10")"), "");
    // "1.9.3" is not a number, so it sorts after "1.10" as text.
    EXPECT_EQ(matching("version >= 1.10 and version < 2"), "web1 web2 mac");
    EXPECT_EQ(matching(R"(agent_id < "a3")"), "web1 web2");
    EXPECT_EQ(matching(R"(hostname > "W")"), "web1 web2");
    EXPECT_EQ(matching(R"(hostname <= "WEB-01")"), "web1 db1 mac");
}

TEST(ScopeEvaluate, AndBindsTighterThanOr) {
    EXPECT_EQ(matching(R"(os = "linux" AND tag:env = "prod" OR hostname LIKE "mac%")"), "web1 mac");
    EXPECT_EQ(matching(R"(hostname LIKE "mac%" OR os = "linux" AND tag:env = "prod")"), "web1 mac");
    EXPECT_EQ(matching(R"(os = "windows" OR os = "darwin" AND arch = "arm64")"), "db1 mac");
}

TEST(ScopeEvaluate, NotBindsTightest) {
    EXPECT_EQ(matching(R"(NOT os = "linux" AND arch = "x86_64")"), "db1");
    EXPECT_EQ(matching(R"(NOT os = "linux" OR arch = "aarch64")"), "web2 db1 mac");
    EXPECT_EQ(matching(R"(NOT NOT os = "darwin")"), "mac");
}

TEST(ScopeEvaluate, ParenthesesOverridePrecedence) {
    EXPECT_EQ(matching(R"((os = "windows" OR os = "darwin") AND arch = "arm64")"), "mac");
    EXPECT_EQ(matching(R"(NOT (os = "linux" AND arch = "x86_64"))"), "web2 db1 mac");
    EXPECT_EQ(matching(R"(((((os = "darwin")))))"), "mac");
    EXPECT_EQ(matching(R"((os = "linux") AND (tag:env = "staging"))"), "web2");
}

TEST(ScopeEvaluate, InAndNotIn) {
    EXPECT_EQ(matching(R"(arch IN ("aarch64", "armv7l"))"), "web2");
    EXPECT_EQ(matching(R"(arch NOT IN ("aarch64", "armv7l"))"), "web1 db1 mac");
    EXPECT_EQ(matching(R"(NOT arch IN ("x86_64"))"), "web2 mac");
    EXPECT_EQ(matching(R"(agent_id IN ("A1", "a4"))"), "web1 mac");
    EXPECT_EQ(matching("os_version IN (12, 10)"), "web2 db1");
    EXPECT_EQ(matching("online IN (true)"), "web1 db1 mac");
    EXPECT_EQ(matching(R"(os in("darwin"))"), "mac");
}

TEST(ScopeEvaluate, LikeWildcards) {
    EXPECT_EQ(matching(R"(hostname LIKE "web-%")"), "web1 web2");
    EXPECT_EQ(matching(R"(hostname LIKE "WEB-0_")"), "web1 web2");
    EXPECT_EQ(matching(R"(hostname LIKE "web-0")"), "");
    EXPECT_EQ(matching(R"(hostname LIKE "%")"), "web1 web2 db1 mac");
    EXPECT_EQ(matching(R"(hostname LIKE "")"), "");
    EXPECT_EQ(matching(R"(hostname LIKE "____")"), "db1");
    EXPECT_EQ(matching(R"(hostname LIKE "db_1")"), "db1");
    EXPECT_EQ(matching(R"(hostname LIKE "mac%book")"), "mac");
    EXPECT_EQ(matching(R"(hostname LIKE "%%b%%o%%k")"), "mac");
    EXPECT_EQ(matching(R"(hostname LIKE "%1")"), "web1 db1");
    EXPECT_EQ(matching(R"(os_version LIKE "1%")"), "web2 db1 mac");
    EXPECT_EQ(matching(R"(hostname NOT LIKE "web%")"), "db1 mac");
}

TEST(ScopeEvaluate, ExistsAndNotExists) {
    EXPECT_EQ(matching("tag:owner EXISTS"), "web1");
    EXPECT_EQ(matching("tag:owner NOT EXISTS"), "web2 db1 mac");
    EXPECT_EQ(matching("NOT tag:owner EXISTS"), "web2 db1 mac");
    EXPECT_EQ(matching("tag:cost EXISTS AND tag:env EXISTS"), "db1");
    EXPECT_EQ(matching("os exists"), "web1 web2 db1 mac");
}

TEST(ScopeEvaluate, MissingAttributeFailsEveryPredicateButNotExists) {
    EXPECT_EQ(matching(R"(tag:owner = "alice")"), "web1");
    EXPECT_EQ(matching(R"(tag:owner != "bob")"), "web1");
    EXPECT_EQ(matching(R"(tag:owner NOT IN ("bob"))"), "web1");
    EXPECT_EQ(matching(R"(tag:owner NOT IN ("alice"))"), "");
    EXPECT_EQ(matching(R"(tag:owner NOT LIKE "bob")"), "web1");
    EXPECT_EQ(matching("tag:cost < 1000"), "db1 mac");
    // NOT of a failed predicate is still true.
    EXPECT_EQ(matching(R"(NOT tag:owner = "alice")"), "web2 db1 mac");
}

TEST(ScopeEvaluate, TagKeysWithDotsAndDashes) {
    EXPECT_EQ(matching("tag:build.id = 42"), "web1");
    EXPECT_EQ(matching("tag:build.id IN (42, 7)"), "web1 web2");
    EXPECT_EQ(matching(R"(tag:team-name LIKE "core%")"), "web1");
    EXPECT_EQ(matching("tag:a.b-c_d.9 EXISTS"), "");
    EXPECT_EQ(matching(R"(TAG:env = "PROD")"), "web1 db1");
    // The key is passed as written; this source's keys are case-sensitive.
    EXPECT_EQ(matching(R"(tag:ENV = "prod")"), "");
}

TEST(ScopeEvaluate, StringEscapes) {
    EXPECT_EQ(matching(R"(tag:team-name = "core \"infra\"")"), "web1");
    EXPECT_EQ(matching(R"(tag:team-name LIKE "%\"INFRA\"")"), "web1");
    EXPECT_EQ(matching(R"(tag:path = "c:\\DATA")"), "db1");
    EXPECT_EQ(matching(R"(hostname = "mac%book")"), "mac");
}

TEST(ScopeEvaluate, GroupsUseHasGroup) {
    EXPECT_EQ(matching(R"(group = "g-web")"), "web1");
    EXPECT_EQ(matching(R"(group = "g-root")"), "web1 web2 db1");
    EXPECT_EQ(matching(R"(group != "g-root")"), "mac");
    EXPECT_EQ(matching(R"(group IN ("g-web", "g-db"))"), "web1 db1");
    EXPECT_EQ(matching(R"(group NOT IN ("g-web", "g-db"))"), "web2 mac");
    EXPECT_EQ(matching(R"(NOT group = "g-db")"), "web1 web2 mac");
}

TEST(ScopeEvaluate, KeywordsAreCaseInsensitiveAndWhitespaceIsFree) {
    EXPECT_EQ(matching(R"(os = "linux" and NoT arch iN ("aarch64") oR tag:env exists)"),
              "web1 web2 db1");
    EXPECT_EQ(matching("\tos\n=\r\"linux\"  "), "web1 web2");
    EXPECT_EQ(matching(R"(os="linux"AND(arch="aarch64"))"), "web2");
}

TEST(ScopeEvaluate, HeaderExamples) {
    EXPECT_EQ(matching(R"(os = "linux" AND tag:env = "prod" OR hostname LIKE "web-%")"),
              "web1 web2");
    EXPECT_EQ(matching(R"(NOT (arch IN ("aarch64", "armv7l")) AND tag:owner EXISTS)"), "web1");
}

TEST(ScopeEvaluate, AsksForLowerCaseNamesAndTagKeysAsWritten) {
    auto parsed = parse(R"(OS = "x" OR Tag:Team-Name EXISTS OR HOSTNAME LIKE "y")");
    ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
    FakeAgent agent("probe");
    EXPECT_FALSE(parsed->matches(agent));
    EXPECT_EQ(agent.asked(), (std::set<std::string>{"hostname", "os", "tag:Team-Name"}));
}

TEST(ScopeEvaluate, AttributesListsWhatIsRead) {
    auto parsed = parse(R"(os = "a" AND tag:env EXISTS OR group = "g" OR TAG:Env = 1)");
    ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
    EXPECT_EQ(parsed->attributes(), (std::set<std::string>{"group", "os", "tag:Env", "tag:env"}));
}

TEST(ScopeEvaluate, DefaultExpressionSelectsNothing) {
    Expression empty;
    for (const FakeAgent& agent : make_fleet()) EXPECT_FALSE(empty.matches(agent));
    EXPECT_EQ(empty.canonical(), "");
    EXPECT_TRUE(empty.attributes().empty());
}

TEST(ScopeEvaluate, ExpressionsAreCopyableAndShareTheTree) {
    auto parsed = parse(R"(os = "darwin")");
    ASSERT_TRUE(parsed.ok());
    Expression copy = *parsed;
    const auto fleet = make_fleet();
    EXPECT_FALSE(copy.matches(fleet[0]));
    EXPECT_TRUE(copy.matches(fleet[3]));
    EXPECT_EQ(copy.canonical(), parsed->canonical());
}

}  // namespace
}  // namespace yuzu::scope
