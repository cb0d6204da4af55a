// First-start creation of the `admin` account.
//
// Runs only while auth.db has no users. The password comes from, in order:
//   1. password_file (--bootstrap-admin-password-file): the whole file, with
//      trailing newline characters removed; the file must exist and must not
//      be empty;
//   2. password_env_value (YUZU_BOOTSTRAP_ADMIN_PASSWORD), if non-empty;
//   3. otherwise 24 random base62 characters, written (with a newline) to
//      <data_dir>/initial-admin-password, created new with mode 0600.
// The password must satisfy the usual rules (validate_password). `admin` gets
// the global Administrator role.
//
// The outcome names the source and the file involved so the caller can log
// where the password is, once. The password itself is never returned or
// logged. If a generated file is left behind from an earlier attempt, the
// call fails (FailedPrecondition) rather than overwrite or trust it.
//
// Thread-safety: safe to call from any thread; meant to run once at start-up.
// If two processes race, one creates the account and the other reports
// kAlreadyBootstrapped.
#pragma once

#include <string>
#include <string_view>

#include "yuzu/common/status.hpp"

namespace yuzu::auth {

class UserStore;

inline constexpr std::string_view kBootstrapAdminUsername = "admin";
inline constexpr std::string_view kInitialAdminPasswordFile = "initial-admin-password";
inline constexpr size_t kGeneratedAdminPasswordLength = 24;

enum class BootstrapOutcomeKind {
    kAlreadyBootstrapped,  // users exist; nothing was done
    kPasswordFromFile,     // password_path is the file that was read
    kPasswordFromEnv,      // password_path is empty
    kPasswordGenerated,    // password_path is the file that was written
};
// "already_bootstrapped", "password_file", "password_env", "password_generated".
std::string_view bootstrap_outcome_name(BootstrapOutcomeKind kind);

struct BootstrapOutcome {
    BootstrapOutcomeKind kind = BootstrapOutcomeKind::kAlreadyBootstrapped;
    std::string username;       // "admin", or "" when kAlreadyBootstrapped
    std::string password_path;  // see BootstrapOutcomeKind
};

// InvalidArgument (empty data_dir, unreadable/empty/oversize password file,
// password breaking the rules), FailedPrecondition (a stale generated file),
// Internal (the file could not be written), or the store's error.
Result<BootstrapOutcome> bootstrap_admin(UserStore& users, const std::string& data_dir,
                                         const std::string& password_file,
                                         const std::string& password_env_value);

}  // namespace yuzu::auth
