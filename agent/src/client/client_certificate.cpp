#include "client/client_certificate.hpp"

#include <fcntl.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstring>
#include <ctime>

#include "client/atomic_file.hpp"

namespace yuzu::agent {
namespace {

// No password is ever supplied: an "encrypted" PEM fails to read instead of
// OpenSSL prompting on the terminal.
int no_pem_password(char*, int, int, void*) {
    return 0;
}

namespace fs = std::filesystem;

constexpr size_t kMaxPemFileBytes = 256 * 1024;
constexpr size_t kMaxCommonNameBytes = 64;  // RFC 5280 ub-common-name

std::string errno_text() {
    return std::strerror(errno);
}

// The oldest queued OpenSSL error, and an empty queue for the next caller.
std::string openssl_error() {
    const unsigned long e = ERR_get_error();
    ERR_clear_error();
    if (e == 0) return "unknown OpenSSL error";
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    return buf;
}

Status write_all(int fd, std::string_view data, const fs::path& path) {
    size_t written = 0;
    while (written < data.size()) {
        const ssize_t n = ::write(fd, data.data() + written, data.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            return Status::Unavailable("cannot write " + path.string() + ": " + errno_text());
        }
        written += static_cast<size_t>(n);
    }
    return Status::Ok();
}

// The whole file, at most kMaxPemFileBytes. The caller wipes key material.
Result<std::string> read_small_file(const fs::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        if (errno == ENOENT) return Status::NotFound(path.string() + " does not exist");
        return Status::Unavailable("cannot open " + path.string() + ": " + errno_text());
    }
    std::string text;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const std::string why = errno_text();
            ::close(fd);
            OPENSSL_cleanse(buf, sizeof buf);
            OPENSSL_cleanse(text.data(), text.size());
            return Status::Unavailable("cannot read " + path.string() + ": " + why);
        }
        if (n == 0) break;
        if (text.size() + static_cast<size_t>(n) > kMaxPemFileBytes) {
            ::close(fd);
            OPENSSL_cleanse(buf, sizeof buf);
            OPENSSL_cleanse(text.data(), text.size());
            return Status::InvalidArgument(path.string() + " is larger than a PEM file can be");
        }
        text.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    OPENSSL_cleanse(buf, sizeof buf);
    return text;
}

// The memory BIO's contents as a string.
std::string bio_text(BIO* bio) {
    char* data = nullptr;
    const long len = BIO_get_mem_data(bio, &data);
    return len > 0 ? std::string(data, static_cast<size_t>(len)) : std::string();
}

std::string iso_utc(std::time_t t) {
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

}  // namespace

Result<PkeyPtr> create_key_file(const fs::path& path) {
    PkeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
    if (!key) return Status::Internal("cannot generate an EC P-256 key: " + openssl_error());
    // Secure memory: the PEM text is wiped when the BIO is freed.
    BioPtr pem(BIO_new(BIO_s_secmem()));
    if (!pem || PEM_write_bio_PKCS8PrivateKey(pem.get(), key.get(), nullptr, nullptr, 0, nullptr,
                                              nullptr) != 1) {
        return Status::Internal("cannot encode the client key: " + openssl_error());
    }
    char* data = nullptr;
    const long len = BIO_get_mem_data(pem.get(), &data);
    if (len <= 0) return Status::Internal("cannot encode the client key: empty PEM");

    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        if (errno == EEXIST) return Status::AlreadyExists(path.string() + " already exists");
        return Status::Unavailable("cannot create " + path.string() + ": " + errno_text());
    }
    Status status = write_all(fd, std::string_view(data, static_cast<size_t>(len)), path);
    // A umask may have taken more than group and other away.
    if (status.ok() && ::fchmod(fd, 0600) != 0) {
        status = Status::Unavailable("cannot chmod " + path.string() + ": " + errno_text());
    }
    if (status.ok() && ::fsync(fd) != 0) {
        status = Status::Unavailable("cannot fsync " + path.string() + ": " + errno_text());
    }
    ::close(fd);
    if (!status.ok()) {
        ::unlink(path.c_str());
        return status;
    }
    return key;
}

