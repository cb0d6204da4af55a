#include "yuzu/auth/secret_box.hpp"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

#include "yuzu/auth/random.hpp"
#include "yuzu/auth/token_codec.hpp"

namespace yuzu::auth {
namespace {

constexpr std::string_view kVersionPrefix = "v1:";
constexpr size_t kNonceBytes = 12;
constexpr size_t kTagBytes = 16;

struct CipherCtxDeleter {
    void operator()(EVP_CIPHER_CTX* ctx) const { EVP_CIPHER_CTX_free(ctx); }
};
using CipherCtx = std::unique_ptr<EVP_CIPHER_CTX, CipherCtxDeleter>;

// Closes a file descriptor on every return path.
class Fd {
  public:
    explicit Fd(int fd) : fd_(fd) {}
    ~Fd() {
        if (fd_ >= 0) ::close(fd_);
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return fd_; }
    // Closes now, reporting the error close() may carry for written data.
    int close() {
        const int rc = ::close(fd_);
        fd_ = -1;
        return rc;
    }

  private:
    int fd_;
};

const unsigned char* bytes_of(std::string_view s) {
    static const unsigned char kEmpty = 0;
    return s.empty() ? &kEmpty : reinterpret_cast<const unsigned char*>(s.data());
}

std::string quoted(const std::string& path) {
    return "'" + path + "'";
}

std::string errno_text(int err) {
    return std::strerror(err);
}

std::string mode_text(mode_t mode) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
    return buf;
}

Status decrypt_failure(std::string_view why) {
    return Status::InvalidArgument("secret could not be decrypted: " + std::string(why));
}

// Writes all of data, retrying on EINTR and short writes.
bool write_all(int fd, const uint8_t* data, size_t n) {
    while (n > 0) {
        const ssize_t w = ::write(fd, data, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        data += w;
        n -= static_cast<size_t>(w);
    }
    return true;
}

// Reads exactly n bytes; false on error or early end of file.
bool read_exact(int fd, uint8_t* data, size_t n) {
    while (n > 0) {
        const ssize_t r = ::read(fd, data, n);
        if (r < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        if (r == 0) {
            errno = EIO;  // the file shrank under us
            return false;
        }
        data += r;
        n -= static_cast<size_t>(r);
    }
    return true;
}

// Makes the new directory entry durable too; best effort, since the key file
// itself is already synced and some filesystems refuse directory fsync.
void fsync_parent_dir(const std::string& path) {
    std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (parent.empty()) parent = ".";
    const int dir = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) return;
    (void)::fsync(dir);
    ::close(dir);
}

// Creates path with fresh key bytes. Returns AlreadyExists if another process
// created it first (the caller then loads that one).
Result<SecretBox> create_key_file(const std::string& path) {
    const int raw_fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (raw_fd < 0) {
        const int err = errno;
        if (err == EEXIST) return Status::AlreadyExists("key file " + quoted(path) + " exists");
        return Status::FailedPrecondition("cannot create key file " + quoted(path) + ": " +
                                          errno_text(err) +
                                          "; check that its directory exists and is writable");
    }
    Fd fd(raw_fd);
    auto fail = [&](const std::string& what, int err) -> Status {
        ::unlink(path.c_str());  // never leave a short key file behind
        return Status::Internal("cannot write key file " + quoted(path) + ": " + what + ": " +
                                errno_text(err));
    };
    // The umask may have narrowed 0600; the server must still be able to read
    // the file back, so set the mode explicitly.
    if (::fchmod(fd.get(), 0600) != 0) return fail("fchmod", errno);

    auto key = random_bytes(kSecretBoxKeyBytes);
    if (!key.ok()) {
        ::unlink(path.c_str());
        return key.status();
    }
    const bool written = write_all(fd.get(), key->data(), key->size());
    const int write_err = errno;
    if (!written) {
        OPENSSL_cleanse(key->data(), key->size());
        return fail("write", write_err);
    }
    if (::fsync(fd.get()) != 0 || fd.close() != 0) {
        const int err = errno;
        OPENSSL_cleanse(key->data(), key->size());
        return fail("fsync/close", err);
    }
    fsync_parent_dir(path);
    auto box = SecretBox::from_key(
        std::span<const uint8_t, kSecretBoxKeyBytes>(key->data(), kSecretBoxKeyBytes));
    OPENSSL_cleanse(key->data(), key->size());
    return box;
}

Result<SecretBox> load_key_file(const std::string& path, int raw_fd) {
    Fd fd(raw_fd);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) {
        return Status::Internal("cannot stat key file " + quoted(path) + ": " + errno_text(errno));
    }
    // fstat on the opened descriptor, so the checks apply to the bytes read.
    if (!S_ISREG(st.st_mode)) {
        return Status::FailedPrecondition("key file " + quoted(path) + " is not a regular file");
    }
    if ((st.st_mode & 077) != 0) {
        return Status::FailedPrecondition(
            "key file " + quoted(path) + " has mode " + mode_text(st.st_mode) +
            ", which lets group or others access it; run 'chmod 600 " + path +
            "' so only the server's user can read it");
    }
    if (st.st_size != static_cast<off_t>(kSecretBoxKeyBytes)) {
        return Status::FailedPrecondition(
            "key file " + quoted(path) + " is " + std::to_string(st.st_size) +
            " bytes; a key file must be exactly " + std::to_string(kSecretBoxKeyBytes) +
            " bytes. Restore the original from backup (secrets sealed with it cannot be read "
            "without it), or, if it never held a key, delete it to have a new one created");
    }
    std::array<uint8_t, kSecretBoxKeyBytes> key{};
    if (!read_exact(fd.get(), key.data(), key.size())) {
        const int err = errno;
        OPENSSL_cleanse(key.data(), key.size());
        return Status::Internal("cannot read key file " + quoted(path) + ": " + errno_text(err));
    }
    auto box = SecretBox::from_key(key);
    OPENSSL_cleanse(key.data(), key.size());
    if (!box.ok()) {
        return Status::FailedPrecondition("key file " + quoted(path) +
                                          " holds no usable key: " + box.status().message());
    }
    return box;
}

}  // namespace

