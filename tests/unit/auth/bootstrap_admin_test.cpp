#include "yuzu/auth/bootstrap_admin.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <span>
#include <sstream>

#include "support/temp_dir.hpp"
#include "yuzu/auth/auth_schema.hpp"
#include "yuzu/auth/user_store.hpp"
#include "yuzu/store/database.hpp"
#include "yuzu/store/migrations.hpp"

namespace yuzu::auth {
namespace {

constexpr int kTestLogN = 10;

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

void write_file(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

class BootstrapAdminTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auto db = store::Database::open((dir_ / "auth.db").string());
        ASSERT_TRUE(db.ok()) << db.status().to_string();
        db_ = std::move(*db);
        Status migrated = store::apply_migrations(*db_, "auth.db", auth_migrations());
        ASSERT_TRUE(migrated.ok()) << migrated.to_string();
        users_ = std::make_unique<UserStore>(*db_, clock_, UserStoreOptions{kTestLogN});
    }

    std::filesystem::path generated_path() const { return dir_ / "initial-admin-password"; }

    void expect_admin_with_password(const std::string& password) {
        auto admin = users_->authenticate("admin", password);
        ASSERT_TRUE(admin.ok()) << admin.status().to_string();
        EXPECT_EQ(admin->global_roles, std::vector<std::string>{"Administrator"});
    }

    testing::TempDir dir_;
    ManualClock clock_;
    std::unique_ptr<store::Database> db_;
    std::unique_ptr<UserStore> users_;
};

TEST_F(BootstrapAdminTest, PasswordFromFile) {
    const auto file = dir_ / "admin-pw";
    write_file(file, "password from a file\n");
    auto outcome = bootstrap_admin(*users_, dir_.str(), file.string(), "");
    ASSERT_TRUE(outcome.ok()) << outcome.status().to_string();
    EXPECT_EQ(outcome->kind, BootstrapOutcomeKind::kPasswordFromFile);
    EXPECT_EQ(outcome->username, "admin");
    EXPECT_EQ(outcome->password_path, file.string());
    expect_admin_with_password("password from a file");
    EXPECT_FALSE(std::filesystem::exists(generated_path()));
}

TEST_F(BootstrapAdminTest, PasswordFileLineEndingsAreStripped) {
    const auto file = dir_ / "admin-pw";
    write_file(file, "windows line ending\r\n");
    ASSERT_TRUE(bootstrap_admin(*users_, dir_.str(), file.string(), "").ok());
    expect_admin_with_password("windows line ending");
}

TEST_F(BootstrapAdminTest, PasswordFileWinsOverEnvironment) {
    const auto file = dir_ / "admin-pw";
    write_file(file, "password from a file");
    auto outcome = bootstrap_admin(*users_, dir_.str(), file.string(), "password from env");
    ASSERT_TRUE(outcome.ok());
    EXPECT_EQ(outcome->kind, BootstrapOutcomeKind::kPasswordFromFile);
    expect_admin_with_password("password from a file");
}

TEST_F(BootstrapAdminTest, BadPasswordFilesCreateNoUser) {
    const auto missing = dir_ / "no-such-file";
    auto r = bootstrap_admin(*users_, dir_.str(), missing.string(), "password from env");
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(missing.string()), std::string::npos);

    const auto empty = dir_ / "empty";
    write_file(empty, "\n");
    EXPECT_EQ(bootstrap_admin(*users_, dir_.str(), empty.string(), "").status().code(),
              StatusCode::kInvalidArgument);

    const auto huge = dir_ / "huge";
    write_file(huge, std::string(5000, 'p'));
    EXPECT_EQ(bootstrap_admin(*users_, dir_.str(), huge.string(), "").status().code(),
              StatusCode::kInvalidArgument);

    const auto shorty = dir_ / "short";
    write_file(shorty, "short\n");
    EXPECT_EQ(bootstrap_admin(*users_, dir_.str(), shorty.string(), "").status().code(),
              StatusCode::kInvalidArgument);

    EXPECT_FALSE(*users_->has_users());
    EXPECT_FALSE(std::filesystem::exists(generated_path()));
}

TEST_F(BootstrapAdminTest, PasswordFromEnvironment) {
    auto outcome = bootstrap_admin(*users_, dir_.str(), "", "password from env");
    ASSERT_TRUE(outcome.ok()) << outcome.status().to_string();
    EXPECT_EQ(outcome->kind, BootstrapOutcomeKind::kPasswordFromEnv);
    EXPECT_EQ(outcome->password_path, "");
    expect_admin_with_password("password from env");
    EXPECT_FALSE(std::filesystem::exists(generated_path()));
}

