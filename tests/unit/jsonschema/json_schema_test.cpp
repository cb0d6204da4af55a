// JSON Schema 2020-12 behaviour the draft-07 suite cannot cover: $defs and
// $ref forms, prefixItems, single-schema items, compile-time refusals, and the
// value semantics (code points, 1.0 as an integer, exact numbers).
#include "yuzu/jsonschema/json_schema.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace yuzu::jsonschema {
namespace {

using nlohmann::json;

JsonSchema compile_ok(const json& schema) {
    auto compiled = JsonSchema::compile(schema);
    EXPECT_TRUE(compiled.ok()) << compiled.status().to_string();
    if (!compiled.ok()) return JsonSchema::compile(true).value();
    return std::move(compiled).value();
}

// The compile error's message, or "" when the schema compiles.
std::string compile_error(const json& schema) {
    auto compiled = JsonSchema::compile(schema);
    if (compiled.ok()) return "";
    EXPECT_EQ(compiled.status().code(), StatusCode::kInvalidArgument);
    return compiled.status().message();
}

bool accepts(const JsonSchema& schema, const json& instance) {
    return !schema.validate(instance).has_value();
}

TEST(JsonSchema, DefsAndRefToDefs) {
    const auto schema = compile_ok(json::parse(R"({
        "$defs": {"id": {"type": "string", "minLength": 1}},
        "type": "object",
        "properties": {"agent_id": {"$ref": "#/$defs/id"}}
    })"));
    EXPECT_TRUE(accepts(schema, {{"agent_id", "a1"}}));
    const auto v = schema.validate({{"agent_id", ""}});
    ASSERT_TRUE(v);
    EXPECT_EQ(v->instance_path, "/agent_id");
    EXPECT_EQ(v->keyword, "minLength");
}

TEST(JsonSchema, RefToRefThroughDefs) {
    const auto schema = compile_ok(json::parse(R"({
        "$defs": {
            "a": {"type": "integer"},
            "b": {"$ref": "#/$defs/a"},
            "c": {"$ref": "#/$defs/b"}
        },
        "$ref": "#/$defs/c"
    })"));
    EXPECT_TRUE(accepts(schema, 5));
    const auto v = schema.validate("a");
    ASSERT_TRUE(v);
    EXPECT_EQ(v->keyword, "type");
}

TEST(JsonSchema, RefToBooleanSchemas) {
    EXPECT_TRUE(accepts(compile_ok({{"$ref", "#/$defs/yes"}, {"$defs", {{"yes", true}}}}), "x"));
    const auto no = compile_ok({{"$ref", "#/$defs/no"}, {"$defs", {{"no", false}}}});
    const auto v = no.validate("x");
    ASSERT_TRUE(v);
    EXPECT_EQ(v->keyword, "false");
}

TEST(JsonSchema, RefToRootRecursesThroughTheInstance) {
    const auto tree = compile_ok(json::parse(R"({
        "type": "object",
        "properties": {"value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#"}}},
        "required": ["value"],
        "additionalProperties": false
    })"));
    EXPECT_TRUE(
        accepts(tree, json::parse(R"({"value": 1, "children": [{"value": 2, "children": []}]})")));
    const auto v = tree.validate(json::parse(R"({"value": 1, "children": [{"value": 2},
                                                                     {"children": []}]})"));
    ASSERT_TRUE(v);
    EXPECT_EQ(v->instance_path, "/children/1/value");
    EXPECT_EQ(v->keyword, "required");
}

TEST(JsonSchema, RefPointerEscapes) {
    // Names with "/", "~" and a space, reached via ~1, ~0 and %20.
    const auto schema = compile_ok(json::parse(R"({
        "$defs": {"a/b": {"type": "integer"}, "c~d": {"type": "string"}, "e f": {"type": "boolean"}},
        "properties": {
            "slash": {"$ref": "#/$defs/a~1b"},
            "tilde": {"$ref": "#/$defs/c~0d"},
            "space": {"$ref": "#/$defs/e%20f"}
        }
    })"));
    EXPECT_TRUE(accepts(schema, {{"slash", 1}, {"tilde", "x"}, {"space", true}}));
    EXPECT_FALSE(accepts(schema, {{"slash", "x"}}));
    EXPECT_FALSE(accepts(schema, {{"tilde", 1}}));
    EXPECT_FALSE(accepts(schema, {{"space", 1}}));
    EXPECT_NE(compile_error({{"$ref", "#/$defs/a~2b"}, {"$defs", {{"a~b", true}}}}), "");
}

