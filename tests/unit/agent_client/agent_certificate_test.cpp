// The agent's client certificate end to end against the fake server: it is
// installed from the enrollment answer, renewed on a heartbeat's hint, and
// presented on every https connection once there.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <memory>

#include "agent_harness.hpp"
#include "client/client_certificate.hpp"
#include "test_ca.hpp"

namespace yuzu::agent::testing {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr const char* kEnroll = "/agent/v1/enroll";
constexpr const char* kHeartbeat = "/agent/v1/heartbeat";
constexpr const char* kCommands = "/agent/v1/commands";
constexpr const char* kCertificate = "/agent/v1/certificate";

mode_t mode_of(const fs::path& p) {
    struct stat st {};
    EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
    return st.st_mode & 0777;
}

// The serial of client.crt's leaf, "" when there is none (yet).
std::string installed_serial(const fs::path& identity_dir) {
    auto certs = load_certificate_file(identity_dir / kClientCertFileName);
    return certs.ok() ? describe_certificate(certs->front().get()).serial_hex : std::string();
}

bool installed_pair_matches(const fs::path& identity_dir) {
    auto certs = load_certificate_file(identity_dir / kClientCertFileName);
    auto key = load_key_file(identity_dir / kClientKeyFileName);
    return certs.ok() && key.ok() && key_matches(certs->front().get(), key->get());
}

bool renewal_files_gone(const fs::path& identity_dir) {
    return !fs::exists(identity_dir / kNewClientKeyFileName) &&
           !fs::exists(identity_dir / kNewClientCertFileName);
}

class AgentCertificateTest : public ::testing::Test {
  protected:
    void SetUp() override { ASSERT_TRUE(ca.ok()); }

    void issue_certificates(FakeAgentServer& server) {
        server.set_certificate_issuer(
            [this](const std::string& csr, const std::string& agent_id) {
                return ca.issue(csr, agent_id);
            },
            ca.chain_pem());
    }

    fs::path identity_dir() const { return dir.path() / "state" / "agent-0"; }

    // An https fake server that issues from ca and verifies client
    // certificates against its root alone.
    std::unique_ptr<FakeAgentServer> tls_server() {
        auto server = std::make_unique<FakeAgentServer>(
            FakeTls{ca.server_cert_pem(), ca.server_key_pem(), ca.root_pem()});
        issue_certificates(*server);
        return server;
    }
    AgentOptions tls_options(const FakeAgentServer& server) {
        const fs::path ca_file = dir.path() / "ca.pem";
        std::ofstream(ca_file) << ca.root_pem();
        AgentOptions options = options_for(server, dir);
        options.ca_file = ca_file.string();
        return options;
    }