TEST_F(BootstrapAdminTest, WeakEnvironmentPasswordIsRefused) {
    auto r = bootstrap_admin(*users_, dir_.str(), "", "admin");
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_FALSE(*users_->has_users());
}

TEST_F(BootstrapAdminTest, GeneratedPasswordIsWrittenPrivately) {
    auto outcome = bootstrap_admin(*users_, dir_.str(), "", "");
    ASSERT_TRUE(outcome.ok()) << outcome.status().to_string();
    EXPECT_EQ(outcome->kind, BootstrapOutcomeKind::kPasswordGenerated);
    EXPECT_EQ(outcome->password_path, generated_path().string());

    struct stat st {};
    ASSERT_EQ(::stat(generated_path().c_str(), &st), 0);
    EXPECT_TRUE(S_ISREG(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777, 0600u);

    const std::string content = read_file(generated_path());
    ASSERT_TRUE(std::regex_match(content, std::regex("^[0-9A-Za-z]{24}\n$"))) << content;
    expect_admin_with_password(content.substr(0, 24));
}

TEST_F(BootstrapAdminTest, GeneratedPasswordsDiffer) {
    ASSERT_TRUE(bootstrap_admin(*users_, dir_.str(), "", "").ok());
    const std::string first = read_file(generated_path());

    testing::TempDir other_dir;
    auto db = store::Database::open(":memory:");
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(store::apply_migrations(**db, "auth.db", auth_migrations()).ok());
    UserStore other(**db, clock_, UserStoreOptions{kTestLogN});
    ASSERT_TRUE(bootstrap_admin(other, other_dir.str(), "", "").ok());
    EXPECT_NE(read_file(other_dir / "initial-admin-password"), first);
}

TEST_F(BootstrapAdminTest, SecondRunDoesNothing) {
    ASSERT_TRUE(bootstrap_admin(*users_, dir_.str(), "", "").ok());
    const std::string content = read_file(generated_path());

    auto again = bootstrap_admin(*users_, dir_.str(), "", "a different password");
    ASSERT_TRUE(again.ok()) << again.status().to_string();
    EXPECT_EQ(again->kind, BootstrapOutcomeKind::kAlreadyBootstrapped);
    EXPECT_EQ(again->username, "");
    EXPECT_EQ(again->password_path, "");
    EXPECT_EQ(read_file(generated_path()), content);
    expect_admin_with_password(content.substr(0, 24));
    EXPECT_FALSE(users_->authenticate("admin", "a different password").ok());
}

TEST_F(BootstrapAdminTest, AnyExistingUserMeansBootstrapped) {
    ASSERT_TRUE(users_->create_user("alice", "alice's long password", {"Viewer"}).ok());
    auto outcome = bootstrap_admin(*users_, dir_.str(), "", "");
    ASSERT_TRUE(outcome.ok());
    EXPECT_EQ(outcome->kind, BootstrapOutcomeKind::kAlreadyBootstrapped);
    EXPECT_EQ(users_->get_user("admin").status().code(), StatusCode::kNotFound);
    EXPECT_FALSE(std::filesystem::exists(generated_path()));
}

TEST_F(BootstrapAdminTest, StaleGeneratedFileIsNotOverwritten) {
    write_file(generated_path(), "left over from an earlier start\n");
    auto r = bootstrap_admin(*users_, dir_.str(), "", "");
    EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(r.status().message().find("initial-admin-password"), std::string::npos);
    EXPECT_EQ(read_file(generated_path()), "left over from an earlier start\n");
    EXPECT_FALSE(*users_->has_users());
}

TEST_F(BootstrapAdminTest, EmptyDataDirIsRefused) {
    EXPECT_EQ(bootstrap_admin(*users_, "", "", "").status().code(), StatusCode::kInvalidArgument);
}

TEST(BootstrapOutcomeName, Spellings) {
    EXPECT_EQ(bootstrap_outcome_name(BootstrapOutcomeKind::kAlreadyBootstrapped),
              "already_bootstrapped");
    EXPECT_EQ(bootstrap_outcome_name(BootstrapOutcomeKind::kPasswordFromFile), "password_file");
    EXPECT_EQ(bootstrap_outcome_name(BootstrapOutcomeKind::kPasswordFromEnv), "password_env");
    EXPECT_EQ(bootstrap_outcome_name(BootstrapOutcomeKind::kPasswordGenerated),
              "password_generated");
}

}  // namespace
}  // namespace yuzu::auth
