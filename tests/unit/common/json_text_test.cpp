#include "yuzu/common/json_text.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace yuzu
