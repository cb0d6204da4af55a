#include "common/json_reader.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "yuzu/common/json_parse.hpp"

namespace yuzu::detail {
namespace {

using nlohmann::json;

// nlohmann's own parse, or discarded.
json reference(const std::string& text) {
    return json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

// Same document and the same value type at every node.
bool same(const json& a, const json& b) {
    if (a.type() != b.type()) return false;
    if (a.is_object()) {
        if (a.size() != b.size()) return false;
        for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j) {
            if (i.key() != j.key() || !same(*i, *j)) return false;
        }
        return true;
    }
    if (a.is_array()) {
        if (a.size() != b.size()) return false;
        for (size_t i = 0; i < a.size(); ++i) {
            if (!same(a[i], b[i])) return false;
        }
        return true;
    }
    if (a.is_number_float()) {
        return a.get<double>() == b.get<double>() &&
               std::signbit(a.get<double>()) == std::signbit(b.get<double>());
    }
    return a == b;
}

void expect_read_as_nlohmann(const std::string& text) {
    json fast;
    ASSERT_TRUE(read_json(text, kMaxJsonDepth, fast)) << text;
    const json slow = reference(text);
    ASSERT_FALSE(slow.is_discarded()) << text;
    EXPECT_TRUE(same(fast, slow)) << text << " read as " << fast.dump() << ", nlohmann "
                                  << slow.dump();
}

void expect_declined(const std::string& text) {
    json fast;
    EXPECT_FALSE(read_json(text, kMaxJsonDepth, fast)) << text;
}

TEST(ReadJson, BuildsWhatNlohmannBuildsValueTypesIncluded) {
    for (
        const char* text : {
            R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}})",
            R"([0, -0, 1, -1, 18446744073709551615, -9223372036854775808])",
            R"([18446744073709551616, -9223372036854775809, 1.5, -0.0, 1e5, 1E+5, 2.5e-3])",
            R"([1e308, 2.2250738585072014e-308, 0.1, 123456789012345678901234567890])",
            R"({"a":1,"a":2,"b":{"a":[true,false,null]}})",  // the last "a" wins
            " \t\r\n{ \"k\" : [ ] , \"e\" : { } } \n",
            R"("\"\\\/\b\f\n\r\t")",
            R"(["\u0000", "\u00e9", "\u20AC", "\ud83c\udf4b", "\uFFFF", "caf\u00E9"])",
            "\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x8D\x8B \x7F\"",
            "true",
            "false",
            "null",
            "0",
            "\"\"",
            "[[[]]]",
        }) {
        expect_read_as_nlohmann(text);
    }
}

TEST(ReadJson, DeclinesWhatNlohmannRefuses) {
    for (const char* text : {
             "",
             " ",
             "{",
             "[1,]",
             "{\"a\":1,}",
             "{\"a\" 1}",
             "{1:2}",
             "[1 2]",
             "01",
             "-",
             "1.",
             ".5",
             "1e",
             "1e+",
             "+1",
             "--1",
             "0x10",
             "tru",
             "nul",
             "True",
             "[1]x",
             "{} {}",
             "\"abc",
             "\"\\x\"",
             "\"\\u12\"",
             "\"\\u12G4\"",
             "\"\\udc00\"",         // a low surrogate alone
             "\"\\ud800\"",         // a high surrogate alone
             "\"\\ud800\\u0041\"",  // followed by no low surrogate
             "\"\\ud800x\"",
             "\"a\tb\"",
             "\"a\nb\"",
             "NaN",
             "Infinity",
             "[-]",
             "\"\x80\"",
             "\"\xC0\x80\"",
             "\"\xED\xA0\x80\"",
             "\"\xF4\x90\x80\x80\"",
             "\"\xC3\"",
         }) {
        expect_declined(text);
        EXPECT_TRUE(reference(text).is_discarded()) << "nlohmann accepts " << text;
    }
}

TEST(ReadJson, ASubnormalIsReadAsNlohmannReadsItOrLeftToIt) {
    // Whether from_chars reads a subnormal depends on the library version;
    // either way the document must be nlohmann's.
    for (const char* text : {"4.9e-324", "[2.5e-320]", "1e-400"}) {
        json fast;
        if (read_json(text, kMaxJsonDepth, fast)) {
            EXPECT_TRUE(same(fast, reference(text))) << text;
        }
        const auto parsed = parse_json(text);
        ASSERT_TRUE(parsed.ok()) << text;
        EXPECT_TRUE(same(*parsed, reference(text))) << text;
    }
}

TEST(ReadJson, DeclinesWhatItLeavesToNlohmann) {
    // Accepted by nlohmann, read by it instead: a byte-order mark, and a
    // float that overflows (nlohmann refuses it with its own message).
    expect_declined("\xEF\xBB\xBF{}");
    EXPECT_FALSE(reference("\xEF\xBB\xBF{}").is_discarded());
    expect_declined("1e400");
    const auto parsed = parse_json("\xEF\xBB\xBF{\"a\":1}");
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ((*parsed)["a"], 1);
}

TEST(ReadJson, StopsAtTheDepthLimitAndParseJsonSaysSo) {
    std::string at_limit(kMaxJsonDepth, '[');
    at_limit += std::string(kMaxJsonDepth, ']');
    expect_read_as_nlohmann(at_limit);
    const std::string past = "[" + at_limit + "]";
    expect_declined(past);
    const auto refused = parse_json(past);
    ASSERT_FALSE(refused.ok());
    EXPECT_TRUE(is_json_too_deep(refused.status()));
    json out;
    EXPECT_TRUE(read_json("[[1]]", 2, out));
    EXPECT_FALSE(read_json("[[[1]]]", 2, out));
    EXPECT_FALSE(read_json("{\"a\":{\"b\":{}}}", 2, out));
}

TEST(ReadJson, ParseJsonErrorsStillComeFromNlohmann) {
    // The byte offset in the message is the one nlohmann reports.
    for (const std::string text : {"{\"a\":tru}", "[1,]", "{\"a\" 1}", "\"\\ud800\"", "01"}) {
        size_t byte = 0;
        try {
            const json accepted = json::parse(text);
            ADD_FAILURE() << "nlohmann accepts " << text << " as " << accepted.dump();
            continue;
        } catch (const json::parse_error& e) {
            byte = e.byte;
        }
        const auto bad = parse_json(text);
        ASSERT_FALSE(bad.ok()) << text;
        EXPECT_EQ(bad.status().message(), "malformed JSON at byte " + std::to_string(byte)) << text;
    }
}

}  // namespace
}  // namespace yuzu::detail
