#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "plugin_test_support.hpp"

namespace yuzu::agent {
namespace {

using testing::output_of;
using testing::run;
using testing::write_file;

TEST(DiskUsageTest, RealHostReportsTheRootFilesystem) {
    const auto registry = PluginRegistry::builtin();
    const auto out = output_of(run(registry, "disk", "usage", nlohmann::json::object()));
    bool saw_root = false;
    for (const auto& fs : out.at("filesystems")) {
        for (const char* key :
             {"mount", "device", "fstype", "total_bytes", "free_bytes", "used_pct"}) {
            EXPECT_TRUE(fs.contains(key)) << key;
        }
        EXPECT_NE(fs.at("fstype"), "proc");
        EXPECT_NE(fs.at("fstype"), "tmpfs");
        if (fs.at("mount") == "/") {
            saw_root = true;
            EXPECT_GT(fs.at("total_bytes").get<uint64_t>(), 0u);
            EXPECT_LE(fs.at("free_bytes").get<uint64_t>(), fs.at("total_bytes").get<uint64_t>());
            EXPECT_GE(fs.at("used_pct").get<double>(), 0.0);
            EXPECT_LE(fs.at("used_pct").get<double>(), 100.0);
        }
    }
    EXPECT_TRUE(saw_root);
}

TEST(DiskUsageTest, PathSelectsTheFilesystemHoldingIt) {
    const auto registry = PluginRegistry::builtin();
    auto out = output_of(run(registry, "disk", "usage", {{"path", "/"}}));
    ASSERT_EQ(out.at("filesystems").size(), 1u);
    EXPECT_EQ(out.at("filesystems")[0].at("mount"), "/");
    out = output_of(run(registry, "disk", "usage", {{"path", "/proc/self"}}));
    ASSERT_EQ(out.at("filesystems").size(), 1u);
    EXPECT_EQ(out.at("filesystems")[0].at("mount"), "/proc");
    EXPECT_EQ(out.at("filesystems")[0].at("fstype"), "proc");
}

TEST(DiskUsageTest, MissingPathFailsNamingTheParameter) {
    const auto registry = PluginRegistry::builtin();
    const auto out = run(registry, "disk", "usage", {{"path", "/no/such/dir/zz9"}});
    EXPECT_EQ(out.status, "failure");
    EXPECT_EQ(out.error.rfind("parameter 'path' cannot be resolved", 0), 0u) << out.error;
}

TEST(DiskUsageTest, MountTableFilteringAndEscapes) {
    yuzu::testing::TempDir dir;
    std::filesystem::create_directory(dir / "with space");
    const std::string escaped = dir.str() + "/with\\040space";
    write_file(dir / "proc" / "self" / "mounts",
               "proc /proc proc rw 0 0\n"
               "tmpfs /run tmpfs rw 0 0\n"
               "/dev/loop3 /snap/core squashfs ro 0 0\n"
               "/dev/sdz9 " +
                   escaped +
                   " ext4 rw 0 0\n"
                   "server:/export " +
                   dir.str() + " nfs4 rw 0 0\n");
    plugins::HostPaths paths;
    paths.proc = (dir / "proc").string();
    PluginRegistry registry;
    plugins::register_disk_plugins(registry, paths);
    const auto out = output_of(run(registry, "disk", "usage", nlohmann::json::object()));
    const auto& fss = out.at("filesystems");
    ASSERT_EQ(fss.size(), 2u) << fss.dump();
    EXPECT_EQ(fss[0].at("mount"), dir.str() + "/with space");
    EXPECT_EQ(fss[0].at("device"), "/dev/sdz9");
    EXPECT_EQ(fss[1].at("fstype"), "nfs4");
    EXPECT_GT(fss[1].at("total_bytes").get<uint64_t>(), 0u);
}

// A socket bound on 127.0.0.1, closed when the test ends.
class Socket {
  public:
    explicit Socket(int type) : fd_(::socket(AF_INET, type, 0)) {}
    ~Socket() {
        if (fd_ >= 0) ::close(fd_);
    }
    int fd() const { return fd_; }
    uint16_t bind_loopback() {
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
        socklen_t len = sizeof(addr);
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
        return ntohs(addr.sin_port);
    }

