#include "yuzu/audit/field_limits.hpp"

#include <gtest/gtest.h>

#include <string>

namespace yuzu::audit {
namespace {

constexpr std::string_view kFffd = "\xEF\xBF\xBD";

std::string repeat(std::string_view s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += s;
    return out;
}

TEST(ClampUtf8, KeepsValidTextThatFits) {
    EXPECT_EQ(clamp_utf8("", 8), "");
    EXPECT_EQ(clamp_utf8("hello", 8), "hello");
    EXPECT_EQ(clamp_utf8("12345678", 8), "12345678");                   // exactly the cap
    const std::string mixed = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x8D\x8B";  // 1+2+3+4 bytes
    EXPECT_EQ(clamp_utf8(mixed, 10), mixed);
    EXPECT_EQ(clamp_utf8(std::string("a\0b", 3), 8), std::string("a\0b", 3));
}

TEST(ClampUtf8, CutsAtCharacterBoundaryAndAddsMarker) {
    EXPECT_EQ(clamp_utf8("123456789", 8), "12345\xE2\x80\xA6");
    // Two-byte characters: 5 bytes of room hold two of them, not two and a half.
    EXPECT_EQ(clamp_utf8(repeat("\xC3\xA9", 10), 8), repeat("\xC3\xA9", 2) + "\xE2\x80\xA6");
    // A four-byte character that does not fit in the room is dropped whole.
    EXPECT_EQ(clamp_utf8("abcd\xF0\x9F\x8D\x8Bxyz", 8), "abcd\xE2\x80\xA6");
    // Just the marker when nothing fits beside it.
    EXPECT_EQ(clamp_utf8("\xF0\x9F\x8D\x8B\xF0\x9F\x8D\x8B", 4), "\xE2\x80\xA6");
    EXPECT_EQ(clamp_utf8("abcd", 3), "\xE2\x80\xA6");
}

TEST(ClampUtf8, HugeInputCostsOnlyTheCap) {
    const std::string huge(8 * 1024 * 1024, 'u');
    const std::string out = clamp_utf8(huge, kUserAgentMaxBytes);
    EXPECT_EQ(out.size(), kUserAgentMaxBytes);
    EXPECT_EQ(out, std::string(kUserAgentMaxBytes - 3, 'u') + "\xE2\x80\xA6");
}

TEST(ClampUtf8, ReplacesEachInvalidByte) {
    const std::string f(kFffd);
    EXPECT_EQ(clamp_utf8("a\xFF"
                         "b",
                         64),
              "a" + f + "b");
    EXPECT_EQ(clamp_utf8("\x80", 64), f);                          // stray continuation
    EXPECT_EQ(clamp_utf8("\xC0\xAF", 64), f + f);                  // overlong '/'
    EXPECT_EQ(clamp_utf8("\xE0\x80\xAF", 64), f + f + f);          // overlong, three bytes
    EXPECT_EQ(clamp_utf8("\xED\xA0\x80", 64), f + f + f);          // UTF-16 surrogate
    EXPECT_EQ(clamp_utf8("\xF4\x90\x80\x80", 64), f + f + f + f);  // above U+10FFFF
    EXPECT_EQ(clamp_utf8("x\xE2\x82", 64), "x" + f + f);           // cut-off sequence at the end
    EXPECT_EQ(clamp_utf8("\xE2\x82y", 64), f + f + "y");           // interrupted sequence
    // Boundary values that are valid.
    EXPECT_EQ(clamp_utf8("\xED\x9F\xBF", 64), "\xED\x9F\xBF");          // U+D7FF
    EXPECT_EQ(clamp_utf8("\xF4\x8F\xBF\xBF", 64), "\xF4\x8F\xBF\xBF");  // U+10FFFF
}

TEST(ClampUtf8, ReplacementsCountTowardTheCap) {
    // Three invalid bytes become nine bytes of U+FFFD, over a cap of 8.
    EXPECT_EQ(clamp_utf8("\xFF\xFF\xFF", 8), std::string(kFffd) + "\xE2\x80\xA6");
}

TEST(ApplyFieldLimits, UsesEachFieldsCap) {
    AuditEvent e;
    const std::string long_text(10000, 'z');
    e.principal = e.principal_kind = e.action = e.target_type = e.target_id = e.source_ip =
        e.correlation_id = e.detail = e.user_agent = long_text;
    apply_field_limits(e);
    for (const std::string* f : {&e.principal, &e.principal_kind, &e.action, &e.target_type,
                                 &e.target_id, &e.source_ip, &e.correlation_id}) {
        EXPECT_EQ(f->size(), kFieldMaxBytes);
    }
    EXPECT_EQ(e.detail.size(), kDetailMaxBytes);
    EXPECT_EQ(e.user_agent.size(), kUserAgentMaxBytes);
    EXPECT_TRUE(e.detail.ends_with(kTruncationMarker));
}

}  // namespace
}  // namespace yuzu::audit
