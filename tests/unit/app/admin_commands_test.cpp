#include "yuzu/app/admin_commands.hpp"

#include <gtest/gtest.h>

namespace yuzu::app {
namespace {

TEST(ParseDuration, AcceptsEachUnitAndBareSeconds) {
    EXPECT_EQ(parse_duration_s("30d"), 30LL * 86400);
    EXPECT_EQ(parse_duration_s("12h"), 12LL * 3600);
    EXPECT_EQ(parse_duration_s("90m"), 90LL * 60);
    EXPECT_EQ(parse_duration_s("45s"), 45);
    EXPECT_EQ(parse_duration_s("3600"), 3600);
    EXPECT_EQ(parse_duration_s("never"), 0);
}

TEST(ParseDuration, RefusesEverythingElseWithMinusOne) {
    for (const char* bad : {"", "d", "0d", "-1d", "+5d", "1.5d", "5w", "5 d", " 5d", "5dd",
                            "never ", "99999999999999999999", "3651d"}) {
        EXPECT_EQ(parse_duration_s(bad), -1) << "'" << bad << "'";
    }
    EXPECT_EQ(parse_duration_s("3650d"), 3650LL * 86400);  // the ten-year ceiling itself
}

TEST(AdminCommand, RecognisesOnlyItsOwnSubCommands) {
    const char* token[] = {"yuzu-server", "token", "create"};
    const char* user[] = {"yuzu-server", "user", "add"};
    const char* flag[] = {"yuzu-server", "--listen", "x"};
    const char* alone[] = {"yuzu-server"};
    EXPECT_TRUE(is_admin_command(3, token));
    EXPECT_TRUE(is_admin_command(3, user));
    EXPECT_FALSE(is_admin_command(3, flag));
    EXPECT_FALSE(is_admin_command(1, alone));
}

}  // namespace
}  // namespace yuzu::app
