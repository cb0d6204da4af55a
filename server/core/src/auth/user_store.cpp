#include "yuzu/auth/user_store.hpp"

#include <algorithm>
#include <cassert>
#include <iterator>
#include <limits>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "auth/management_group_sql.hpp"
#include "auth/role_queries.hpp"
#include "yuzu/auth/roles.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::auth {
namespace {

static_assert(kFirstLockoutMs > 0 && kFirstLockoutMs <= kMaxLockoutMs);

constexpr size_t kMaxUsernameLength = 64;

Status refused() {
    return Status::Unauthenticated(std::string(kLoginRefusedMessage));
}

// One more consecutive failure; saturates rather than overflowing.
int plus_one(int failures) {
    return failures < std::numeric_limits<int>::max() ? failures + 1 : failures;
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

// The legacy `locked` column is not read: being locked means locked_until_ms
// is still ahead (see kLockExpiryMigration).
constexpr std::string_view kUserColumns =
    "username, created_at_ms, locked_at_ms, locked_until_ms, failed_logins";

User user_from_row(const store::Statement& stmt, int64_t now_ms) {
    User user;
    user.username = stmt.column_text(0);
    user.created_at_ms = stmt.column_int64(1);
    user.locked_at_ms = stmt.column_int64(2);
    user.locked_until_ms = stmt.column_int64(3);
    user.locked = user.locked_until_ms > now_ms;
    user.failed_logins = static_cast<int>(stmt.column_int64(4));
    return user;
}

Result<User> load_user(store::Conn& conn, const std::string& username, int64_t now_ms) {
    auto stmt =
        conn.prepare("SELECT " + std::string(kUserColumns) + " FROM users WHERE username = ?");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, username);
    auto row = stmt->step();
    if (!row.ok()) return row.status();
    if (!*row) return Status::NotFound("user '" + username + "' does not exist");
    User user = user_from_row(*stmt, now_ms);
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

// Failure counts for usernames that have no account, so that guessing at a
// name that does not exist locks it exactly as it would lock a real one.
// Memory only, and bounded: the least recently tried name goes first.
struct UserStore::UnknownUsers {
    struct Entry {
        int failures = 0;
        int64_t locked_until_ms = 0;
        std::list<std::string>::iterator age;  // its place in by_age
    };
    std::mutex mu;
    // Guarded by mu:
    std::unordered_map<std::string, Entry> by_name;
    std::list<std::string> by_age;  // least recently tried first
};

int64_t lockout_duration_ms(int failures) {
    if (failures < kMaxConsecutiveFailedLogins) return 0;
    int64_t ms = kFirstLockoutMs;
    // Doubles at most until the cap, so a huge count cannot overflow.
    for (int i = kMaxConsecutiveFailedLogins; i < failures && ms < kMaxLockoutMs; ++i) ms *= 2;
    return std::min(ms, kMaxLockoutMs);
}

std::string_view auth_outcome_name(AuthOutcome outcome) {
    switch (outcome) {
        case AuthOutcome::kOk:
            return "ok";
        case AuthOutcome::kBadCredentials:
            return "bad_credentials";
        case AuthOutcome::kUnknownUser:
            return "unknown_user";
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

// Names user_exists() found, with when it read them. Bounded: when full it
// starts over, which costs one read per name.
struct UserStore::KnownUsers {
    static constexpr size_t kMaxNames = 4096;
    std::mutex mu;
    std::unordered_map<std::string, int64_t> read_at_ms;
};

UserStore::UserStore(store::Database& db, const Clock& clock, UserStoreOptions options)
    : db_(db),
      clock_(clock),
      options_(options),
      dummy_hash_(make_dummy_hash(options.password_log_n)),
      unknown_(std::make_unique<UnknownUsers>()),
      known_(std::make_unique<KnownUsers>()) {
    assert(options_.password_log_n >= kScryptMinLogN && options_.password_log_n <= kScryptMaxLogN);
}

UserStore::~UserStore() = default;

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
    int64_t locked_until_ms = 0;
    const bool well_formed = validate_username(username).ok();
    if (well_formed) {
        auto conn = db_.lock();
        auto stmt =
            conn.prepare("SELECT password_hash, locked_until_ms FROM users WHERE username = ?");
        if (!stmt.ok()) return stmt.status();
        auto row = stmt->bind(1, username).step();
        if (!row.ok()) return row.status();
        if (*row) {
            stored_hash = stmt->column_text(0);
            locked_until_ms = stmt->column_int64(1);
        }
    }

    if (!stored_hash) {
        // Same work as a wrong password, so timing does not reveal the name.
        (void)verify_password(password, dummy_hash_);
        // A malformed name can never exist, so counting it would hide
        // nothing; leaving it out keeps the map's keys short.
        set_outcome(outcome, well_formed ? record_unknown_failure(username, clock_.now_ms())
                                         : AuthOutcome::kUnknownUser);
        return refused();
    }
    // Verified even while locked: a locked account must cost, and take, as
    // long as any other refusal, or its quick answer would show it exists.
    const bool matches = verify_password(password, *stored_hash);
    const int64_t now = clock_.now_ms();
    if (locked_until_ms > now) {
        set_outcome(outcome, AuthOutcome::kLocked);
        return refused();
    }
    if (!matches) {
        auto failure = record_failure(username, now);
        if (!failure.ok()) return failure.status();
        set_outcome(outcome, *failure);
        return refused();
    }

    std::string new_hash = *stored_hash;
    if (!hash_is_current(*stored_hash)) {
        // A failed rehash only postpones the upgrade to the next login.
        auto rehashed = hash(password);
        if (rehashed.ok()) new_hash = std::move(*rehashed);
    }
    return record_success(username, *stored_hash, new_hash, now, outcome);
}

Result<AuthOutcome> UserStore::record_failure(const std::string& username, int64_t now_ms) {
    auto conn = db_.lock();
    // Read and write in one transaction, so concurrent failures are all
    // counted and one that finds the account locked meanwhile leaves the lock
    // as its locker set it. BEGIN IMMEDIATE also orders this against
    // `yuzu-server user unlock` running in another process.
    auto tx = conn.transaction();
    YUZU_RETURN_IF_ERROR(tx.status());
    auto read = conn.prepare(
        "SELECT failed_logins, locked_at_ms, locked_until_ms FROM users WHERE username = ?");
    if (!read.ok()) return read.status();
    auto row = read->bind(1, username).step();
    if (!row.ok()) return row.status();
    if (!*row) return AuthOutcome::kUnknownUser;  // the row went away meanwhile
    const int failures = plus_one(static_cast<int>(read->column_int64(0)));
    int64_t locked_at_ms = read->column_int64(1);
    int64_t locked_until_ms = read->column_int64(2);
    read->reset();
    if (locked_until_ms > now_ms) return AuthOutcome::kLocked;  // locked by a concurrent attempt

    const int64_t lock_ms = lockout_duration_ms(failures);
    if (lock_ms > 0) {
        locked_at_ms = now_ms;
        locked_until_ms = now_ms + lock_ms;
    }
    auto write = conn.prepare(
        "UPDATE users SET failed_logins = ?, locked_at_ms = ?, locked_until_ms = ?"
        " WHERE username = ?");
    if (!write.ok()) return write.status();
    YUZU_RETURN_IF_ERROR(write->bind(1, failures)
                             .bind(2, locked_at_ms)
                             .bind(3, locked_until_ms)
                             .bind(4, username)
                             .run());
    YUZU_RETURN_IF_ERROR(tx.commit());
    return lock_ms > 0 ? AuthOutcome::kJustLocked : AuthOutcome::kBadCredentials;
}

AuthOutcome UserStore::record_unknown_failure(const std::string& username, int64_t now_ms) {
    if (options_.max_tracked_unknown_users == 0) return AuthOutcome::kUnknownUser;
    UnknownUsers& u = *unknown_;
    std::lock_guard<std::mutex> lock(u.mu);
    auto it = u.by_name.find(username);
    if (it == u.by_name.end()) {
        while (u.by_name.size() >= options_.max_tracked_unknown_users) {
            u.by_name.erase(u.by_age.front());
            u.by_age.pop_front();
        }
        u.by_age.push_back(username);
        it =
            u.by_name.emplace(username, UnknownUsers::Entry{0, 0, std::prev(u.by_age.end())}).first;
    } else {
        u.by_age.splice(u.by_age.end(), u.by_age, it->second.age);  // now the most recent
    }
    UnknownUsers::Entry& entry = it->second;
    if (entry.locked_until_ms > now_ms) return AuthOutcome::kLocked;
    entry.failures = plus_one(entry.failures);
    const int64_t lock_ms = lockout_duration_ms(entry.failures);
    if (lock_ms == 0) return AuthOutcome::kUnknownUser;
    entry.locked_until_ms = now_ms + lock_ms;
    return AuthOutcome::kJustLocked;
}

Result<User> UserStore::record_success(const std::string& username, const std::string& old_hash,
                                       const std::string& new_hash, int64_t now_ms,
                                       AuthOutcome* outcome) {
    auto conn = db_.lock();
    auto tx = conn.transaction();
    YUZU_RETURN_IF_ERROR(tx.status());
    // The hash is replaced only if nobody changed the password meanwhile, and
    // nothing changes if a concurrent attempt has locked the account.
    auto stmt = conn.prepare(
        "UPDATE users SET failed_logins = 0, locked_at_ms = 0, locked_until_ms = 0,"
        " password_hash = CASE WHEN password_hash = ?1 THEN ?2 ELSE password_hash END"
        " WHERE username = ?3 AND locked_until_ms <= ?4");
    if (!stmt.ok()) return stmt.status();
    YUZU_RETURN_IF_ERROR(
        stmt->bind(1, old_hash).bind(2, new_hash).bind(3, username).bind(4, now_ms).run());
    if (conn.changes() == 0) {
        set_outcome(outcome, AuthOutcome::kLocked);  // locked by a concurrent attempt
        return refused();
    }
    auto user = load_user(conn, username, now_ms);
    if (!user.ok()) return user.status();
    YUZU_RETURN_IF_ERROR(tx.commit());
    set_outcome(outcome, AuthOutcome::kOk);
    return user;
}

Status UserStore::unlock(const std::string& username) {
    auto conn = db_.lock();
    auto stmt = conn.prepare(
        "UPDATE users SET locked_at_ms = 0, locked_until_ms = 0, failed_logins = 0"
        " WHERE username = ?");
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
    const int64_t now = clock_.now_ms();
    auto conn = db_.read();
    return load_user(conn, username, now);
}

Result<bool> UserStore::user_exists(const std::string& username) const {
    const int64_t now = clock_.steady_ms();
    {
        std::lock_guard<std::mutex> lock(known_->mu);
        auto it = known_->read_at_ms.find(username);
        if (it != known_->read_at_ms.end() && now - it->second < kUserExistsCacheMs) {
            return true;
        }
    }
    auto conn = db_.read();
    auto exists = group_sql::user_exists(conn, username);
    if (exists.ok() && *exists) {
        std::lock_guard<std::mutex> lock(known_->mu);
        if (known_->read_at_ms.size() >= KnownUsers::kMaxNames) known_->read_at_ms.clear();
        known_->read_at_ms[username] = now;
    }
    return exists;
}

Result<std::vector<User>> UserStore::list_users() const {
    const int64_t now = clock_.now_ms();
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
        User user = user_from_row(*stmt, now);
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
