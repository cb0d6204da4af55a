#include "yuzu/auth/random.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string_view>

namespace yuzu::auth {
namespace {

constexpr std::string_view kBase62 =
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

TEST(RandomBytes, ReturnsRequestedLength) {
    for (size_t n : {0u, 1u, 16u, 33u, 4096u}) {
        auto bytes = random_bytes(n);
        ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
        EXPECT_EQ(bytes->size(), n);
    }
}

TEST(RandomBytes, DrawsDiffer) {
    auto a = random_bytes(32);
    auto b = random_bytes(32);
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE(b.ok());
    EXPECT_NE(*a, *b);
}

TEST(RandomBytes, EveryByteValueShowsUp) {
    // 64 KiB of uniform bytes miss a given value with probability ~e^-256.
    auto bytes = random_bytes(1 << 16);
    ASSERT_TRUE(bytes.ok());
    std::array<int, 256> seen{};
    for (uint8_t b : *bytes) ++seen[b];
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 0), 0);
}

TEST(RandomHex, LowercaseHexOfTwiceTheLength) {
    auto hex = random_hex(20);
    ASSERT_TRUE(hex.ok());
    ASSERT_EQ(hex->size(), 40u);
    for (char c : *hex) {
        EXPECT_TRUE((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) << c;
    }
    auto other = random_hex(20);
    ASSERT_TRUE(other.ok());
    EXPECT_NE(*hex, *other);
    auto empty = random_hex(0);
    ASSERT_TRUE(empty.ok());
    EXPECT_TRUE(empty->empty());
}

TEST(RandomBase62, LengthAndAlphabet) {
    for (size_t n : {0u, 1u, 32u, 1000u}) {
        auto s = random_base62(n);
        ASSERT_TRUE(s.ok());
        ASSERT_EQ(s->size(), n);
        for (char c : *s) EXPECT_NE(kBase62.find(c), std::string_view::npos) << c;
    }
}

TEST(RandomBase62, DistributionIsUniform) {
    // 62,000 draws, 1,000 expected per symbol. Pearson's chi-square with 61
    // degrees of freedom has mean 61 and standard deviation ~11; 150 is
    // beyond p = 1e-8. A plain `byte % 62` (no rejection) makes the first 8
    // symbols 25% more likely and scores around 250 here.
    constexpr size_t kPerSymbol = 1000;
    auto s = random_base62(62 * kPerSymbol);
    ASSERT_TRUE(s.ok());
    std::array<double, 62> counts{};
    for (char c : *s) ++counts[kBase62.find(c)];
    double chi2 = 0;
    for (double observed : counts) {
        const double d = observed - static_cast<double>(kPerSymbol);
        chi2 += d * d / static_cast<double>(kPerSymbol);
    }
    EXPECT_LT(chi2, 150.0);
    EXPECT_GT(*std::min_element(counts.begin(), counts.end()), 0.0);
}

}  // namespace
}  // namespace yuzu::auth
