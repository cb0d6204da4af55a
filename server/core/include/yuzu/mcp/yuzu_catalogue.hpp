// The Yuzu catalogue: every tool, resource and prompt this server offers,
// registered from the domain files (tools_audit.cpp, tools_identity.cpp,
// resources.cpp, prompts.cpp). Only finished tools are registered.
#pragma once

#include <string>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"
#include "yuzu/mcp/catalogue.hpp"

namespace yuzu {
class Readiness;
}
namespace yuzu::audit {
class AuditLog;
}
namespace yuzu::auth {
class Identity;
}

namespace yuzu::mcp {

struct CatalogueDeps {
    audit::AuditLog& audit;
    auth::Identity& identity;
    const Readiness& readiness;
    const Clock& clock;
    std::string server_version;
    int64_t started_at_ms = 0;
};

struct Catalogues {
    ToolCatalogue tools;
    ResourceCatalogue resources;
    PromptCatalogue prompts;
};

Status register_audit_tools(ToolCatalogue& tools, const CatalogueDeps& deps);
Status register_identity_tools(ToolCatalogue& tools, const CatalogueDeps& deps);
Status register_resources(ResourceCatalogue& resources, const CatalogueDeps& deps);
Status register_prompts(PromptCatalogue& prompts);

// All of the above, in a stable order.
Status build_yuzu_catalogue(Catalogues& out, const CatalogueDeps& deps);

}  // namespace yuzu::mcp