TEST(JsonSchema, RefToAnySubschemaByPointer) {
    const auto schema = compile_ok(json::parse(R"({
        "properties": {"a": {"type": "integer"}, "b": {"$ref": "#/properties/a"}},
        "allOf": [{"maximum": 10}],
        "$defs": {"viaAllOf": {"$ref": "#/allOf/0"}}
    })"));
    EXPECT_TRUE(accepts(schema, {{"b", 3}}));
    EXPECT_FALSE(accepts(schema, {{"b", "3"}}));
}

TEST(JsonSchema, RefThroughTheRootId) {
    const auto schema = compile_ok(json::parse(R"({
        "$id": "https://yuzu.example/schemas/run.json",
        "$defs": {"n": {"type": "integer"}},
        "properties": {"n": {"$ref": "https://yuzu.example/schemas/run.json#/$defs/n"}}
    })"));
    EXPECT_TRUE(accepts(schema, {{"n", 1}}));
    EXPECT_FALSE(accepts(schema, {{"n", "1"}}));
}

TEST(JsonSchema, RefSiblingsAreEvaluated) {
    // 2020-12: $ref is one keyword among others, not an override.
    const auto schema = compile_ok(json::parse(R"({
        "$defs": {"list": {"type": "array"}},
        "properties": {"foo": {"$ref": "#/$defs/list", "maxItems": 2}}
    })"));
    EXPECT_TRUE(accepts(schema, {{"foo", {1, 2}}}));
    const auto v = schema.validate({{"foo", {1, 2, 3}}});
    ASSERT_TRUE(v);
    EXPECT_EQ(v->keyword, "maxItems");
}

TEST(JsonSchema, RefsThatLeaveTheDocumentAreRejected) {
    EXPECT_NE(compile_error({{"$ref", "https://example.com/other.json"}}).find("remote"),
              std::string::npos);
    EXPECT_NE(compile_error({{"$ref", "other.json#/$defs/x"}}).find("remote"), std::string::npos);
    EXPECT_NE(compile_error({{"$ref", "#node"}}).find("$anchor"), std::string::npos);
    EXPECT_NE(compile_error({{"$ref", "#/$defs/missing"}}).find("points at nothing"),
              std::string::npos);
    EXPECT_NE(
        compile_error({{"required", {"a"}}, {"properties", {{"x", {{"$ref", "#/required"}}}}}})
            .find("not a schema"),
        std::string::npos);
    EXPECT_NE(compile_error({{"$ref", "#/%zz"}}).find("%-escape"), std::string::npos);
}

TEST(JsonSchema, PrefixItemsThenItems) {
    const auto schema = compile_ok(json::parse(R"({
        "type": "array",
        "prefixItems": [{"type": "string"}, {"type": "integer"}],
        "items": {"type": "boolean"}
    })"));
    EXPECT_TRUE(accepts(schema, json::array()));
    EXPECT_TRUE(accepts(schema, {"a"}));  // prefixItems does not require the items
    EXPECT_TRUE(accepts(schema, {"a", 1, true, false}));
    auto v = schema.validate({"a", "b"});
    ASSERT_TRUE(v);
    EXPECT_EQ(v->instance_path, "/1");
    EXPECT_EQ(v->keyword, "type");
    v = schema.validate({"a", 1, true, 7});
    ASSERT_TRUE(v);
    EXPECT_EQ(v->instance_path, "/3");
}

TEST(JsonSchema, ItemsFalseClosesATuple) {
    const auto schema = compile_ok({{"prefixItems", {{{"type", "string"}}}}, {"items", false}});
    EXPECT_TRUE(accepts(schema, {"a"}));
    const auto v = schema.validate({"a", "b"});
    ASSERT_TRUE(v);
    EXPECT_EQ(v->instance_path, "/1");
    EXPECT_EQ(v->keyword, "items");
    EXPECT_EQ(v->message, "[1]: is not allowed: at most 1 item may be given");
}

