// file.exists and file.hash: metadata and SHA-256 of one absolute path.
#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

#include "plugins/builtin_plugins.hpp"
#include "plugins/outcome.hpp"
#include "plugins/params.hpp"

namespace yuzu::agent::plugins {
namespace {

constexpr int64_t kDefaultMaxHashBytes = int64_t{1} << 30;  // 1 GiB
constexpr int64_t kMaxHashBytesLimit = int64_t{1} << 40;    // 1 TiB
constexpr size_t kHashChunkBytes = 256 * 1024;

Result<std::string> path_param(const Params& params) {
    auto path = params.required_text("path", kMaxPathChars);
    if (!path.ok()) return path.status();
    if (auto s = check_absolute_path("path", *path); !s.ok()) return s;
    return std::move(*path);
}

std::string type_name(mode_t mode) {
    if (S_ISREG(mode)) return "file";
    if (S_ISDIR(mode)) return "directory";
    if (S_ISLNK(mode)) return "symlink";
    return "other";
}

PluginOutcome file_exists(const std::string& params_json) {
    auto params = Params::parse(params_json, {"path"});
    if (!params.ok()) return failure_from(params.status());
    auto path = path_param(*params);
    if (!path.ok()) return failure_from(path.status());

    struct stat st {};
    if (::lstat(path->c_str(), &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR) {
            return success(
                {{"path", *path}, {"exists", false}, {"type", nullptr}, {"size_bytes", nullptr}});
        }
        return failure("cannot check " + *path + ": " + std::strerror(errno));
    }
    return success({{"path", *path},
                    {"exists", true},
                    {"type", type_name(st.st_mode)},
                    {"size_bytes", static_cast<uint64_t>(st.st_size)}});
}

class Fd {
  public:
    explicit Fd(int fd) : fd_(fd) {}
    ~Fd() {
        if (fd_ >= 0) ::close(fd_);
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return fd_; }

  private:
    int fd_;
};

struct DigestDeleter {
    void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

std::string to_hex(const unsigned char* bytes, unsigned int size) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string hex;
    hex.reserve(size * 2);
    for (unsigned int i = 0; i < size; ++i) {
        hex.push_back(kDigits[bytes[i] >> 4]);
        hex.push_back(kDigits[bytes[i] & 0xf]);
    }
    return hex;
}

PluginOutcome file_hash(const std::string& params_json, const PluginLimits& limits) {
    auto params = Params::parse(params_json, {"path", "max_size_bytes"});
    if (!params.ok()) return failure_from(params.status());
    auto path = path_param(*params);
    if (!path.ok()) return failure_from(path.status());
    auto max_size = params->integer("max_size_bytes", 1, kMaxHashBytesLimit);
    if (!max_size.ok()) return failure_from(max_size.status());
    const auto max_bytes = static_cast<uint64_t>(max_size->value_or(kDefaultMaxHashBytes));
    const Deadline deadline(limits.timeout);

    // O_NOFOLLOW: a symlink is not a regular file. O_NONBLOCK: opening a FIFO
    // must not hang; fstat then refuses it.
    Fd fd(::open(path->c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY));
    if (fd.get() < 0) {
        if (errno == ELOOP) return failure(*path + " is not a regular file (symlink)");
        if (errno == ENOENT || errno == ENOTDIR) return failure(*path + " does not exist");
        return failure("cannot open " + *path + ": " + std::strerror(errno));
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return failure("cannot stat " + *path);
    if (!S_ISREG(st.st_mode)) {
        return failure(*path + " is not a regular file (" + type_name(st.st_mode) + ")");
    }
    if (static_cast<uint64_t>(st.st_size) > max_bytes) {
        return failure(*path + " is " + std::to_string(st.st_size) +
                       " bytes, over max_size_bytes " + std::to_string(max_bytes));
    }

    std::unique_ptr<EVP_MD_CTX, DigestDeleter> ctx(EVP_MD_CTX_new());
    if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) {
        return failure("cannot initialise SHA-256");
    }
    std::unique_ptr<unsigned char[]> buf(new unsigned char[kHashChunkBytes]);
    uint64_t total = 0;
    for (;;) {
        if (deadline.passed()) return timed_out("timed out hashing " + *path);
        const ssize_t n = ::read(fd.get(), buf.get(), kHashChunkBytes);
        if (n < 0) {
            if (errno == EINTR) continue;
            return failure("cannot read " + *path + ": " + std::strerror(errno));
        }
        if (n == 0) break;
        total += static_cast<uint64_t>(n);
        if (total > max_bytes) {
            return failure(*path + " grew past max_size_bytes " + std::to_string(max_bytes) +
                           " while hashing");
        }
        if (EVP_DigestUpdate(ctx.get(), buf.get(), static_cast<size_t>(n)) != 1) {
            return failure("SHA-256 update failed");
        }
    }
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int digest_size = 0;
    if (EVP_DigestFinal_ex(ctx.get(), digest.data(), &digest_size) != 1) {
        return failure("SHA-256 finalisation failed");
    }
    return success(
        {{"path", *path}, {"sha256", to_hex(digest.data(), digest_size)}, {"size_bytes", total}});
}

}  // namespace

void register_file_plugins(PluginRegistry& registry, const HostPaths&) {
    registry.add(
        PluginInfo{"file", "exists",
                   "Whether a path exists, its type and size (symlinks not followed)", false},
        [](const std::string& params_json, const PluginLimits&) {
            return file_exists(params_json);
        });
    registry.add(PluginInfo{"file", "hash", "SHA-256 of a regular file", false},
                 [](const std::string& params_json, const PluginLimits& limits) {
                     return file_hash(params_json, limits);
                 });
}

}  // namespace yuzu::agent::plugins