  private:
    int fd_;
};

bool has_socket(const nlohmann::json& conns, const std::string& protocol, uint16_t port,
                const std::string& state) {
    for (const auto& c : conns) {
        if (c.at("protocol") == protocol && c.at("local_address") == "127.0.0.1" &&
            c.at("local_port") == port && c.at("state") == state) {
            return true;
        }
    }
    return false;
}

TEST(NetworkConnectionsTest, RealHostShowsOurOwnSockets) {
    Socket listener(SOCK_STREAM);
    const uint16_t port = listener.bind_loopback();
    ASSERT_EQ(::listen(listener.fd(), 1), 0);
    Socket client(SOCK_STREAM);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(port);
    ASSERT_EQ(::connect(client.fd(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    Socket udp(SOCK_DGRAM);
    const uint16_t udp_port = udp.bind_loopback();

    const auto registry = PluginRegistry::builtin();
    // A host busy with other tests holds thousands of sockets; past the
    // limit the answer is cut short, not failed, and ours may be left out.
    const auto all = output_of(run(registry, "network", "connections", {{"limit", 4000}}));
    ASSERT_TRUE(all.is_object());
    EXPECT_EQ(all.at("matched").get<size_t>() > 4000, all.at("truncated").get<bool>());
    if (!all.at("truncated").get<bool>()) {
        EXPECT_TRUE(has_socket(all.at("connections"), "tcp", port, "listen"));
        EXPECT_TRUE(has_socket(all.at("connections"), "udp", udp_port, "unconnected"));
    }

    const auto listen = output_of(run(registry, "network", "connections", {{"state", "listen"}}));
    EXPECT_TRUE(has_socket(listen.at("connections"), "tcp", port, "listen"));
    EXPECT_TRUE(has_socket(listen.at("connections"), "udp", udp_port, "unconnected"));
    for (const auto& c : listen.at("connections")) {
        EXPECT_TRUE(c.at("state") == "listen" || c.at("state") == "unconnected");
    }

    const auto est = output_of(
        run(registry, "network", "connections", {{"state", "established"}, {"limit", 4000}}));
    ASSERT_TRUE(est.is_object());
    bool saw_server_side = est.at("truncated").get<bool>();
    for (const auto& c : est.at("connections")) {
        EXPECT_EQ(c.at("state"), "established");
        if (c.at("local_port") == port && c.at("remote_address") == "127.0.0.1") {
            saw_server_side = true;
        }
    }
    EXPECT_TRUE(saw_server_side);
}

TEST(NetworkConnectionsTest, ParsesInjectedTables) {
    yuzu::testing::TempDir dir;
    const std::string header = "  sl  local_address rem_address   st tx_queue rx_queue\n";
    write_file(dir / "proc" / "net" / "tcp", header + "   0: 0100007F:0035 00000000:0000 0A 0 0\n" +
                                                 "   1: 0201A8C0:C36A 507100CB:01BB 01 0 0\n");
    write_file(dir / "proc" / "net" / "tcp6", header +
                                                  "   0: 00000000000000000000000001000000:0016 "
                                                  "00000000000000000000000000000000:0000 0A 0 0\n");
    write_file(dir / "proc" / "net" / "udp", header + "   0: 00000000:0044 00000000:0000 07 0 0\n");
    // No udp6 table: a host without IPv6.
    plugins::HostPaths paths;
    paths.proc = (dir / "proc").string();
    PluginRegistry registry;
    plugins::register_network_plugins(registry, paths);
    const auto out = output_of(run(registry, "network", "connections", nlohmann::json::object()));
    const nlohmann::json expected = nlohmann::json::parse(R"([
      {"protocol":"tcp","local_address":"127.0.0.1","local_port":53,
       "remote_address":"0.0.0.0","remote_port":0,"state":"listen"},
      {"protocol":"tcp","local_address":"192.168.1.2","local_port":50026,
       "remote_address":"203.0.113.80","remote_port":443,"state":"established"},
      {"protocol":"tcp6","local_address":"::1","local_port":22,
       "remote_address":"::","remote_port":0,"state":"listen"},
      {"protocol":"udp","local_address":"0.0.0.0","local_port":68,
       "remote_address":"0.0.0.0","remote_port":0,"state":"unconnected"}])");
    EXPECT_EQ(out.at("connections"), expected);
    EXPECT_FALSE(out.at("truncated").get<bool>());
    EXPECT_EQ(out.at("matched"), 4);

    // A limit keeps the first rows in table order and says what it left out.
    const auto two = output_of(run(registry, "network", "connections", {{"limit", 2}}));
    EXPECT_EQ(two.at("connections"), nlohmann::json::array({expected[0], expected[1]}));
    EXPECT_TRUE(two.at("truncated").get<bool>());
    EXPECT_EQ(two.at("matched"), 4);
    const auto listening =
        output_of(run(registry, "network", "connections", {{"state", "listen"}, {"limit", 3}}));
    EXPECT_EQ(listening.at("connections"),
              nlohmann::json::array({expected[0], expected[2], expected[3]}));
    EXPECT_FALSE(listening.at("truncated").get<bool>());
    for (const auto& bad : {nlohmann::json(0), nlohmann::json(4001), nlohmann::json("10")}) {
        const auto refused = run(registry, "network", "connections", {{"limit", bad}});
        EXPECT_EQ(refused.status, "failure") << bad.dump();
    }
}

TEST(NetworkConnectionsTest, MalformedTableIsAFailure) {
    yuzu::testing::TempDir dir;
    write_file(dir / "proc" / "net" / "tcp", "header\n   0: XYZ:0035 00000000:0000 0A\n");
    write_file(dir / "proc" / "net" / "udp", "header\n");
    plugins::HostPaths paths;
    paths.proc = (dir / "proc").string();
    PluginRegistry registry;
    plugins::register_network_plugins(registry, paths);
    const auto out = run(registry, "network", "connections", nlohmann::json::object());
    EXPECT_EQ(out.status, "failure");
    EXPECT_NE(out.error.find("cannot parse line 2"), std::string::npos) << out.error;
}

}  // namespace
}  // namespace yuzu::agent