TEST(JsonSchema, ItemsAsOneSchemaForEveryItem) {
    const auto schema = compile_ok({{"items", {{"type", "integer"}, {"minimum", 0}}}});
    EXPECT_TRUE(accepts(schema, {0, 1, 2}));
    const auto v = schema.validate({0, 1, -2});
    ASSERT_TRUE(v);
    EXPECT_EQ(v->instance_path, "/2");
    EXPECT_EQ(v->keyword, "minimum");
    EXPECT_NE(compile_error({{"items", {{{"type", "integer"}}}}}).find("prefixItems"),
              std::string::npos);
}

TEST(JsonSchema, UnsupportedKeywordsAreRejectedByName) {
    for (const char* keyword :
         {"if", "contains", "dependentRequired", "propertyNames", "unevaluatedProperties",
          "$anchor", "$dynamicRef", "additionalItems"}) {
        const std::string error = compile_error({{keyword, true}});
        EXPECT_NE(error.find(std::string("'") + keyword + "'"), std::string::npos) << error;
    }
    const std::string nested =
        compile_error({{"properties", {{"plan", {{"then", json::object()}}}}}});
    EXPECT_NE(nested.find("'then' at #/properties/plan"), std::string::npos) << nested;
    EXPECT_NE(compile_error({{"definitions", json::object()}}).find("$defs"), std::string::npos);
    EXPECT_NE(compile_error({{"$defs", {{"x", {{"$id", "x"}}}}}}).find("'$id'"), std::string::npos);
}

TEST(JsonSchema, MalformedKeywordValuesAreRejected) {
    EXPECT_NE(compile_error({{"type", "text"}}), "");
    EXPECT_NE(compile_error({{"type", {"string", "string"}}}), "");
    EXPECT_NE(compile_error({{"minLength", -1}}), "");
    EXPECT_NE(compile_error({{"maxItems", 1.5}}), "");
    EXPECT_EQ(compile_error({{"maxItems", 2.0}}), "");  // integer-valued is fine in 2020-12
    EXPECT_NE(compile_error({{"multipleOf", 0}}), "");
    EXPECT_NE(compile_error({{"exclusiveMinimum", true}}), "");  // draft-04 form
    EXPECT_NE(compile_error({{"required", {"a", "a"}}}), "");
    EXPECT_NE(compile_error({{"enum", json::array()}}), "");
    EXPECT_NE(compile_error({{"anyOf", json::array()}}), "");
    EXPECT_NE(compile_error({{"properties", {{"a", 3}}}}), "");
    EXPECT_NE(compile_error(42), "");
    EXPECT_NE(compile_error({{"pattern", "(unclosed"}}).find("'pattern' at #"), std::string::npos);
    EXPECT_NE(compile_error({{"pattern", "a)|(b"}}), "");
    EXPECT_NE(compile_error({{"patternProperties", {{"[z-a]", true}}}}), "");
    // Back-references cannot run in linear time.
    EXPECT_NE(compile_error({{"pattern", "(a)\\1"}}), "");
}

TEST(JsonSchema, AnnotationsAreAcceptedButNotAsserted) {
    const auto schema = compile_ok(json::parse(R"({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://yuzu.example/schemas/t.json",
        "$comment": "c", "title": "t", "description": "d", "default": 1, "examples": [1],
        "properties": {"mail": {"type": "string", "format": "email", "readOnly": true,
                                "writeOnly": false, "deprecated": true}}
    })"));
    EXPECT_TRUE(accepts(schema, {{"mail", "not an address"}}));
}

// MCP 2026-07-28 (SEP-2243): where x-mcp-header may appear and on what.
TEST(JsonSchema, XMcpHeaderSitsOnAPrimitivePropertyReachedThroughPropertiesAlone) {
    compile_ok(json::parse(R"({"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "dry": {"type": "boolean", "x-mcp-header": "Dry-Run"},
        "target": {"type": "object", "properties": {
            "zone": {"type": "integer", "x-mcp-header": "Zone"}}}}})"));
    const auto placement = [](const std::string& text) {
        return compile_error(json::parse(text)).find("must sit on a property") != std::string::npos;
    };
    EXPECT_TRUE(placement(R"({"type": "string", "x-mcp-header": "Root"})")) << "the root";
    EXPECT_TRUE(placement(R"({"type": "array", "items": {"type": "string",
        "x-mcp-header": "Item"}})"));
    EXPECT_TRUE(placement(R"({"anyOf": [{"type": "object", "properties": {
        "a": {"type": "string", "x-mcp-header": "A"}}}]})"));
    EXPECT_TRUE(placement(R"({"$defs": {"r": {"type": "string", "x-mcp-header": "R"}},
        "properties": {"r": {"$ref": "#/$defs/r"}}})"));
    EXPECT_TRUE(placement(R"({"patternProperties": {"^r": {"type": "string",
        "x-mcp-header": "R"}}})"));
}

