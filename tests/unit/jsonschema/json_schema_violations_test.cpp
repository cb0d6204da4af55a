// What a caller is told: instance paths, keywords, messages and their order.
// These strings become the -32602 remediation, so they are pinned exactly.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

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

const json kRunPlanSchema = json::parse(R"({
    "type": "object",
    "required": ["agent_id", "steps"],
    "additionalProperties": false,
    "properties": {
        "agent_id": {"type": "string", "minLength": 1, "maxLength": 64},
        "steps": {
            "type": "array", "minItems": 1, "maxItems": 10,
            "items": {
                "type": "object",
                "required": ["plugin"],
                "properties": {
                    "plugin": {"type": "string", "pattern": "^[a-z0-9_]{1,64}$"},
                    "timeout_s": {"type": "integer", "minimum": 1, "maximum": 3600}
                }
            }
        },
        "mode": {"enum": ["dry_run", "apply"]}
    }
})");

TEST(JsonSchemaViolations, NestedFailureNamesThePath) {
    const auto schema = compile_ok(kRunPlanSchema);
    const auto v = schema.validate(json::parse(R"({"agent_id": "a1", "steps": [{"plugin": "ok"},
                                                                  {"plugin": "BAD!"}]})"));
    ASSERT_TRUE(v);
    EXPECT_EQ(v->instance_path, "/steps/1/plugin");
    EXPECT_EQ(v->keyword, "pattern");
    EXPECT_EQ(v->message, "steps[1].plugin: must match pattern ^[a-z0-9_]{1,64}$");
}

TEST(JsonSchemaViolations, MissingRequiredPropertyPointsAtTheField) {
    const auto v =
        compile_ok(kRunPlanSchema).validate(json::parse(R"({"steps": [{"plugin": "x"}]})"));
    ASSERT_TRUE(v);
    EXPECT_EQ(v->instance_path, "/agent_id");
    EXPECT_EQ(v->keyword, "required");
    EXPECT_EQ(v->message, "agent_id: required property is missing");
}

TEST(JsonSchemaViolations, MessagesPerKeyword) {
    const auto schema = compile_ok(kRunPlanSchema);
    const auto message = [&](const char* text) {
        const auto v = schema.validate(json::parse(text));
        return v ? v->message : std::string("(valid)");
    };
    EXPECT_EQ(message(R"([])"), "(root): must be of type object, got array");
    EXPECT_EQ(message(R"({"agent_id": "a", "steps": []})"),
              "steps: must have at least 1 item, got 0");
    EXPECT_EQ(message(R"({"agent_id": "a", "steps": [{"plugin": "p", "timeout_s": 4000}]})"),
              "steps[0].timeout_s: must be <= 3600, got 4000");
    EXPECT_EQ(message(R"({"agent_id": "a", "steps": [{"plugin": "p", "timeout_s": 1.5}]})"),
              "steps[0].timeout_s: must be of type integer, got number");
    EXPECT_EQ(message(R"({"agent_id": "a", "steps": [{"plugin": "p"}], "mode": "fast"})"),
              "mode: must be one of: \"dry_run\", \"apply\"");
    EXPECT_EQ(message(R"({"agent_id": "a", "steps": [{"plugin": "p"}], "force": true})"),
              "force: unexpected property (allowed: agent_id, mode, steps)");
    EXPECT_EQ(message(R"({"agent_id": "a", "steps": [{"plugin": "p"}]})"), "(valid)");
}

TEST(JsonSchemaViolations, OddKeysAreQuotedAndEscaped) {
    const auto schema = compile_ok(json::parse(R"({
        "properties": {"a/b c": {"properties": {"x~y": {"type": "integer"}}}}
    })"));
    const auto v = schema.validate(json::parse(R"({"a/b c": {"x~y": "s"}})"));
    ASSERT_TRUE(v);
    EXPECT_EQ(v->instance_path, "/a~1b c/x~0y");
    EXPECT_EQ(v->message, R"(["a/b c"]["x~y"]: must be of type integer, got string)");
}

TEST(JsonSchemaViolations, DuplicateItemPointsAtTheRepeat) {
    const auto v = compile_ok({{"properties", {{"tags", {{"uniqueItems", true}}}}}})
                       .validate(json::parse(R"({"tags": ["a", "b", "c", "b", "a"]})"));
    ASSERT_TRUE(v);
    EXPECT_EQ(v->instance_path, "/tags/3");
    EXPECT_EQ(v->keyword, "uniqueItems");
    EXPECT_EQ(v->message, "tags[3]: duplicates item 1; items must be unique");
}

TEST(JsonSchemaViolations, AnyOfAndOneOfExplainTheAlternatives) {
    const auto nullable =
        compile_ok(json::parse(R"({"anyOf": [{"type": "string"}, {"type": "null"}]})"));
    auto v = nullable.validate(3);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->keyword, "anyOf");
    EXPECT_EQ(v->message,
              "(root): must match at least one alternative of anyOf (#0: must be of type string, "
              "got integer; #1: must be of type null, got integer)");

    const auto one = compile_ok(json::parse(R"({"oneOf": [{"type": "integer"}, {"minimum": 2}]})"));
    v = one.validate(3);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->message,
              "(root): must match exactly one alternative of oneOf, but matches #0 and #1");

    const auto nested = compile_ok(json::parse(R"({"anyOf": [
        {"required": ["id"]}, {"properties": {"name": {"type": "string"}}, "required": ["name"]}]})"));
    v = nested.validate(json::parse(R"({"name": 5})"));
    ASSERT_TRUE(v);
    EXPECT_EQ(v->message,
              "(root): must match at least one alternative of anyOf (#0: at id: required "
              "property is missing; #1: at name: must be of type string, got integer)");
}

TEST(JsonSchemaViolations, NotAndConst) {
    auto v = compile_ok({{"not", {{"type", "null"}}}}).validate(nullptr);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->keyword, "not");
    EXPECT_EQ(v->message, "(root): must not match the schema in 'not'");
    v = compile_ok({{"const", "v1"}}).validate("v2");
    ASSERT_TRUE(v);
    EXPECT_EQ(v->message, "(root): must equal \"v1\"");
}

TEST(JsonSchemaViolations, ValidateAllKeepsOrderAndRespectsMax) {
    const auto schema = compile_ok(kRunPlanSchema);
    const json instance = json::parse(R"({"steps": [{"timeout_s": 0}, {"plugin": "X"}], "zz": 1})");
    const auto all = schema.validate_all(instance);
    std::vector<std::string> paths;
    for (const auto& v : all) paths.push_back(v.keyword + " " + v.instance_path);
    EXPECT_EQ(paths,
              (std::vector<std::string>{"required /agent_id", "required /steps/0/plugin",
                                        "minimum /steps/0/timeout_s", "pattern /steps/1/plugin",
                                        "additionalProperties /zz"}));
    const auto first_two = schema.validate_all(instance, 2);
    ASSERT_EQ(first_two.size(), 2u);
    EXPECT_EQ(first_two[0], all[0]);
    EXPECT_EQ(first_two[1], all[1]);
    EXPECT_EQ(schema.validate(instance), all[0]);
    EXPECT_TRUE(schema.validate_all(json::parse(R"({"agent_id": "a", "steps": [{"plugin": "p"}]})"))
                    .empty());
}

}  // namespace
}  // namespace yuzu::jsonschema
