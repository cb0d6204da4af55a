#include "yuzu/auth/totp.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "yuzu/auth/random.hpp"

namespace yuzu::auth {
namespace {

// The shared secret of RFC 4226 appendix D and RFC 6238 appendix B (SHA-1).
std::vector<uint8_t> rfc_key() {
    const std::string ascii = "12345678901234567890";
    return {ascii.begin(), ascii.end()};
}

std::vector<uint8_t> bytes_of(std::string_view s) {
    return {s.begin(), s.end()};
}

TEST(Hotp, Rfc4226AppendixD) {
    const char* const expected[] = {"755224", "287082", "359152", "969429", "338314",
                                    "254676", "287922", "162583", "399871", "520489"};
    const auto key = rfc_key();
    for (uint64_t counter = 0; counter < 10; ++counter) {
        EXPECT_EQ(hotp(key, counter), expected[counter]) << "counter " << counter;
    }
}

struct TotpVector {
    int64_t unix_seconds;
    const char* code8;
};

// RFC 6238 appendix B, SHA-1 rows.
const TotpVector kRfc6238[] = {
    {59, "94287082"},         {1111111109, "07081804"}, {1111111111, "14050471"},
    {1234567890, "89005924"}, {2000000000, "69279037"}, {20000000000, "65353130"},
};

TEST(Totp, Rfc6238AppendixBEightDigits) {
    const auto key = rfc_key();
    for (const auto& v : kRfc6238) {
        EXPECT_EQ(hotp(key, static_cast<uint64_t>(v.unix_seconds / 30), 8), v.code8)
            << "T=" << v.unix_seconds;
    }
}

TEST(Totp, SixDigitCodesAreTheLastSixOfTheRfcVectors) {
    // Truncation is value mod 10^digits, so the 6-digit code is the 8-digit
    // code's suffix.
    const auto key = rfc_key();
    for (const auto& v : kRfc6238) {
        EXPECT_EQ(totp_at(key, v.unix_seconds), std::string(v.code8).substr(2))
            << "T=" << v.unix_seconds;
    }
}

TEST(Totp, StepIsThirtySeconds) {
    EXPECT_EQ(totp_step(0), 0);
    EXPECT_EQ(totp_step(29), 0);
    EXPECT_EQ(totp_step(30), 1);
    EXPECT_EQ(totp_step(59), 1);
    EXPECT_EQ(totp_step(1111111111), 37037037);
    const auto key = rfc_key();
    EXPECT_EQ(totp_at(key, 30), totp_at(key, 59));
}

// Each case: input, RFC 4648 section 10 base32 with padding.
const std::pair<const char*, const char*> kBase32Vectors[] = {
    {"", ""},
    {"f", "MY======"},
    {"fo", "MZXQ===="},
    {"foo", "MZXW6==="},
    {"foob", "MZXW6YQ="},
    {"fooba", "MZXW6YTB"},
    {"foobar", "MZXW6YTBOI======"},
};

std::string strip_padding(std::string s) {
    s.erase(s.find_last_not_of('=') + 1);
    return s;
}

TEST(Base32, Rfc4648VectorsEncodeWithoutPadding) {
    for (const auto& [raw, padded] : kBase32Vectors) {
        EXPECT_EQ(base32_encode(bytes_of(raw)), strip_padding(padded)) << raw;
    }
}

TEST(Base32, Rfc4648VectorsDecodeWithOrWithoutPadding) {
    for (const auto& [raw, padded] : kBase32Vectors) {
        auto with = base32_decode(padded);
        auto without = base32_decode(strip_padding(padded));
        ASSERT_TRUE(with.ok()) << padded;
        ASSERT_TRUE(without.ok()) << padded;
        EXPECT_EQ(*with, bytes_of(raw));
        EXPECT_EQ(*without, bytes_of(raw));
    }
}

TEST(Base32, DecodeToleratesLowercaseAndSpaces) {
    auto r = base32_decode("mzxw 6ytb oi== ");
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_EQ(*r, bytes_of("foobar"));
    auto mixed = base32_decode("MzXw6YtB");
    ASSERT_TRUE(mixed.ok());
    EXPECT_EQ(*mixed, bytes_of("fooba"));
}

TEST(Base32, DecodeRejectsInvalidInput) {
    for (const char* bad : {"MZXW6YT1", "MZXW6YT8", "MZXW6YT0", "MZ=XW6YQ", "MZXW-6YQ", "M", "MZX",
                            "MZXW6Y", "MZXW6YTB\n", "MZXW\t6YQ"}) {
        auto r = base32_decode(bad);
        EXPECT_FALSE(r.ok()) << bad;
        if (!r.ok()) {
            EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
        }
    }
}

TEST(Base32, RoundTripsRandomBytesOfEveryLength) {
    for (size_t len = 0; len <= 41; ++len) {
        auto bytes = random_bytes(len);
        ASSERT_TRUE(bytes.ok());
        const std::string text = base32_encode(*bytes);
        EXPECT_EQ(text.size(), (len * 8 + 4) / 5);
        auto back = base32_decode(text);
        ASSERT_TRUE(back.ok()) << text;
        EXPECT_EQ(*back, *bytes);
    }
}

TEST(TotpSecret, TwentyRandomBytesInBase32) {
    std::set<std::string> seen;
    for (int i = 0; i < 20; ++i) {
        auto secret = generate_totp_secret();
        ASSERT_TRUE(secret.ok());
        EXPECT_EQ(secret->size(), 32u);
        auto raw = base32_decode(*secret);
        ASSERT_TRUE(raw.ok());
        EXPECT_EQ(raw->size(), kTotpSecretBytes);
        seen.insert(*secret);
    }
    EXPECT_EQ(seen.size(), 20u);
}

class TotpVerify : public ::testing::Test {
  protected:
    const std::vector<uint8_t> key_ = rfc_key();
    // Mid-step, so +-15 s stays in the same step.
    const int64_t now_s_ = 1111111111;
    const int64_t now_step_ = 1111111111 / 30;

