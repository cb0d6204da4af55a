#include "yuzu/common/json_text.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

namespace yuzu {
namespace {

using nlohmann::json;

constexpr char kFffd[] = "\xEF\xBF\xBD";  // U+FFFD as UTF-8

TEST(DumpJson, ValidTextIsExactlyDumpAndIsNotCounted) {
    const json doc = {{"name", "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x8D\x8B"},
                      {"n", 42},
                      {"list", json::array({1, "two", nullptr, true, 2.5})},
                      {"nested", {{"a", {{"b", "c"}}}}}};
    const uint64_t before = json_invalid_utf8_total();
    EXPECT_EQ(dump_json(doc), doc.dump());
    EXPECT_EQ(dump_json(doc, 2), doc.dump(2));
    EXPECT_EQ(dump_json(json("plain")), "\"plain\"");
    EXPECT_EQ(dump_json(json::object()), "{}");
    // ensure_ascii stays off: non-ASCII text is written as its UTF-8 bytes.
    EXPECT_NE(dump_json(doc).find("caf\xC3\xA9"), std::string::npos);
    EXPECT_EQ(json_invalid_utf8_total(), before);
}

TEST(DumpJson, AnInvalidByteBecomesUFffdAndIsCountedOnce) {
    const json doc = std::string("a\xFF") + "b";
    const uint64_t before = json_invalid_utf8_total();
    EXPECT_THROW(static_cast<void>(doc.dump()), json::type_error);  // what dump_json saves us from
    EXPECT_EQ(dump_json(doc), std::string("\"a") + kFffd + "b\"");
    EXPECT_EQ(json_invalid_utf8_total(), before + 1);
}

TEST(DumpJson, ATruncatedMultibyteSequenceBecomesUFffd) {
    const uint64_t before = json_invalid_utf8_total();
    // "é" cut after its first byte, at the end of the string...
    EXPECT_EQ(dump_json(json(std::string("caf\xC3"))), std::string("\"caf") + kFffd + "\"");
    EXPECT_EQ(json_invalid_utf8_total(), before + 1);
    // ...and "€" cut after two of its three bytes, with text after it.
    EXPECT_EQ(dump_json(json(std::string("\xE2\x82 euro"))), std::string("\"") + kFffd + " euro\"");
    EXPECT_EQ(json_invalid_utf8_total(), before + 2);
}

TEST(DumpJson, OneDocumentCountsOnceHoweverManyBadStringsItHolds) {
    const json doc = {{"a", std::string("\xFF")}, {"b", std::string("\xFE\xFD")}};
    const uint64_t before = json_invalid_utf8_total();
    const json back = json::parse(dump_json(doc));
    EXPECT_EQ(back["a"], kFffd);
    EXPECT_EQ(back["b"], std::string(kFffd) + kFffd);
    EXPECT_EQ(json_invalid_utf8_total(), before + 1);
    static_cast<void>(dump_json(doc));
    EXPECT_EQ(json_invalid_utf8_total(), before + 2);  // once per dump
}

TEST(DumpJson, NestedArraysObjectsAndKeysAreReplaced) {
    json doc;
    doc["outer"]["list"] = json::array(
        {"ok", std::string("bad\xFF"), json{{"deep", std::string("x\xC3")}}, json::array({7})});
    doc["outer"][std::string("key\xFF")] = 1;
    const uint64_t before = json_invalid_utf8_total();
    const std::string text = dump_json(doc);
    EXPECT_EQ(json_invalid_utf8_total(), before + 1);
    const json back = json::parse(text);  // the output is valid JSON and valid UTF-8
    EXPECT_EQ(back["outer"]["list"][0], "ok");
    EXPECT_EQ(back["outer"]["list"][1], std::string("bad") + kFffd);
    EXPECT_EQ(back["outer"]["list"][2]["deep"], std::string("x") + kFffd);
    EXPECT_EQ(back["outer"]["list"][3], json::array({7}));
    EXPECT_EQ(back["outer"][std::string("key") + kFffd], 1);
}

TEST(DumpJson, IndentIsHonouredOnBothPaths) {
    const json valid = {{"a", json::array({1, 2})}};
    EXPECT_EQ(dump_json(valid, 2), "{\n  \"a\": [\n    1,\n    2\n  ]\n}");
    EXPECT_EQ(dump_json(valid, 4), valid.dump(4));
    EXPECT_EQ(dump_json(valid), "{\"a\":[1,2]}");

    const json invalid = {{"a", std::string("\xFF")}};
    const uint64_t before = json_invalid_utf8_total();
    EXPECT_EQ(dump_json(invalid, 2), std::string("{\n  \"a\": \"") + kFffd + "\"\n}");
    EXPECT_EQ(dump_json(invalid), std::string("{\"a\":\"") + kFffd + "\"}");
    EXPECT_EQ(json_invalid_utf8_total(), before + 2);
}

// What dump_json must write: dump() itself, or dump()'s U+FFFD replacement
// where a string is not valid UTF-8.
std::string reference(const json& value) {
    try {
        return value.dump(-1, ' ', false, json::error_handler_t::strict);
    } catch (const json::type_error&) {
        return value.dump(-1, ' ', false, json::error_handler_t::replace);
    }
}

TEST(DumpJson, EveryControlByteIsEscapedAsDumpEscapesIt) {
    for (int c = 0; c < 0x80; ++c) {
        const json doc = std::string("a") + static_cast<char>(c) + "b";
        EXPECT_EQ(dump_json(doc), reference(doc)) << "byte " << c;
        const json keyed = {{std::string(1, static_cast<char>(c)), c}};
        EXPECT_EQ(dump_json(keyed), reference(keyed)) << "key byte " << c;
    }
    EXPECT_EQ(dump_json(json(std::string("\x1f\x7f", 2))), "\"\\u001f\x7f\"");
}

TEST(DumpJson, Utf8BoundariesMatchDumpOnBothSidesOfValidity) {
    const char* const valid[] = {
        "\xC2\x80",     "\xDF\xBF",         "\xE0\xA0\x80",     "\xED\x9F\xBF",     "\xEE\x80\x80",
        "\xEF\xBF\xBF", "\xF0\x90\x80\x80", "\xF4\x8F\xBF\xBF", "\xF3\xBF\xBF\xBF",
    };
    const char* const invalid[] = {
        "\x80",              // a continuation byte alone
        "\xC0\x80",          // overlong NUL
        "\xC1\xBF",          // overlong
        "\xE0\x9F\xBF",      // overlong three-byte form
        "\xED\xA0\x80",      // a UTF-16 surrogate
        "\xF0\x8F\xBF\xBF",  // overlong four-byte form
        "\xF4\x90\x80\x80",  // past U+10FFFF
        "\xF5\x80\x80\x80",
        "\xFF",
        "\xE2\x82",
        "\xC3\x28",
        "\xE2\x28\xA1",
    };
    for (const char* text : valid) {
        const json doc = std::string("<") + text + ">";
        const uint64_t before = json_invalid_utf8_total();
        EXPECT_EQ(dump_json(doc), reference(doc));
        EXPECT_EQ(json_invalid_utf8_total(), before) << "counted a valid sequence";
    }
    for (const char* text : invalid) {
        const json doc = {{"k", std::string("<") + text + ">"}};
        const uint64_t before = json_invalid_utf8_total();
        EXPECT_EQ(dump_json(doc), reference(doc));
        EXPECT_EQ(json_invalid_utf8_total(), before + 1) << "did not count an invalid sequence";
    }
}

TEST(DumpJson, NumbersAndScalarsMatchDump) {
    const json doc = json::array(
        {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
         std::numeric_limits<uint64_t>::max(), 0, -1, 0.1, 1.0, -0.0, 1e300, 5e-324,
         std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(), true,
         false, nullptr, json::object(), json::array(), json::binary({1, 2, 3}, 7)});
    EXPECT_EQ(dump_json(doc), doc.dump());
}

TEST(DumpJson, NestedDocumentsMatchDump) {
    json doc = json::parse(R"({"jsonrpc":"2.0","id":"a\"b","result":{"content":[
        {"type":"text","text":"{\"x\":\"\\u00e9\\n\"}"}],"isError":false,
        "structuredContent":{"z":[1,[2,[3,{}]]],"a":"caf\u00e9","m":{"":""}}}})");
    EXPECT_EQ(dump_json(doc), doc.dump());
    // An invalid string deep inside: the whole document falls back, once.
    doc["result"]["structuredContent"]["z"][1][1].push_back(std::string("\xFF"));
    const uint64_t before = json_invalid_utf8_total();
    EXPECT_EQ(dump_json(doc), reference(doc));
    EXPECT_EQ(json_invalid_utf8_total(), before + 1);
}

}  // namespace
}  // namespace yuzu
