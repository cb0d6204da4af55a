#include "yuzu/auth/secret_box.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <fstream>
#include <string>

#include "support/temp_dir.hpp"
#include "yuzu/auth/random.hpp"
#include "yuzu/auth/token_codec.hpp"

namespace yuzu::auth {
namespace {

using Key = std::array<uint8_t, kSecretBoxKeyBytes>;

Key fixed_key(uint8_t seed) {
    Key key{};
    for (size_t i = 0; i < key.size(); ++i) key[i] = static_cast<uint8_t>(seed + i * 7);
    return key;
}

SecretBox box_with(uint8_t seed) {
    auto box = SecretBox::from_key(fixed_key(seed));
    EXPECT_TRUE(box.ok());
    return std::move(box).value();
}

void expect_decrypt_failure(const Result<std::string>& r) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(r.status().message().rfind("secret could not be decrypted", 0), 0u)
        << r.status().message();
}

// Rewraps a sealed value after changing one byte of its binary payload.
std::string flip_byte(const std::string& sealed, size_t index) {
    auto raw = base64_decode(sealed.substr(3));
    EXPECT_TRUE(raw.ok());
    std::string bytes = *raw;
    bytes[index] = static_cast<char>(bytes[index] ^ 0x01);
    return "v1:" + base64_encode(bytes);
}

void write_file(const std::string& path, const std::string& content, mode_t mode) {
    {
        std::ofstream out(path, std::ios::binary);
        out << content;
    }
    ASSERT_EQ(::chmod(path.c_str(), mode), 0);
}

TEST(SecretBox, RoundTrip) {
    const SecretBox box = box_with(1);
    for (const std::string& plaintext :
         {std::string("JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"), std::string(), std::string("a\0b", 3),
          std::string(5000, 'z')}) {
        auto sealed = box.seal(plaintext, "totp:user:42");
        ASSERT_TRUE(sealed.ok()) << sealed.status().to_string();
        auto opened = box.open(*sealed, "totp:user:42");
        ASSERT_TRUE(opened.ok()) << opened.status().to_string();
        EXPECT_EQ(*opened, plaintext);
    }
}

TEST(SecretBox, EmptyAssociatedDataWorks) {
    const SecretBox box = box_with(2);
    auto sealed = box.seal("secret", "");
    ASSERT_TRUE(sealed.ok());
    auto opened = box.open(*sealed, "");
    ASSERT_TRUE(opened.ok()) << opened.status().to_string();
    EXPECT_EQ(*opened, "secret");
    expect_decrypt_failure(box.open(*sealed, "x"));
}

TEST(SecretBox, SealedFormatIsVersionedNonceCiphertextTag) {
    const SecretBox box = box_with(3);
    const std::string plaintext = "twenty-byte secret!!";
    auto sealed = box.seal(plaintext, "ad");
    ASSERT_TRUE(sealed.ok());
    ASSERT_EQ(sealed->rfind("v1:", 0), 0u);
    auto raw = base64_decode(sealed->substr(3));
    ASSERT_TRUE(raw.ok());
    EXPECT_EQ(raw->size(), 12 + plaintext.size() + 16);
    EXPECT_EQ(raw->find(plaintext), std::string::npos);
}

TEST(SecretBox, FreshNonceEverySeal) {
    const SecretBox box = box_with(4);
    auto a = box.seal("same", "ad");
    auto b = box.seal("same", "ad");
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE(b.ok());
    EXPECT_NE(*a, *b);
    EXPECT_NE(a->substr(0, 3 + 16), b->substr(0, 3 + 16));  // 12-byte nonce = 16 chars
}

TEST(SecretBox, TamperingIsDetected) {
    const SecretBox box = box_with(5);
    const std::string plaintext = "0123456789abcdef";
    auto sealed = box.seal(plaintext, "ad");
    ASSERT_TRUE(sealed.ok());
    ASSERT_TRUE(box.open(*sealed, "ad").ok());
    const size_t total = 12 + plaintext.size() + 16;
    expect_decrypt_failure(box.open(flip_byte(*sealed, 0), "ad"));           // nonce
    expect_decrypt_failure(box.open(flip_byte(*sealed, 12), "ad"));          // ciphertext
    expect_decrypt_failure(box.open(flip_byte(*sealed, 12 + 15), "ad"));     // ciphertext end
    expect_decrypt_failure(box.open(flip_byte(*sealed, total - 16), "ad"));  // tag start
    expect_decrypt_failure(box.open(flip_byte(*sealed, total - 1), "ad"));   // tag end
}

TEST(SecretBox, AssociatedDataMustMatch) {
    const SecretBox box = box_with(6);
    auto sealed = box.seal("secret", "totp:user:42");
    ASSERT_TRUE(sealed.ok());
    expect_decrypt_failure(box.open(*sealed, "totp:user:43"));
    expect_decrypt_failure(box.open(*sealed, ""));
    expect_decrypt_failure(box.open(*sealed, "totp:user:42 "));
}

TEST(SecretBox, WrongKeyFails) {
    auto sealed = box_with(7).seal("secret", "ad");
    ASSERT_TRUE(sealed.ok());
    expect_decrypt_failure(box_with(8).open(*sealed, "ad"));
}

TEST(SecretBox, MalformedSealedValuesFail) {
    const SecretBox box = box_with(9);
    auto sealed = box.seal("secret", "ad");
    ASSERT_TRUE(sealed.ok());
    const std::string body = sealed->substr(3);
    const std::string cases[] = {
        "",
        "v1:",
        body,
        "v2:" + body,
        "V1:" + body,
        "v1:" + body + "!",
        "v1:" + base64_encode(std::string(27, 'a')),  // shorter than nonce + tag
        sealed->substr(0, sealed->size() - 4),        // truncated
    };
    for (const auto& bad : cases) expect_decrypt_failure(box.open(bad, "ad"));
}

TEST(SecretBox, RefusesAllZeroKey) {
    const Key zero{};
    auto box = SecretBox::from_key(zero);
    ASSERT_FALSE(box.ok());
    EXPECT_EQ(box.status().code(), StatusCode::kInvalidArgument);
}

TEST(SecretBox, MovedBoxKeepsWorking) {
    SecretBox original = box_with(10);
    auto sealed = original.seal("secret", "ad");
    ASSERT_TRUE(sealed.ok());
    SecretBox moved = std::move(original);
    auto opened = moved.open(*sealed, "ad");
    ASSERT_TRUE(opened.ok());
    EXPECT_EQ(*opened, "secret");
}

TEST(SecretBoxKeyFile, CreatesKeyWithMode0600AndReloadsIt) {
    yuzu::testing::TempDir dir;
    const std::string path = (dir / "secret.key").string();
    auto created = SecretBox::load_or_create_key_file(path);
    ASSERT_TRUE(created.ok()) << created.status().to_string();

    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_TRUE(S_ISREG(st.st_mode));
    EXPECT_EQ(st.st_mode & 07777, 0600u);
    EXPECT_EQ(st.st_size, 32);

    auto sealed = created->seal("secret", "ad");
    ASSERT_TRUE(sealed.ok());
    auto reloaded = SecretBox::load_or_create_key_file(path);
    ASSERT_TRUE(reloaded.ok()) << reloaded.status().to_string();
    auto opened = reloaded->open(*sealed, "ad");
    ASSERT_TRUE(opened.ok()) << opened.status().to_string();
    EXPECT_EQ(*opened, "secret");
}

TEST(SecretBoxKeyFile, DistinctFilesGetDistinctKeys) {
    yuzu::testing::TempDir dir;
    auto a = SecretBox::load_or_create_key_file((dir / "a.key").string());
    auto b = SecretBox::load_or_create_key_file((dir / "b.key").string());
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE(b.ok());
    auto sealed = a->seal("secret", "ad");
    ASSERT_TRUE(sealed.ok());
    expect_decrypt_failure(b->open(*sealed, "ad"));
}

TEST(SecretBoxKeyFile, ModeIs0600EvenUnderARestrictiveUmask) {
    yuzu::testing::TempDir dir;
    const std::string path = (dir / "secret.key").string();
    const mode_t previous = ::umask(0277);
    auto created = SecretBox::load_or_create_key_file(path);
    ::umask(previous);
    ASSERT_TRUE(created.ok()) << created.status().to_string();
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0600u);
    EXPECT_TRUE(SecretBox::load_or_create_key_file(path).ok());
}

