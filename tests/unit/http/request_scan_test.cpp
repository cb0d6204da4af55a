#include "http/request_scan.hpp"

#include <gtest/gtest.h>

#include <string>

namespace yuzu::http {
namespace {

TEST(RequestScan, TheHeaderBlockEndsAtTheFirstEmptyCrlfLine) {
    const std::string req = "GET / HTTP/1.1\r\nHost: a\r\n\r\nbody";
    EXPECT_EQ(header_block_end(req, 0), req.size() - 4);
    EXPECT_EQ(header_block_end("GET / HTTP/1.1\r\nHost: a\r\n", 0), std::string::npos);
    // cpp-httplib ends headers only at CRLF CRLF; a bare LF line is not it.
    EXPECT_EQ(header_block_end("GET / HTTP/1.1\r\nHost: a\n\n", 0), std::string::npos);
}

TEST(RequestScan, ABodyHasArrivedOnlyWhenAPlainLengthIsAllThere) {
    const std::string head = "POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\n";
    EXPECT_FALSE(body_arrived(head + "abc", head.size()));
    EXPECT_TRUE(body_arrived(head + "abcde", head.size()));
    const std::string none = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";
    EXPECT_TRUE(body_arrived(none, none.size()));
}

TEST(RequestScan, UnusualFramingNeverCountsAsArrived) {
    for (const std::string head :
         {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
          "POST / HTTP/1.1\r\nContent-Length: %31%30\r\n\r\n",
          "POST / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n",
          "POST / HTTP/1.1\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n",
          "POST / HTTP/1.1\r\nContent-Length: 9999999999999999999999\r\n\r\n"}) {
        const size_t end = header_block_end(head, 0);
        ASSERT_NE(end, std::string::npos) << head;
        EXPECT_FALSE(body_arrived(head, end)) << head;
    }
}

}  // namespace
}  // namespace yuzu::http
