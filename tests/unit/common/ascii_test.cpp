#include "yuzu/common/ascii.hpp"

#include <gtest/gtest.h>

#include <string>

namespace yuzu {
namespace {

TEST(Ascii, LowersOnlyTheAsciiCapitals) {
    EXPECT_EQ(ascii_lower('A'), 'a');
    EXPECT_EQ(ascii_lower('Z'), 'z');
    EXPECT_EQ(ascii_lower('a'), 'a');
    EXPECT_EQ(ascii_lower('@'), '@');  // just below 'A'
    EXPECT_EQ(ascii_lower('['), '[');  // just above 'Z'
    // A Latin-1 capital (0xC9) stays as it is whatever the locale says.
    EXPECT_EQ(ascii_lower('\xC9'), '\xC9');
}

TEST(Ascii, EqualityIgnoresCaseButNotLength) {
    EXPECT_TRUE(iequals_ascii("Content-Length", "content-length"));
    EXPECT_TRUE(iequals_ascii("", ""));
    EXPECT_FALSE(iequals_ascii("chunked", "chunked "));
    EXPECT_FALSE(iequals_ascii("chunked", "chunkes"));
    // '@' and '`' differ from 'A'/'a' by the case bit alone: only letters fold.
    EXPECT_FALSE(iequals_ascii("@", "`"));
    EXPECT_FALSE(iequals_ascii("\xC9", "\xE9"));
    const std::string with_nul("a\0b", 3);
    EXPECT_FALSE(iequals_ascii(with_nul, "a"));
    EXPECT_TRUE(iequals_ascii(with_nul, std::string("A\0B", 3)));
}

TEST(Ascii, PrefixIgnoresCase) {
    EXPECT_TRUE(istarts_with_ascii("bEaReR abc", "Bearer "));
    EXPECT_TRUE(istarts_with_ascii("Bearer ", "Bearer "));
    EXPECT_FALSE(istarts_with_ascii("Beare", "Bearer "));
    EXPECT_FALSE(istarts_with_ascii("Basic abc", "Bearer "));
    EXPECT_TRUE(istarts_with_ascii("anything", ""));
}

static_assert(iequals_ascii("TAG", "tag"));
static_assert(!istarts_with_ascii("", "x"));

}  // namespace
}  // namespace yuzu
