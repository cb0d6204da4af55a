#include "yuzu/agent/server_endpoint.hpp"

#include <gtest/gtest.h>

namespace yuzu::agent {
namespace {

TEST(ServerEndpoint, ParsesSchemesHostsPortsAndPrefixes) {
    auto plain = parse_server_url("http://127.0.0.1:8081");
    ASSERT_TRUE(plain.ok()) << plain.status().to_string();
    EXPECT_EQ(plain->scheme, "http");
    EXPECT_EQ(plain->host, "127.0.0.1");
    EXPECT_EQ(plain->port, 8081);
    EXPECT_EQ(plain->base_path, "");
    EXPECT_FALSE(plain->tls());
    EXPECT_EQ(plain->url(), "http://127.0.0.1:8081");

    auto tls = parse_server_url("HTTPS://Yuzu.Example.COM/agents/");
    ASSERT_TRUE(tls.ok());
    EXPECT_TRUE(tls->tls());
    EXPECT_EQ(tls->host, "yuzu.example.com");
    EXPECT_EQ(tls->port, 443);
    EXPECT_EQ(tls->base_path, "/agents");
    EXPECT_EQ(tls->url(), "https://yuzu.example.com:443/agents");

    auto v6 = parse_server_url("http://[::1]:9000/");
    ASSERT_TRUE(v6.ok());
    EXPECT_EQ(v6->host, "::1");
    EXPECT_EQ(v6->port, 9000);
    EXPECT_EQ(v6->origin(), "http://[::1]:9000");
    EXPECT_EQ(parse_server_url("http://[fe80::1]")->port, 80);
}

TEST(ServerEndpoint, TheSameServerNormalisesToOneUrl) {
    EXPECT_EQ(parse_server_url("http://host")->url(), parse_server_url("HTTP://HOST:80/")->url());
}

TEST(ServerEndpoint, RefusesWhatItCannotUse) {
    for (const char* bad : {"", "127.0.0.1:8081", "ftp://host", "http://", "http://:80",
                            "http://host:0", "http://host:65536", "http://host:abc", "http://host:",
                            "http://user:pw@host", "http://host/?q=1", "http://host/#frag",
                            "http://[::1", "http://[::1]x", "http://ho st", "http://[zz::1]"}) {
        auto r = parse_server_url(bad);
        EXPECT_FALSE(r.ok()) << bad;
        if (!r.ok()) {
            EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << bad;
        }
    }
}

}  // namespace
}  // namespace yuzu::agent
