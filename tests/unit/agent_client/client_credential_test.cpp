// The client certificate module: the key on disk, the CSR, installing what
// the server issued, and the renewal swap with its crash recovery.
#include "client/client_credential.hpp"

#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "client/http_channel.hpp"
#include "support/temp_dir.hpp"
#include "test_ca.hpp"
#include "yuzu/agent/server_endpoint.hpp"

namespace yuzu::agent::testing {
namespace {

namespace fs = std::filesystem;

mode_t mode_of(const fs::path& p) {
    struct stat st {};
    EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
    return st.st_mode & 0777;
}

std::string read_text(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void write_text(const fs::path& p, const std::string& text) {
    std::ofstream(p) << text;
}

PkeyPtr key_at(const fs::path& p) {
    auto key = load_key_file(p);
    EXPECT_TRUE(key.ok()) << key.status().to_string();
    return key.ok() ? std::move(*key) : nullptr;
}

X509Ptr leaf_at(const fs::path& p) {
    auto certs = load_certificate_file(p);
    EXPECT_TRUE(certs.ok()) << certs.status().to_string();
    return certs.ok() ? std::move(certs->front()) : nullptr;
}

bool pair_matches(const fs::path& cert, const fs::path& key) {
    X509Ptr c = leaf_at(cert);
    PkeyPtr k = key_at(key);
    return c && k && key_matches(c.get(), k.get());
}

// A certificate for the key in key_file, as the server would issue it.
IssuedCertificate issue_for(const TestCa& ca, const fs::path& key_file) {
    PkeyPtr key = key_at(key_file);
    auto csr = make_csr(key.get(), "agent-0");
    EXPECT_TRUE(csr.ok());
    return IssuedCertificate{ca.issue(*csr, "agent-0"), ca.chain_pem()};
}

class ClientCredentialTest : public ::testing::Test {
  protected:
    void SetUp() override { ASSERT_TRUE(ca.ok()); }

    fs::path file(const char* name) const { return dir.path() / name; }

    // client.key and a matching client.crt, as after an enrollment.
    void enroll(ClientCredential& credential) {
        auto csr = credential.enrollment_csr("agent-0");
        ASSERT_TRUE(csr.ok()) << csr.status().to_string();
        auto installed = credential.install({ca.issue(*csr, "agent-0"), ca.chain_pem()});
        ASSERT_TRUE(installed.ok()) << installed.status().to_string();
    }

    yuzu::testing::TempDir dir;
    TestCa ca;
};

TEST_F(ClientCredentialTest, KeyIsCreatedOwnerOnlyAsPkcs8AndNeverOverwritten) {
    auto key = create_key_file(file(kClientKeyFileName));
    ASSERT_TRUE(key.ok()) << key.status().to_string();
    EXPECT_EQ(mode_of(file(kClientKeyFileName)), 0600u);
    EXPECT_EQ(read_text(file(kClientKeyFileName)).rfind("-----BEGIN PRIVATE KEY-----", 0), 0u);
    EXPECT_EQ(EVP_PKEY_get_base_id(key->get()), EVP_PKEY_EC);
    EXPECT_EQ(EVP_PKEY_get_bits(key->get()), 256);
    auto again = create_key_file(file(kClientKeyFileName));
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
    PkeyPtr loaded = key_at(file(kClientKeyFileName));
    ASSERT_TRUE(loaded);
    EXPECT_EQ(EVP_PKEY_eq(loaded.get(), key->get()), 1);
    EXPECT_EQ(load_key_file(file("missing.key")).status().code(), StatusCode::kNotFound);
    write_text(file("junk.key"), "not a key");
    EXPECT_EQ(load_key_file(file("junk.key")).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(ClientCredentialTest, CsrParsesAndItsSignatureVerifiesWithTheKey) {
    auto key = create_key_file(file(kClientKeyFileName));
    ASSERT_TRUE(key.ok());
    auto csr = make_csr(key->get(), "agent-0");
    ASSERT_TRUE(csr.ok()) << csr.status().to_string();
    EXPECT_EQ(csr->rfind("-----BEGIN CERTIFICATE REQUEST-----", 0), 0u);
    BioPtr bio(BIO_new_mem_buf(csr->data(), static_cast<int>(csr->size())));
    X509ReqPtr req(PEM_read_bio_X509_REQ(bio.get(), nullptr, nullptr, nullptr));
    ASSERT_TRUE(req);
    // Verified with the key's own public half, not with the one in the CSR.
    EXPECT_EQ(X509_REQ_verify(req.get(), key->get()), 1);
    PkeyPtr in_csr(X509_REQ_get_pubkey(req.get()));
    EXPECT_EQ(EVP_PKEY_eq(in_csr.get(), key->get()), 1);
    EXPECT_EQ(X509_REQ_get_signature_nid(req.get()), NID_ecdsa_with_SHA256);
    char cn[128] = {0};
    X509_NAME_get_text_by_NID(X509_REQ_get_subject_name(req.get()), NID_commonName, cn, sizeof cn);
    EXPECT_STREQ(cn, "agent-0");
    // Another key's signature does not verify.
    PkeyPtr other(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
    EXPECT_NE(X509_REQ_verify(req.get(), other.get()), 1);
}

TEST_F(ClientCredentialTest, InstallWritesTheLeafThenTheChainForTheKey) {
    ClientCredential credential(dir.path());
    const uint64_t before = credential.generation();
    auto csr = credential.enrollment_csr("agent-0");
    ASSERT_TRUE(csr.ok());
    EXPECT_EQ(mode_of(file(kClientKeyFileName)), 0600u);
    const std::string leaf = ca.issue(*csr, "agent-0");
    auto info = credential.install({leaf, ca.chain_pem()});
    ASSERT_TRUE(info.ok()) << info.status().to_string();
    EXPECT_GT(credential.generation(), before);
    EXPECT_EQ(mode_of(file(kClientCertFileName)), 0600u);
    EXPECT_EQ(read_text(file(kClientCertFileName)), leaf + ca.chain_pem());
    auto certs = load_certificate_file(file(kClientCertFileName));
    ASSERT_TRUE(certs.ok());
    EXPECT_EQ(certs->size(), 3u);
    EXPECT_TRUE(pair_matches(file(kClientCertFileName), file(kClientKeyFileName)));
    EXPECT_FALSE(info->serial_hex.empty());
    EXPECT_EQ(info->not_after.size(), 20u);  // 2026-01-31T12:00:00Z
    EXPECT_EQ(info->not_after, describe_certificate(certs->front().get()).not_after);

    // A certificate for another key is refused; the installed one stays.
    auto other = create_key_file(file("other.key"));
    ASSERT_TRUE(other.ok());
    auto refused = credential.install(issue_for(ca, file("other.key")));
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(read_text(file(kClientCertFileName)), leaf + ca.chain_pem());
}

TEST_F(ClientCredentialTest, EnrollingAgainKeepsTheKeyAndDropsTheOldCertificate) {
    ClientCredential credential(dir.path());
    enroll(credential);
    PkeyPtr key = key_at(file(kClientKeyFileName));
    const uint64_t before = credential.generation();
    ASSERT_TRUE(credential.enrollment_csr("agent-0").ok());
    EXPECT_FALSE(fs::exists(file(kClientCertFileName)));
    EXPECT_GT(credential.generation(), before);
    EXPECT_EQ(EVP_PKEY_eq(key_at(file(kClientKeyFileName)).get(), key.get()), 1);
    // An unreadable key is replaced.
    write_text(file(kClientKeyFileName), "garbage");
    ASSERT_TRUE(credential.enrollment_csr("agent-0").ok());
    EXPECT_TRUE(key_at(file(kClientKeyFileName)));
}

TEST_F(ClientCredentialTest, RenewalReplacesKeyAndCertificateTogether) {
    ClientCredential credential(dir.path());
    enroll(credential);
    PkeyPtr old_key = key_at(file(kClientKeyFileName));
    const std::string old_serial =
        describe_certificate(leaf_at(file(kClientCertFileName)).get()).serial_hex;
    const uint64_t before = credential.generation();

    auto csr = credential.begin_renewal("agent-0");
    ASSERT_TRUE(csr.ok()) << csr.status().to_string();
    EXPECT_EQ(mode_of(file(kNewClientKeyFileName)), 0600u);
    auto info = credential.finish_renewal({ca.issue(*csr, "agent-0"), ca.chain_pem()});
    ASSERT_TRUE(info.ok()) << info.status().to_string();
    EXPECT_NE(info->serial_hex, old_serial);
    EXPECT_GT(credential.generation(), before);
    EXPECT_FALSE(fs::exists(file(kNewClientKeyFileName)));
    EXPECT_FALSE(fs::exists(file(kNewClientCertFileName)));
    EXPECT_NE(EVP_PKEY_eq(key_at(file(kClientKeyFileName)).get(), old_key.get()), 1);
    EXPECT_TRUE(pair_matches(file(kClientCertFileName), file(kClientKeyFileName)));
    EXPECT_EQ(mode_of(file(kClientKeyFileName)), 0600u);
    EXPECT_EQ(mode_of(file(kClientCertFileName)), 0600u);

    // A certificate that is not for client.key.new changes nothing.
    const std::string current = read_text(file(kClientCertFileName));
    ASSERT_TRUE(credential.begin_renewal("agent-0").ok());
    ASSERT_TRUE(create_key_file(file("other.key")).ok());
    EXPECT_FALSE(credential.finish_renewal(issue_for(ca, file("other.key"))).ok());
    EXPECT_EQ(read_text(file(kClientCertFileName)), current);
    EXPECT_TRUE(pair_matches(file(kClientCertFileName), file(kClientKeyFileName)));
    EXPECT_FALSE(fs::exists(file(kNewClientKeyFileName)));
    EXPECT_FALSE(fs::exists(file(kNewClientCertFileName)));
    // Nor does a renewal that got no answer.
    ASSERT_TRUE(credential.begin_renewal("agent-0").ok());
    credential.abandon_renewal();
    EXPECT_FALSE(fs::exists(file(kNewClientKeyFileName)));
    EXPECT_EQ(read_text(file(kClientCertFileName)), current);
}

// --- a crash at each step of the swap (client_credential.hpp) ---

TEST_F(ClientCredentialTest, RecoveryWithNothingPendingChangesNothing) {
    ClientCredential credential(dir.path());
    enroll(credential);
    const std::string cert = read_text(file(kClientCertFileName));
    auto r = recover_interrupted_renewal(dir.path());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r, RenewalRecovery::kNothing);
    EXPECT_EQ(read_text(file(kClientCertFileName)), cert);
}

TEST_F(ClientCredentialTest, CrashAfterTheNewKeyRollsBack) {
    ClientCredential credential(dir.path());
    enroll(credential);
    const std::string cert = read_text(file(kClientCertFileName));
    const std::string key = read_text(file(kClientKeyFileName));
    ASSERT_TRUE(credential.begin_renewal("agent-0").ok());  // step 1 only
    auto r = recover_interrupted_renewal(dir.path());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r, RenewalRecovery::kRolledBack);
    EXPECT_FALSE(fs::exists(file(kNewClientKeyFileName)));
    EXPECT_EQ(read_text(file(kClientCertFileName)), cert);
    EXPECT_EQ(read_text(file(kClientKeyFileName)), key);
}

TEST_F(ClientCredentialTest, CrashAfterTheNewCertificateFinishesTheSwap) {
    ClientCredential credential(dir.path());
    enroll(credential);
    ASSERT_TRUE(credential.begin_renewal("agent-0").ok());
    const IssuedCertificate issued = issue_for(ca, file(kNewClientKeyFileName));
    write_text(file(kNewClientCertFileName), issued.certificate + issued.chain);  // step 2
    const std::string new_key = read_text(file(kNewClientKeyFileName));
    auto r = recover_interrupted_renewal(dir.path());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r, RenewalRecovery::kFinished);
    EXPECT_EQ(read_text(file(kClientKeyFileName)), new_key);
    EXPECT_EQ(read_text(file(kClientCertFileName)), issued.certificate + issued.chain);
    EXPECT_TRUE(pair_matches(file(kClientCertFileName), file(kClientKeyFileName)));
    EXPECT_FALSE(fs::exists(file(kNewClientKeyFileName)));
    EXPECT_FALSE(fs::exists(file(kNewClientCertFileName)));
}

TEST_F(ClientCredentialTest, CrashAfterTheKeyRenameFinishesTheSwap) {
    ClientCredential credential(dir.path());
    enroll(credential);
    ASSERT_TRUE(credential.begin_renewal("agent-0").ok());
    const IssuedCertificate issued = issue_for(ca, file(kNewClientKeyFileName));
    write_text(file(kNewClientCertFileName), issued.certificate + issued.chain);
    fs::rename(file(kNewClientKeyFileName), file(kClientKeyFileName));  // step 3
    EXPECT_FALSE(pair_matches(file(kClientCertFileName), file(kClientKeyFileName)));
    auto r = recover_interrupted_renewal(dir.path());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r, RenewalRecovery::kFinished);
    EXPECT_TRUE(pair_matches(file(kClientCertFileName), file(kClientKeyFileName)));
    EXPECT_FALSE(fs::exists(file(kNewClientCertFileName)));
}

TEST_F(ClientCredentialTest, NewFilesThatDoNotMatchAreDeleted) {
    ClientCredential credential(dir.path());
    enroll(credential);
    const std::string cert = read_text(file(kClientCertFileName));
    ASSERT_TRUE(credential.begin_renewal("agent-0").ok());
    ASSERT_TRUE(create_key_file(file("other.key")).ok());
    const IssuedCertificate wrong = issue_for(ca, file("other.key"));
    write_text(file(kNewClientCertFileName), wrong.certificate);
    auto r = recover_interrupted_renewal(dir.path());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r, RenewalRecovery::kRolledBack);
    EXPECT_FALSE(fs::exists(file(kNewClientKeyFileName)));
    EXPECT_FALSE(fs::exists(file(kNewClientCertFileName)));
    EXPECT_EQ(read_text(file(kClientCertFileName)), cert);
    EXPECT_TRUE(pair_matches(file(kClientCertFileName), file(kClientKeyFileName)));

