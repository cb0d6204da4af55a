#include <gtest/gtest.h>

#include <bit>
#include <nlohmann/json.hpp>

#include "fixture_tree.hpp"
#include "inventory/parsers.hpp"

namespace yuzu::agent {
namespace {

// /proc/net/tcp prints each address word from memory as a host-order
// integer; these fixtures are what a little-endian kernel writes.
constexpr bool kLittleEndian = std::endian::native == std::endian::little;

constexpr const char* kTcp =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
    "timeout inode\n"
    "   0: 0100007F:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 "
    "41234 1 0000000000000000 100 0 0 10 0\n"
    "   1: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 "
    "20001 1 0000000000000000 100 0 0 10 0\n"
    "   2: 0100007F:1F91 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000        0 "
    "0 1 0000000000000000 20 4 30 10 -1\n";

constexpr const char* kTcp6 =
    "  sl  local_address                         remote_address                        st "
    "tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
    "   0: 00000000000000000000000000000000:0016 00000000000000000000000000000000:0000 0A "
    "00000000:00000000 00:00000000 00000000     0        0 20003 1 0000000000000000 100 0 0 10 0\n"
    "   1: 00000000000000000000000001000000:0277 00000000000000000000000000000000:0000 0A "
    "00000000:00000000 00:00000000 00000000     0        0 20004 1 0000000000000000 100 0 0 10 0\n"
    "   2: 0000000000000000FFFF00000100007F:1F90 00000000000000000000000000000000:0000 0A "
    "00000000:00000000 00:00000000 00000000   106        0 20005 1 0000000000000000 100 0 0 10 0\n"
    "   3: B80D0120000000000000000001000000:01BB 00000000000000000000000000000000:0000 0A "
    "00000000:00000000 00:00000000 00000000    33        0 20006 1 0000000000000000 100 0 0 10 0\n"
    "   4: B80D0120000000000000000001000000:01BB B80D0120000000000000000002000000:D431 01 "
    "00000000:00000000 00:00000000 00000000    33        0 20007 1 0000000000000000 100 0 0 10 0\n";

TEST(ProcNetAddress, DecodesIpv4Words) {
    if (!kLittleEndian) GTEST_SKIP() << "fixtures are little-endian";
    EXPECT_EQ(decode_proc_net_address("0100007F", false), "127.0.0.1");
    EXPECT_EQ(decode_proc_net_address("00000000", false), "0.0.0.0");
    EXPECT_EQ(decode_proc_net_address("0101A8C0", false), "192.168.1.1");
}

TEST(ProcNetAddress, DecodesIpv6Words) {
    if (!kLittleEndian) GTEST_SKIP() << "fixtures are little-endian";
    EXPECT_EQ(decode_proc_net_address("00000000000000000000000001000000", true), "::1");
    EXPECT_EQ(decode_proc_net_address("00000000000000000000000000000000", true), "::");
    EXPECT_EQ(decode_proc_net_address("0000000000000000FFFF00000100007F", true),
              "::ffff:127.0.0.1");
    EXPECT_EQ(decode_proc_net_address("B80D0120000000000000000001000000", true), "2001:db8::1");
    EXPECT_EQ(decode_proc_net_address("000080FE00000000FF0D1A02FEA7B6C5", true),
              "fe80::21a:dff:c5b6:a7fe");
}

TEST(ProcNetAddress, RejectsMalformedHex) {
    EXPECT_FALSE(decode_proc_net_address("0100007", false));
    EXPECT_FALSE(decode_proc_net_address("0100007G", false));
    EXPECT_FALSE(decode_proc_net_address("0100007F", true));
    EXPECT_FALSE(decode_proc_net_address("", true));
}

TEST(ProcNetTcp, KeepsOnlyListeningRows) {
    if (!kLittleEndian) GTEST_SKIP() << "fixtures are little-endian";
    const auto rows = parse_proc_net_tcp(kTcp, false);
    ASSERT_EQ(rows.size(), 2u) << rows.dump();
    EXPECT_EQ(rows[0], nlohmann::json({{"protocol", "tcp"},
                                       {"address", "127.0.0.1"},
                                       {"port", 8081},
                                       {"inode", 41234},
                                       {"uid", 1000}}));
    EXPECT_EQ(rows[1]["address"], "0.0.0.0");
    EXPECT_EQ(rows[1]["port"], 22);
    EXPECT_EQ(rows[1]["inode"], 20001);
}

TEST(ProcNetTcp, DecodesIpv6Rows) {
    if (!kLittleEndian) GTEST_SKIP() << "fixtures are little-endian";
    const auto rows = parse_proc_net_tcp(kTcp6, true);
    ASSERT_EQ(rows.size(), 4u) << rows.dump();
    EXPECT_EQ(rows[0]["address"], "::");
    EXPECT_EQ(rows[0]["protocol"], "tcp6");
    EXPECT_EQ(rows[1]["address"], "::1");
    EXPECT_EQ(rows[1]["port"], 631);
    EXPECT_EQ(rows[2]["address"], "::ffff:127.0.0.1");
    EXPECT_EQ(rows[2]["port"], 8080);
    EXPECT_EQ(rows[2]["uid"], 106);
    EXPECT_EQ(rows[3]["address"], "2001:db8::1");
    EXPECT_EQ(rows[3]["port"], 443);
    EXPECT_EQ(rows[3]["inode"], 20006);
}

TEST(ProcNetTcp, SkipsTruncatedAndGarbageRows) {
    const std::string text = std::string(kTcp).substr(0, std::string(kTcp).find('\n') + 1) +
                             "   0: 0100007F:1F91 00000000:0000 0A\n"
                             "   1: nonsense:zz 00000000:0000 0A 0:0 0:0 0 0 0 1\n";
    EXPECT_TRUE(parse_proc_net_tcp(text, false).empty());
}

TEST(ListeningSocketsCollector, ReadsBothTablesFromTheProcRoot) {
    if (!kLittleEndian) GTEST_SKIP() << "fixtures are little-endian";
    testing::FixtureTree tree;
    tree.write("proc/net/tcp", kTcp);
    tree.write("proc/net/tcp6", kTcp6);
    const auto reading = collect_listening_sockets(tree.env());
    ASSERT_TRUE(reading.available) << reading.reason;
    const auto rows = nlohmann::json::parse(reading.data_json);
    EXPECT_EQ(rows.size(), 6u);
}

TEST(ListeningSocketsCollector, OneTableIsEnough) {
    if (!kLittleEndian) GTEST_SKIP() << "fixtures are little-endian";
    testing::FixtureTree tree;
    tree.write("proc/net/tcp", kTcp);  // IPv6 disabled: no tcp6
    const auto reading = collect_listening_sockets(tree.env());
    ASSERT_TRUE(reading.available) << reading.reason;
    EXPECT_EQ(nlohmann::json::parse(reading.data_json).size(), 2u);
}

TEST(ListeningSocketsCollector, UnavailableWithoutEitherTable) {
    testing::FixtureTree tree;
    const auto reading = collect_listening_sockets(tree.env());
    EXPECT_FALSE(reading.available);
    EXPECT_NE(reading.reason.find("net/tcp"), std::string::npos) << reading.reason;
    EXPECT_EQ(reading.to_json().find("\"data\""), std::string::npos);
}

}  // namespace
}  // namespace yuzu::agent
