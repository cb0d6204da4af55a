#include "yuzu/auth/user_store.hpp"

#include <algorithm>
#include <cassert>
#include <map>
#include <optional>

#include "auth/role_queries.hpp"
#include "yuzu/auth/roles.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::auth {
namespace {

constexpr std::string_view kBadCredentialsMessage = "invalid username or password";
constexpr size_t kMaxUsernameLength = 64;

std::string locked_message(const std::string& username) {
    return "account locked: '" + username + "' had " + std::to_string(kMaxConsecutiveFailedLogins) +
           " failed logins in a row; an administrator must unlock it";
}

// "$scrypt$ln=<log_n>,r=8,p=1$": the parameter part of the encoded form
// documented in password_hash.hpp.
std::string cost_prefix(int log_n) {
    return "$scrypt$ln=" + std::to_string(log_n) + ",r=" + std::to_string(kScryptDefaultR) +
           ",p=" + std::to_string(kScryptDefaultP) + "$";
}

// A well-formed hash no password is known to match (a zero salt and a zero
// key), verified for unknown users so their attempt costs one scrypt run
// like anybody else's. Needs no entropy, so it cannot fail.
std::string make_dummy_hash(int log_n) {
    return cost_prefix(log_n) + std::string(22, 'A') + "$" + std::string(43, 'A');
}

size_t count_code_points(std::string_view text) {
    return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
}

Status validate_roles(const std::vector<std::string>& roles) {
    for (const std::string& role : roles) {
        if (!is_builtin_role(role)) {
            return Status::InvalidArgument("unknown role '" + role +
                                           "'; built-in roles are Administrator, "
                                           "ITServiceOwner, Operator, Viewer");
        }
    }
    return Status::Ok();
}

constexpr std::string_view kUserColumns =
    "username, created_at_ms, locked, locked_at_ms, failed_logins";

User user_from_row(const store::Statement& stmt) {
    User user;
    user.username = stmt.column_text(0);
    user.created_at_ms = stmt.column_int64(1);
    user.locked = stmt.column_int64(2) != 0;
    user.locked_at_ms = stmt.column_int64(3);
    user.failed_logins = static_cast<int>(stmt.column_int64(4));
    return user;
}

Result<User> load_user(store::Conn& conn, const std::string& username) {
    auto stmt =
        conn.prepare("SELECT " + std::string(kUserColumns) + " FROM users WHERE username = ?");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, username);
    auto row = stmt->step();
    if (!row.ok()) return row.status();
    if (!*row) return Status::NotFound("user '" + username + "' does not exist");
    User user = user_from_row(*stmt);
    stmt->reset();
    auto roles = query_global_roles(conn, username);
    if (!roles.ok()) return roles.status();
    user.global_roles = std::move(*roles);
    return user;
}

void set_outcome(AuthOutcome* out, AuthOutcome value) {
    if (out != nullptr) *out = value;
}

}  // namespace

std::string_view auth_outcome_name(AuthOutcome outcome) {
    switch (outcome) {
        case AuthOutcome::kOk:
            return "ok";
        case AuthOutcome::kBadCredentials:
            return "bad_credentials";
        case AuthOutcome::kLocked:
            return "locked";
        case AuthOutcome::kJustLocked:
            return "just_locked";
        case AuthOutcome::kError:
            return "error";
    }
    return "unknown";
}