Result<SecretBox> SecretBox::load_or_create_key_file(const std::string& path) {
    // Two attempts cover the race where another process creates the file
    // between our failed open and our O_EXCL create.
    for (int attempt = 0; attempt < 2; ++attempt) {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd >= 0) return load_key_file(path, fd);
        if (errno != ENOENT) {
            return Status::FailedPrecondition("cannot open key file " + quoted(path) + ": " +
                                              errno_text(errno));
        }
        auto created = create_key_file(path);
        if (created.ok() || created.status().code() != StatusCode::kAlreadyExists) {
            return created;
        }
    }
    return Status::FailedPrecondition("key file " + quoted(path) +
                                      " keeps appearing and disappearing; is another process "
                                      "managing it?");
}

Result<SecretBox> SecretBox::from_key(std::span<const uint8_t, kSecretBoxKeyBytes> key) {
    uint8_t any = 0;
    for (uint8_t b : key) any |= b;
    if (any == 0) {
        return Status::InvalidArgument("secret box key is all zeros");
    }
    return SecretBox(key);
}

SecretBox::SecretBox(std::span<const uint8_t, kSecretBoxKeyBytes> key) {
    std::memcpy(key_.data(), key.data(), key_.size());
}

SecretBox::SecretBox(SecretBox&& other) noexcept : key_(other.key_) {
    OPENSSL_cleanse(other.key_.data(), other.key_.size());
}

SecretBox& SecretBox::operator=(SecretBox&& other) noexcept {
    if (this != &other) {
        key_ = other.key_;
        OPENSSL_cleanse(other.key_.data(), other.key_.size());
    }
    return *this;
}

SecretBox::~SecretBox() {
    OPENSSL_cleanse(key_.data(), key_.size());
}

