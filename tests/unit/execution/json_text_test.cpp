#include "execution/json_text.hpp"

#include <gtest/gtest.h>

#include "execution/identifiers.hpp"

namespace yuzu::execution {
namespace {

TEST(JsonText, ValidUtf8KeepsWellFormedTextAndReplacesTheRest) {
    EXPECT_EQ(valid_utf8("plain"), "plain");
    EXPECT_EQ(valid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x8D\x8B"),
              "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x8D\x8B");
    EXPECT_EQ(valid_utf8("a\xFFz"), "a\xEF\xBF\xBDz");
    EXPECT_EQ(valid_utf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
    EXPECT_EQ(valid_utf8("\xED\xA0\x80"),
              "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
    EXPECT_EQ(valid_utf8("\xF4\x90\x80\x80").substr(0, 3),
              "\xEF\xBF\xBD");  // > U+10FFFF
    EXPECT_EQ(valid_utf8("end\xE2\x82"),
              "end\xEF\xBF\xBD\xEF\xBF\xBD");  // truncated
}

TEST(JsonText, CanonicalParamsChecksShapeAndLimits) {
    EXPECT_EQ(*canonical_params(R"({ "b": 1, "a": "x" })", "params"), R"({"a":"x","b":1})");
    EXPECT_EQ(canonical_params("[]", "params").status().message(), "params must be a JSON object");
    EXPECT_EQ(canonical_params("{", "step 2 params").status().message(),
              "step 2 params must be valid JSON");
    const std::string long_key = "{\"" + std::string(257, 'k') + "\":1}";
    EXPECT_EQ(canonical_params(long_key, "params").status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(canonical_params(R"({"":1})", "params").status().code(),
              StatusCode::kInvalidArgument);
}

TEST(JsonText, CanonicalOutputNeverStoresInvalidJson) {
    std::string error;
    EXPECT_EQ(canonical_output(R"({"k": [1, 2]})", error), R"({"k":[1,2]})");
    EXPECT_TRUE(error.empty());
    EXPECT_EQ(canonical_output("", error), "null");
    EXPECT_EQ(canonical_output("{\"k\":\"\xFF\"}", error),
              "null");  // invalid UTF-8
    EXPECT_EQ(error, "the agent's output was not valid JSON and was discarded");
}

TEST(Identifiers, NameRules) {
    EXPECT_TRUE(is_plugin_name("network_v2"));
    EXPECT_FALSE(is_plugin_name(""));
    EXPECT_FALSE(is_plugin_name(std::string(65, 'a')));
    EXPECT_FALSE(is_plugin_name("os.info"));
    EXPECT_FALSE(is_plugin_name("a b"));
    EXPECT_TRUE(is_definition_id("os.info"));
    EXPECT_FALSE(is_definition_id(".hidden"));
    EXPECT_FALSE(is_definition_id("../etc"));
    EXPECT_TRUE(is_bundle_id("bundle-0123456789abcdef0123456789abcdef"));
    EXPECT_FALSE(is_bundle_id("bundle-0123456789ABCDEF0123456789abcdef"));
    EXPECT_FALSE(is_bundle_id("bundle-0123"));
    auto id = new_bundle_id();
    ASSERT_TRUE(id.ok());
    EXPECT_TRUE(is_bundle_id(*id));
    EXPECT_NE(*id, *new_bundle_id());
    EXPECT_EQ(new_command_id("os")->size(), 3u + 16u);
}

}  // namespace
}  // namespace yuzu::execution