Status validate_username(std::string_view username) {
    const auto rule = [&] {
        return Status::InvalidArgument(
            "username must be 2 to 64 characters: a lowercase letter, then lowercase letters, "
            "digits, '.', '_' or '-'");
    };
    if (username.size() < 2 || username.size() > kMaxUsernameLength) return rule();
    if (username[0] < 'a' || username[0] > 'z') return rule();
    for (char c : username.substr(1)) {
        const bool ok =
            (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        if (!ok) return rule();
    }
    return Status::Ok();
}

Status validate_password(std::string_view password) {
    if (password.size() > kMaxPasswordLength) {
        return Status::InvalidArgument("password must be at most " +
                                       std::to_string(kMaxPasswordLength) + " bytes");
    }
    if (count_code_points(password) < kMinPasswordChars) {
        return Status::InvalidArgument("password must be at least " +
                                       std::to_string(kMinPasswordChars) + " characters");
    }
    return Status::Ok();
}

UserStore::UserStore(store::Database& db, const Clock& clock, UserStoreOptions options)
    : db_(db),
      clock_(clock),
      options_(options),
      dummy_hash_(make_dummy_hash(options.password_log_n)) {
    assert(options_.password_log_n >= kScryptMinLogN && options_.password_log_n <= kScryptMaxLogN);
}

Result<std::string> UserStore::hash(std::string_view password) const {
    if (options_.password_log_n == kScryptDefaultLogN) return hash_password(password);
    return hash_password_with_cost(password, options_.password_log_n);
}

bool UserStore::hash_is_current(std::string_view encoded) const {
    if (options_.password_log_n == kScryptDefaultLogN) return !needs_rehash(encoded);
    // A non-default cost (tests, tuning): current iff made with that cost.
    return encoded.starts_with(cost_prefix(options_.password_log_n));
}

Status UserStore::create_user(const std::string& username, std::string_view password,
                              const std::vector<std::string>& roles) {
    YUZU_RETURN_IF_ERROR(validate_username(username));
    YUZU_RETURN_IF_ERROR(validate_password(password));
    YUZU_RETURN_IF_ERROR(validate_roles(roles));
    auto encoded = hash(password);  // slow: before taking the lock
    if (!encoded.ok()) return encoded.status();

    const int64_t now = clock_.now_ms();
    auto conn = db_.lock();
    auto tx = conn.transaction();
    YUZU_RETURN_IF_ERROR(tx.status());
    auto exists = conn.prepare("SELECT 1 FROM users WHERE username = ?");
    if (!exists.ok()) return exists.status();
    auto found = exists->bind(1, username).step();
    if (!found.ok()) return found.status();
    if (*found) return Status::AlreadyExists("user '" + username + "' already exists");
    exists->reset();

    auto insert = conn.prepare(
        "INSERT INTO users(username, password_hash, created_at_ms, password_changed_at_ms) "
        "VALUES(?, ?, ?, ?)");
    if (!insert.ok()) return insert.status();
    YUZU_RETURN_IF_ERROR(
        insert->bind(1, username).bind(2, *encoded).bind(3, now).bind(4, now).run());
    auto grant = conn.prepare(
        "INSERT OR IGNORE INTO user_roles(username, role_name, granted_at_ms) VALUES(?, ?, ?)");
    if (!grant.ok()) return grant.status();
    for (const std::string& role : roles) {
        YUZU_RETURN_IF_ERROR(grant->bind(1, username).bind(2, role).bind(3, now).run());
    }
    return tx.commit();
}

Result<User> UserStore::authenticate(const std::string& username, std::string_view password,
                                     AuthOutcome* outcome) {
    set_outcome(outcome, AuthOutcome::kError);
    std::optional<std::string> stored_hash;
    bool locked = false;
    if (validate_username(username).ok()) {
        auto conn = db_.lock();
        auto stmt = conn.prepare("SELECT password_hash, locked FROM users WHERE username = ?");
        if (!stmt.ok()) return stmt.status();
        auto row = stmt->bind(1, username).step();
        if (!row.ok()) return row.status();
        if (*row) {
            stored_hash = stmt->column_text(0);
            locked = stmt->column_int64(1) != 0;
        }
    }

    if (!stored_hash) {
        // Same work as a wrong password, so timing does not reveal the name.
        (void)verify_password(password, dummy_hash_);
        set_outcome(outcome, AuthOutcome::kBadCredentials);
        return Status::Unauthenticated(std::string(kBadCredentialsMessage));
    }
    if (locked) {
        set_outcome(outcome, AuthOutcome::kLocked);
        return Status::PermissionDenied(locked_message(username));
    }
    if (!verify_password(password, *stored_hash)) {
        auto failure = record_failure(username);
        if (!failure.ok()) return failure.status();
        set_outcome(outcome, *failure);
        if (*failure != AuthOutcome::kBadCredentials) {
            return Status::PermissionDenied(locked_message(username));
        }
        return Status::Unauthenticated(std::string(kBadCredentialsMessage));
    }

    std::string new_hash = *stored_hash;
    if (!hash_is_current(*stored_hash)) {
        // A failed rehash only postpones the upgrade to the next login.
        auto rehashed = hash(password);
        if (rehashed.ok()) new_hash = std::move(*rehashed);
    }
    return record_success(username, *stored_hash, new_hash, outcome);
}

Result<AuthOutcome> UserStore::record_failure(const std::string& username) {
    auto conn = db_.lock();
    // One statement, so concurrent failures are all counted. Only an unlocked
    // row is touched: a row locked meanwhile stays as its locker left it.
    auto stmt = conn.prepare(
        "UPDATE users SET failed_logins = failed_logins + 1,"
        " locked = (failed_logins + 1 >= ?1),"
        " locked_at_ms = CASE WHEN failed_logins + 1 >= ?1 THEN ?2 ELSE locked_at_ms END"
        " WHERE username = ?3 AND locked = 0 RETURNING locked");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, kMaxConsecutiveFailedLogins).bind(2, clock_.now_ms()).bind(3, username);
    auto row = stmt->step();
    if (!row.ok()) return row.status();
    if (!*row) return AuthOutcome::kLocked;  // locked by a concurrent attempt
    const bool now_locked = stmt->column_int64(0) != 0;
    stmt->reset();
    return now_locked ? AuthOutcome::kJustLocked : AuthOutcome::kBadCredentials;
}

