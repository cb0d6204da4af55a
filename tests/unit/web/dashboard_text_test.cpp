// The dashboard's text helpers: the one HTML escaper, the post-login path
// check, ages and the pretty-printed arguments.
#include "web/dashboard_text.hpp"

#include <gtest/gtest.h>

namespace yuzu::web {
namespace {

TEST(DashboardHtmlEscape, EscapesTheFiveSpecialCharacters) {
    EXPECT_EQ(html_escape(R"(&<>"')"), "&amp;&lt;&gt;&quot;&#39;");
    EXPECT_EQ(html_escape("<script>window.__xss=1</script>"),
              "&lt;script&gt;window.__xss=1&lt;/script&gt;");
    EXPECT_EQ(html_escape(R"(" onmouseover="x)"), "&quot; onmouseover=&quot;x");
}

TEST(DashboardHtmlEscape, LeavesOtherTextAndUtf8Alone) {
    EXPECT_EQ(html_escape(""), "");
    EXPECT_EQ(html_escape("plain text 123 /?=;"), "plain text 123 /?=;");
    EXPECT_EQ(html_escape("caf\xc3\xa9 \xe6\x9f\x9a\xe5\xad\x90"),
              "caf\xc3\xa9 \xe6\x9f\x9a\xe5\xad\x90");
    EXPECT_EQ(html_escape("&amp;"), "&amp;amp;") << "already-escaped text is escaped again";
}

TEST(DashboardSafeLocalPath, KeepsSameSitePathsOnly) {
    EXPECT_EQ(safe_local_path("/approvals", "/x"), "/approvals");
    EXPECT_EQ(safe_local_path("/approvals?tab=1", "/x"), "/approvals?tab=1");
    EXPECT_EQ(safe_local_path("", "/x"), "/x");
    EXPECT_EQ(safe_local_path("approvals", "/x"), "/x");
    EXPECT_EQ(safe_local_path("https://evil.example/", "/x"), "/x");
    EXPECT_EQ(safe_local_path("//evil.example/", "/x"), "/x");
    EXPECT_EQ(safe_local_path("/\\evil.example/", "/x"), "/x");
    EXPECT_EQ(safe_local_path("/a\\b", "/x"), "/x");
    EXPECT_EQ(safe_local_path("/a\r\nSet-Cookie: x=y", "/x"), "/x");
    EXPECT_EQ(safe_local_path(std::string_view("/a\0b", 4), "/x"), "/x");
}

TEST(DashboardFormatAge, PicksTheTwoLargestUnits) {
    EXPECT_EQ(format_age(-5000), "0s");
    EXPECT_EQ(format_age(0), "0s");
    EXPECT_EQ(format_age(59'999), "59s");
    EXPECT_EQ(format_age(60'000), "1m");
    EXPECT_EQ(format_age(59 * 60'000 + 59'000), "59m");
    EXPECT_EQ(format_age(3'600'000 + 5 * 60'000), "1h 5m");
    EXPECT_EQ(format_age(23 * 3'600'000 + 59 * 60'000), "23h 59m");
    EXPECT_EQ(format_age(2 * 86'400'000LL + 4 * 3'600'000), "2d 4h");
}

TEST(DashboardPrettyJson, IndentsJsonAndKeepsOtherTextUnchanged) {
    EXPECT_EQ(pretty_json(R"({"a":1,"b":[true,null]})"),
              "{\n  \"a\": 1,\n  \"b\": [\n    true,\n    null\n  ]\n}");
    EXPECT_EQ(pretty_json("not json {"), "not json {");
    EXPECT_EQ(pretty_json(""), "");
    // Markup inside strings stays as it is: escaping is html_escape's job.
    EXPECT_EQ(pretty_json(R"({"d":"<b>&"})"), "{\n  \"d\": \"<b>&\"\n}");
    EXPECT_EQ(pretty_json("{\"d\":\"caf\xc3\xa9\"}"), "{\n  \"d\": \"caf\xc3\xa9\"\n}");
}

}  // namespace
}  // namespace yuzu::web