    std::string code_for_step(int64_t step) const {
        return hotp(key_, static_cast<uint64_t>(step), 6);
    }
};

TEST_F(TotpVerify, AcceptsCurrentAndAdjacentSteps) {
    for (int64_t delta : {-1, 0, 1}) {
        auto matched = totp_verify(key_, code_for_step(now_step_ + delta), now_s_, kTotpNoStepUsed);
        ASSERT_TRUE(matched.has_value()) << "delta " << delta;
        EXPECT_EQ(*matched, now_step_ + delta);
    }
}

TEST_F(TotpVerify, RefusesStepsTwoAway) {
    for (int64_t delta : {-3, -2, 2, 3}) {
        const std::string code = code_for_step(now_step_ + delta);
        // Guard against a coincidence with an accepted step, which would make
        // this case meaningless rather than wrong.
        ASSERT_NE(code, code_for_step(now_step_ - 1));
        ASSERT_NE(code, code_for_step(now_step_));
        ASSERT_NE(code, code_for_step(now_step_ + 1));
        EXPECT_FALSE(totp_verify(key_, code, now_s_, kTotpNoStepUsed).has_value())
            << "delta " << delta;
    }
}

TEST_F(TotpVerify, NeverAcceptsAStepTwice) {
    const std::string code = code_for_step(now_step_);
    auto first = totp_verify(key_, code, now_s_, kTotpNoStepUsed);
    ASSERT_TRUE(first.has_value());
    EXPECT_FALSE(totp_verify(key_, code, now_s_, *first).has_value());
    // Still refused a step later, while the code remains inside the window.
    EXPECT_FALSE(totp_verify(key_, code, now_s_ + 30, *first).has_value());
    // An older code from the window is refused once a newer step was used.
    EXPECT_FALSE(totp_verify(key_, code_for_step(now_step_ - 1), now_s_, *first).has_value());
    // The next step's code is still good.
    auto next = totp_verify(key_, code_for_step(now_step_ + 1), now_s_, *first);
    ASSERT_TRUE(next.has_value());
    EXPECT_EQ(*next, now_step_ + 1);
}

TEST_F(TotpVerify, SharedCodeAcrossStepsBurnsTheLaterStep) {
    // With the RFC key, steps 910737 and 910738 both yield 911617 (found by
    // search). Accepting it as the earlier step would let the same digits be
    // replayed as the later one.
    ASSERT_EQ(code_for_step(910737), "911617");
    ASSERT_EQ(code_for_step(910738), "911617");
    const int64_t at = 910737 * 30 + 10;
    auto matched = totp_verify(key_, "911617", at, kTotpNoStepUsed);
    ASSERT_TRUE(matched.has_value());
    EXPECT_EQ(*matched, 910738);
    EXPECT_FALSE(totp_verify(key_, "911617", at + 30, *matched).has_value());
}

TEST_F(TotpVerify, RejectsAnythingButSixDigits) {
    const std::string good = code_for_step(now_step_);
    ASSERT_TRUE(totp_verify(key_, good, now_s_, kTotpNoStepUsed).has_value());
    const std::string eight = hotp(key_, static_cast<uint64_t>(now_step_), 8);
    for (const std::string& bad :
         {std::string(), good.substr(0, 5), good + "0", eight, " " + good, good + " ",
          good.substr(0, 3) + " " + good.substr(3), good.substr(0, 5) + "a",
          std::string("\xd9\xa1\xd9\xa2\xd9\xa3")}) {
        EXPECT_FALSE(totp_verify(key_, bad, now_s_, kTotpNoStepUsed).has_value()) << bad;
    }
}

TEST_F(TotpVerify, WrongKeyFails) {
    const auto other = bytes_of("another key, 20 byte");
    const std::string code = code_for_step(now_step_);
    for (int64_t step = now_step_ - 1; step <= now_step_ + 1; ++step) {
        ASSERT_NE(hotp(other, static_cast<uint64_t>(step)), code);  // no coincidence
    }
    EXPECT_FALSE(totp_verify(other, code, now_s_, kTotpNoStepUsed).has_value());
    EXPECT_TRUE(totp_verify(other, totp_at(other, now_s_), now_s_, kTotpNoStepUsed).has_value());
}

TEST(OtpauthUri, PercentEncodesLabelAndParameters) {
    EXPECT_EQ(otpauth_uri("Yuzu Corp", "alice@example.com", "JBSWY3DPEHPK3PXP"),
              "otpauth://totp/Yuzu%20Corp:alice%40example.com?secret=JBSWY3DPEHPK3PXP"
              "&issuer=Yuzu%20Corp&algorithm=SHA1&digits=6&period=30");
    EXPECT_EQ(otpauth_uri("A:B&C", "d/e?f=g#h", "MZXW6==="),
              "otpauth://totp/A%3AB%26C:d%2Fe%3Ff%3Dg%23h?secret=MZXW6%3D%3D%3D"
              "&issuer=A%3AB%26C&algorithm=SHA1&digits=6&period=30");
    EXPECT_EQ(otpauth_uri("Caf\xc3\xa9", "b.o_b-~", "AB"),
              "otpauth://totp/Caf%C3%A9:b.o_b-~?secret=AB&issuer=Caf%C3%A9"
              "&algorithm=SHA1&digits=6&period=30");
}

}  // namespace
}  // namespace yuzu::auth