    // A torn client.crt.new (a crash while writing it) is deleted too.
    ASSERT_TRUE(credential.begin_renewal("agent-0").ok());
    write_text(file(kNewClientCertFileName), "-----BEGIN CERTIFICATE-----\nMII");
    r = recover_interrupted_renewal(dir.path());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r, RenewalRecovery::kRolledBack);
    EXPECT_EQ(read_text(file(kClientCertFileName)), cert);
}

// --- what the channels present ---

TEST_F(ClientCredentialTest, UsableOnlyWithBothFilesAndBeforeExpiry) {
    ClientCredential credential(dir.path());
    std::string problem = "x";
    EXPECT_FALSE(credential.usable_files(&problem));
    EXPECT_EQ(problem, "");  // no certificate yet is no problem
    enroll(credential);
    auto files = credential.usable_files(&problem);
    ASSERT_TRUE(files);
    EXPECT_EQ(files->cert_path, file(kClientCertFileName).string());
    EXPECT_EQ(files->key_path, file(kClientKeyFileName).string());

    auto csr = credential.enrollment_csr("agent-0");
    ASSERT_TRUE(csr.ok());
    ASSERT_TRUE(credential.install({ca.issue(*csr, "agent-0", /*days=*/-1), ca.chain_pem()}).ok());
    EXPECT_FALSE(credential.usable_files(&problem));
    EXPECT_NE(problem.find("expired"), std::string::npos) << problem;
    EXPECT_TRUE(credential.claim_warning(credential.generation()));
    EXPECT_FALSE(credential.claim_warning(credential.generation()));
}