TEST(SecretBoxKeyFile, LoadsAnExistingKey) {
    yuzu::testing::TempDir dir;
    const std::string path = (dir / "secret.key").string();
    const Key key = fixed_key(11);
    write_file(path, std::string(key.begin(), key.end()), 0600);
    auto loaded = SecretBox::load_or_create_key_file(path);
    ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
    auto sealed = box_with(11).seal("secret", "ad");
    ASSERT_TRUE(sealed.ok());
    auto opened = loaded->open(*sealed, "ad");
    ASSERT_TRUE(opened.ok());
    EXPECT_EQ(*opened, "secret");
}

TEST(SecretBoxKeyFile, RefusesGroupOrOtherAccess) {
    yuzu::testing::TempDir dir;
    const std::string path = (dir / "secret.key").string();
    const Key key = fixed_key(12);
    for (mode_t mode : {0644, 0640, 0604, 0660, 0602}) {
        write_file(path, std::string(key.begin(), key.end()), mode);
        auto loaded = SecretBox::load_or_create_key_file(path);
        ASSERT_FALSE(loaded.ok()) << std::oct << mode;
        EXPECT_EQ(loaded.status().code(), StatusCode::kFailedPrecondition);
        EXPECT_NE(loaded.status().message().find(path), std::string::npos)
            << loaded.status().message();
        char mode_text[8];
        std::snprintf(mode_text, sizeof mode_text, "%04o", static_cast<unsigned>(mode));
        EXPECT_NE(loaded.status().message().find(mode_text), std::string::npos)
            << loaded.status().message();
    }
    // Owner-only modes other than 0600 are fine.
    write_file(path, std::string(key.begin(), key.end()), 0400);
    EXPECT_TRUE(SecretBox::load_or_create_key_file(path).ok());
}

