#include "fleet/field_rules.hpp"

#include <gtest/gtest.h>

namespace yuzu::fleet {
namespace {

TEST(FieldRules, Utf8) {
    EXPECT_TRUE(is_valid_utf8(""));
    EXPECT_TRUE(is_valid_utf8("plain ascii"));
    EXPECT_TRUE(is_valid_utf8("Zürich \xe2\x82\xac \xf0\x9f\x8d\x8b"));  // ü, €, 🍋
    EXPECT_FALSE(is_valid_utf8("\xc3"));                                 // truncated
    EXPECT_FALSE(is_valid_utf8("\xe2\x82"));                             // truncated
    EXPECT_FALSE(is_valid_utf8("\x80"));                                 // lone continuation
    EXPECT_FALSE(is_valid_utf8("\xc0\xaf"));                             // overlong '/'
    EXPECT_FALSE(is_valid_utf8("\xe0\x80\xaf"));                         // overlong '/'
    EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));                         // surrogate
    EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));                     // past U+10FFFF
    EXPECT_FALSE(is_valid_utf8("\xff"));
}

TEST(FieldRules, ControlCharacters) {
    EXPECT_FALSE(has_control_chars("web-01 (rack 7)"));
    EXPECT_TRUE(has_control_chars("a\nb"));
    EXPECT_TRUE(has_control_chars(std::string_view("a\0b", 3)));
    EXPECT_TRUE(has_control_chars("a\x7f"));
    EXPECT_TRUE(has_control_chars("a\xc2\x85"));  // U+0085 NEL
    EXPECT_FALSE(has_control_chars("\xc2\xa0"));  // U+00A0 is printable
}

TEST(FieldRules, AgentIds) {
    EXPECT_TRUE(is_agent_id("0123456789abcdef0123456789abcdef"));
    EXPECT_FALSE(is_agent_id("0123456789ABCDEF0123456789abcdef"));
    EXPECT_FALSE(is_agent_id("0123456789abcdef0123456789abcde"));
    EXPECT_FALSE(is_agent_id("0123456789abcdef0123456789abcdeg"));
}

TEST(FieldRules, TextFieldMessagesNameTheField) {
    EXPECT_TRUE(check_text_field("note", "", 0, 4, true).ok());
    auto s = check_text_field("note", "12345", 0, 4, true);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(s.message().rfind("note ", 0), 0u) << s.message();
    EXPECT_FALSE(check_text_field("arch", "x 86", 1, 64, false).ok());
    EXPECT_TRUE(check_text_field("os_version", "Debian 12", 0, 64, true).ok());
}

}  // namespace
}  // namespace yuzu::fleet