TEST_F(ClientCredentialTest, HttpsChannelPresentsTheCredentialAndHttpIgnoresIt) {
    ClientCredential credential(dir.path());
    auto https = parse_server_url("https://127.0.0.1:9");
    auto http = parse_server_url("http://127.0.0.1:9");
    ASSERT_TRUE(https.ok() && http.ok());
    HttpTimeouts quick;
    quick.connect = std::chrono::milliseconds(200);
    HttpChannel channel(*https, "", quick, "", false, &credential);
    EXPECT_FALSE(channel.presents_client_certificate());  // nothing enrolled yet
    enroll(credential);
    // Picked up at the next request (port 9 does not answer: that is fine).
    (void)channel.post("/agent/v1/heartbeat", "t", "{}");
    EXPECT_TRUE(channel.presents_client_certificate());
    HttpChannel plain(*http, "", quick, "", false, &credential);
    EXPECT_FALSE(plain.presents_client_certificate());

    // A client.crt that does not match client.key is not presented.
    ASSERT_TRUE(create_key_file(file("other.key")).ok());
    fs::rename(file("other.key"), file(kClientKeyFileName));
    HttpChannel mismatched(*https, "", quick, "", false, &credential);
    EXPECT_FALSE(mismatched.presents_client_certificate());
}

}  // namespace
}  // namespace yuzu::agent::testing