Result<User> UserStore::record_success(const std::string& username, const std::string& old_hash,
                                       const std::string& new_hash, AuthOutcome* outcome) {
    auto conn = db_.lock();
    auto tx = conn.transaction();
    YUZU_RETURN_IF_ERROR(tx.status());
    // The hash is replaced only if nobody changed the password meanwhile.
    auto stmt = conn.prepare(
        "UPDATE users SET failed_logins = 0,"
        " password_hash = CASE WHEN password_hash = ?1 THEN ?2 ELSE password_hash END"
        " WHERE username = ?3 AND locked = 0");
    if (!stmt.ok()) return stmt.status();
    YUZU_RETURN_IF_ERROR(stmt->bind(1, old_hash).bind(2, new_hash).bind(3, username).run());
    if (conn.changes() == 0) {
        set_outcome(outcome, AuthOutcome::kLocked);  // locked by a concurrent attempt
        return Status::PermissionDenied(locked_message(username));
    }
    auto user = load_user(conn, username);
    if (!user.ok()) return user.status();
    YUZU_RETURN_IF_ERROR(tx.commit());
    set_outcome(outcome, AuthOutcome::kOk);
    return user;
}

Status UserStore::unlock(const std::string& username) {
    auto conn = db_.lock();
    auto stmt = conn.prepare(
        "UPDATE users SET locked = 0, locked_at_ms = 0, failed_logins = 0 WHERE username = ?");
    if (!stmt.ok()) return stmt.status();
    YUZU_RETURN_IF_ERROR(stmt->bind(1, username).run());
    if (conn.changes() == 0) return Status::NotFound("user '" + username + "' does not exist");
    return Status::Ok();
}

Status UserStore::set_password(const std::string& username, std::string_view new_password) {
    YUZU_RETURN_IF_ERROR(validate_password(new_password));
    auto encoded = hash(new_password);
    if (!encoded.ok()) return encoded.status();
    auto conn = db_.lock();
    auto stmt = conn.prepare(
        "UPDATE users SET password_hash = ?, password_changed_at_ms = ? WHERE username = ?");
    if (!stmt.ok()) return stmt.status();
    YUZU_RETURN_IF_ERROR(stmt->bind(1, *encoded).bind(2, clock_.now_ms()).bind(3, username).run());
    if (conn.changes() == 0) return Status::NotFound("user '" + username + "' does not exist");
    return Status::Ok();
}

Result<User> UserStore::get_user(const std::string& username) const {
    auto conn = db_.lock();
    return load_user(conn, username);
}

Result<std::vector<User>> UserStore::list_users() const {
    auto conn = db_.lock();
    std::map<std::string, std::vector<std::string>> roles;
    {
        auto stmt = conn.prepare("SELECT username, role_name FROM user_roles ORDER BY role_name");
        if (!stmt.ok()) return stmt.status();
        while (true) {
            auto row = stmt->step();
            if (!row.ok()) return row.status();
            if (!*row) break;
            roles[stmt->column_text(0)].push_back(stmt->column_text(1));
        }
    }
    auto stmt =
        conn.prepare("SELECT " + std::string(kUserColumns) + " FROM users ORDER BY username");
    if (!stmt.ok()) return stmt.status();
    std::vector<User> users;
    while (true) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        User user = user_from_row(*stmt);
        if (auto it = roles.find(user.username); it != roles.end()) {
            user.global_roles = std::move(it->second);
        }
        users.push_back(std::move(user));
    }
    return users;
}

Result<bool> UserStore::has_users() const {
    auto conn = db_.lock();
    auto stmt = conn.prepare("SELECT EXISTS(SELECT 1 FROM users)");
    if (!stmt.ok()) return stmt.status();
    auto row = stmt->step();
    if (!row.ok()) return row.status();
    assert(*row && "SELECT EXISTS answers one row");
    const bool any = stmt->column_int64(0) != 0;
    stmt->reset();
    return any;
}

}  // namespace yuzu::auth