Result<std::string> SecretBox::seal(std::string_view plaintext,
                                    std::string_view associated_data) const {
    if (plaintext.size() > kSecretBoxMaxInputBytes ||
        associated_data.size() > kSecretBoxMaxInputBytes) {
        return Status::InvalidArgument("secret or associated data is longer than " +
                                       std::to_string(kSecretBoxMaxInputBytes) + " bytes");
    }
    auto nonce = random_bytes(kNonceBytes);
    if (!nonce.ok()) return nonce.status();

    // nonce || ciphertext || tag, built in place.
    std::string box(kNonceBytes + plaintext.size() + kTagBytes, '\0');
    auto* out = reinterpret_cast<unsigned char*>(box.data());
    std::memcpy(out, nonce->data(), kNonceBytes);

    CipherCtx ctx(EVP_CIPHER_CTX_new());
    int len = 0;
    int final_len = 0;
    const bool ok =
        ctx != nullptr &&
        EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr) == 1 &&
        EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, static_cast<int>(kNonceBytes),
                            nullptr) == 1 &&
        EVP_EncryptInit_ex(ctx.get(), nullptr, nullptr, key_.data(), out) == 1 &&
        EVP_EncryptUpdate(ctx.get(), nullptr, &len, bytes_of(associated_data),
                          static_cast<int>(associated_data.size())) == 1 &&
        EVP_EncryptUpdate(ctx.get(), out + kNonceBytes, &len, bytes_of(plaintext),
                          static_cast<int>(plaintext.size())) == 1 &&
        static_cast<size_t>(len) == plaintext.size() &&
        EVP_EncryptFinal_ex(ctx.get(), out + kNonceBytes + len, &final_len) == 1 &&
        final_len == 0 &&
        EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, static_cast<int>(kTagBytes),
                            out + kNonceBytes + plaintext.size()) == 1;
    if (!ok) {
        OPENSSL_cleanse(box.data(), box.size());
        return Status::Internal("AES-256-GCM encryption failed inside OpenSSL");
    }
    std::string sealed(kVersionPrefix);
    sealed += base64_encode(box);
    return sealed;
}

Result<std::string> SecretBox::open(std::string_view sealed,
                                    std::string_view associated_data) const {
    if (sealed.substr(0, kVersionPrefix.size()) != kVersionPrefix) {
        return decrypt_failure("not a v1 sealed value");
    }
    if (associated_data.size() > kSecretBoxMaxInputBytes) {
        return decrypt_failure("associated data is too long");
    }
    auto box = base64_decode(sealed.substr(kVersionPrefix.size()));
    if (!box.ok()) return decrypt_failure("sealed value is not valid base64");
    if (box->size() < kNonceBytes + kTagBytes) {
        return decrypt_failure("sealed value is too short");
    }
    const size_t ct_len = box->size() - kNonceBytes - kTagBytes;
    if (ct_len > kSecretBoxMaxInputBytes) return decrypt_failure("sealed value is too long");

    auto* in = reinterpret_cast<unsigned char*>(box->data());
    std::string plaintext(ct_len, '\0');
    auto* out = reinterpret_cast<unsigned char*>(plaintext.data());

    CipherCtx ctx(EVP_CIPHER_CTX_new());
    int len = 0;
    int final_len = 0;
    const bool setup =
        ctx != nullptr &&
        EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr) == 1 &&
        EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, static_cast<int>(kNonceBytes),
                            nullptr) == 1 &&
        EVP_DecryptInit_ex(ctx.get(), nullptr, nullptr, key_.data(), in) == 1 &&
        EVP_DecryptUpdate(ctx.get(), nullptr, &len, bytes_of(associated_data),
                          static_cast<int>(associated_data.size())) == 1 &&
        EVP_DecryptUpdate(ctx.get(), out, &len, in + kNonceBytes, static_cast<int>(ct_len)) == 1 &&
        EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, static_cast<int>(kTagBytes),
                            in + kNonceBytes + ct_len) == 1;
    // The tag is checked in Final: only after it succeeds are the bytes real.
    const bool authentic = setup && EVP_DecryptFinal_ex(ctx.get(), out + ct_len, &final_len) == 1;
    if (!authentic) {
        OPENSSL_cleanse(plaintext.data(), plaintext.size());
        return decrypt_failure(
            "authentication failed (wrong key, wrong associated data, or the value was "
            "altered)");
    }
    return plaintext;
}

}  // namespace yuzu::auth