Result<PkeyPtr> load_key_file(const fs::path& path) {
    auto text = read_small_file(path);
    if (!text.ok()) return text.status();
    BioPtr bio(BIO_new_mem_buf(text->data(), static_cast<int>(text->size())));
    PkeyPtr key(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, no_pem_password, nullptr)
                    : nullptr);
    OPENSSL_cleanse(text->data(), text->size());
    if (!key) {
        ERR_clear_error();  // its text may quote the file
        return Status::InvalidArgument(path.string() + " holds no PEM private key");
    }
    return key;
}

Result<std::string> make_csr(EVP_PKEY* key, const std::string& common_name) {
    X509ReqPtr req(X509_REQ_new());
    if (!req) return Status::Internal("cannot allocate a CSR: " + openssl_error());
    const std::string cn = common_name.substr(0, kMaxCommonNameBytes);
    X509_NAME* subject = X509_REQ_get_subject_name(req.get());
    if (X509_REQ_set_version(req.get(), X509_REQ_VERSION_1) != 1 ||
        X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_UTF8,
                                   reinterpret_cast<const unsigned char*>(cn.data()),
                                   static_cast<int>(cn.size()), -1, 0) != 1 ||
        X509_REQ_set_pubkey(req.get(), key) != 1 ||
        X509_REQ_sign(req.get(), key, EVP_sha256()) <= 0) {
        return Status::Internal("cannot build the CSR: " + openssl_error());
    }
    BioPtr out(BIO_new(BIO_s_mem()));
    if (!out || PEM_write_bio_X509_REQ(out.get(), req.get()) != 1) {
        return Status::Internal("cannot encode the CSR: " + openssl_error());
    }
    return bio_text(out.get());
}

Result<std::vector<X509Ptr>> parse_certificates(std::string_view pem) {
    if (pem.size() > static_cast<size_t>(INT_MAX)) {
        return Status::InvalidArgument("certificate text is too large");
    }
    BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
    if (!bio) return Status::Internal("cannot allocate a BIO: " + openssl_error());
    std::vector<X509Ptr> certs;
    for (;;) {
        X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, no_pem_password, nullptr));
        if (cert) {
            certs.push_back(std::move(cert));
            continue;
        }
        const unsigned long e = ERR_peek_last_error();
        const bool at_end =
            ERR_GET_LIB(e) == ERR_LIB_PEM && ERR_GET_REASON(e) == PEM_R_NO_START_LINE;
        if (at_end && !certs.empty()) {
            ERR_clear_error();
            return certs;
        }
        const std::string why = at_end ? "no PEM certificate" : openssl_error();
        ERR_clear_error();
        return Status::InvalidArgument("malformed certificate: " + why);
    }
}

Result<std::vector<X509Ptr>> load_certificate_file(const fs::path& path) {
    auto text = read_small_file(path);
    if (!text.ok()) return text.status();
    auto certs = parse_certificates(*text);
    if (!certs.ok())
        return Status::InvalidArgument(path.string() + ": " + certs.status().message());
    return certs;
}

CertificateInfo describe_certificate(X509* cert) {
    CertificateInfo info;
    BIGNUM* serial = ASN1_INTEGER_to_BN(X509_get0_serialNumber(cert), nullptr);
    if (serial != nullptr) {
        if (char* hex = BN_bn2hex(serial); hex != nullptr) {
            info.serial_hex = hex;
            OPENSSL_free(hex);
        }
        BN_free(serial);
    }
    for (char& c : info.serial_hex)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::tm tm{};
    if (ASN1_TIME_to_tm(X509_get0_notAfter(cert), &tm) == 1) {
        info.not_after_s = static_cast<int64_t>(::timegm(&tm));
        info.not_after = iso_utc(static_cast<std::time_t>(info.not_after_s));
    }
    ERR_clear_error();
    return info;
}

bool key_matches(X509* cert, EVP_PKEY* key) {
    const bool match = X509_check_private_key(cert, key) == 1;
    ERR_clear_error();
    return match;
}

}  // namespace yuzu::agent