TEST(JsonSchema, XMcpHeaderNeedsOneOfStringIntegerBooleanAndAUniqueName) {
    const auto error = [](const std::string& text) { return compile_error(json::parse(text)); };
    for (const char* type : {R"("number")", R"(["string", "null"])", R"("object")"}) {
        EXPECT_NE(error(std::string(R"({"properties": {"p": {"x-mcp-header": "P", "type": )") +
                        type + "}}}")
                      .find("one of string, integer, boolean"),
                  std::string::npos)
            << type;
    }
    EXPECT_NE(error(R"({"properties": {"p": {"x-mcp-header": "P"}}})").find("one of string"),
              std::string::npos)
        << "no type at all";
    EXPECT_NE(error(R"({"properties": {"a": {"type": "string", "x-mcp-header": "Region"},
        "b": {"type": "object", "properties": {
            "c": {"type": "string", "x-mcp-header": "REGION"}}}}})")
                  .find("another property already uses"),
              std::string::npos);
    EXPECT_NE(error(R"({"properties": {"a": {"type": "string", "x-mcp-header": "Bad Name"}}})")
                  .find("HTTP token"),
              std::string::npos);
}

TEST(JsonSchema, MinLengthCountsCodePoints) {
    const auto one = compile_ok({{"minLength", 1}, {"maxLength", 1}});
    EXPECT_TRUE(accepts(one, "\xC3\xA9"));          // é: 2 bytes, 1 code point
    EXPECT_TRUE(accepts(one, "\xF0\x9F\x92\xA9"));  // U+1F4A9: 4 bytes, 1 code point
    EXPECT_FALSE(accepts(one, "ab"));
    const auto v = compile_ok({{"minLength", 2}}).validate("\xC3\xA9");
    ASSERT_TRUE(v);
    EXPECT_EQ(v->message, "(root): must be at least 2 characters long, got 1");
}

TEST(JsonSchema, IntegerAcceptsIntegralFloats) {
    const auto schema = compile_ok({{"type", "integer"}});
    EXPECT_TRUE(accepts(schema, 1));
    EXPECT_TRUE(accepts(schema, json::parse("1.0")));
    EXPECT_TRUE(accepts(schema, json::parse("-0.0")));
    const auto v = schema.validate(1.5);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->message, "(root): must be of type integer, got number");
}

TEST(JsonSchema, EqualityTreatsOneAndOnePointZeroAlike) {
    EXPECT_TRUE(accepts(compile_ok({{"const", 1}}), json::parse("1.0")));
    EXPECT_TRUE(accepts(compile_ok({{"enum", {json::parse("2.0"), "x"}}}), 2));
    EXPECT_FALSE(accepts(compile_ok({{"const", 1}}), true));
    EXPECT_FALSE(accepts(compile_ok({{"enum", {0}}}), false));
    EXPECT_TRUE(accepts(compile_ok({{"const", {{"a", {1, json::parse("2.5")}}}}}),
                        json::parse(R"({"a": [1.0, 2.5]})")));
    EXPECT_FALSE(accepts(compile_ok({{"uniqueItems", true}}), json::parse("[1, 1.0]")));
    EXPECT_TRUE(accepts(compile_ok({{"uniqueItems", true}}), json::parse("[1, true, \"1\"]")));
}

TEST(JsonSchema, NumbersCompareExactly) {
    // 2^53 + 1 is not representable as a double; the bound must still hold.
    const auto max = compile_ok({{"maximum", 9007199254740992LL}});
    EXPECT_TRUE(accepts(max, 9007199254740992LL));
    EXPECT_FALSE(accepts(max, 9007199254740993LL));
    const auto big = compile_ok({{"minimum", 18446744073709551615ULL}});
    EXPECT_TRUE(accepts(big, 18446744073709551615ULL));
    EXPECT_FALSE(accepts(big, -1));
    EXPECT_FALSE(accepts(big, 1.8e19));
    const auto exclusive = compile_ok({{"exclusiveMinimum", 0}, {"exclusiveMaximum", 1}});
    EXPECT_FALSE(accepts(exclusive, 0));
    EXPECT_TRUE(accepts(exclusive, 0.5));
    EXPECT_FALSE(accepts(exclusive, 1.0));
}

