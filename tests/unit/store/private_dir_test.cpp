#include "yuzu/store/private_dir.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/temp_dir.hpp"

namespace yuzu::store {
namespace {

using yuzu::testing::TempDir;

mode_t mode_of(const std::filesystem::path& p) {
    struct stat st {};
    EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
    return st.st_mode & 07777;
}

// Restores the process umask when the test ends.
class UmaskGuard {
  public:
    explicit UmaskGuard(mode_t mask) : previous_(::umask(mask)) {}
    ~UmaskGuard() { ::umask(previous_); }

  private:
    mode_t previous_;
};

TEST(EnsurePrivateDir, CreatesAMissingDirectoryWithMode0700) {
    TempDir dir;
    const auto data = dir / "data";
    {
        UmaskGuard strict(0777);  // mkdir alone would give mode 0000
        Status s = ensure_private_dir(data.string());
        ASSERT_TRUE(s.ok()) << s.to_string();
    }
    EXPECT_TRUE(std::filesystem::is_directory(data));
    EXPECT_EQ(mode_of(data), 0700);
}

TEST(EnsurePrivateDir, CreatesMissingParentsAndAcceptsATrailingSlash) {
    TempDir dir;
    const auto data = dir / "var" / "lib" / "yuzu";
    Status s = ensure_private_dir(data.string() + "/");
    ASSERT_TRUE(s.ok()) << s.to_string();
    EXPECT_TRUE(std::filesystem::is_directory(data));
    EXPECT_EQ(mode_of(data), 0700);
}

TEST(EnsurePrivateDir, AcceptsAPrivateExistingDirectoryAsItIs) {
    TempDir dir;
    const auto data = dir / "data";
    std::filesystem::create_directory(data);
    ::chmod(data.c_str(), 0700);
    Status s = ensure_private_dir(data.string());
    EXPECT_TRUE(s.ok()) << s.to_string();
    EXPECT_EQ(mode_of(data), 0700);
}

TEST(EnsurePrivateDir, AnExistingDirectoryOpenToOthersIsMadePrivate) {
    for (const mode_t loose : {0755, 0750, 0701, 0777}) {
        TempDir dir;
        const auto data = dir / "data";
        std::filesystem::create_directory(data);
        ::chmod(data.c_str(), loose);
        Status s = ensure_private_dir(data.string());
        EXPECT_TRUE(s.ok()) << s.to_string();
        EXPECT_EQ(mode_of(data), 0700) << std::oct << loose;
    }
}

TEST(EnsurePrivateDir, AFileInTheWayFailsWithThePath) {
    TempDir dir;
    const auto data = dir / "data";
    std::ofstream(data) << "not a directory";
    Status s = ensure_private_dir(data.string());
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(s.message().find(data.string()), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("not a directory"), std::string::npos);

    Status below = ensure_private_dir((data / "child").string());
    ASSERT_FALSE(below.ok());
    EXPECT_NE(below.message().find(data.string()), std::string::npos) << below.message();
}

TEST(EnsurePrivateDir, AnUnusableDirectoryFailsWithThePath) {
    if (::geteuid() == 0) GTEST_SKIP() << "root can write anywhere; permission checks are moot";
    TempDir dir;
    const auto data = dir / "data";
    std::filesystem::create_directory(data);
    ::chmod(data.c_str(), 0500);
    Status s = ensure_private_dir(data.string());
    ::chmod(data.c_str(), 0700);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find(data.string()), std::string::npos) << s.message();
}

TEST(EnsurePrivateDir, EmptyPathIsRejected) {
    EXPECT_EQ(ensure_private_dir("").code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace yuzu::store
