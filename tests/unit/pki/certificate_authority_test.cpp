#include "yuzu/pki/certificate_authority.hpp"

#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <sqlite3.h>

#include <array>
#include <fstream>
#include <sstream>

#include "support/csr_maker.hpp"
#include "support/temp_dir.hpp"
#include "yuzu/auth/secret_box.hpp"

namespace yuzu::pki {
namespace {

using testing::make_test_key;

std::unique_ptr<X509, decltype(&X509_free)> parse(const std::string& pem) {
    BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    return {cert, X509_free};
}

auth::SecretBox make_box(uint8_t fill) {
    std::array<uint8_t, auth::kSecretBoxKeyBytes> key{};
    key.fill(fill);
    return std::move(auth::SecretBox::from_key(key)).value();
}

class CertificateAuthorityTest : public ::testing::Test {
  protected:
    void SetUp() override { ca_ = open_ca(); }

    std::unique_ptr<CertificateAuthority> open_ca() {
        auto ca = CertificateAuthority::open(PkiOptions{dir_.str()}, box_, clock_);
        EXPECT_TRUE(ca.ok()) << ca.status().message();
        return ca.ok() ? std::move(ca).value() : nullptr;
    }

    Issued issue_agent(const std::string& agent_id) {
        IssueRequest r;
        r.purpose = Purpose::kAgent;
        r.csr_pem = make_test_key().csr_pem;
        r.common_name = agent_id;
        r.agent_id = agent_id;
        r.issued_by = "enrollment";
        auto issued = ca_->issue(r);
        EXPECT_TRUE(issued.ok()) << issued.status().message();
        return issued.ok() ? std::move(issued).value() : Issued{};
    }

    Status verify(const std::string& pem) {
        auto cert = parse(pem);
        return ca_->trust()->verify(cert.get(), nullptr, clock_.now_s());
    }