TEST(SecretBoxKeyFile, RefusesWrongSize) {
    yuzu::testing::TempDir dir;
    const std::string path = (dir / "secret.key").string();
    for (size_t size : {0u, 16u, 31u, 33u, 64u}) {
        write_file(path, std::string(size, 'k'), 0600);
        auto loaded = SecretBox::load_or_create_key_file(path);
        ASSERT_FALSE(loaded.ok()) << size;
        EXPECT_EQ(loaded.status().code(), StatusCode::kFailedPrecondition);
        EXPECT_NE(loaded.status().message().find(path), std::string::npos);
        EXPECT_NE(loaded.status().message().find(std::to_string(size) + " bytes"),
                  std::string::npos)
            << loaded.status().message();
    }
    // The short file is left alone for the operator, never overwritten.
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_size, 64);
}

TEST(SecretBoxKeyFile, RefusesADirectoryOrAMissingParent) {
    yuzu::testing::TempDir dir;
    auto on_dir = SecretBox::load_or_create_key_file(dir.str());
    ASSERT_FALSE(on_dir.ok());
    EXPECT_EQ(on_dir.status().code(), StatusCode::kFailedPrecondition);

    const std::string orphan = (dir / "missing" / "secret.key").string();
    auto no_parent = SecretBox::load_or_create_key_file(orphan);
    ASSERT_FALSE(no_parent.ok());
    EXPECT_EQ(no_parent.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(no_parent.status().message().find(orphan), std::string::npos);
}

}  // namespace
}  // namespace yuzu::auth