    TestCa ca;  // outlives the servers that issue from it
    TestPlugins plugins;
    yuzu::testing::TempDir dir;
};

TEST_F(AgentCertificateTest, EnrollmentSendsACsrAndInstallsTheIssuedCertificate) {
    FakeAgentServer server;
    issue_certificates(server);
    RunningAgent agent(options_for(server, dir), plugins.registry);
    ASSERT_TRUE(FakeAgentServer::wait_until([&] { return server.count(kHeartbeat) >= 1; }));
    const auto enroll = server.bodies(kEnroll).at(0);
    ASSERT_TRUE(enroll["csr"].is_string());
    EXPECT_EQ(enroll["csr"].get<std::string>().rfind("-----BEGIN CERTIFICATE REQUEST-----", 0), 0u);

    // Installed before the first heartbeat went out.
    EXPECT_EQ(mode_of(identity_dir() / kClientKeyFileName), 0600u);
    EXPECT_EQ(mode_of(identity_dir() / kClientCertFileName), 0600u);
    EXPECT_TRUE(installed_pair_matches(identity_dir()));
    auto certs = load_certificate_file(identity_dir() / kClientCertFileName);
    ASSERT_TRUE(certs.ok());
    EXPECT_EQ(certs->size(), 3u);  // leaf, issuing CA, root
    char cn[64] = {0};
    X509_NAME_get_text_by_NID(X509_get_subject_name(certs->front().get()), NID_commonName, cn,
                              sizeof cn);
    EXPECT_EQ(cn, server.agent_ids().at(0));
    EXPECT_TRUE(agent.stop().ok());
}

TEST_F(AgentCertificateTest, RenewsOnTheHeartbeatHintWithTheDeviceToken) {
    auto tls = tls_server();
    FakeAgentServer& server = *tls;
    RunningAgent agent(tls_options(server), plugins.registry);
    ASSERT_TRUE(FakeAgentServer::wait_until([&] { return server.count(kHeartbeat) >= 1; }));
    const std::string first = installed_serial(identity_dir());
    ASSERT_FALSE(first.empty());
    auto old_key = load_key_file(identity_dir() / kClientKeyFileName);
    ASSERT_TRUE(old_key.ok());

    server.set_certificate_renewal(true);
    ASSERT_TRUE(FakeAgentServer::wait_until([&] { return server.count(kCertificate) >= 1; }));
    server.set_certificate_renewal(false);
    ASSERT_TRUE(FakeAgentServer::wait_until([&] {
        return installed_serial(identity_dir()) != first && renewal_files_gone(identity_dir());
    }));
    const auto request = server.bodies(kCertificate).at(0);
    EXPECT_EQ(request["csr"].get<std::string>().rfind("-----BEGIN CERTIFICATE REQUEST-----", 0),
              0u);
    EXPECT_EQ(server.bearers(kCertificate).at(0), server.bearers(kHeartbeat).at(0));
    EXPECT_TRUE(installed_pair_matches(identity_dir()));
    auto new_key = load_key_file(identity_dir() / kClientKeyFileName);
    ASSERT_TRUE(new_key.ok());
    EXPECT_NE(EVP_PKEY_eq(new_key->get(), old_key->get()), 1);
    EXPECT_EQ(mode_of(identity_dir() / kClientKeyFileName), 0600u);
    EXPECT_TRUE(agent.stop().ok());
}

TEST_F(AgentCertificateTest, RenewalWaitsOutA429) {
    auto tls = tls_server();  // heartbeats every second, each with the hint
    FakeAgentServer& server = *tls;
    server.set_certificate_renewal(true);
    server.fail_next(kCertificate, 429, 1, "2");
    RunningAgent agent(tls_options(server), plugins.registry);
    ASSERT_TRUE(
        FakeAgentServer::wait_until([&] { return server.count(kCertificate) >= 2; }, seconds(10)));
    server.set_certificate_renewal(false);
    const auto times = server.arrivals(kCertificate);
    EXPECT_GE(times[1] - times[0], milliseconds(1950));
    EXPECT_TRUE(FakeAgentServer::wait_until([&] { return renewal_files_gone(identity_dir()); }));
    EXPECT_TRUE(installed_pair_matches(identity_dir()));
    EXPECT_TRUE(agent.stop().ok());
}

TEST_F(AgentCertificateTest, AFailedRenewalKeepsTheCurrentCertificate) {
    auto tls = tls_server();
    FakeAgentServer& server = *tls;
    RunningAgent agent(tls_options(server), plugins.registry);
    ASSERT_TRUE(FakeAgentServer::wait_until([&] { return server.count(kHeartbeat) >= 1; }));
    const std::string serial = installed_serial(identity_dir());
    server.fail_next(kCertificate, 500, 1000);
    server.set_certificate_renewal(true);
    ASSERT_TRUE(FakeAgentServer::wait_until([&] { return server.count(kCertificate) >= 1; }));
    const size_t heartbeats = server.count(kHeartbeat);
    ASSERT_TRUE(FakeAgentServer::wait_until([&] {
        return server.count(kHeartbeat) > heartbeats && renewal_files_gone(identity_dir());
    }));
    EXPECT_EQ(installed_serial(identity_dir()), serial);
    EXPECT_TRUE(installed_pair_matches(identity_dir()));
    EXPECT_TRUE(agent.stop().ok());
}

// Over http nothing is presented, so a hint on every heartbeat would renew
// over and over: it is left alone.
TEST_F(AgentCertificateTest, OverHttpTheRenewalHintIsIgnored) {
    FakeAgentServer server;
    issue_certificates(server);
    server.set_certificate_renewal(true);
    RunningAgent agent(options_for(server, dir), plugins.registry);
    ASSERT_TRUE(
        FakeAgentServer::wait_until([&] { return server.count(kHeartbeat) >= 3; }, seconds(6)));
    EXPECT_EQ(server.count(kCertificate), 0u);
    EXPECT_TRUE(installed_pair_matches(identity_dir()));  // the enrollment's is still written
    EXPECT_TRUE(agent.stop().ok());
}

TEST_F(AgentCertificateTest, AServerWithoutACaLeavesTheAgentWithoutACertificate) {
    FakeAgentServer server;  // no issuer: answers carry no certificate
    RunningAgent agent(options_for(server, dir), plugins.registry);
    ASSERT_TRUE(FakeAgentServer::wait_until([&] { return server.count(kHeartbeat) >= 2; }));
    EXPECT_TRUE(server.bodies(kEnroll).at(0).contains("csr"));
    EXPECT_TRUE(fs::exists(identity_dir() / kClientKeyFileName));
    EXPECT_FALSE(fs::exists(identity_dir() / kClientCertFileName));
    EXPECT_TRUE(agent.stop().ok());
}

// Over https the server verifies the client certificate against the root
// alone, so this also shows the agent sends the issuing CA with its leaf.
TEST_F(AgentCertificateTest, HttpsConnectionsPresentTheCertificateOnceInstalled) {
    auto tls = tls_server();
    FakeAgentServer& server = *tls;
    RunningAgent agent(tls_options(server), plugins.registry);
    ASSERT_TRUE(FakeAgentServer::wait_until(
        [&] { return server.count(kHeartbeat) >= 1 && server.count(kCommands) >= 1; }));
    const std::string serial = installed_serial(identity_dir());
    ASSERT_FALSE(serial.empty());
    EXPECT_EQ(server.peer_serials(kEnroll).at(0), "");  // none yet
    EXPECT_EQ(server.peer_serials(kHeartbeat).at(0), serial);
    EXPECT_EQ(server.peer_serials(kCommands).at(0), serial);

    // A renewed certificate is presented from the next request on.
    server.set_certificate_renewal(true);
    ASSERT_TRUE(FakeAgentServer::wait_until([&] { return server.count(kCertificate) >= 1; }));
    server.set_certificate_renewal(false);
    EXPECT_EQ(server.peer_serials(kCertificate).at(0), serial);
    ASSERT_TRUE(FakeAgentServer::wait_until([&] {
        const auto seen = server.peer_serials(kHeartbeat);
        const std::string now = installed_serial(identity_dir());
        return now != serial && !now.empty() && seen.back() == now;
    }));
    EXPECT_TRUE(agent.stop().ok());
}

}  // namespace
}  // namespace yuzu::agent::testing
