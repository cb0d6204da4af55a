#include "yuzu/auth/password_hash.hpp"

#include <gtest/gtest.h>

#include <regex>

namespace yuzu::auth {
namespace {

// Cheap cost for tests (1 MiB, a few ms); the default is exercised once.
constexpr int kTestLogN = 10;

// Produced independently with Python's hashlib.scrypt: password
// "correct horse battery staple", salt bytes 0x00..0x0f.
constexpr const char* kPythonPassword = "correct horse battery staple";
constexpr const char* kPythonHash =
    "$scrypt$ln=10,r=8,p=1$AAECAwQFBgcICQoLDA0ODw$mp90zEQd5XGhjEv4WArVH4Z0XRSzkGWtJK2S_AXJlRU";

std::string hash_cheaply(std::string_view password) {
    auto h = hash_password_with_cost(password, kTestLogN);
    EXPECT_TRUE(h.ok()) << h.status().to_string();
    return h.ok() ? *h : std::string();
}

TEST(PasswordHash, RoundTrip) {
    const std::string h = hash_cheaply("hunter2 is not a good password");
    EXPECT_TRUE(verify_password("hunter2 is not a good password", h));
}

TEST(PasswordHash, WrongPasswordFails) {
    const std::string h = hash_cheaply("right password");
    EXPECT_FALSE(verify_password("wrong password", h));
    EXPECT_FALSE(verify_password("right passwor", h));
    EXPECT_FALSE(verify_password("right password ", h));
    EXPECT_FALSE(verify_password("", h));
}

TEST(PasswordHash, EmptyPasswordIsHashable) {
    const std::string h = hash_cheaply("");
    EXPECT_TRUE(verify_password("", h));
    EXPECT_FALSE(verify_password(" ", h));
}

TEST(PasswordHash, EncodingIsSelfDescribing) {
    const std::string h = hash_cheaply("pw");
    // 16-byte salt -> 22 base64url chars, 32-byte key -> 43.
    const std::regex shape(R"(^\$scrypt\$ln=10,r=8,p=1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$)");
    EXPECT_TRUE(std::regex_match(h, shape)) << h;
}

TEST(PasswordHash, DefaultCostIsStrongAndCurrent) {
    auto h = hash_password("a password");
    ASSERT_TRUE(h.ok()) << h.status().to_string();
    EXPECT_EQ(h->rfind("$scrypt$ln=15,r=8,p=1$", 0), 0u) << *h;
    EXPECT_TRUE(verify_password("a password", *h));
    EXPECT_FALSE(needs_rehash(*h));
}

TEST(PasswordHash, SaltsAreUnique) {
    const std::string a = hash_cheaply("same password");
    const std::string b = hash_cheaply("same password");
    EXPECT_NE(a, b);
    // Different salts, not just different keys.
    EXPECT_NE(a.substr(0, a.rfind('$')), b.substr(0, b.rfind('$')));
    EXPECT_TRUE(verify_password("same password", a));
    EXPECT_TRUE(verify_password("same password", b));
}

TEST(PasswordHash, VerifiesHashFromIndependentImplementation) {
    EXPECT_TRUE(verify_password(kPythonPassword, kPythonHash));
    EXPECT_FALSE(verify_password("correct horse battery stapler", kPythonHash));
    // Same inputs with a 64-byte key and with r=1: other lengths and
    // parameters are read from the string.
    EXPECT_TRUE(verify_password(
        kPythonPassword,
        "$scrypt$ln=10,r=8,p=1$AAECAwQFBgcICQoLDA0ODw$mp90zEQd5XGhjEv4WArVH4Z0XRSzkGWtJK2S_"
        "AXJlRW-QA9Mynm-TifxZs9Px8KsvJdSEDFaABJ8g6bwc1cgCw"));
    EXPECT_TRUE(verify_password(kPythonPassword,
                                "$scrypt$ln=10,r=1,p=1$AAECAwQFBgcICQoLDA0ODw$I-HUu-"
                                "uWReSuJpP7ViCVRXthPIMR5Un75vna-dWd0mU"));
}

TEST(PasswordHash, ParametersBeyondCapsAreRefusedEvenWhenCorrect) {
    // Genuine hashes (Python) of the right password, but r=17 and p=5 exceed
    // the caps, so a tampered row cannot make verification expensive.
    EXPECT_FALSE(verify_password(kPythonPassword,
                                 "$scrypt$ln=10,r=17,p=1$AAECAwQFBgcICQoLDA0ODw$SxSh8FDqjB5lLc-"
                                 "kMsuguVW0fp87LjIjoUDH8JlZenE"));
    EXPECT_FALSE(verify_password(kPythonPassword,
                                 "$scrypt$ln=10,r=8,p=5$AAECAwQFBgcICQoLDA0ODw$"
                                 "WxGvYeGHBHLFSk8wPqRP4ddxq5jz_PCtJItBYKQtrAQ"));
    // ln=21 would need 2 GiB at r=8; it must be refused before any work.
    EXPECT_FALSE(verify_password(kPythonPassword,
                                 "$scrypt$ln=21,r=8,p=1$AAECAwQFBgcICQoLDA0ODw$"
                                 "mp90zEQd5XGhjEv4WArVH4Z0XRSzkGWtJK2S_AXJlRU"));
}

TEST(PasswordHash, TamperedEncodingsFail) {
    const std::string h = kPythonHash;
    const size_t key_at = h.rfind('$') + 1;
    const size_t salt_at = h.rfind('$', key_at - 2) + 1;

    std::string flipped_key = h;
    flipped_key[key_at + 3] = flipped_key[key_at + 3] == 'A' ? 'B' : 'A';
    EXPECT_FALSE(verify_password(kPythonPassword, flipped_key));

    std::string flipped_salt = h;
    flipped_salt[salt_at] = flipped_salt[salt_at] == 'A' ? 'B' : 'A';
    EXPECT_FALSE(verify_password(kPythonPassword, flipped_salt));

    std::string other_cost = h;
    other_cost.replace(other_cost.find("ln=10"), 5, "ln=11");
    EXPECT_FALSE(verify_password(kPythonPassword, other_cost));

    std::string other_r = h;
    other_r.replace(other_r.find("r=8"), 3, "r=4");
    EXPECT_FALSE(verify_password(kPythonPassword, other_r));

    // A truncated key never matches.
    EXPECT_FALSE(verify_password(kPythonPassword, h.substr(0, key_at + 22)));
}

TEST(PasswordHash, MalformedEncodingsFail) {
    const char* const salt = "AAECAwQFBgcICQoLDA0ODw";
    const char* const key = "mp90zEQd5XGhjEv4WArVH4Z0XRSzkGWtJK2S_AXJlRU";
    auto with = [&](const std::string& params, const std::string& s, const std::string& k) {
        return "$scrypt$" + params + "$" + s + "$" + k;
    };
    const std::string cases[] = {
        "",
        "$scrypt$",
        "scrypt$ln=10,r=8,p=1$AAECAwQFBgcICQoLDA0ODw$" + std::string(key),
        "$2b$10$abcdefghijklmnopqrstuv",
        with("ln=10,r=8,p=1", salt, ""),
        with("ln=10,r=8,p=1", "", key),
        with("ln=10,r=8,p=1", salt, std::string(key) + "="),
        with("ln=10,r=8,p=1", std::string(salt) + "==", key),
        with("ln=10,r=8,p=1", salt, std::string(key) + "$"),
        with("ln=10,r=8,p=1", salt, std::string(key) + "$extra"),
        with("ln=10,r=8,p=1", "AAECAwQF", key),                 // 6-byte salt
        with("ln=10,r=8,p=1", salt, "AAECAwQFBgcICQoLDA0ODw"),  // 16 bytes but wrong
        with("ln=010,r=8,p=1", salt, key),
        with("ln=+10,r=8,p=1", salt, key),
        with("ln=10,r=8", salt, key),
        with("r=8,ln=10,p=1", salt, key),
        with("ln=10,r=8,p=1,", salt, key),
        with("ln=10, r=8,p=1", salt, key),
        with("ln=0,r=8,p=1", salt, key),
        with("ln=10,r=0,p=1", salt, key),
        with("ln=10,r=8,p=0", salt, key),
        with("ln=100,r=8,p=1", salt, key),
        with("ln=,r=8,p=1", salt, key),
        with("n=1024,r=8,p=1", salt, key),
        "$SCRYPT$ln=10,r=8,p=1$" + std::string(salt) + "$" + key,
        std::string(kPythonHash) + "\n",
        " " + std::string(kPythonHash),
    };
    for (const auto& encoded : cases) {
        EXPECT_FALSE(verify_password(kPythonPassword, encoded)) << encoded;
        EXPECT_TRUE(needs_rehash(encoded)) << encoded;
    }
    // The control: the well-formed original passes.
    EXPECT_TRUE(verify_password(kPythonPassword, with("ln=10,r=8,p=1", salt, key)));
}

TEST(PasswordHash, OversizePasswordRefused) {
    const std::string max(kMaxPasswordBytes, 'x');
    const std::string over(kMaxPasswordBytes + 1, 'x');
    auto refused = hash_password_with_cost(over, kTestLogN);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
    auto refused_default = hash_password(over);
    ASSERT_FALSE(refused_default.ok());
    EXPECT_EQ(refused_default.status().code(), StatusCode::kInvalidArgument);

    const std::string h = hash_cheaply(max);
    EXPECT_TRUE(verify_password(max, h));
    EXPECT_FALSE(verify_password(over, h));
}

TEST(PasswordHash, CostOutsideLimitsRefused) {
    for (int log_n : {-1, 0, kScryptMinLogN - 1, kScryptMaxLogN + 1, 64}) {
        auto r = hash_password_with_cost("pw", log_n);
        ASSERT_FALSE(r.ok()) << log_n;
        EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    }
}

TEST(PasswordHash, NeedsRehashWhenCostDiffersFromDefault) {
    EXPECT_TRUE(needs_rehash(hash_cheaply("pw")));
    EXPECT_TRUE(needs_rehash(kPythonHash));
    EXPECT_TRUE(needs_rehash("not a hash"));
}

}  // namespace
}  // namespace yuzu::auth
