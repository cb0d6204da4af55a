#include "http/request_framing.hpp"

#include <gtest/gtest.h>

namespace yuzu::http {
namespace {

constexpr size_t kMax = 4096;

httplib::Request post(std::initializer_list<std::pair<const char*, const char*>> headers) {
    httplib::Request req;
    req.method = "POST";
    for (const auto& [k, v] : headers) req.headers.emplace(k, v);
    return req;
}

TEST(RequestFraming, AFieldValueWithANulByteIs400) {
    httplib::Request req = post({{"Content-Length", "0"}});
    req.headers.emplace("Authorization", std::string("Bearer abc\0x", 12));
    const FramingVerdict v = check_request_framing(req, kMax);
    EXPECT_EQ(v.status, 400);
    EXPECT_NE(v.message.find("NUL"), std::string::npos) << v.message;
    httplib::Request get;
    get.method = "GET";
    get.headers.emplace("Host", std::string("localhost\0.evil", 16));
    EXPECT_EQ(check_request_framing(get, kMax).status, 400);
}

TEST(RequestFraming, PlainLengthsWithinTheLimitPass) {
    EXPECT_EQ(check_request_framing(post({{"Content-Length", "0"}}), kMax).status, 0);
    EXPECT_EQ(check_request_framing(post({{"Content-Length", "4096"}}), kMax).status, 0);
    EXPECT_EQ(check_request_framing(post({{"content-length", " 12 "}}), kMax).status, 0);
}

TEST(RequestFraming, LengthsOverTheLimitAre413WithoutReading) {
    EXPECT_EQ(check_request_framing(post({{"Content-Length", "4097"}}), kMax).status, 413);
    EXPECT_EQ(check_request_framing(post({{"Content-Length", "1000000000000000000"}}), kMax).status,
              413);
    // More digits than 64 bits hold is still just "too large".
    EXPECT_EQ(
        check_request_framing(post({{"Content-Length", "99999999999999999999999"}}), kMax).status,
        413);
}

TEST(RequestFraming, MalformedLengthsAre400) {
    for (const char* bad : {"-1", "12abc", "", "+5", "0x10", "1e18", "1 2", "١٢"}) {
        EXPECT_EQ(check_request_framing(post({{"Content-Length", bad}}), kMax).status, 400)
            << "Content-Length: '" << bad << "'";
    }
    EXPECT_EQ(check_request_framing(post({{"Content-Length", "5"}, {"Content-Length", "5"}}), kMax)
                  .status,
              400);
}

TEST(RequestFraming, ChunkedAloneIsTheOnlyTransferEncoding) {
    EXPECT_EQ(check_request_framing(post({{"Transfer-Encoding", "chunked"}}), kMax).status, 0);
    EXPECT_EQ(check_request_framing(post({{"transfer-encoding", "Chunked"}}), kMax).status, 0);
    EXPECT_EQ(check_request_framing(post({{"Transfer-Encoding", "gzip, chunked"}}), kMax).status,
              501);
    EXPECT_EQ(check_request_framing(post({{"Transfer-Encoding", "identity"}}), kMax).status, 501);
    EXPECT_EQ(check_request_framing(
                  post({{"Transfer-Encoding", "chunked"}, {"Transfer-Encoding", "chunked"}}), kMax)
                  .status,
              501);
    // Both framings at once is the classic smuggling shape.
    EXPECT_EQ(check_request_framing(
                  post({{"Transfer-Encoding", "chunked"}, {"Content-Length", "3"}}), kMax)
                  .status,
              400);
}

TEST(RequestFraming, BodyMethodsWithoutAnyFramingAre411) {
    for (const char* method : {"POST", "PUT", "PATCH"}) {
        httplib::Request req;
        req.method = method;
        EXPECT_EQ(check_request_framing(req, kMax).status, 411) << method;
    }
    httplib::Request get;
    get.method = "GET";
    EXPECT_EQ(check_request_framing(get, kMax).status, 0);
}

}  // namespace
}  // namespace yuzu::http

namespace yuzu::http {
namespace {

httplib::Request with_method(const char* method,
                             std::initializer_list<std::pair<const char*, const char*>> headers) {
    httplib::Request req = post(headers);
    req.method = method;
    return req;
}

TEST(RequestFraming, MethodsThatReadNoBodyMayNotCarryOne) {
    // cpp-httplib leaves such a body unread, and the next request on the
    // connection would start inside it.
    EXPECT_EQ(check_request_framing(with_method("GET", {{"Content-Length", "35"}}), kMax).status,
              400);
    EXPECT_EQ(check_request_framing(with_method("GET", {{"Content-Length", "0"}}), kMax).status, 0);
    EXPECT_EQ(
        check_request_framing(with_method("HEAD", {{"Transfer-Encoding", "chunked"}}), kMax).status,
        400);
    EXPECT_EQ(check_request_framing(with_method("DELETE", {{"Transfer-Encoding", "chunked"}}), kMax)
                  .status,
              400);
    EXPECT_EQ(check_request_framing(with_method("DELETE", {{"Content-Length", "2"}}), kMax).status,
              0);
    EXPECT_EQ(check_request_framing(with_method("DELETE", {}), kMax).status, 0);
}

TEST(RequestFraming, UnservedMethodsAre501) {
    for (const char* method : {"PRI", "TRACE", "CONNECT", "PROPFIND"}) {
        EXPECT_EQ(check_request_framing(with_method(method, {}), kMax).status, 501) << method;
    }
}

TEST(RequestFraming, CompressedBodiesAre415) {
    EXPECT_EQ(
        check_request_framing(post({{"Content-Length", "10"}, {"Content-Encoding", "gzip"}}), kMax)
            .status,
        415);
    EXPECT_EQ(
        check_request_framing(post({{"Content-Length", "10"}, {"Content-Encoding", "br"}}), kMax)
            .status,
        415);
    EXPECT_EQ(check_request_framing(
                  post({{"Content-Length", "10"}, {"Content-Encoding", "identity"}}), kMax)
                  .status,
              0);
}

}  // namespace
}  // namespace yuzu::http
