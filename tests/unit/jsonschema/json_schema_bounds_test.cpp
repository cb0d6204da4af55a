// Hostile shapes: schema cycles and long $ref chains, deep instances, long
// strings against patterns, and many threads sharing one compiled schema.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "yuzu/jsonschema/json_schema.hpp"

namespace yuzu::jsonschema {
namespace {

using nlohmann::json;

JsonSchema compile_ok(const json& schema) {
    auto compiled = JsonSchema::compile(schema);
    EXPECT_TRUE(compiled.ok()) << compiled.status().to_string();
    if (!compiled.ok()) return JsonSchema::compile(true).value();
    return std::move(compiled).value();
}

std::string compile_error(const json& schema) {
    auto compiled = JsonSchema::compile(schema);
    return compiled.ok() ? "" : compiled.status().message();
}

// [[[...[value]...]]] with `levels` arrays, built as text so no recursion is needed.
json nested_arrays(std::size_t levels) {
    return json::parse(std::string(levels, '[') + "1" + std::string(levels, ']'));
}

TEST(JsonSchemaBounds, CyclesThatConsumeNoInputAreRejected) {
    EXPECT_EQ(
        compile_error({{"$ref", "#"}}),
        "schema cycle that never consumes input (through $ref/allOf/anyOf/oneOf/not): # -> #");
    const std::string error = compile_error(json::parse(R"({
        "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}},
        "$ref": "#/$defs/a"
    })"));
    EXPECT_NE(error.find("#/$defs/a -> #/$defs/b -> #/$defs/b/allOf/0 -> #/$defs/a"),
              std::string::npos)
        << error;
    EXPECT_NE(compile_error({{"not", {{"$ref", "#"}}}}), "");
    EXPECT_NE(compile_error(json::parse(R"({"anyOf": [{"type": "string"}, {"$ref": "#"}]})")), "");
    EXPECT_NE(compile_error(json::parse(R"({"$defs": {"x": {"oneOf": [{"$ref": "#/$defs/x"}]}}})")),
              "");
}

TEST(JsonSchemaBounds, RecursionThatConsumesInputIsFine) {
    const auto schema = compile_ok({{"items", {{"$ref", "#"}}}, {"type", {"array", "integer"}}});
    EXPECT_FALSE(schema.validate(nested_arrays(kMaxInstanceDepth)).has_value());
    EXPECT_TRUE(schema.validate(json::parse("[[[\"x\"]]]")).has_value());
}

TEST(JsonSchemaBounds, InstancesDeeperThanTheLimitAreRejected) {
    // kMaxInstanceDepth arrays put the innermost value at that depth: allowed.
    const auto anything = compile_ok(true);
    EXPECT_FALSE(anything.validate(nested_arrays(kMaxInstanceDepth)).has_value());
    const auto v = anything.validate(nested_arrays(kMaxInstanceDepth + 1));
    ASSERT_TRUE(v);
    EXPECT_EQ(v->keyword, "depth");
    std::string expected_path;
    for (std::size_t i = 0; i <= kMaxInstanceDepth; ++i) expected_path += "/0";
    EXPECT_EQ(v->instance_path, expected_path);
    EXPECT_NE(v->message.find("is nested deeper than 64 levels"), std::string::npos);

    json deep_object = 1;
    for (std::size_t i = 0; i <= kMaxInstanceDepth; ++i) deep_object = json{{"k", deep_object}};
    EXPECT_EQ(anything.validate(deep_object)->keyword, "depth");
}

TEST(JsonSchemaBounds, HostileDepthDoesNotOverflowTheStack) {
    const json hostile = nested_arrays(200000);
    const auto recursive = compile_ok({{"items", {{"$ref", "#"}}}});
    const auto all = recursive.validate_all(hostile);
    ASSERT_EQ(all.size(), 1u);
    EXPECT_EQ(all[0].keyword, "depth");
}

TEST(JsonSchemaBounds, SchemaNestingIsBounded) {
    const auto nest = [](std::size_t levels) {
        json schema = {{"type", "integer"}};
        for (std::size_t i = 0; i < levels; ++i) schema = json{{"not", {{"not", schema}}}};
        return schema;
    };
    EXPECT_EQ(compile_error(nest(kMaxSchemaDepth / 2)), "");
    EXPECT_NE(compile_error(nest(kMaxSchemaDepth)).find("nested deeper than 64 subschemas"),
              std::string::npos);
}

TEST(JsonSchemaBounds, LongRefChainsAreBoundedAtValidation) {
    constexpr int kChain = 5000;
    const auto chain = [](const json& last) {
        json defs = json::object();
        for (int i = 0; i < kChain; ++i) {
            defs["d" + std::to_string(i)] = {{"$ref", "#/$defs/d" + std::to_string(i + 1)}};
        }
        defs["d" + std::to_string(kChain)] = last;
        return json{{"$defs", defs}, {"$ref", "#/$defs/d0"}};
    };
    // A chain longer than the evaluation budget fails closed instead of recursing.
    const auto schema = compile_ok(chain({{"type", "integer"}}));
    const auto v = schema.validate(5);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->keyword, "depth");
    // The same chain closed into a loop is found at compile time, without recursion.
    const std::string error = compile_error(chain({{"$ref", "#/$defs/d0"}}));
    EXPECT_NE(error.find("cycle"), std::string::npos);
    EXPECT_LT(error.size(), 400u);
    // A short chain is evaluated normally.
    const auto short_chain = compile_ok(json::parse(R"({
        "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/c"}, "c": {"maximum": 3}},
        "not": {"$ref": "#/$defs/a"}
    })"));
    EXPECT_FALSE(short_chain.validate(4).has_value());
    EXPECT_TRUE(short_chain.validate(2).has_value());
}

TEST(JsonSchemaBounds, DepthBudgetCannotMakeNotPass) {
    // `not` over a chain too long to evaluate must not count as "did not match".
    json defs = json::object();
    for (std::size_t i = 0; i < kMaxEvaluationDepth + 10; ++i) {
        defs["d" + std::to_string(i)] = {{"$ref", "#/$defs/d" + std::to_string(i + 1)}};
    }
    defs["d" + std::to_string(kMaxEvaluationDepth + 10)] = true;
    const auto schema = compile_ok({{"$defs", defs}, {"not", {{"$ref", "#/$defs/d0"}}}});
    const auto v = schema.validate("anything");
    ASSERT_TRUE(v);
    EXPECT_EQ(v->keyword, "depth");
}

TEST(JsonSchemaBounds, LongStringsAgainstPatternsStayLinear) {
    const std::string at_limit(kMaxPatternSubjectCodePoints, 'a');
    const auto start = std::chrono::steady_clock::now();
    // Catastrophic for a backtracking engine; linear here.
    EXPECT_TRUE(compile_ok({{"pattern", "^(a+)+$"}}).validate(at_limit) == std::nullopt);
    EXPECT_TRUE(compile_ok({{"pattern", "(a|aa)*b"}}).validate(at_limit).has_value());
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));

    const auto v = compile_ok({{"pattern", "^[a-z]+$"}}).validate(at_limit + "a");
    ASSERT_TRUE(v);
    EXPECT_EQ(v->keyword, "pattern");
    EXPECT_EQ(v->message,
              "(root): is too long to check against pattern ^[a-z]+$ (limit 16384 characters)");
    // Multi-byte characters count once: this is within the limit.
    std::string accents;
    for (std::size_t i = 0; i < kMaxPatternSubjectCodePoints; ++i) accents += "\xC3\xA9";
    EXPECT_FALSE(compile_ok({{"pattern", "^\\u00e9+$"}}).validate(accents).has_value());
}

TEST(JsonSchemaBounds, OneCompiledSchemaServesEightThreads) {
    const auto schema = compile_ok(json::parse(R"({
        "type": "object",
        "required": ["agent_id"],
        "properties": {
            "agent_id": {"type": "string", "pattern": "^[a-z0-9-]{1,36}$"},
            "tags": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                     "uniqueItems": true},
            "limit": {"$ref": "#/$defs/limit"}
        },
        "$defs": {"limit": {"type": "integer", "minimum": 1, "maximum": 500}}
    })"));
    const std::vector<json> instances = {
        json::parse(R"({"agent_id": "web-01", "tags": ["a", null], "limit": 10})"),
        json::parse(R"({"agent_id": "Web 01"})"),
        json::parse(R"({"agent_id": "db-02", "tags": ["a", "a"]})"),
        json::parse(R"({"agent_id": "db-02", "limit": 501})"),
        json::parse(R"({"tags": [1]})"),
    };
    std::vector<std::vector<SchemaViolation>> expected;
    for (const json& i : instances) expected.push_back(schema.validate_all(i));
    ASSERT_TRUE(expected[0].empty());
    ASSERT_FALSE(expected[1].empty());

    std::atomic<int> mismatches{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&, t] {
            for (int round = 0; round < 200; ++round) {
                const std::size_t k = static_cast<std::size_t>(round + t) % instances.size();
                if (schema.validate_all(instances[k]) != expected[k]) ++mismatches;
            }
        });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace
}  // namespace yuzu::jsonschema
