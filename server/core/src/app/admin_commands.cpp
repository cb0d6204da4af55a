#include "yuzu/app/admin_commands.hpp"

#include <pwd.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "yuzu/audit/sqlite_audit_log.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/auth/token_store.hpp"
#include "yuzu/auth/user_store.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/common/json_text.hpp"

namespace yuzu::app {
namespace {

constexpr long long kMaxDurationS = 10LL * 365 * 24 * 3600;
constexpr long long kDefaultMcpTokenLifetimeS = 30LL * 24 * 3600;
constexpr size_t kMaxPasswordFileBytes = 4096;

struct CommonOptions {
    std::string data_dir = "./var";
    std::string secrets_key_file;
};

struct TokenCreate {
    std::string user = "admin";
    std::string name;
    std::string tier;
    std::string expires;  // "" = the default for the kind of token
};

struct UserAdd {
    std::string username;
    std::vector<std::string> roles;
    std::string password_file;
};

struct UserUnlock {
    std::string username;
};

std::string local_user() {
    if (const passwd* pw = ::getpwuid(::geteuid()); pw != nullptr) return pw->pw_name;
    return "uid:" + std::to_string(::geteuid());
}

int fail(const std::string& command, const std::string& reason, int code) {
    std::fprintf(stderr, "yuzu-server %s: %s\n", command.c_str(), reason.c_str());
    return code;
}

void add_common(CLI::App& sub, CommonOptions& common) {
    sub.add_option("--data-dir", common.data_dir, "The server's data directory")
        ->envname("YUZU_DATA_DIR")
        ->capture_default_str();
    sub.add_option("--secrets-key-file", common.secrets_key_file,
                   "The server's --secrets-key-file, if it is not <data-dir>/secrets.key")
        ->envname("YUZU_SECRETS_KEY_FILE");
}

// The data dir's identity and audit stores. Refuses a directory without
// auth.db so a typo never bootstraps a second admin somewhere else.
struct Stores {
    std::unique_ptr<auth::Identity> identity;
    std::unique_ptr<audit::SqliteAuditLog> audit;
};
Result<Stores> open_stores(const CommonOptions& common) {
    std::error_code ec;
    if (!std::filesystem::exists(std::filesystem::path(common.data_dir) / "auth.db", ec)) {
        return Status::NotFound("no auth.db in " + common.data_dir +
                                ": start yuzu-server with this --data-dir once first");
    }
    auth::IdentityOptions options;
    options.data_dir = common.data_dir;
    options.secrets_key_file = common.secrets_key_file;
    auto identity = auth::Identity::open(options, SystemClock::instance());
    if (!identity.ok()) return identity.status();
    auto audit_log = audit::SqliteAuditLog::open(common.data_dir);
    if (!audit_log.ok()) return audit_log.status();
    return Stores{std::move(identity).value(), std::move(audit_log).value()};
}

Status record(audit::AuditLog& log, const std::string& action, const std::string& target_type,
              const std::string& target_id, const std::string& result, const std::string& detail) {
    audit::AuditEvent ev;
    ev.principal = "cli:" + local_user();
    ev.principal_kind = "cli";
    ev.action = action;
    ev.target_type = target_type;
    ev.target_id = target_id;
    ev.detail = detail;
    ev.result = audit::parse_audit_result(result).value_or(audit::AuditResult::kError);
    return log.record(std::move(ev));
}

bool is_input_error(const Status& s) {
    return s.code() == StatusCode::kInvalidArgument || s.code() == StatusCode::kNotFound ||
           s.code() == StatusCode::kAlreadyExists;
}

int exit_code_for(const Status& s) {
    return is_input_error(s) ? 2 : 1;
}

std::string result_for(const Status& s) {
    return is_input_error(s) ? "failure" : "error";
}

int run_token_create(const CommonOptions& common, const TokenCreate& t) {
    const std::string cmd = "token create";
    long long lifetime_s = t.tier.empty() ? 0 : kDefaultMcpTokenLifetimeS;
    if (!t.expires.empty()) {
        lifetime_s = parse_duration_s(t.expires);
        if (lifetime_s < 0) {
            return fail(cmd, "--expires '" + t.expires + "' must be like 30d, 12h, 90m or never",
                        2);
        }
    }
    auto stores = open_stores(common);
    if (!stores.ok()) return fail(cmd, stores.status().message(), exit_code_for(stores.status()));
    auto user = stores->identity->users().get_user(t.user);
    if (!user.ok()) {
        return fail(cmd,
                    user.status().code() == StatusCode::kNotFound ? "no user '" + t.user + "'"
                                                                  : user.status().message(),
                    exit_code_for(user.status()));
    }
    const int64_t expires_at = lifetime_s == 0 ? 0 : SystemClock::instance().now_s() + lifetime_s;
    const std::string name = t.name.empty() ? "cli token" : t.name;
    auto created = stores->identity->tokens().create(t.user, name, t.tier, expires_at);
    if (!created.ok()) {
        (void)record(*stores->audit, "token.create", "api_token", "", result_for(created.status()),
                     created.status().message());
        return fail(cmd, created.status().message(), exit_code_for(created.status()));
    }
    if (Status s = record(*stores->audit, "token.create", "api_token", created->info.id, "success",
                          "owner=" + t.user + " name=" + name + " mcp_tier=" + t.tier);
        !s.ok()) {
        // Nobody gets a secret whose creation the audit trail lacks.
        (void)stores->identity->tokens().revoke(created->info.id, t.user, true);
        return fail(cmd, "audit write failed, token revoked: " + s.message(), 1);
    }
    nlohmann::json out = {{"id", created->info.id},
                          {"token", created->secret},
                          {"owner", created->info.owner},
                          {"name", created->info.name},
                          {"mcp_tier", created->info.mcp_tier},
                          {"expires_at", created->info.expires_at_s}};
    std::printf("%s\n", dump_json(out).c_str());
    return 0;
}

Result<std::string> read_password(const std::string& file) {
    if (file.empty()) {
        if (const char* pw = std::getenv("YUZU_USER_PASSWORD"); pw != nullptr) return {pw};
        return Status::InvalidArgument("give --password-file FILE or set YUZU_USER_PASSWORD");
    }
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) {
        return Status::InvalidArgument("--password-file '" + file + "' is not a readable file");
    }
    if (std::filesystem::file_size(file, ec) > kMaxPasswordFileBytes || ec) {
        return Status::InvalidArgument("--password-file '" + file + "' is larger than 4 KiB");
    }
    std::ifstream in(file, std::ios::binary);
    if (!in) return Status::InvalidArgument("--password-file '" + file + "' cannot be opened");
    std::ostringstream text;
    text << in.rdbuf();
    std::string password = text.str();
    // One trailing newline is the file's, not the password's.
    if (!password.empty() && password.back() == '\n') password.pop_back();
    if (!password.empty() && password.back() == '\r') password.pop_back();
    return password;
}

int run_user_add(const CommonOptions& common, const UserAdd& u) {
    const std::string cmd = "user add";
    auto password = read_password(u.password_file);
    if (!password.ok()) return fail(cmd, password.status().message(), 2);
    auto stores = open_stores(common);
    if (!stores.ok()) return fail(cmd, stores.status().message(), exit_code_for(stores.status()));
    const Status st = stores->identity->users().create_user(u.username, *password, u.roles);
    std::string role_list;
    for (const auto& r : u.roles) role_list += (role_list.empty() ? "" : ",") + r;
    const Status audited =
        record(*stores->audit, "user.create", "user", u.username,
               st.ok() ? "success" : result_for(st), st.ok() ? "roles=" + role_list : st.message());
    if (!st.ok()) return fail(cmd, st.message(), exit_code_for(st));
    if (!audited.ok()) {
        return fail(cmd, "user created, but the audit write failed: " + audited.message(), 1);
    }
    std::printf("%s\n",
                dump_json(nlohmann::json{{"username", u.username}, {"roles", u.roles}}).c_str());
    return 0;
}

// The way back in for a locked-out administrator: it needs the data dir, not
// a login, and the lock leaves the user's tokens and sessions working.
int run_user_unlock(const CommonOptions& common, const UserUnlock& u) {
    const std::string cmd = "user unlock";
    auto stores = open_stores(common);
    if (!stores.ok()) return fail(cmd, stores.status().message(), exit_code_for(stores.status()));
    const Status st = stores->identity->users().unlock(u.username);
    const Status audited = record(*stores->audit, "user.unlock", "user", u.username,
                                  st.ok() ? "success" : result_for(st), st.message());
    if (!st.ok()) {
        return fail(
            cmd, st.code() == StatusCode::kNotFound ? "no user '" + u.username + "'" : st.message(),
            exit_code_for(st));
    }
    if (!audited.ok()) {
        return fail(cmd, "user unlocked, but the audit write failed: " + audited.message(), 1);
    }
    std::printf("%s\n",
                dump_json(nlohmann::json{{"username", u.username}, {"unlocked", true}}).c_str());
    return 0;
}

}  // namespace

