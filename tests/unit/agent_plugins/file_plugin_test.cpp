#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "plugin_test_support.hpp"

namespace yuzu::agent {
namespace {

using testing::output_of;
using testing::run;
using testing::write_file;

class FilePluginTest : public ::testing::Test {
  protected:
    FilePluginTest() : registry_(PluginRegistry::builtin()) {}
    std::string path(const std::string& child) const { return (dir_ / child).string(); }

    yuzu::testing::TempDir dir_;
    PluginRegistry registry_;
};

TEST_F(FilePluginTest, ExistsReportsTypeAndSize) {
    write_file(dir_ / "f.txt", "hello");
    std::filesystem::create_directory(dir_ / "d");
    std::filesystem::create_symlink(dir_ / "f.txt", dir_ / "link");
    ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);

    auto out = output_of(run(registry_, "file", "exists", {{"path", path("f.txt")}}));
    EXPECT_EQ(
        out, nlohmann::json(
                 {{"path", path("f.txt")}, {"exists", true}, {"type", "file"}, {"size_bytes", 5}}));
    out = output_of(run(registry_, "file", "exists", {{"path", path("d")}}));
    EXPECT_EQ(out.at("type"), "directory");
    out = output_of(run(registry_, "file", "exists", {{"path", path("link")}}));
    EXPECT_EQ(out.at("type"), "symlink");  // not followed
    out = output_of(run(registry_, "file", "exists", {{"path", path("fifo")}}));
    EXPECT_EQ(out.at("type"), "other");
    out = output_of(run(registry_, "file", "exists", {{"path", "/"}}));
    EXPECT_EQ(out.at("type"), "directory");
}

TEST_F(FilePluginTest, MissingPathsDoNotExist) {
    for (const auto& p : {path("missing"), path("f.txt/under-a-file")}) {
        write_file(dir_ / "f.txt", "x");
        const auto out = output_of(run(registry_, "file", "exists", {{"path", p}}));
        EXPECT_EQ(
            out, nlohmann::json(
                     {{"path", p}, {"exists", false}, {"type", nullptr}, {"size_bytes", nullptr}}));
    }
}

TEST_F(FilePluginTest, ShellLookingFileNamesAreJustNames) {
    // Absolute paths may contain any byte but NUL; nothing is interpreted.
    const std::string odd = path("x; touch pwned $(id) `id` | &&");
    write_file(odd, "abc");
    const auto out = output_of(run(registry_, "file", "exists", {{"path", odd}}));
    EXPECT_TRUE(out.at("exists").get<bool>());
    EXPECT_FALSE(std::filesystem::exists(std::filesystem::current_path() / "pwned"));
}

TEST_F(FilePluginTest, HashMatchesKnownVectors) {
    write_file(dir_ / "abc", "abc");
    write_file(dir_ / "empty", "");
    write_file(dir_ / "million", std::string(1000000, 'a'));
    auto out = output_of(run(registry_, "file", "hash", {{"path", path("abc")}}));
    EXPECT_EQ(out,
              nlohmann::json(
                  {{"path", path("abc")},
                   {"sha256", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
                   {"size_bytes", 3}}));
    out = output_of(run(registry_, "file", "hash", {{"path", path("empty")}}));
    EXPECT_EQ(out.at("sha256"), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    out = output_of(run(registry_, "file", "hash", {{"path", path("million")}}));
    EXPECT_EQ(out.at("sha256"), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    EXPECT_EQ(out.at("size_bytes"), 1000000);
}

TEST_F(FilePluginTest, HashRefusesNonRegularFiles) {
    write_file(dir_ / "f", "x");
    std::filesystem::create_directory(dir_ / "d");
    std::filesystem::create_symlink(dir_ / "f", dir_ / "link");
    ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
    const std::pair<std::string, std::string> cases[] = {
        {path("d"), path("d") + " is not a regular file (directory)"},
        {path("link"), path("link") + " is not a regular file (symlink)"},
        {path("fifo"), path("fifo") + " is not a regular file (other)"},
        {path("missing"), path("missing") + " does not exist"},
    };
    for (const auto& [p, message] : cases) {
        const auto out = run(registry_, "file", "hash", {{"path", p}});
        EXPECT_EQ(out.status, "failure") << p;
        EXPECT_EQ(out.error, message);
        EXPECT_EQ(out.output_json, "null");
    }
}

TEST_F(FilePluginTest, HashHonoursMaxSize) {
    write_file(dir_ / "ten", "0123456789");
    auto out = run(registry_, "file", "hash", {{"path", path("ten")}, {"max_size_bytes", 9}});
    EXPECT_EQ(out.status, "failure");
    EXPECT_EQ(out.error, path("ten") + " is 10 bytes, over max_size_bytes 9");
    out = run(registry_, "file", "hash", {{"path", path("ten")}, {"max_size_bytes", 10}});
    EXPECT_EQ(out.status, "success") << out.error;
}

TEST_F(FilePluginTest, ReadErrorIsAFailureNotAPartialDigest) {
    // /proc/self/mem is a "regular file" whose first page cannot be read
    // (EIO), even by root.
    const auto out = run(registry_, "file", "hash", {{"path", "/proc/self/mem"}});
    EXPECT_EQ(out.status, "failure");
    EXPECT_EQ(out.error.rfind("cannot read /proc/self/mem: ", 0), 0u) << out.error;
    EXPECT_EQ(out.output_json, "null");
}

}  // namespace
}  // namespace yuzu::agent
