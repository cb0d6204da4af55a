#include "yuzu/auth/token_codec.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <set>

namespace yuzu::auth {
namespace {

TEST(Sha256Hex, KnownVectors) {
    // FIPS 180-2 appendix B.1 and the empty message.
    EXPECT_EQ(sha256_hex("abc"),
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(HmacSha256Hex, KnownVectors) {
    // RFC 4231 test case 2.
    EXPECT_EQ(hmac_sha256_hex("Jefe", "what do ya want for nothing?"),
              "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    // Empty key and message (as computed by Python's hmac module).
    EXPECT_EQ(hmac_sha256_hex("", ""),
              "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad");
}

TEST(ConstantTimeEqual, ComparesContentAndLength) {
    EXPECT_TRUE(constant_time_equal("", ""));
    EXPECT_TRUE(constant_time_equal("secret", "secret"));
    EXPECT_FALSE(constant_time_equal("secret", "secreT"));
    EXPECT_FALSE(constant_time_equal("Secret", "secret"));
    EXPECT_FALSE(constant_time_equal("secret", "secret2"));
    EXPECT_FALSE(constant_time_equal("secret", "secre"));
    EXPECT_FALSE(constant_time_equal("", "x"));
    EXPECT_FALSE(constant_time_equal("x", ""));
    const std::string a("a\0b", 3);
    const std::string b("a\0c", 3);
    EXPECT_FALSE(constant_time_equal(a, b));
    EXPECT_TRUE(constant_time_equal(a, std::string("a\0b", 3)));
}

TEST(ApiToken, HasPrefixAnd32Base62Chars) {
    const std::regex shape("^yuzu_[0-9A-Za-z]{32}$");
    std::set<std::string> seen;
    for (int i = 0; i < 50; ++i) {
        auto token = generate_api_token();
        ASSERT_TRUE(token.ok()) << token.status().to_string();
        EXPECT_EQ(token->size(), kApiTokenLength);
        EXPECT_TRUE(std::regex_match(*token, shape)) << *token;
        EXPECT_TRUE(looks_like_api_token(*token)) << *token;
        seen.insert(*token);
    }
    EXPECT_EQ(seen.size(), 50u);
}

TEST(ApiToken, LooksLikeRejectsWrongShapes) {
    const std::string good = "yuzu_0123456789ABCDEFGHIJabcdefghij";  // 5 + 30
    ASSERT_EQ(good.size(), 35u);
    EXPECT_TRUE(looks_like_api_token(good + "Zz"));
    EXPECT_FALSE(looks_like_api_token(good + "Z"));    // 36
    EXPECT_FALSE(looks_like_api_token(good + "Zzz"));  // 38
    EXPECT_FALSE(looks_like_api_token(good + "Z-"));   // not base62
    EXPECT_FALSE(looks_like_api_token(good + "Z="));
    EXPECT_FALSE(looks_like_api_token(good + "Z "));
    EXPECT_FALSE(looks_like_api_token("Yuzu_" + good.substr(5) + "Zz"));
    EXPECT_FALSE(looks_like_api_token("yuzu-" + good.substr(5) + "Zz"));
    EXPECT_FALSE(looks_like_api_token("abcde" + good.substr(5) + "Zz"));
    EXPECT_FALSE(looks_like_api_token(""));
    EXPECT_FALSE(looks_like_api_token("yuzu_"));
    std::string with_nul = good + "Z";
    with_nul.push_back('\0');
    EXPECT_FALSE(looks_like_api_token(with_nul));
}

TEST(ApiToken, DisplayIdIsFirst24HexOfSha256) {
    EXPECT_EQ(token_display_id("abc"), "ba7816bf8f01cfea414140de");
    auto token = generate_api_token();
    ASSERT_TRUE(token.ok());
    const std::string id = token_display_id(*token);
    EXPECT_EQ(id.size(), kTokenDisplayIdLength);
    EXPECT_EQ(id, sha256_hex(*token).substr(0, 24));
    EXPECT_EQ(id.find(token->substr(5, 8)), std::string::npos);
}

struct Vector {
    const char* raw;
    const char* std_b64;
    const char* url_b64;
};

// RFC 4648 section 10.
const Vector kVectors[] = {
    {"", "", ""},
    {"f", "Zg==", "Zg"},
    {"fo", "Zm8=", "Zm8"},
    {"foo", "Zm9v", "Zm9v"},
    {"foob", "Zm9vYg==", "Zm9vYg"},
    {"fooba", "Zm9vYmE=", "Zm9vYmE"},
    {"foobar", "Zm9vYmFy", "Zm9vYmFy"},
};

TEST(Base64, Rfc4648Vectors) {
    for (const auto& v : kVectors) {
        EXPECT_EQ(base64_encode(v.raw), v.std_b64);
        auto decoded = base64_decode(v.std_b64);
        ASSERT_TRUE(decoded.ok()) << v.std_b64;
        EXPECT_EQ(*decoded, v.raw);
    }
}

TEST(Base64Url, Rfc4648VectorsWithoutPadding) {
    for (const auto& v : kVectors) {
        EXPECT_EQ(base64url_encode(v.raw), v.url_b64);
        auto decoded = base64url_decode(v.url_b64);
        ASSERT_TRUE(decoded.ok()) << v.url_b64;
        EXPECT_EQ(*decoded, v.raw);
    }
}

TEST(Base64, AlphabetsDifferOnlyInTheLastTwoSymbols) {
    const std::string bytes("\xfb\xff\xbf", 3);
    EXPECT_EQ(base64_encode(bytes), "+/+/");
    EXPECT_EQ(base64url_encode(bytes), "-_-_");
}

TEST(Base64, RoundTripsEveryByteValue) {
    std::string all;
    for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
    for (size_t len = 0; len <= all.size(); len += 37) {
        const std::string bytes = all.substr(0, len);
        auto std_back = base64_decode(base64_encode(bytes));
        auto url_back = base64url_decode(base64url_encode(bytes));
        ASSERT_TRUE(std_back.ok());
        ASSERT_TRUE(url_back.ok());
        EXPECT_EQ(*std_back, bytes);
        EXPECT_EQ(*url_back, bytes);
    }
}

TEST(Base64, DecodeRejectsMalformedText) {
    for (const char* bad :
         {"Zg=", "Zg", "Zh==", "Z===", "====", "Zg==Zg==", "Zm9v\n", "Zm-v", "Zm9 v", "Zm9v="}) {
        auto r = base64_decode(bad);
        EXPECT_FALSE(r.ok()) << bad;
        if (!r.ok()) {
            EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
        }
    }
}

TEST(Base64Url, DecodeRejectsMalformedText) {
    for (const char* bad : {"Zg==", "Zm8=", "Z", "Zh", "Zm+v", "Zm/v", "Zm9 v", "Zm9v\n"}) {
        auto r = base64url_decode(bad);
        EXPECT_FALSE(r.ok()) << bad;
        if (!r.ok()) {
            EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
        }
    }
}

}  // namespace
}  // namespace yuzu::auth
