#include "yuzu/metrics/text_format.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace yuzu::metrics {
namespace {

std::string EscapedHelp(std::string_view text) {
    std::string out;
    AppendEscapedHelp(out, text);
    return out;
}

std::string EscapedLabelValue(std::string_view text) {
    std::string out;
    AppendEscapedLabelValue(out, text);
    return out;
}

TEST(FormatValue, IntegersPrintWithoutPointOrExponent) {
    EXPECT_EQ(FormatValue(0), "0");
    EXPECT_EQ(FormatValue(3), "3");
    EXPECT_EQ(FormatValue(-42), "-42");
    EXPECT_EQ(FormatValue(80000), "80000");
    EXPECT_EQ(FormatValue(1000000), "1000000");
    EXPECT_EQ(FormatValue(1e15), "1000000000000000");
    EXPECT_EQ(FormatValue(9007199254740992.0), "9007199254740992");
}

TEST(FormatValue, FractionsPrintInShortestRoundTripForm) {
    EXPECT_EQ(FormatValue(0.005), "0.005");
    EXPECT_EQ(FormatValue(2.5), "2.5");
    EXPECT_EQ(FormatValue(0.1), "0.1");
    EXPECT_EQ(FormatValue(-0.25), "-0.25");
    EXPECT_EQ(FormatValue(1e-05), "1e-05");
    EXPECT_EQ(FormatValue(0.1 + 0.2), "0.30000000000000004");
}

TEST(FormatValue, HugeValuesUseExponent) {
    EXPECT_EQ(FormatValue(1e300), "1e+300");
    EXPECT_EQ(std::stod(FormatValue(1.5e20)), 1.5e20);
}

TEST(FormatValue, SpecialValuesArePrometheusSpelled) {
    EXPECT_EQ(FormatValue(std::numeric_limits<double>::quiet_NaN()), "NaN");
    EXPECT_EQ(FormatValue(std::numeric_limits<double>::infinity()), "+Inf");
    EXPECT_EQ(FormatValue(-std::numeric_limits<double>::infinity()), "-Inf");
}

TEST(EscapeHelp, EscapesBackslashAndNewlineButNotQuotes) {
    EXPECT_EQ(EscapedHelp("plain text"), "plain text");
    EXPECT_EQ(EscapedHelp("a\\b"), "a\\\\b");
    EXPECT_EQ(EscapedHelp("line one\nline two"), "line one\\nline two");
    EXPECT_EQ(EscapedHelp("say \"hi\""), "say \"hi\"");
}

TEST(EscapeLabelValue, EscapesBackslashQuoteAndNewline) {
    EXPECT_EQ(EscapedLabelValue("plain"), "plain");
    EXPECT_EQ(EscapedLabelValue("C:\\dir"), "C:\\\\dir");
    EXPECT_EQ(EscapedLabelValue("say \"hi\""), "say \\\"hi\\\"");
    EXPECT_EQ(EscapedLabelValue("a\nb"), "a\\nb");
    EXPECT_EQ(EscapedLabelValue("\\\"\n"), "\\\\\\\"\\n");
}

TEST(EscapeLabelValue, KeepsValidUtf8) {
    EXPECT_EQ(EscapedLabelValue("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x8D\x8B"),
              "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x8D\x8B");
}

TEST(EscapeLabelValue, ReplacesInvalidUtf8WithReplacementCharacter) {
    const std::string replacement = "\xEF\xBF\xBD";
    EXPECT_EQ(EscapedLabelValue("a\xFF"
                                "b"),
              "a" + replacement + "b");
    EXPECT_EQ(EscapedLabelValue("\x80"), replacement);                    // stray continuation
    EXPECT_EQ(EscapedLabelValue("x\xC3"), "x" + replacement);             // truncated
    EXPECT_EQ(EscapedLabelValue("\xC0\xAF"), replacement + replacement);  // overlong '/'
    EXPECT_EQ(EscapedLabelValue("\xED\xA0\x80"),
              replacement + replacement + replacement);  // surrogate
    EXPECT_EQ(EscapedHelp("h\xFE"), "h" + replacement);
}

TEST(AppendSampleLine, OmitsBracesWithoutLabels) {
    std::string out;
    AppendSampleLine(out, "up", {}, "1");
    EXPECT_EQ(out, "up 1\n");
}

TEST(AppendSampleLine, PrintsLabelsSortedByNameAndExtraLabelLast) {
    std::string out;
    AppendSampleLine(out, "x_bucket", {{"zeta", "1"}, {"alpha", "2"}, {"mid", "3"}}, "7", "le",
                     "0.5");
    EXPECT_EQ(out, "x_bucket{alpha=\"2\",mid=\"3\",zeta=\"1\",le=\"0.5\"} 7\n");
}

TEST(AppendSampleLine, EscapesLabelValues) {
    std::string out;
    AppendSampleLine(out, "x", {{"path", "a\"b\\c\nd"}}, "1");
    EXPECT_EQ(out, "x{path=\"a\\\"b\\\\c\\nd\"} 1\n");
}

}  // namespace
}  // namespace yuzu::metrics
