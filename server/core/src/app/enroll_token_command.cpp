#include "yuzu/app/enroll_token_command.hpp"

#include <pwd.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

#include "yuzu/audit/sqlite_audit_log.hpp"
#include "yuzu/common/json_text.hpp"
#include "yuzu/fleet/enrollment.hpp"
#include "yuzu/fleet/fleet.hpp"

namespace yuzu::app {
namespace {

std::string rfc3339_utc(int64_t ms) {
    const std::time_t secs = static_cast<std::time_t>(ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::string local_user() {
    if (const passwd* pw = ::getpwuid(::geteuid()); pw != nullptr) return pw->pw_name;
    return "uid:" + std::to_string(::geteuid());
}

}  // namespace

bool is_enroll_token_command(int argc, const char* const* argv) {
    return argc > 1 && std::string_view(argv[1]) == "enroll-token";
}

std::variant<EnrollTokenCommand, ExitRequest> parse_enroll_token_flags(int argc,
                                                                       const char* const* argv) {
    EnrollTokenCommand command;
    CLI::App app{"Manage agent enrollment tokens", "yuzu-server enroll-token"};
    app.require_subcommand(1);
    CLI::App* create = app.add_subcommand("create", "Create an enrollment token and print it");
    create->add_option("--data-dir", command.data_dir, "The server's data directory")
        ->envname("YUZU_DATA_DIR")
        ->capture_default_str();
    create->add_option("--ttl", command.ttl_s, "Lifetime in seconds (at most 30 days)")
        ->capture_default_str();
    create
        ->add_option("--max-uses", command.max_uses,
                     "How many agents may enroll with it (0 = unlimited until expiry)")
        ->capture_default_str();
    create->add_option("--note", command.note, "Free text shown in the token list");
    try {
        // argv[0] is the program, argv[1] "enroll-token": CLI11 parses from it.
        app.parse(argc - 1, argv + 1);
    } catch (const CLI::CallForHelp&) {
        return ExitRequest{0, app.help()};
    } catch (const CLI::ParseError& e) {
        return ExitRequest{2, std::string("yuzu-server enroll-token: ") + e.what() + "\n"};
    }
    if (command.ttl_s < 1 || command.ttl_s > fleet::kMaxEnrollmentTtlS) {
        return ExitRequest{2, "yuzu-server enroll-token: --ttl must be from 1 to " +
                                  std::to_string(fleet::kMaxEnrollmentTtlS) + " seconds\n"};
    }
    if (command.max_uses < 0) {
        return ExitRequest{2, "yuzu-server enroll-token: --max-uses must not be negative\n"};
    }
    return command;
}

int run_enroll_token_command(const EnrollTokenCommand& command) {
    fleet::FleetOptions options;
    options.data_dir = command.data_dir;
    auto opened = fleet::Fleet::open(options, SystemClock::instance());
    if (!opened.ok()) {
        std::fprintf(stderr, "yuzu-server enroll-token: %s\n", opened.status().message().c_str());
        return 1;
    }
    auto audit_log = audit::SqliteAuditLog::open(command.data_dir);
    if (!audit_log.ok()) {
        std::fprintf(stderr, "yuzu-server enroll-token: %s\n",
                     audit_log.status().message().c_str());
        return 1;
    }
    fleet::NewEnrollmentToken spec;
    spec.created_by = "cli:" + local_user();
    spec.note = command.note;
    spec.ttl_s = command.ttl_s;
    spec.max_uses = command.max_uses;
    auto issued = (*opened)->enrollment().create_token(spec);
    if (!issued.ok()) {
        std::fprintf(stderr, "yuzu-server enroll-token: %s\n", issued.status().message().c_str());
        return issued.status().code() == StatusCode::kInvalidArgument ? 2 : 1;
    }
    audit::AuditEvent ev;
    ev.principal = spec.created_by;
    ev.principal_kind = "cli";
    ev.action = "enrollment_token.create";
    ev.target_type = "enrollment_token";
    ev.target_id = issued->info.id;
    ev.detail = "max_uses=" + std::to_string(spec.max_uses) +
                " expires_at=" + rfc3339_utc(issued->info.expires_at_ms);
    if (Status s = (*audit_log)->record(std::move(ev)); !s.ok()) {
        std::fprintf(stderr, "yuzu-server enroll-token: audit write failed: %s\n",
                     s.message().c_str());
        return 1;
    }
    nlohmann::json out = {{"id", issued->info.id},
                          {"token", issued->token},
                          {"expires_at", issued->info.expires_at_ms / 1000}};
    std::printf("%s\n", dump_json(out).c_str());
    return 0;
}

}  // namespace yuzu::app
