// Shared set-up for the micro-benchmarks: a private temp dir, auth.db opened
// and migrated as Identity::open does it, and the tools/call request and the
// validate_scope declaration every step is measured on.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <system_error>

#include "yuzu/auth/auth_schema.hpp"
#include "yuzu/auth/rbac_permission.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"
#include "yuzu/mcp/tool.hpp"
#include "yuzu/scope/scope.hpp"
#include "yuzu/store/database.hpp"
#include "yuzu/store/migrations.hpp"

namespace yuzu::bench {

// One MCP tools/call as a client sends it.
inline constexpr std::string_view kToolsCallBody =
    R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"validate_scope",)"
    R"("arguments":{"expression":"os == \"linux\""}}})";

// The arguments object of kToolsCallBody, as the pipeline sees it.
inline nlohmann::json tools_call_arguments() {
    return nlohmann::json::parse(std::string(kToolsCallBody))["params"]["arguments"];
}

// A directory under $TMPDIR (or /tmp), removed with everything in it when the
// object dies. ok() is false when it could not be created.
class TempDir {
  public:
    TempDir() {
        std::error_code ec;
        std::filesystem::path base = std::filesystem::temp_directory_path(ec);
        if (ec) base = "/tmp";
        std::string tmpl = (base / "yuzu-bench-XXXXXX").string();
        if (::mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
    }
    ~TempDir() {
        if (path_.empty()) return;
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    bool ok() const { return !path_.empty(); }
    const std::string& str() const { return path_; }

  private:
    std::string path_;
};

// <dir>/auth.db with every auth.db migration and the read connections the
// server gives it (identity.cpp's kAuthReaders).
inline Result<std::unique_ptr<store::Database>> open_auth_db(const std::string& dir,
                                                             const Clock& clock) {
    store::OpenOptions options;
    options.read_connections = 4;
    auto db = store::Database::open(dir + "/auth.db", options);
    if (!db.ok()) return db.status();
    Status migrated = store::apply_migrations(**db, "auth.db", auth::auth_migrations(), clock);
    if (!migrated.ok()) return migrated;
    return std::move(db).value();
}

// validate_scope as tools_scope.cpp declares it (its schema, tier key and
// access); registering the real one needs a Fleet. The handler is a stub:
// ToolCatalogue::add() wants exactly one.
inline mcp::ToolSpec validate_scope_spec() {
    const auth::Permission infra_read{auth::Securable::kInfrastructure, auth::Operation::kRead};
    mcp::ToolSpec spec;
    spec.name = "validate_scope";
    spec.title = "Validate a scope expression";
    spec.input_schema = {{"type", "object"},
                         {"properties",
                          {{"expression",
                            {{"type", "string"},
                             {"minLength", 1},
                             {"maxLength", static_cast<int>(scope::kMaxExpressionBytes)}}}}},
                         {"required", {"expression"}},
                         {"additionalProperties", false}};
    spec.tier_key = infra_read;
    spec.access = mcp::ToolAccess{infra_read, mcp::AccessScope::kSelf, ""};
    spec.handler = [](const mcp::ToolCall&) -> Result<nlohmann::json> {
        return nlohmann::json::object();
    };
    return spec;
}

}  // namespace yuzu::bench
