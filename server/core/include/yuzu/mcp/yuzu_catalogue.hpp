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
namespace yuzu::fleet {
class Fleet;
}
namespace yuzu::approval {
class ApprovalManager;
}
namespace yuzu::execution {
class Executions;
}
namespace yuzu::metrics {
class Registry;
}
namespace yuzu::compliance {
class Compliance;
}
namespace yuzu::schedule {
class Schedules;
}
namespace yuzu::pki {
class CertificateAuthority;
}

namespace yuzu::mcp {

struct CatalogueDeps {
    audit::AuditLog& audit;
    auth::Identity& identity;
    const Readiness& readiness;
    const Clock& clock;
    std::string server_version;
    int64_t started_at_ms = 0;
    fleet::Fleet* fleet = nullptr;  // null: the fleet tools are not offered
    // null: list_pending_approvals is not offered (approve_request and
    // reject_request need no manager: over MCP they always refuse).
    approval::ApprovalManager* approvals = nullptr;
    // null (or no fleet): the definition, execution, response, bundle and
    // quarantine tools are not offered.
    execution::Executions* executions = nullptr;
    // null: yuzu_mcp_poll_total is not counted (harnesses).
    metrics::Registry* metrics = nullptr;
    // null (or no fleet): the policy, compliance and DEX tools, the
    // yuzu://compliance/fleet resource and compliance_report are not offered.
    compliance::Compliance* compliance = nullptr;
    // null: list_schedules is not offered.
    schedule::Schedules* schedules = nullptr;
    // null: the CA tools (list_issued_certs, revoke_certificate,
    // issue_code_signing_cert, confirm_engine_rotation) are not offered.
    pki::CertificateAuthority* ca = nullptr;
};

struct Catalogues {
    ToolCatalogue tools;
    ResourceCatalogue resources;
    PromptCatalogue prompts;
};

Status register_audit_tools(ToolCatalogue& tools, const CatalogueDeps& deps);
Status register_identity_tools(ToolCatalogue& tools, const CatalogueDeps& deps);
Status register_identity_write_tools(ToolCatalogue& tools, const CatalogueDeps& deps);
Status register_token_rotation_tools(ToolCatalogue& tools, const CatalogueDeps& deps);
Status register_approval_tools(ToolCatalogue& tools, const CatalogueDeps& deps);
Status register_agent_tools(ToolCatalogue& tools, const CatalogueDeps& deps);
Status register_inventory_tools(ToolCatalogue& tools, const CatalogueDeps& deps);
Status register_tag_tools(ToolCatalogue& tools, const CatalogueDeps& deps);
Status register_scope_tools(ToolCatalogue& tools, const CatalogueDeps& deps);
Status register_definition_tools(ToolCatalogue& tools, const CatalogueDeps& deps);
Status register_execution_tools(ToolCatalogue& tools, const CatalogueDeps& deps);
Status register_response_tools(ToolCatalogue& tools, const CatalogueDeps& deps);
Status register_bundle_tools(ToolCatalogue& tools, const CatalogueDeps& deps);
Status register_quarantine_tools(ToolCatalogue& tools, const CatalogueDeps& deps);
Status register_compliance_tools(ToolCatalogue& tools, const CatalogueDeps& deps);
Status register_dex_tools(ToolCatalogue& tools, const CatalogueDeps& deps);
Status register_schedule_tools(ToolCatalogue& tools, const CatalogueDeps& deps);
Status register_pki_tools(ToolCatalogue& tools, const CatalogueDeps& deps);
Status register_compliance_resources(ResourceCatalogue& resources, const CatalogueDeps& deps);
Status register_compliance_prompts(PromptCatalogue& prompts, const CatalogueDeps& deps);
Status register_resources(ResourceCatalogue& resources, const CatalogueDeps& deps);
Status register_prompts(PromptCatalogue& prompts);
Status register_fleet_prompts(PromptCatalogue& prompts, const CatalogueDeps& deps);

// The agentic layer: get_fleet_posture_fast and summarize_working_set (need
// a fleet), classify_operational_question and get_incident_playbook; its
// resources (capabilities read `tools` on every read) and task prompts.
// `tools` and `resources` must outlive the catalogue's handlers.
Status register_posture_tools(ToolCatalogue& tools, const ResourceCatalogue& resources,
                              const CatalogueDeps& deps);
Status register_guidance_tools(ToolCatalogue& tools, const CatalogueDeps& deps);
Status register_agentic_resources(ResourceCatalogue& resources, const ToolCatalogue& tools,
                                  const CatalogueDeps& deps);
Status register_agentic_prompts(PromptCatalogue& prompts);

// All of the above, in a stable order.
Status build_yuzu_catalogue(Catalogues& out, const CatalogueDeps& deps);

}  // namespace yuzu::mcp
