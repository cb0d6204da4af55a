#include "yuzu/auth/bootstrap_admin.hpp"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "yuzu/auth/random.hpp"
#include "yuzu/auth/roles.hpp"
#include "yuzu/auth/user_store.hpp"

namespace yuzu::auth {
namespace {

// Wipes a password buffer when it goes out of scope.
class Secret {
  public:
    Secret() = default;
    explicit Secret(std::string value) : value_(std::move(value)) {}
    Secret(const Secret&) = delete;
    Secret& operator=(const Secret&) = delete;
    ~Secret() {
        if (!value_.empty()) OPENSSL_cleanse(value_.data(), value_.size());
    }
    std::string& value() { return value_; }

  private:
    std::string value_;
};

std::string errno_text(int err) {
    return std::strerror(err);
}

Status read_password_file(const std::string& path, std::string& out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return Status::InvalidArgument("bootstrap admin password file '" + path +
                                       "' cannot be read: " + errno_text(errno));
    }
    // One byte more than any valid password plus a CRLF tells "too long" apart.
    constexpr size_t kReadLimit = kMaxPasswordLength + 3;
    out.assign(kReadLimit, '\0');
    in.read(out.data(), static_cast<std::streamsize>(kReadLimit));
    out.resize(static_cast<size_t>(in.gcount()));
    if (in.bad()) return Status::InvalidArgument("error reading '" + path + "'");
    if (out.size() == kReadLimit) {
        return Status::InvalidArgument("bootstrap admin password file '" + path +
                                       "' is longer than " + std::to_string(kMaxPasswordLength) +
                                       " bytes");
    }
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    if (out.empty()) {
        return Status::InvalidArgument("bootstrap admin password file '" + path + "' is empty");
    }
    return Status::Ok();
}

// Creates `path` (it must not exist) with mode 0600 and writes text to it.
Status write_new_private_file(const std::string& path, std::string_view text) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                          S_IRUSR | S_IWUSR);
    if (fd < 0) {
        const int err = errno;
        if (err == EEXIST) {
            return Status::FailedPrecondition(
                "'" + path +
                "' already exists from an earlier start, but auth.db has no users; delete the "
                "file (or pass --bootstrap-admin-password-file) and start again");
        }
        return Status::Internal("cannot create '" + path + "': " + errno_text(err));
    }
    Status result = Status::Ok();
    // Mode from open() is filtered by the umask; set it exactly.
    if (::fchmod(fd, S_IRUSR | S_IWUSR) != 0) {
        result = Status::Internal("cannot set mode 0600 on '" + path + "': " + errno_text(errno));
    }
    size_t written = 0;
    while (result.ok() && written < text.size()) {
        const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            result = Status::Internal("cannot write '" + path + "': " + errno_text(errno));
            break;
        }
        written += static_cast<size_t>(n);
    }
    if (result.ok() && ::fsync(fd) != 0) {
        result = Status::Internal("cannot sync '" + path + "': " + errno_text(errno));
    }
    if (::close(fd) != 0 && result.ok()) {
        result = Status::Internal("cannot close '" + path + "': " + errno_text(errno));
    }
    if (!result.ok()) ::unlink(path.c_str());
    return result;
}

}  // namespace

std::string_view bootstrap_outcome_name(BootstrapOutcomeKind kind) {
    switch (kind) {
        case BootstrapOutcomeKind::kAlreadyBootstrapped:
            return "already_bootstrapped";
        case BootstrapOutcomeKind::kPasswordFromFile:
            return "password_file";
        case BootstrapOutcomeKind::kPasswordFromEnv:
            return "password_env";
        case BootstrapOutcomeKind::kPasswordGenerated:
            return "password_generated";
    }
    return "unknown";
}

Result<BootstrapOutcome> bootstrap_admin(UserStore& users, const std::string& data_dir,
                                         const std::string& password_file,
                                         const std::string& password_env_value) {
    if (data_dir.empty()) return Status::InvalidArgument("bootstrap needs the data directory");
    auto any = users.has_users();
    if (!any.ok()) return any.status();
    if (*any) return BootstrapOutcome{};

    BootstrapOutcome outcome;
    outcome.username = std::string(kBootstrapAdminUsername);
    Secret password;
    if (!password_file.empty()) {
        YUZU_RETURN_IF_ERROR(read_password_file(password_file, password.value()));
        outcome.kind = BootstrapOutcomeKind::kPasswordFromFile;
        outcome.password_path = password_file;
    } else if (!password_env_value.empty()) {
        password.value() = password_env_value;
        outcome.kind = BootstrapOutcomeKind::kPasswordFromEnv;
    } else {
        auto generated = random_base62(kGeneratedAdminPasswordLength);
        if (!generated.ok()) return generated.status();
        password.value() = std::move(*generated);
        outcome.kind = BootstrapOutcomeKind::kPasswordGenerated;
        outcome.password_path =
            (std::filesystem::path(data_dir) / kInitialAdminPasswordFile).string();
    }
    YUZU_RETURN_IF_ERROR(validate_password(password.value()));

    // The file goes first: an account whose generated password was never
    // written down would be unusable.
    if (outcome.kind == BootstrapOutcomeKind::kPasswordGenerated) {
        Secret line(password.value() + "\n");
        YUZU_RETURN_IF_ERROR(write_new_private_file(outcome.password_path, line.value()));
    }
    Status created =
        users.create_user(outcome.username, password.value(), {std::string(kRoleAdministrator)});
    if (created.ok()) return outcome;
    if (outcome.kind == BootstrapOutcomeKind::kPasswordGenerated) {
        ::unlink(outcome.password_path.c_str());
    }
    if (created.code() == StatusCode::kAlreadyExists) return BootstrapOutcome{};  // lost a race
    return created;
}

}  // namespace yuzu::auth
