#include "yuzu/http/header_lookup.hpp"

#include <gtest/gtest.h>
#include <httplib.h>

#include <string>

namespace yuzu::http {
namespace {

httplib::Headers fields() {
    httplib::Headers h;
    h.emplace("Content-Type", "application/json");
    h.emplace("accept", "text/event-stream");
    h.emplace("ACCEPT", "application/json");  // the same field, received second
    h.emplace("X-Empty", "");
    return h;
}

TEST(HeaderLookup, FindsTheFirstReceivedValueIgnoringCase) {
    const httplib::Headers h = fields();
    ASSERT_NE(find_field(h, "Accept"), nullptr);
    EXPECT_EQ(*find_field(h, "Accept"), "text/event-stream");
    EXPECT_EQ(field_value(h, "content-type"), "application/json");
    // The same answers as cpp-httplib's own look-ups.
    httplib::Request req;
    req.headers = h;
    for (const char* name : {"Accept", "accept", "CONTENT-TYPE", "X-Empty", "Missing"}) {
        EXPECT_EQ(field_value(h, name), req.get_header_value(name)) << name;
        EXPECT_EQ(find_field(h, name) != nullptr, req.has_header(name)) << name;
        EXPECT_EQ(field_count(h, name), req.get_header_value_count(name)) << name;
    }
}

TEST(HeaderLookup, AbsentAndEmptyFieldsDiffer) {
    const httplib::Headers h = fields();
    EXPECT_EQ(find_field(h, "Missing"), nullptr);
    EXPECT_EQ(field_value(h, "Missing"), "");
    ASSERT_NE(find_field(h, "x-empty"), nullptr);
    EXPECT_EQ(*find_field(h, "x-empty"), "");
    EXPECT_EQ(field_count(h, "Accept"), 2u);
    EXPECT_EQ(field_count(h, "Missing"), 0u);
}

TEST(HeaderLookup, ANamePrefixIsNotAMatch) {
    httplib::Headers h;
    h.emplace("Content-Length-Extra", "1");
    h.emplace("Content", "2");
    EXPECT_EQ(find_field(h, "Content-Length"), nullptr);
    EXPECT_EQ(field_count(h, "Content-Length"), 0u);
}

}  // namespace
}  // namespace yuzu::http
