#include "yuzu/audit/audit_cursor.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <limits>

namespace yuzu::audit {
namespace {

TEST(AuditCursor, EncodeDecodeRoundTrip) {
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    for (const AuditCursor c :
         {AuditCursor{0, 1}, AuditCursor{1'700'000'000'123, 42}, AuditCursor{kMax, kMax}}) {
        const std::string text = c.encode();
        EXPECT_EQ(text.size(), 32u);
        auto back = AuditCursor::decode(text);
        ASSERT_TRUE(back.ok()) << text;
        EXPECT_EQ(*back, c);
    }
}

TEST(AuditCursor, DecodeRejectsAnythingEncodeDoesNotMake) {
    const std::string good = AuditCursor{1'700'000'000'123, 42}.encode();
    std::string upper = good;
    for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    ASSERT_NE(upper, good);  // the encoding has letters, so case matters here
    for (const std::string& bad : {std::string(), good + "0", good.substr(1), upper,
                                   " " + good.substr(1), good.substr(0, 31) + "\n"}) {
        auto decoded = AuditCursor::decode(bad);
        ASSERT_FALSE(decoded.ok()) << bad;
        EXPECT_EQ(decoded.status().code(), StatusCode::kInvalidArgument);
    }
}

TEST(AuditCursor, PrecedesIsStrictNewestFirstOrder) {
    const AuditCursor c{1000, 5};
    AuditEvent e;
    e.timestamp_ms = 1000;
    e.id = 4;
    EXPECT_TRUE(c.precedes(e));  // same time, smaller id
    e.id = 5;
    EXPECT_FALSE(c.precedes(e));  // the row itself
    e.id = 6;
    EXPECT_FALSE(c.precedes(e));
    e.timestamp_ms = 999;
    EXPECT_TRUE(c.precedes(e));  // older, even with a larger id
    e.timestamp_ms = 1001;
    e.id = 1;
    EXPECT_FALSE(c.precedes(e));  // newer
}

}  // namespace
}  // namespace yuzu::audit
