// The internal CA end to end against the real binary: an agent enrolls over
// mTLS, its certificate is revoked over MCP through an approval, and its
// next connection is refused while the CRL lists the serial; the
// confirm_engine_rotation precondition; no private key in the data dir, the
// log or an answer.
#include <gtest/gtest.h>
#include <httplib.h>
#include <openssl/bn.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "approval_test_helpers.hpp"
#include "support/csr_maker.hpp"

namespace yuzu::testing::approvals {
namespace {

using nlohmann::json;

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

void write_file(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

// host:port of an https:// agent URL.
std::pair<std::string, int> host_port(const std::string& url) {
    const std::string rest = url.substr(url.find("://") + 3);
    const size_t colon = rest.rfind(':');
    return {rest.substr(0, colon), std::stoi(rest.substr(colon + 1))};
}

struct AgentCredential {
    std::string agent_id;
    std::string device_token;
    std::string serial_hex;
    std::filesystem::path cert_file;
    std::filesystem::path key_file;
};

class PkiMtlsTest : public ::testing::Test {
  protected:
    explicit PkiMtlsTest(const std::string& mode = "required") : f({"--agent-mtls", mode}) {}

    std::filesystem::path root_file() const {
        return std::filesystem::path(f.server->data_dir()) / "pki-root-ca.pem";
    }

    std::unique_ptr<httplib::SSLClient> agent_client(const AgentCredential* cred) {
        auto [host, port] = host_port(f.server->agent_url());
        std::unique_ptr<httplib::SSLClient> c =
            cred != nullptr ? std::make_unique<httplib::SSLClient>(
                                  host, port, cred->cert_file.string(), cred->key_file.string())
                            : std::make_unique<httplib::SSLClient>(host, port);
        c->enable_server_certificate_verification(true);
        c->set_ca_cert_path(root_file().string());
        c->set_connection_timeout(5, 0);
        c->set_read_timeout(10, 0);
        return c;
    }

    json enroll_body(const std::string& hostname, const std::string& csr) {
        json body = {{"enrollment_token", enrollment_token()},
                     {"hostname", hostname},
                     {"os", "linux"},
                     {"arch", "x86_64"},
                     {"agent_version", "test"}};
        if (!csr.empty()) body["csr"] = csr;
        return body;
    }

    std::string enrollment_token() {
        auto res = f.client->Post("/api/v1/enrollment-tokens", bearer(f.admin_api), "{}",
                                  "application/json");
        EXPECT_TRUE(res && res->status == 201);
        return res ? json::parse(res->body).value("token", "") : "";
    }

    AgentCredential enroll(const std::string& hostname) {
        AgentCredential cred;
        const TestKey key = make_test_key(hostname);
        auto c = agent_client(nullptr);
        auto res = c->Post("/agent/v1/enroll", enroll_body(hostname, key.csr_pem).dump(),
                           "application/json");
        EXPECT_TRUE(res) << httplib::to_string(res.error());
        if (!res) return cred;
        EXPECT_EQ(res->status, 201) << res->body;
        const json answer = json::parse(res->body);
        cred.agent_id = answer.value("agent_id", "");
        cred.device_token = answer.value("device_token", "");
        const std::string cert = answer.value("certificate", "");
        const std::string chain = answer.value("certificate_chain", "");
        EXPECT_NE(cert.find("BEGIN CERTIFICATE"), std::string::npos) << res->body;
        EXPECT_NE(chain.find(read_file(root_file())), std::string::npos);
        cred.cert_file = dir.path() / (hostname + ".crt");
        cred.key_file = dir.path() / (hostname + ".key");
        write_file(cred.cert_file, cert + chain);
        write_file(cred.key_file, key.key_pem);
        BIO* bio = BIO_new_mem_buf(cert.data(), static_cast<int>(cert.size()));
        X509* x = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
        BIO_free(bio);
        if (x != nullptr) {
            BIGNUM* bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(x), nullptr);
            char* hex = BN_bn2hex(bn);
            cred.serial_hex = hex;
            OPENSSL_free(hex);
            BN_free(bn);
            X509_free(x);
        }
        return cred;
    }

    httplib::Result heartbeat(httplib::SSLClient& c, const AgentCredential& cred) {
        return c.Post(
            "/agent/v1/heartbeat", {{"Authorization", "Bearer " + cred.device_token}},
            json{{"hostname", "h"}, {"os", "linux"}, {"arch", "x86_64"}, {"agent_version", "test"}}
                .dump(),
            "application/json");
    }

    // Mints, has rita approve, and answers the approval id.
    std::string approved_ticket(const std::string& tool, const json& args) {
        const std::string id = f.mint(tool, args);
        EXPECT_FALSE(id.empty());
        if (!reviewer_ready_) {
            EXPECT_FALSE(enrol_and_verify(*f.client, f.reviewer).empty());
            reviewer_ready_ = true;
        }
        auto approved = f.decide(f.reviewer.headers(), id);
        EXPECT_TRUE(approved && approved->status == 200) << (approved ? approved->body : "");
        return id;
    }

    size_t audit_rows(const std::string& action) {
        auto res = f.client->Get("/api/v1/audit?limit=500&action=" + action, bearer(f.admin_api));
        EXPECT_TRUE(res && res->status == 200);
        return res ? json::parse(res->body)["events"].size() : 0;
    }

    void expect_no_private_key_anywhere() {
        for (const auto& entry :
             std::filesystem::recursive_directory_iterator(f.server->data_dir())) {
            if (!entry.is_regular_file()) continue;
            EXPECT_EQ(read_file(entry.path()).find("PRIVATE KEY"), std::string::npos)
                << entry.path();
        }
        EXPECT_EQ(f.server->log().find("PRIVATE KEY"), std::string::npos);
    }

    TempDir dir;
    ApprovalFixture f;
    bool reviewer_ready_ = false;
};

TEST_F(PkiMtlsTest, RevokedOverMcpTheAgentIsRefusedAtItsNextConnection) {
    ASSERT_EQ(f.server->agent_url().rfind("https://", 0), 0u) << f.server->agent_url();
    // Required mode: an enrollment without a CSR is refused before the token
    // is spent.
    {
        auto c = agent_client(nullptr);
        auto res =
            c->Post("/agent/v1/enroll", enroll_body("no-csr", "").dump(), "application/json");
        ASSERT_TRUE(res) << httplib::to_string(res.error());
        EXPECT_EQ(res->status, 400) << res->body;
    }
    const AgentCredential a = enroll("host-a");
    const AgentCredential b = enroll("host-b");
    ASSERT_FALSE(a.serial_hex.empty());

    auto ca = agent_client(&a);
    ca->set_keep_alive(true);
    auto ok = heartbeat(*ca, a);
    ASSERT_TRUE(ok) << httplib::to_string(ok.error());
    EXPECT_EQ(ok->status, 200) << ok->body;
    // Without its certificate, the device token alone is not enough.
    auto bare = agent_client(nullptr);
    auto no_cert = heartbeat(*bare, a);
    ASSERT_TRUE(no_cert);
    EXPECT_EQ(no_cert->status, 401) << no_cert->body;
    // Another agent's certificate does not carry this agent's token.
    auto cb = agent_client(&b);
    auto crossed = heartbeat(*cb, a);
    ASSERT_TRUE(crossed);
    EXPECT_EQ(crossed->status, 401) << crossed->body;

    const json listed = f.mcp(f.supervised, "list_issued_certs", {{"purpose", "agent"}});
    ASSERT_TRUE(listed.contains("result")) << listed.dump();
    const json& items = listed["result"]["structuredContent"]["items"];
    bool found = false;
    for (const auto& item : items) found |= item["serial_hex"] == a.serial_hex;
    EXPECT_TRUE(found) << listed.dump();

    const json args = {{"serial_hex", a.serial_hex}, {"reason", "laptop stolen"}};
    const std::string id = approved_ticket("revoke_certificate", args);
    json recall_args = args;
    recall_args["approval_id"] = id;
    // Fresh traffic on the kept connection, well inside the idle timeout.
    auto before = heartbeat(*ca, a);
    ASSERT_TRUE(before);
    EXPECT_EQ(before->status, 200);
    const json revoked = f.mcp(f.supervised, "revoke_certificate", recall_args);
    ASSERT_TRUE(revoked.contains("result")) << revoked.dump();
    EXPECT_EQ(revoked["result"]["structuredContent"]["revoked"], true);
    EXPECT_EQ(revoked["result"]["structuredContent"]["crl_republished"], true);

    // The connection kept alive across the revocation is refused at its next
    // request; a new connection does not get through the handshake.
    auto kept = heartbeat(*ca, a);
    ASSERT_TRUE(kept);
    EXPECT_EQ(kept->status, 401) << kept->body;
    auto fresh = agent_client(&a);
    auto refused = heartbeat(*fresh, a);
    EXPECT_FALSE(refused) << "a revoked certificate completed a handshake: "
                          << (refused ? refused->body : "");
    // The other agent is untouched.
    auto other = heartbeat(*agent_client(&b), b);
    ASSERT_TRUE(other);
    EXPECT_EQ(other->status, 200);

    // The CRL says so.
    auto crl = f.client->Get("/api/v1/pki/crl/1", bearer(f.admin_api));
    ASSERT_TRUE(crl);
    ASSERT_EQ(crl->status, 200) << crl->body;
    BIO* bio = BIO_new_mem_buf(crl->body.data(), static_cast<int>(crl->body.size()));
    X509_CRL* parsed = PEM_read_bio_X509_CRL(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    ASSERT_NE(parsed, nullptr);
    bool listed_serial = false;
    const STACK_OF(X509_REVOKED)* entries = X509_CRL_get_REVOKED(parsed);
    for (int i = 0; i < sk_X509_REVOKED_num(entries); ++i) {
        BIGNUM* bn = ASN1_INTEGER_to_BN(
            X509_REVOKED_get0_serialNumber(sk_X509_REVOKED_value(entries, i)), nullptr);
        char* hex = BN_bn2hex(bn);
        listed_serial |= a.serial_hex == hex;
        OPENSSL_free(hex);
        BN_free(bn);
    }
    X509_CRL_free(parsed);
    EXPECT_TRUE(listed_serial);
    EXPECT_EQ(audit_rows("ca.cert.revoked"), 1u);
    EXPECT_EQ(audit_rows("ca.crl.published"), 1u);

    // A replay of the consumed ticket revokes nothing more.
    const json replay = f.mcp(f.supervised, "revoke_certificate", recall_args);
    EXPECT_EQ(replay["error"]["code"], -32003) << replay.dump();

    auto live = f.client->Get("/livez");
    ASSERT_TRUE(live);
    EXPECT_EQ(live->status, 200);
    expect_no_private_key_anywhere();
}

TEST_F(PkiMtlsTest, ConfirmEngineRotationRechecksTheLiveRotationBeforeConsuming) {
    auto started =
        f.client->Post("/api/v1/pki/rotation", bearer(f.admin_api), "{}", "application/json");
    ASSERT_TRUE(started);
    ASSERT_EQ(started->status, 200) << started->body;
    EXPECT_EQ(json::parse(started->body)["to_generation"], 2);

    const json args = {{"to_generation", 2}};
    const std::string id = approved_ticket("confirm_engine_rotation", args);
    auto cancelled = f.client->Delete("/api/v1/pki/rotation", bearer(f.admin_api));
    ASSERT_TRUE(cancelled);
    ASSERT_EQ(cancelled->status, 200) << cancelled->body;

    json recall_args = args;
    recall_args["approval_id"] = id;
    const json not_now = f.mcp(f.supervised, "confirm_engine_rotation", recall_args);
    EXPECT_EQ(not_now["error"]["code"], -32003) << not_now.dump();
    EXPECT_EQ(not_now["error"]["message"].get<std::string>().rfind(
                  "approval cannot be redeemed right now", 0),
              0u)
        << not_now.dump();

    auto restarted =
        f.client->Post("/api/v1/pki/rotation", bearer(f.admin_api), "{}", "application/json");
    ASSERT_TRUE(restarted);
    ASSERT_EQ(restarted->status, 200) << restarted->body;
    const json confirmed = f.mcp(f.supervised, "confirm_engine_rotation", recall_args);
    ASSERT_TRUE(confirmed.contains("result")) << confirmed.dump();
    EXPECT_EQ(confirmed["result"]["structuredContent"]["confirmed"], true);
    EXPECT_EQ(confirmed["result"]["structuredContent"]["retired_generation"], 1);
    const json again = f.mcp(f.supervised, "confirm_engine_rotation", recall_args);
    EXPECT_EQ(again["error"]["code"], -32003) << again.dump();
    EXPECT_EQ(audit_rows("ca.rotation.confirmed"), 1u);

    // After the rotation, enrollment issues from generation 2 and the new
    // certificate works on a fresh connection.
    const AgentCredential a = enroll("host-after");
    auto res = heartbeat(*agent_client(&a), a);
    ASSERT_TRUE(res) << httplib::to_string(res.error());
    EXPECT_EQ(res->status, 200) << res->body;
}

TEST_F(PkiMtlsTest, CodeSigningCertificateComesBackWithoutAnyPrivateKey) {
    const TestKey key = make_test_key("release-signer");
    const json args = {{"csr", key.csr_pem}, {"common_name", "Yuzu release signing"}};
    // A CSR that does not parse is refused before anything is minted.
    const json bad = f.mcp(f.supervised, "issue_code_signing_cert",
                           {{"csr", "not a csr"}, {"common_name", "x"}});
    EXPECT_EQ(bad["error"]["code"], -32602) << bad.dump();
    const std::string id = approved_ticket("issue_code_signing_cert", args);
    json recall_args = args;
    recall_args["approval_id"] = id;
    const json issued = f.mcp(f.supervised, "issue_code_signing_cert", recall_args);
    ASSERT_TRUE(issued.contains("result")) << issued.dump();
    const json& out = issued["result"]["structuredContent"];
    EXPECT_NE(out["certificate_pem"].get<std::string>().find("BEGIN CERTIFICATE"),
              std::string::npos);
    EXPECT_EQ(issued.dump().find("PRIVATE KEY"), std::string::npos);
    const json listed = f.mcp(f.supervised, "list_issued_certs", {{"purpose", "code_signing"}});
    EXPECT_EQ(listed["result"]["structuredContent"]["count"], 1) << listed.dump();
    EXPECT_EQ(audit_rows("ca.cert.issued"), 1u);
    expect_no_private_key_anywhere();
}

class PkiOptionalMtlsTest : public PkiMtlsTest {
  protected:
    PkiOptionalMtlsTest() : PkiMtlsTest("optional") {}
};

TEST_F(PkiOptionalMtlsTest, AnAgentWithoutACertificateIsAskedToRenewAndCanFetchOne) {
    // Enrolled without a CSR (an agent from before client certificates).
    auto bare = agent_client(nullptr);
    auto enrolled =
        bare->Post("/agent/v1/enroll", enroll_body("legacy", "").dump(), "application/json");
    ASSERT_TRUE(enrolled) << httplib::to_string(enrolled.error());
    ASSERT_EQ(enrolled->status, 201) << enrolled->body;
    const json e = json::parse(enrolled->body);
    EXPECT_FALSE(e.contains("certificate"));
    AgentCredential cred;
    cred.agent_id = e["agent_id"];
    cred.device_token = e["device_token"];

    auto beat = heartbeat(*bare, cred);
    ASSERT_TRUE(beat);
    ASSERT_EQ(beat->status, 200) << beat->body;
    EXPECT_EQ(json::parse(beat->body).value("certificate_renewal", false), true) << beat->body;

    const TestKey key = make_test_key("legacy");
    const httplib::Headers auth = {{"Authorization", "Bearer " + cred.device_token}};
    auto renewed = bare->Post("/agent/v1/certificate", auth, json{{"csr", key.csr_pem}}.dump(),
                              "application/json");
    ASSERT_TRUE(renewed);
    ASSERT_EQ(renewed->status, 200) << renewed->body;
    const json r = json::parse(renewed->body);
    cred.cert_file = dir.path() / "legacy.crt";
    cred.key_file = dir.path() / "legacy.key";
    write_file(cred.cert_file,
               r["certificate"].get<std::string>() + r["certificate_chain"].get<std::string>());
    write_file(cred.key_file, key.key_pem);
    EXPECT_EQ(renewed->body.find("PRIVATE KEY"), std::string::npos);

    auto with_cert = agent_client(&cred);
    auto settled = heartbeat(*with_cert, cred);
    ASSERT_TRUE(settled) << httplib::to_string(settled.error());
    ASSERT_EQ(settled->status, 200) << settled->body;
    EXPECT_FALSE(json::parse(settled->body).contains("certificate_renewal")) << settled->body;

    // One renewal a minute per agent; a bad CSR is a 400.
    auto again = bare->Post("/agent/v1/certificate", auth,
                            json{{"csr", make_test_key().csr_pem}}.dump(), "application/json");
    ASSERT_TRUE(again);
    EXPECT_EQ(again->status, 429) << again->body;
    auto garbage =
        bare->Post("/agent/v1/certificate", auth, json{{"csr", "nope"}}.dump(), "application/json");
    ASSERT_TRUE(garbage);
    EXPECT_EQ(garbage->status, 400) << garbage->body;

    // A rotation: certificates of the old generation are asked to renew.
    auto started =
        f.client->Post("/api/v1/pki/rotation", bearer(f.admin_api), "{}", "application/json");
    ASSERT_TRUE(started && started->status == 200);
    EXPECT_EQ(json::parse(started->body)["agents_on_old_generation"], 1) << started->body;
    auto rotating = heartbeat(*agent_client(&cred), cred);
    ASSERT_TRUE(rotating);
    EXPECT_EQ(json::parse(rotating->body).value("certificate_renewal", false), true)
        << rotating->body;

    // Revoked: the agent cannot get a fresh certificate by asking for one.
    auto listed =
        f.client->Get("/api/v1/pki/certificates?agent_id=" + cred.agent_id, bearer(f.admin_api));
    ASSERT_TRUE(listed && listed->status == 200);
    const std::string serial = json::parse(listed->body)["items"][0]["serial_hex"];
    auto revoke =
        f.client->Post("/api/v1/pki/certificates/" + serial + "/revoke", bearer(f.admin_api),
                       json{{"reason", "test"}}.dump(), "application/json");
    ASSERT_TRUE(revoke);
    ASSERT_EQ(revoke->status, 200) << revoke->body;
    auto refused = bare->Post("/agent/v1/certificate", auth,
                              json{{"csr", make_test_key().csr_pem}}.dump(), "application/json");
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 403) << refused->body;
}

TEST(PkiStartup, BadClientCertificateSettingsExitTwoWithOneLine) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--agent-mtls", "sometimes"}, "--agent-mtls must be off, optional or required"},
        {{"--agent-tls-san", "yuzu.example.com"}, "it needs --agent-mtls optional or required"},
        {{"--agent-mtls", "required", "--agent-tls-san", "a b"}, "is not a DNS name"},
        {{"--agent-mtls", "required", "--agent-tls-san", "bad_name!"}, "is not a DNS name"},
    };
    for (const auto& [args, needle] : cases) {
        TempDir data;
        std::vector<std::string> argv = {bin_path("yuzu-server"),
                                         "--data-dir",
                                         (data.path() / "d").string(),
                                         "--listen",
                                         "127.0.0.1:0",
                                         "--agent-listen",
                                         "127.0.0.1:0"};
        argv.insert(argv.end(), args.begin(), args.end());
        std::string out;
        EXPECT_EQ(run_command(argv, &out), 2) << out;
        EXPECT_NE(out.find(needle), std::string::npos) << out;
        EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
    }
}

}  // namespace
}  // namespace yuzu::testing::approvals
