// Package and unit listings: the parsers of dpkg-query, rpm and systemctl
// output, and the collectors when the programs are missing.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "fixture_tree.hpp"
#include "inventory/parsers.hpp"

namespace yuzu::agent {
namespace {

TEST(DpkgQuery, KeepsInstalledPackagesOnly) {
    const auto rows = parse_dpkg_query(
        "bash\t5.2.15-2+b2\tamd64\tinstall ok installed\n"
        "old-kernel\t6.1.0-1\tamd64\tdeinstall ok config-files\n"
        "libc6\t2.36-9+deb12u4\tamd64\tinstall ok installed\n"
        "broken\t1.0\tall\tinstall reinstreq half-installed\n"
        "\n");
    EXPECT_EQ(rows, nlohmann::json::parse(R"([
        {"name": "bash", "version": "5.2.15-2+b2", "arch": "amd64"},
        {"name": "libc6", "version": "2.36-9+deb12u4", "arch": "amd64"}])"));
}

TEST(RpmQuery, TabSeparatedRows) {
    const auto rows = parse_rpm_query(
        "bash\t5.2.26-3.fc40\tx86_64\n"
        "kernel-core\t1:6.8.5-301.fc40\tx86_64\n"
        "gpg-pubkey\t3c3359c4-5c6ae44d\t(none)\n"
        "bad line\n");
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[1],
              nlohmann::json(
                  {{"name", "kernel-core"}, {"version", "1:6.8.5-301.fc40"}, {"arch", "x86_64"}}));
}

TEST(SystemctlJson, KeepsUnitLoadActiveSub) {
    auto units = parse_systemctl_json(R"([
        {"unit":"ssh.service","load":"loaded","active":"active","sub":"running","description":"OpenBSD Secure Shell server"},
        {"unit":"nope.service","load":"not-found","active":"inactive","sub":"dead","description":"nope.service"},
        {"description":"no unit name"}])");
    ASSERT_TRUE(units.ok()) << units.status().to_string();
    EXPECT_EQ(*units, nlohmann::json::parse(R"([
        {"unit":"ssh.service","load":"loaded","active":"active","sub":"running"},
        {"unit":"nope.service","load":"not-found","active":"inactive","sub":"dead"}])"));
    EXPECT_FALSE(parse_systemctl_json("Unknown output 'json'.").ok());
    EXPECT_FALSE(parse_systemctl_json(R"({"unit":"x"})").ok());
}

TEST(SystemctlPlain, ColumnsAndFailedBullet) {
    const auto units = parse_systemctl_plain(
        "cron.service       loaded active   running Regular background program processing daemon\n"
        "\xe2\x97\x8f bad.service loaded failed failed  A failing unit\n"
        "short line\n");
    EXPECT_EQ(units, nlohmann::json::parse(R"([
        {"unit":"cron.service","load":"loaded","active":"active","sub":"running"},
        {"unit":"bad.service","load":"loaded","active":"failed","sub":"failed"}])"));
}

// Points PATH at an empty directory for the life of the object.
class EmptyPath {
  public:
    EmptyPath() {
        if (const char* old = std::getenv("PATH")) saved_ = old;
        ::setenv("PATH", dir_.str().c_str(), 1);
    }
    ~EmptyPath() { ::setenv("PATH", saved_.c_str(), 1); }

  private:
    yuzu::testing::TempDir dir_;
    std::string saved_;
};

TEST(CommandCollectors, MissingProgramsAreUnavailable) {
    testing::FixtureTree tree;
    const EmptyPath no_programs;
    const auto packages = collect_packages(tree.env());
    EXPECT_FALSE(packages.available);
    EXPECT_EQ(packages.reason, "neither dpkg-query nor rpm found");
    const auto units = collect_systemd_units(tree.env());
    EXPECT_FALSE(units.available);
    EXPECT_NE(units.reason.find("systemctl"), std::string::npos) << units.reason;
    // Not Debian, no marker, no needs-restarting: unknown, not "false".
    const auto reboot = collect_reboot_pending(tree.env());
    EXPECT_FALSE(reboot.available);
}

}  // namespace
}  // namespace yuzu::agent
