// Mount filtering, processes and reboot-required against fixture trees.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "fixture_tree.hpp"
#include "inventory/parsers.hpp"

namespace yuzu::agent {
namespace {

TEST(Mounts, DecodesOctalEscapesAndLaterMountsHideEarlier) {
    const auto mounts = parse_mounts(
        "/dev/sda1 / ext4 rw,relatime 0 0\n"
        "proc /proc proc rw,nosuid 0 0\n"
        "/dev/sdb1 /mnt/my\\040disk xfs rw 0 0\n"
        "/dev/sdc1 /data ext4 rw 0 0\n"
        "/dev/sdd1 /data btrfs rw 0 0\n"
        "short line\n");
    ASSERT_EQ(mounts.size(), 4u);
    EXPECT_EQ(mounts[0].mount, "/");
    EXPECT_EQ(mounts[0].device, "/dev/sda1");
    EXPECT_EQ(mounts[2].mount, "/mnt/my disk");
    EXPECT_EQ(mounts[3].device, "/dev/sdd1");
    EXPECT_EQ(mounts[3].fstype, "btrfs");
}

TEST(Mounts, PseudoFilesystems) {
    for (const char* fs : {"proc", "sysfs", "tmpfs", "devtmpfs", "cgroup2", "overlay_nope"}) {
        const bool expect = std::string(fs) != "overlay_nope";
        EXPECT_EQ(is_pseudo_filesystem(fs), expect) << fs;
    }
    for (const char* fs : {"ext4", "xfs", "btrfs", "overlay", "nfs4", "zfs", "vfat"}) {
        EXPECT_FALSE(is_pseudo_filesystem(fs)) << fs;
    }
}

TEST(DisksCollector, SkipsPseudoAndUnstatableMounts) {
    testing::FixtureTree tree;
    // The fixture's own directory stands in for a real disk; statvfs reads it.
    tree.write("proc/self/mounts", "/dev/root " + tree.root() +
                                       " ext4 rw 0 0\n"
                                       "proc /proc proc rw 0 0\n"
                                       "tmpfs /run tmpfs rw 0 0\n"
                                       "/dev/gone /no/such/mount ext4 rw 0 0\n");
    const auto reading = collect_disks(tree.env());
    ASSERT_TRUE(reading.available) << reading.reason;
    const auto disks = nlohmann::json::parse(reading.data_json);
    ASSERT_EQ(disks.size(), 1u) << disks.dump();
    EXPECT_EQ(disks[0]["mount"], tree.root());
    EXPECT_EQ(disks[0]["device"], "/dev/root");
    EXPECT_EQ(disks[0]["fstype"], "ext4");
    EXPECT_GT(disks[0]["total_bytes"].get<uint64_t>(), 0u);
    EXPECT_LE(disks[0]["free_bytes"].get<uint64_t>(), disks[0]["total_bytes"].get<uint64_t>());
    const double used = disks[0]["used_pct"].get<double>();
    EXPECT_GE(used, 0.0);
    EXPECT_LE(used, 100.0);
}

TEST(PidStat, CommandNamesWithSpacesAndParentheses) {
    // Fields after the name: state ppid pgrp session tty tpgid flags minflt
    // cminflt majflt cmajflt utime stime cutime cstime priority nice threads
    // itrealvalue starttime vsize rss ...
    const auto st = parse_pid_stat(
        "4242 (my (odd) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 12345 "
        "1000000 250 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n");
    ASSERT_TRUE(st);
    EXPECT_EQ(st->pid, 4242);
    EXPECT_EQ(st->comm, "my (odd) name");
    EXPECT_EQ(st->state, "S");
    EXPECT_EQ(st->ppid, 1);
    EXPECT_EQ(st->rss_pages, 250);
    EXPECT_FALSE(parse_pid_stat("12 (short) S 1 2 3\n"));
    EXPECT_FALSE(parse_pid_stat("no parentheses here"));
}

TEST(ProcessesCollector, ReadsPidDirectoriesAndResolvesUsers) {
    testing::FixtureTree tree;
    const std::string tail = " 0 0 0 0 0 0 0 0 20 0 1 0 100 1000 ";  // fields 8..21
    tree.write("proc/1/stat", "1 (init) S 0 1 1 0 -1 0" + tail + "300 0 0 0\n");
    tree.write("proc/1/status", "Name:\tinit\nUid:\t0\t0\t0\t0\n");
    tree.write("proc/77/stat", "77 (web server) R 1 77 77 0 -1 0" + tail + "10 0 0 0\n");
    tree.write("proc/77/status", "Name:\tweb server\nUid:\t1001\t1001\t1001\t1001\n");
    tree.write("proc/78/stat", "78 (orphan) Z 1 78 78 0 -1 0" + tail + "0 0 0 0\n");
    tree.write("proc/78/status", "Name:\torphan\nUid:\t4242\t4242\t4242\t4242\n");
    tree.write("proc/99/stat", "garbage");  // unreadable rows are skipped
    tree.write("proc/self/stat", "not a pid directory");
    tree.write("etc/passwd",
               "root:x:0:0:root:/root:/bin/bash\nwww:x:1001:1001::/var/www:/bin/sh\n");
    const auto reading = collect_processes(tree.env());
    ASSERT_TRUE(reading.available) << reading.reason;
    auto rows = nlohmann::json::parse(reading.data_json);
    ASSERT_EQ(rows.size(), 3u) << rows.dump();
    std::sort(rows.begin(), rows.end(),
              [](const auto& a, const auto& b) { return a["pid"] < b["pid"]; });
    const int64_t page = ::sysconf(_SC_PAGESIZE);
    EXPECT_EQ(rows[0]["name"], "init");
    EXPECT_EQ(rows[0]["user"], "root");
    EXPECT_EQ(rows[0]["rss_bytes"], 300 * page);
    EXPECT_EQ(rows[1]["name"], "web server");
    EXPECT_EQ(rows[1]["user"], "www");
    EXPECT_EQ(rows[1]["ppid"], 1);
    EXPECT_EQ(rows[1]["state"], "R");
    EXPECT_EQ(rows[2]["user"], "4242");  // no passwd entry: the uid, not a made-up name
    EXPECT_EQ(rows[2]["uid"], 4242);
}

TEST(RebootPending, MarkerWithPackageList) {
    testing::FixtureTree tree;
    tree.write("run/reboot-required", "*** System restart required ***\n");
    tree.write("run/reboot-required.pkgs", "linux-image-6.1.0-18-amd64\nlibc6\nlibc6\n\n");
    const auto reading = collect_reboot_pending(tree.env());
    ASSERT_TRUE(reading.available) << reading.reason;
    EXPECT_EQ(
        nlohmann::json::parse(reading.data_json),
        nlohmann::json({{"pending", true}, {"packages", {"linux-image-6.1.0-18-amd64", "libc6"}}}));
}

TEST(RebootPending, NoMarkerOnDebianMeansNotPending) {
    testing::FixtureTree tree;
    tree.write("etc/debian_version", "12.5\n");
    const auto reading = collect_reboot_pending(tree.env());
    ASSERT_TRUE(reading.available) << reading.reason;
    EXPECT_EQ(nlohmann::json::parse(reading.data_json),
              nlohmann::json({{"pending", false}, {"packages", nlohmann::json::array()}}));
}

TEST(RebootPending, MarkerWithoutPackageListIsStillPending) {
    testing::FixtureTree tree;
    tree.write("run/reboot-required", "");
    const auto data = nlohmann::json::parse(collect_reboot_pending(tree.env()).data_json);
    EXPECT_EQ(data["pending"], true);
    EXPECT_TRUE(data["packages"].empty());
}

}  // namespace
}  // namespace yuzu::agent
