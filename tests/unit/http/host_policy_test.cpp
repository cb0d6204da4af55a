// The Host and Origin rules shared by the MCP transport and the management
// request guard (yuzu/http/host_policy.hpp): parsing a Host header, what
// counts as loopback, the allow-lists, and same-origin with default ports.
#include "yuzu/http/host_policy.hpp"

#include <gtest/gtest.h>

namespace yuzu::http {
namespace {

HostPolicy loopback_policy() {
    HostPolicy p;
    p.enforce_loopback_names = true;
    return p;
}

TEST(HostNameOf, LowerCasesAndDropsThePortAndOneTrailingDot) {
    EXPECT_EQ(host_name_of("Example.COM:80"), "example.com");
    EXPECT_EQ(host_name_of("localhost."), "localhost");
    EXPECT_EQ(host_name_of("localhost.:8080"), "localhost");
    EXPECT_EQ(host_name_of("127.0.0.1:"), "127.0.0.1");  // RFC 3986 allows an empty port
    EXPECT_EQ(host_name_of("[::1]:8080"), "[::1]");
    EXPECT_EQ(host_name_of("[::1]"), "[::1]");
    EXPECT_EQ(host_name_of("[FE80::1]"), "[fe80::1]");
}

TEST(HostNameOf, MalformedHeadersHaveNoName) {
    for (const char* bad : {"",
                            ".",
                            ":8080",
                            "::1",
                            "[::1",
                            "[]",
                            "[::1]x",
                            "[::1]:80:80",
                            "[zz::1]",
                            "host:abc",
                            "host:123456",
                            "host:80:80",
                            "evil@localhost",
                            "localhost/x",
                            "local host",
                            "a\tb",
                            "localhost\\evil",
                            "[::1]@evil",
                            "host?x",
                            "host#x"}) {
        EXPECT_EQ(host_name_of(bad), "") << bad;
    }
}

TEST(HostIsLoopback, LoopbackNamesAndAddressesWithOrWithoutAPort) {
    for (const char* ok : {"127.0.0.1:8080", "127.1.2.3", "localhost:1", "LOCALHOST", "localhost.",
                           "[::1]:8080", "[::1]", "[0:0:0:0:0:0:0:1]", "[::ffff:127.0.0.1]:80"}) {
        EXPECT_TRUE(host_is_loopback(ok)) << ok;
    }
}

TEST(HostIsLoopback, OtherNamesAndLookAlikesAreNot) {
    for (const char* bad :
         {"evil.example.com", "127.0.0.1.evil.com:80", "localhost.evil.example", "evil.localhost",
          "[::2]", "[::ffff:10.0.0.1]", "128.0.0.1", "0x7f000001", "2130706433", "", "::1",
          "127.0.0.1:8080:1", "evil@127.0.0.1"}) {
        EXPECT_FALSE(host_is_loopback(bad)) << bad;
    }
}

TEST(HostAllowed, OnLoopbackOnlyLoopbackNamesAndTheAllowList) {
    HostPolicy p = loopback_policy();
    EXPECT_TRUE(host_allowed(p, "127.0.0.1:8080"));
    EXPECT_TRUE(host_allowed(p, "localhost:8080"));
    EXPECT_FALSE(host_allowed(p, "evil.example"));
    EXPECT_FALSE(host_allowed(p, "evil.example:8080"));
    EXPECT_FALSE(host_allowed(p, ""));  // HTTP/1.0 without Host: nothing to vouch for it

    p.allowed_hosts = {"yuzu.internal"};
    EXPECT_TRUE(host_allowed(p, "yuzu.internal"));
    EXPECT_TRUE(host_allowed(p, "YUZU.Internal:8443"));
    EXPECT_TRUE(host_allowed(p, "yuzu.internal."));
    EXPECT_FALSE(host_allowed(p, "sub.yuzu.internal"));
    EXPECT_FALSE(host_allowed(p, "yuzu.internal.evil.example"));
    EXPECT_FALSE(host_allowed(p, "evil@yuzu.internal"));

    p.allowed_hosts = {"Yuzu.Internal"};  // the flag's spelling does not matter
    EXPECT_TRUE(host_allowed(p, "yuzu.internal:8080"));
}

TEST(HostAllowed, OffLoopbackEveryHostPasses) {
    HostPolicy p;
    p.enforce_loopback_names = false;
    EXPECT_TRUE(host_allowed(p, "evil.example"));
    EXPECT_TRUE(host_allowed(p, "10.0.0.5:8080"));
    EXPECT_TRUE(host_allowed(p, ""));
}

TEST(OriginAllowed, AbsentPassesNullAndUnparsableDoNot) {
    const HostPolicy p = loopback_policy();
    EXPECT_TRUE(origin_allowed(p, "", "127.0.0.1:8080", false));
    EXPECT_FALSE(origin_allowed(p, "null", "127.0.0.1:8080", false));
    EXPECT_FALSE(origin_allowed(p, "NULL", "127.0.0.1:8080", false));
    for (const char* bad :
         {"127.0.0.1:8080", "http://", "ftp://127.0.0.1:8080", "http://127.0.0.1:8080/",
          "http://127.0.0.1:8080/path", "http://evil@127.0.0.1:8080", "http://127.0.0.1:8080.evil",
          "http://127.0.0.1:8080?x", "http:// 127.0.0.1:8080"}) {
        EXPECT_FALSE(origin_allowed(p, bad, "127.0.0.1:8080", false)) << bad;
    }
}

TEST(OriginAllowed, SameOriginIsTheListenersSchemeWithTheRequestsHost) {
    const HostPolicy p = loopback_policy();
    EXPECT_TRUE(origin_allowed(p, "http://127.0.0.1:8080", "127.0.0.1:8080", false));
    EXPECT_TRUE(origin_allowed(p, "HTTP://LOCALHOST:8080", "localhost:8080", false));
    EXPECT_TRUE(origin_allowed(p, "https://127.0.0.1:8443", "127.0.0.1:8443", true));
    EXPECT_FALSE(origin_allowed(p, "https://127.0.0.1:8080", "127.0.0.1:8080", false));
    EXPECT_FALSE(origin_allowed(p, "http://127.0.0.1:8443", "127.0.0.1:8443", true));
    EXPECT_FALSE(origin_allowed(p, "http://127.0.0.1:8081", "127.0.0.1:8080", false));
    EXPECT_FALSE(origin_allowed(p, "http://localhost:8080", "127.0.0.1:8080", false));
    EXPECT_FALSE(origin_allowed(p, "http://evil.example", "127.0.0.1:8080", false));
    EXPECT_FALSE(origin_allowed(p, "http://127.0.0.1:8080", "", false));
}

TEST(OriginAllowed, ADefaultPortEqualsNoPort) {
    const HostPolicy p = loopback_policy();
    EXPECT_TRUE(origin_allowed(p, "https://yuzu.example.com", "yuzu.example.com:443", true));
    EXPECT_TRUE(origin_allowed(p, "https://yuzu.example.com:443", "yuzu.example.com", true));
    EXPECT_TRUE(origin_allowed(p, "http://yuzu.example.com", "yuzu.example.com:80", false));
    EXPECT_FALSE(origin_allowed(p, "https://yuzu.example.com", "yuzu.example.com:80", true));
}

TEST(OriginAllowed, AllowListEntriesMatchWhateverTheHost) {
    HostPolicy p = loopback_policy();
    p.allowed_origins = {"http://127.0.0.1:6274", "https://yuzu.example.com:443"};
    EXPECT_TRUE(origin_allowed(p, "http://127.0.0.1:6274", "127.0.0.1:8080", false));
    EXPECT_TRUE(origin_allowed(p, "HTTP://127.0.0.1:6274", "127.0.0.1:8080", false));
    // Behind a TLS-terminating proxy the browser omits :443 and the listener
    // itself speaks plain HTTP.
    EXPECT_TRUE(origin_allowed(p, "https://yuzu.example.com", "127.0.0.1:8080", false));
    EXPECT_FALSE(origin_allowed(p, "http://yuzu.example.com", "127.0.0.1:8080", false));
    EXPECT_FALSE(origin_allowed(p, "http://127.0.0.1:6275", "127.0.0.1:8080", false));
    EXPECT_FALSE(origin_allowed(p, "null", "127.0.0.1:8080", false));
}

}  // namespace
}  // namespace yuzu::http