long long parse_duration_s(const std::string& text) {
    if (text == "never") return 0;
    if (text.empty()) return -1;
    long long unit = 1;
    std::string_view digits(text);
    switch (text.back()) {
        case 's':
            digits.remove_suffix(1);
            break;
        case 'm':
            unit = 60;
            digits.remove_suffix(1);
            break;
        case 'h':
            unit = 3600;
            digits.remove_suffix(1);
            break;
        case 'd':
            unit = 86400;
            digits.remove_suffix(1);
            break;
        default:
            break;
    }
    long long n = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || n <= 0 ||
        n > kMaxDurationS / unit) {
        return -1;
    }
    return n * unit;
}

bool is_admin_command(int argc, const char* const* argv) {
    if (argc < 2) return false;
    const std::string_view first(argv[1]);
    return first == "token" || first == "user";
}

int run_admin_command(int argc, const char* const* argv) {
    const std::string group = argv[1];
    CommonOptions common;
    TokenCreate token;
    UserAdd user;
    UserUnlock unlock;
    CLI::App app{group == "token" ? "Manage API and MCP tokens" : "Manage users",
                 "yuzu-server " + group};
    app.require_subcommand(1);
    CLI::App* sub = nullptr;
    CLI::App* unlock_sub = nullptr;
    if (group == "token") {
        sub = app.add_subcommand("create", "Create a token for a user and print it once");
        sub->add_option("--user", token.user, "The user the token acts as")->capture_default_str();
        sub->add_option("--name", token.name, "A name shown in the token list");
        sub->add_option("--tier", token.tier,
                        "MCP tier: readonly, operator or supervised; empty = a REST-only token")
            ->check(CLI::IsMember({"", "readonly", "operator", "supervised"}));
        sub->add_option("--expires", token.expires,
                        "Lifetime: 30d, 12h, 90m, or never (REST tokens only); MCP tokens "
                        "default to 30d and may not exceed 90d");
    } else {
        sub = app.add_subcommand("add", "Create a user");
        sub->add_option("--username", user.username, "The new user's name")->required();
        sub->add_option("--role", user.roles, "A built-in role name (repeatable)");
        sub->add_option("--password-file", user.password_file,
                        "File holding the password (else YUZU_USER_PASSWORD)");
        unlock_sub = app.add_subcommand(
            "unlock",
            "Clear a user's login lock and failure count (its tokens and sessions never stopped "
            "working)");
        unlock_sub->add_option("username", unlock.username, "The locked user's name")->required();
        add_common(*unlock_sub, common);
    }
    add_common(*sub, common);
    try {
        // argv[0] is the program, argv[1] the group: CLI11 parses from it.
        app.parse(argc - 1, argv + 1);
    } catch (const CLI::CallForHelp&) {
        std::fputs(app.help().c_str(), stdout);
        return 0;
    } catch (const CLI::ParseError& e) {
        return fail(group, e.what(), 2);
    }
    if (group == "token") return run_token_create(common, token);
    if (unlock_sub != nullptr && unlock_sub->parsed()) return run_user_unlock(common, unlock);
    return run_user_add(common, user);
}

}  // namespace yuzu::app