    testing::TempDir dir_;
    ManualClock clock_;
    auth::SecretBox box_ = make_box(7);
    std::unique_ptr<CertificateAuthority> ca_;
};

TEST_F(CertificateAuthorityTest, FirstStartMakesRootAndGenerationOneKeptAcrossRestarts) {
    ASSERT_NE(ca_, nullptr);
    EXPECT_EQ(ca_->issuing_generation(), 1);
    const std::string fingerprint = ca_->root_fingerprint_sha256();
    EXPECT_EQ(fingerprint.size(), 32u * 3 - 1);
    ca_.reset();
    ca_ = open_ca();
    EXPECT_EQ(ca_->root_fingerprint_sha256(), fingerprint);
    EXPECT_EQ(ca_->issuing_generation(), 1);
    std::ifstream root(dir_ / kRootCertificateFile);
    std::stringstream text;
    text << root.rdbuf();
    EXPECT_EQ(text.str(), ca_->root_certificate_pem());
}

TEST_F(CertificateAuthorityTest, AnotherSecretsKeyCannotOpenTheCa) {
    ca_.reset();
    auth::SecretBox other = make_box(9);
    auto ca = CertificateAuthority::open(PkiOptions{dir_.str()}, other, clock_);
    ASSERT_FALSE(ca.ok());
    EXPECT_EQ(ca.status().code(), StatusCode::kInternal);
    EXPECT_NE(ca.status().message().find("could not be unsealed"), std::string::npos);
}

TEST_F(CertificateAuthorityTest, IssuedAgentCertificateVerifiesAndNamesTheAgent) {
    Issued issued = issue_agent("agent-1");
    EXPECT_TRUE(verify(issued.certificate.certificate_pem).ok());
    EXPECT_EQ(issued.certificate.serial_hex.size(), 32u);
    EXPECT_EQ(issued.certificate.generation, 1);
    EXPECT_EQ(issued.certificate.not_after_ms - issued.certificate.not_before_ms,
              (kAgentLifetimeS + 300) * 1000);
    auto cert = parse(issued.certificate.certificate_pem);
    char cn[128] = {0};
    X509_NAME_get_text_by_NID(X509_get_subject_name(cert.get()), NID_commonName, cn, sizeof(cn));
    EXPECT_STREQ(cn, "agent-1");
    EXPECT_NE(issued.chain_pem.find(ca_->root_certificate_pem()), std::string::npos);
    auto newest = ca_->newest_for_agent("agent-1");
    ASSERT_TRUE(newest.ok() && newest->has_value());
    EXPECT_EQ((*newest)->serial_hex, issued.certificate.serial_hex);
}

TEST_F(CertificateAuthorityTest, RefusesCsrsThatAreNotOneValidRequest) {
    IssueRequest r;
    r.purpose = Purpose::kAgent;
    r.common_name = "a";
    r.agent_id = "a";
    for (const std::string& bad :
         {std::string(""), std::string("hello"), make_test_key().csr_pem + make_test_key().csr_pem,
          std::string(20000, 'A')}) {
        r.csr_pem = bad;
        auto issued = ca_->issue(r);
        ASSERT_FALSE(issued.ok());
        EXPECT_EQ(issued.status().code(), StatusCode::kInvalidArgument);
    }
    // A CSR whose signature was made by another key.
    std::string csr = make_test_key().csr_pem;
    const size_t mid = csr.size() / 2;
    csr[mid] = csr[mid] == 'A' ? 'B' : 'A';
    r.csr_pem = csr;
    EXPECT_FALSE(ca_->issue(r).ok());
    r.csr_pem = make_test_key().csr_pem;
    r.common_name = std::string("bad\ncn");
    EXPECT_FALSE(ca_->issue(r).ok());
}

TEST_F(CertificateAuthorityTest, RevocationIsOnTheCrlAndVerificationRefusesIt) {
    Issued a = issue_agent("agent-a");
    Issued b = issue_agent("agent-b");
    auto revoked = ca_->revoke(a.certificate.serial_hex, "key lost");
    ASSERT_TRUE(revoked.ok()) << revoked.status().message();
    EXPECT_TRUE(revoked->revoked());
    const Status refused = verify(a.certificate.certificate_pem);
    EXPECT_EQ(refused.code(), StatusCode::kUnauthenticated);
    EXPECT_NE(refused.message().find("revoked"), std::string::npos) << refused.message();
    EXPECT_TRUE(verify(b.certificate.certificate_pem).ok());
    EXPECT_TRUE(ca_->trust()->lists_revoked(a.certificate.serial_hex));

    auto crl_pem = ca_->crl_pem(1);
    ASSERT_TRUE(crl_pem.ok());
    BIO* bio = BIO_new_mem_buf(crl_pem->data(), static_cast<int>(crl_pem->size()));
    X509_CRL* crl = PEM_read_bio_X509_CRL(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    ASSERT_NE(crl, nullptr);
    EXPECT_EQ(sk_X509_REVOKED_num(X509_CRL_get_REVOKED(crl)), 1);
    X509_CRL_free(crl);

    auto again = ca_->revoke(a.certificate.serial_hex, "");
    EXPECT_EQ(again.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(ca_->revoke("ABCDEF", "").status().code(), StatusCode::kNotFound);
    EXPECT_EQ(ca_->revoke("xyz", "").status().code(), StatusCode::kInvalidArgument);
    // Lower case is the same serial.
    std::string lower = b.certificate.serial_hex;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_TRUE(ca_->revoke(lower, "").ok());
}

TEST_F(CertificateAuthorityTest, RevocationSurvivesARestart) {
    Issued a = issue_agent("agent-a");
    ASSERT_TRUE(ca_->revoke(a.certificate.serial_hex, "").ok());
    ca_.reset();
    ca_ = open_ca();
    EXPECT_FALSE(verify(a.certificate.certificate_pem).ok());
}

TEST_F(CertificateAuthorityTest, CrlsAreRefreshedBeforeTheyLapse) {
    Issued a = issue_agent("agent-a");
    clock_.advance_ms((kCrlLifetimeS + 60) * 1000);
    EXPECT_FALSE(verify(a.certificate.certificate_pem).ok()) << "a lapsed CRL must fail closed";
    auto refreshed = ca_->refresh_crls();
    ASSERT_TRUE(refreshed.ok());
    EXPECT_EQ(*refreshed, 1);
    EXPECT_TRUE(verify(a.certificate.certificate_pem).ok());
    EXPECT_EQ(*ca_->refresh_crls(), 0) << "a fresh CRL is left alone";
}

TEST_F(CertificateAuthorityTest, RotationTrustsBothThenOnlyTheNewGeneration) {
    Issued old_cert = issue_agent("agent-old");
    auto started = ca_->start_rotation("alice");
    ASSERT_TRUE(started.ok()) << started.status().message();
    EXPECT_TRUE(started->pending);
    EXPECT_EQ(started->from_generation, 1);
    EXPECT_EQ(started->to_generation, 2);
    EXPECT_EQ(started->agents_on_old_generation, 1);
    EXPECT_EQ(ca_->start_rotation("alice").status().code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(ca_->issuing_generation(), 2);
    EXPECT_TRUE(ca_->check_rotation_pending(2).ok());
    EXPECT_FALSE(ca_->check_rotation_pending(3).ok());

    Issued new_cert = issue_agent("agent-new");
    EXPECT_EQ(new_cert.certificate.generation, 2);
    EXPECT_EQ(ca_->rotation_status()->agents_on_old_generation, 1);
    issue_agent("agent-old");  // its renewal
    EXPECT_EQ(ca_->rotation_status()->agents_on_old_generation, 0);
    EXPECT_TRUE(verify(old_cert.certificate.certificate_pem).ok());
    EXPECT_TRUE(verify(new_cert.certificate.certificate_pem).ok());

    EXPECT_EQ(ca_->confirm_rotation(3).status().code(), StatusCode::kFailedPrecondition);
    ASSERT_TRUE(ca_->confirm_rotation(2).ok());
    EXPECT_FALSE(verify(old_cert.certificate.certificate_pem).ok());
    EXPECT_TRUE(verify(new_cert.certificate.certificate_pem).ok());
    EXPECT_FALSE(ca_->check_rotation_pending(2).ok());
    EXPECT_EQ(ca_->issuing_generation(), 2);
    // A revocation under the new generation lands on its CRL.
    ASSERT_TRUE(ca_->revoke(new_cert.certificate.serial_hex, "").ok());
    EXPECT_FALSE(verify(new_cert.certificate.certificate_pem).ok());
}

TEST_F(CertificateAuthorityTest, CancelReusesTheNumberAndIsRefusedOnceTheNewKeyIssued) {
    ASSERT_TRUE(ca_->start_rotation("alice").ok());
    auto cancelled = ca_->cancel_rotation();
    ASSERT_TRUE(cancelled.ok()) << cancelled.status().message();
    EXPECT_FALSE(cancelled->pending);
    EXPECT_EQ(ca_->issuing_generation(), 1);
    EXPECT_EQ(ca_->cancel_rotation().status().code(), StatusCode::kFailedPrecondition);

    auto restarted = ca_->start_rotation("alice");
    ASSERT_TRUE(restarted.ok());
    EXPECT_EQ(restarted->to_generation, 2);
    issue_agent("agent-x");
    auto refused = ca_->cancel_rotation();
    EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(refused.status().message().find("confirm"), std::string::npos);
}

TEST_F(CertificateAuthorityTest, ServerIdentityVerifiesAgainstTheRoot) {
    auto id = ca_->issue_server_identity({"localhost"}, {"127.0.0.1"});
    ASSERT_TRUE(id.ok()) << id.status().message();
    ASSERT_EQ(id->chain.size(), 2u);
    EXPECT_EQ(X509_check_private_key(id->certificate.get(), id->key.get()), 1);
    EXPECT_EQ(X509_check_host(id->certificate.get(), "localhost", 0, 0, nullptr), 1);
    EXPECT_EQ(X509_check_ip_asc(id->certificate.get(), "127.0.0.1", 0), 1);
    EXPECT_FALSE(ca_->issue_server_identity({"bad name"}, {}).ok());
}

TEST_F(CertificateAuthorityTest, ListPagesNewestFirst) {
    for (int i = 0; i < 5; ++i) {
        issue_agent("agent-" + std::to_string(i));
        clock_.advance_ms(1000);
    }
    ListFilter f;
    f.limit = 2;
    auto page = ca_->list(f);
    ASSERT_TRUE(page.ok());
    ASSERT_EQ(page->items.size(), 2u);
    EXPECT_TRUE(page->has_more);
    EXPECT_EQ(page->items[0].subject, "agent-4");
    f.offset = 4;
    page = ca_->list(f);
    ASSERT_EQ(page->items.size(), 1u);
    EXPECT_FALSE(page->has_more);
    f.limit = 0;
    EXPECT_FALSE(ca_->list(f).ok());
}

TEST_F(CertificateAuthorityTest, NoPrivateKeyIsStoredInTheClear) {
    issue_agent("agent-a");
    ASSERT_TRUE(ca_->start_rotation("alice").ok());
    ASSERT_TRUE(ca_->issue_server_identity({"localhost"}, {}).ok());
    ca_.reset();
    for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
        std::ifstream in(entry.path(), std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        EXPECT_EQ(text.str().find("PRIVATE KEY"), std::string::npos) << entry.path();
    }
}

TEST(SerialHex, NormalizesCaseAndRefusesNonHex) {
    EXPECT_EQ(*normalize_serial_hex("0a1b"), "0A1B");
    EXPECT_EQ(*normalize_serial_hex("00000A1B"), "0A1B");
    EXPECT_EQ(*normalize_serial_hex("A1B"), "0A1B");
    EXPECT_FALSE(normalize_serial_hex("").has_value());
    EXPECT_FALSE(normalize_serial_hex("12 34").has_value());
    EXPECT_FALSE(normalize_serial_hex(std::string(65, 'A')).has_value());
}

}  // namespace
}  // namespace yuzu::pki

namespace yuzu::pki {
namespace {

void run_sql(const std::filesystem::path& db, const std::string& sql) {
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
    char* err = nullptr;
    EXPECT_EQ(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
    sqlite3_free(err);
    sqlite3_close(h);
}

TEST_F(CertificateAuthorityTest, AGenerationLeftWithoutItsCrlIsRepairedAtOpen) {
    Issued a = issue_agent("agent-a");
    ca_.reset();
    run_sql(dir_ / kPkiDbFile, "DELETE FROM crls");
    ca_ = open_ca();
    ASSERT_NE(ca_, nullptr);
    EXPECT_TRUE(verify(a.certificate.certificate_pem).ok());
}

TEST_F(CertificateAuthorityTest, ARevocationNewerThanItsCrlIsPublishedByTheNextRefresh) {
    Issued a = issue_agent("agent-a");
    clock_.advance_ms(1000);
    // As a revocation whose republish failed leaves it: the row, not the CRL.
    run_sql(dir_ / kPkiDbFile,
            "UPDATE certificates SET revoked_at_ms = " + std::to_string(clock_.now_ms()) +
                " WHERE serial_hex = '" + a.certificate.serial_hex + "'");
    EXPECT_TRUE(verify(a.certificate.certificate_pem).ok());
    auto refreshed = ca_->refresh_crls();
    ASSERT_TRUE(refreshed.ok());
    EXPECT_EQ(*refreshed, 1);
    EXPECT_FALSE(verify(a.certificate.certificate_pem).ok());
}

TEST_F(CertificateAuthorityTest, AnEncryptedPemHeaderIsRefusedWithoutAPasswordPrompt) {
    std::string csr = make_test_key().csr_pem;
    const std::string header = "-----BEGIN CERTIFICATE REQUEST-----\n";
    csr.insert(
        header.size(),
        "Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00000000000000000000000000000000\n\n");
    EXPECT_EQ(CertificateAuthority::check_csr(csr).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace yuzu::pki
