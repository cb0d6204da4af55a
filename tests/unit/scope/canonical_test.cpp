// Expression::canonical(): the exact normal form, idempotence, and that
// re-parsing it selects the same agents.
#include <gtest/gtest.h>

#include "test_fleet.hpp"
#include "yuzu/scope/scope.hpp"

namespace yuzu::scope {
namespace {

using testing::FakeAgent;
using testing::make_fleet;
using testing::sample_expressions;

std::string canonical_of(std::string_view text) {
    auto parsed = parse(text);
    if (!parsed.ok()) return "PARSE ERROR: " + parsed.status().message();
    return parsed->canonical();
}

TEST(ScopeCanonical, NormalisesSpacingAndKeywordCase) {
    EXPECT_EQ(canonical_of(R"(os="linux")"), R"(os = "linux")");
    EXPECT_EQ(canonical_of("  OS\t=\n\"Linux\" and Tag:Env exists "),
              R"(os = "Linux" AND tag:Env EXISTS)");
    EXPECT_EQ(canonical_of(R"(hostname not like "w%")"), R"(hostname NOT LIKE "w%")");
    EXPECT_EQ(canonical_of(R"(arch not in ( "a" ,1,TRUE ))"), R"(arch NOT IN ("a", 1, true))");
    EXPECT_EQ(canonical_of("online=False"), "online = false");
    EXPECT_EQ(canonical_of("tag:x not exists"), "tag:x NOT EXISTS");
    EXPECT_EQ(canonical_of(R"(group in("g1"))"), R"(group IN ("g1"))");
}

TEST(ScopeCanonical, KeepsValuesAsWritten) {
    EXPECT_EQ(canonical_of("os_version >= 010.50"), "os_version >= 010.50");
    EXPECT_EQ(canonical_of("tag:cost<-3"), "tag:cost < -3");
    EXPECT_EQ(canonical_of(R"(tag:k = "a\"b\\c")"), R"(tag:k = "a\"b\\c")");
    EXPECT_EQ(canonical_of(R"(tag:k = "")"), R"(tag:k = "")");
    EXPECT_EQ(canonical_of("tag:k = \"caf\xc3\xa9\""), "tag:k = \"caf\xc3\xa9\"");
}

TEST(ScopeCanonical, UsesMinimalParentheses) {
    EXPECT_EQ(canonical_of(R"(((os = "a")))"), R"(os = "a")");
    EXPECT_EQ(canonical_of(R"((os = "a" OR os = "b") AND arch = "c")"),
              R"((os = "a" OR os = "b") AND arch = "c")");
    EXPECT_EQ(canonical_of(R"(os = "a" OR (os = "b" AND arch = "c"))"),
              R"(os = "a" OR os = "b" AND arch = "c")");
    EXPECT_EQ(canonical_of(R"(os = "a" AND (os = "b" AND arch = "c"))"),
              R"(os = "a" AND os = "b" AND arch = "c")");
    EXPECT_EQ(canonical_of(R"((os = "a" OR os = "b") OR (arch = "c" OR arch = "d"))"),
              R"(os = "a" OR os = "b" OR arch = "c" OR arch = "d")");
    EXPECT_EQ(canonical_of(R"(not (os = "a" and arch = "b"))"), R"(NOT (os = "a" AND arch = "b"))");
    EXPECT_EQ(canonical_of(R"(NOT (NOT (os = "a")))"), R"(NOT NOT os = "a")");
    EXPECT_EQ(canonical_of(R"(NOT (tag:x EXISTS))"), "NOT tag:x EXISTS");
    EXPECT_EQ(canonical_of(R"(((os = "a" OR os = "b")) AND NOT (arch = "c" OR arch = "d"))"),
              R"((os = "a" OR os = "b") AND NOT (arch = "c" OR arch = "d"))");
}

TEST(ScopeCanonical, IsIdempotent) {
    for (const std::string& text : sample_expressions()) {
        SCOPED_TRACE(text);
        auto first = parse(text);
        ASSERT_TRUE(first.ok()) << first.status().to_string();
        auto second = parse(first->canonical());
        ASSERT_TRUE(second.ok()) << second.status().to_string();
        EXPECT_EQ(second->canonical(), first->canonical());
    }
}

TEST(ScopeCanonical, ReparsedFormSelectsTheSameAgents) {
    const auto fleet = make_fleet();
    int matched = 0;
    int unmatched = 0;
    for (const std::string& text : sample_expressions()) {
        SCOPED_TRACE(text);
        auto original = parse(text);
        ASSERT_TRUE(original.ok()) << original.status().to_string();
        auto reparsed = parse(original->canonical());
        ASSERT_TRUE(reparsed.ok()) << reparsed.status().to_string();
        EXPECT_EQ(reparsed->attributes(), original->attributes());
        for (const FakeAgent& agent : fleet) {
            SCOPED_TRACE(agent.name());
            const bool expected = original->matches(agent);
            EXPECT_EQ(reparsed->matches(agent), expected);
            (expected ? matched : unmatched)++;
        }
    }
    // The sample is only meaningful if it both selects and rejects agents.
    EXPECT_GT(matched, 10);
    EXPECT_GT(unmatched, 10);
}

}  // namespace
}  // namespace yuzu::scope
