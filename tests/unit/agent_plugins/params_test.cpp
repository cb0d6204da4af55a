#include "plugins/params.hpp"

#include <gtest/gtest.h>

namespace yuzu::agent::plugins {
namespace {

TEST(ParamsTest, RefusesUnknownKeysAndNonObjects) {
    EXPECT_TRUE(Params::parse("{}", {}).ok());
    EXPECT_TRUE(Params::parse(R"({"limit":5})", {"limit"}).ok());
    auto unknown = Params::parse(R"({"limit":5,"bogus":1})", {"limit"});
    ASSERT_FALSE(unknown.ok());
    EXPECT_EQ(unknown.status().message(), "unknown parameter 'bogus'");
    EXPECT_FALSE(Params::parse("[]", {}).ok());
    EXPECT_FALSE(Params::parse("{", {}).ok());
}

TEST(ParamsTest, HostileKeyNamesAreShortenedInErrors) {
    const std::string key(100000, 'k');
    auto unknown = Params::parse("{\"" + key + "\":1}", {});
    ASSERT_FALSE(unknown.ok());
    EXPECT_LT(unknown.status().message().size(), 120u);
    auto control = Params::parse(R"({"a\nb":1})", {});
    ASSERT_FALSE(control.ok());
    EXPECT_EQ(control.status().message(), "unknown parameter 'a?b'");
}

TEST(ParamsTest, TextChecksTypeLengthAndControlCharacters) {
    auto params = Params::parse(
        R"({"ok":"abc","num":1,"empty":"","nul":"a\u0000b","tab":"a\tb","long":"abcdef"})",
        {"ok", "num", "empty", "nul", "tab", "long"});
    ASSERT_TRUE(params.ok());
    EXPECT_EQ(params->text("ok", 10)->value(), "abc");
    EXPECT_FALSE(params->text("absent", 10)->has_value());
    EXPECT_EQ(params->text("num", 10).status().message(), "parameter 'num' must be a string");
    EXPECT_EQ(params->text("empty", 10).status().message(), "parameter 'empty' must not be empty");
    EXPECT_EQ(params->text("nul", 10).status().message(),
              "parameter 'nul' contains a control character");
    EXPECT_FALSE(params->text("tab", 10).ok());
    EXPECT_EQ(params->text("long", 5).status().message(), "parameter 'long' exceeds 5 characters");
    EXPECT_EQ(params->required_text("absent", 5).status().message(),
              "parameter 'absent' is required");
}

TEST(ParamsTest, IntegerChecksTypeAndRange) {
    auto params = Params::parse(
        R"({"a":5,"neg":-1,"big":18446744073709551615,"huge":1e30,"frac":1.5,"str":"5","b":true})",
        {"a", "neg", "big", "huge", "frac", "str", "b"});
    ASSERT_TRUE(params.ok());
    EXPECT_EQ(params->integer("a", 1, 10)->value(), 5);
    EXPECT_FALSE(params->integer("absent", 1, 10)->has_value());
    for (const char* key : {"neg", "big", "huge", "frac", "str", "b"}) {
        auto v = params->integer(key, 1, 10);
        ASSERT_FALSE(v.ok()) << key;
        EXPECT_EQ(v.status().message(),
                  "parameter '" + std::string(key) + "' must be an integer from 1 to 10");
    }
    EXPECT_EQ(params->integer("neg", -5, 5)->value(), -1);
}

TEST(ParamsTest, ChoiceAcceptsOnlyListedValues) {
    auto params = Params::parse(R"({"s":"listen","t":"LISTEN","n":3})", {"s", "t", "n"});
    ASSERT_TRUE(params.ok());
    EXPECT_EQ(params->choice("s", {"listen", "all"})->value(), "listen");
    EXPECT_EQ(params->choice("t", {"listen", "all"}).status().message(),
              "parameter 't' must be one of 'listen' 'all'");
    EXPECT_FALSE(params->choice("n", {"listen"}).ok());
}

TEST(ParamsTest, AbsolutePathRules) {
    for (const char* good : {"/", "/etc", "/etc/os-release", "/a b/c", "/tmp/...x", "/a/.b"}) {
        EXPECT_TRUE(check_absolute_path("path", good).ok()) << good;
    }
    const std::pair<const char*, const char*> bad[] = {
        {"relative/path", "parameter 'path' must be an absolute path"},
        {"", "parameter 'path' must be an absolute path"},
        {"/etc/../etc/shadow", "parameter 'path' must not contain '..' components"},
        {"/a/./b", "parameter 'path' must be normalized (no '.' components)"},
        {"/a/./b/..", "parameter 'path' must be normalized (no '.' components)"},
        {"/a//b", "parameter 'path' must be normalized (no empty components)"},
        {"/etc/", "parameter 'path' must not end with '/'"},
        {"/..", "parameter 'path' must not contain '..' components"},
    };
    for (const auto& [path, message] : bad) {
        EXPECT_EQ(check_absolute_path("path", path).message(), message) << path;
    }
    EXPECT_FALSE(check_absolute_path("path", std::string("/a\0b", 4)).ok());
    EXPECT_FALSE(check_absolute_path("path", "/" + std::string(kMaxPathChars, 'a')).ok());
}

TEST(ParamsTest, WildcardMatch) {
    EXPECT_TRUE(wildcard_match("sshd", "sshd"));
    EXPECT_FALSE(wildcard_match("sshd", "sshd2"));
    EXPECT_TRUE(wildcard_match("ssh*", "sshd"));
    EXPECT_TRUE(wildcard_match("*d", "sshd"));
    EXPECT_TRUE(wildcard_match("s*h*d", "sshd"));
    EXPECT_TRUE(wildcard_match("*", ""));
    EXPECT_FALSE(wildcard_match("a*b", "acbx"));
    EXPECT_TRUE(wildcard_match("a*b*c", "axxbyyc"));
    EXPECT_FALSE(wildcard_match("?", "a"));  // only '*' is special
    EXPECT_TRUE(wildcard_match("?", "?"));
    // Many stars against a long non-matching text must finish quickly.
    EXPECT_FALSE(wildcard_match(std::string(200, '*') + "b", std::string(100000, 'a')));
}

TEST(ParamsTest, OnlyChars) {
    EXPECT_TRUE(only_chars("abc-1.2", "-.", false));
    EXPECT_FALSE(only_chars("abc;", "-.", false));
    EXPECT_FALSE(only_chars("caf\xc3\xa9", "", false));
    EXPECT_TRUE(only_chars("caf\xc3\xa9", "", true));
}

}  // namespace
}  // namespace yuzu::agent::plugins