TEST(JsonSchema, MultipleOfIsDecimalExact) {
    const auto tenth = compile_ok({{"multipleOf", 0.1}});
    EXPECT_TRUE(accepts(tenth, 0.3));  // 0.3 / 0.1 is 2.9999999999999996 in binary
    EXPECT_TRUE(accepts(tenth, 12));
    EXPECT_FALSE(accepts(tenth, 0.35));
    EXPECT_FALSE(accepts(compile_ok({{"multipleOf", 1}}), 1.0000000001));
    EXPECT_TRUE(accepts(compile_ok({{"multipleOf", 7}}), -21));
    EXPECT_TRUE(accepts(compile_ok({{"multipleOf", 1e-300}}), 1e300));
    EXPECT_TRUE(accepts(compile_ok({{"multipleOf", 3}}), 3e30));
    EXPECT_FALSE(accepts(compile_ok({{"multipleOf", 7}}), 1e30));
    EXPECT_TRUE(accepts(compile_ok({{"multipleOf", 4294967311ULL}}),  // prime > 2^32
                        json(4294967311ULL * 3)));
}

TEST(JsonSchema, PatternSearchesCodePoints) {
    const auto contains = compile_ok({{"pattern", "b+"}});
    EXPECT_TRUE(accepts(contains, "abbc"));
    EXPECT_FALSE(accepts(contains, "ac"));
    EXPECT_TRUE(accepts(compile_ok({{"pattern", "^.$"}}), "\xC3\xA9"));
    EXPECT_TRUE(accepts(compile_ok({{"pattern", "^[\\u00e0-\\u00ff]+$"}}), "\xC3\xA9\xC3\xA0"));
    EXPECT_TRUE(accepts(compile_ok({{"pattern", "^caf\xC3\xA9$"}}), "caf\xC3\xA9"));
    // \w is ASCII-only in ECMA-262.
    EXPECT_FALSE(accepts(compile_ok({{"pattern", "^\\w$"}}), "\xC3\xA9"));
    // Anchors keep their meaning inside alternation.
    const auto alt = compile_ok({{"pattern", "^a|b$"}});
    EXPECT_TRUE(accepts(alt, "ax"));
    EXPECT_TRUE(accepts(alt, "xb"));
    EXPECT_FALSE(accepts(alt, "xax"));
}

TEST(JsonSchema, PatternPropertiesAndAdditionalProperties) {
    const auto schema = compile_ok(json::parse(R"({
        "properties": {"name": {"type": "string"}},
        "patternProperties": {"^x-": {"type": "string"}},
        "additionalProperties": false
    })"));
    EXPECT_TRUE(accepts(schema, {{"name", "n"}, {"x-trace", "t"}}));
    auto v = schema.validate({{"name", "n"}, {"x-trace", 1}});
    ASSERT_TRUE(v);
    EXPECT_EQ(v->instance_path, "/x-trace");
    v = schema.validate({{"name", "n"}, {"colour", "red"}});
    ASSERT_TRUE(v);
    EXPECT_EQ(v->instance_path, "/colour");
    EXPECT_EQ(v->keyword, "additionalProperties");
    EXPECT_EQ(v->message, "colour: unexpected property (allowed: name, names matching ^x-)");
}

TEST(JsonSchema, BooleanRootSchemas) {
    EXPECT_TRUE(accepts(compile_ok(true), json::parse(R"({"any": [1, "thing"]})")));
    const auto v = compile_ok(false).validate(nullptr);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->keyword, "false");
    EXPECT_EQ(v->message, "(root): is not allowed here");
}

TEST(JsonSchema, CopiesShareTheCompiledForm) {
    std::optional<JsonSchema> copy;
    {
        const auto original = compile_ok({{"type", "string"}});
        copy = original;
    }
    EXPECT_TRUE(accepts(*copy, "s"));
    EXPECT_FALSE(accepts(*copy, 1));
}

}  // namespace
}  // namespace yuzu::jsonschema
