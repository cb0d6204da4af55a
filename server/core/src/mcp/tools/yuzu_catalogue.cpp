#include "yuzu/mcp/yuzu_catalogue.hpp"

namespace yuzu::mcp {

Status build_yuzu_catalogue(Catalogues& out, const CatalogueDeps& deps) {
    // The agentic tools first: tools/list is read top down, and the posture
    // is the call to make first.
    YUZU_RETURN_IF_ERROR(register_posture_tools(out.tools, out.resources, deps));
    YUZU_RETURN_IF_ERROR(register_guidance_tools(out.tools, deps));
    YUZU_RETURN_IF_ERROR(register_identity_tools(out.tools, deps));
    YUZU_RETURN_IF_ERROR(register_identity_write_tools(out.tools, deps));
    YUZU_RETURN_IF_ERROR(register_token_rotation_tools(out.tools, deps));
    YUZU_RETURN_IF_ERROR(register_approval_tools(out.tools, deps));
    YUZU_RETURN_IF_ERROR(register_audit_tools(out.tools, deps));
    YUZU_RETURN_IF_ERROR(register_agent_tools(out.tools, deps));
    YUZU_RETURN_IF_ERROR(register_inventory_tools(out.tools, deps));
    YUZU_RETURN_IF_ERROR(register_tag_tools(out.tools, deps));
    YUZU_RETURN_IF_ERROR(register_scope_tools(out.tools, deps));
    YUZU_RETURN_IF_ERROR(register_definition_tools(out.tools, deps));
    YUZU_RETURN_IF_ERROR(register_execution_tools(out.tools, deps));
    YUZU_RETURN_IF_ERROR(register_response_tools(out.tools, deps));
    YUZU_RETURN_IF_ERROR(register_bundle_tools(out.tools, deps));
    YUZU_RETURN_IF_ERROR(register_quarantine_tools(out.tools, deps));
    YUZU_RETURN_IF_ERROR(register_pki_tools(out.tools, deps));
    YUZU_RETURN_IF_ERROR(register_compliance_tools(out.tools, deps));
    YUZU_RETURN_IF_ERROR(register_dex_tools(out.tools, deps));
    YUZU_RETURN_IF_ERROR(register_schedule_tools(out.tools, deps));
    YUZU_RETURN_IF_ERROR(register_resources(out.resources, deps));
    YUZU_RETURN_IF_ERROR(register_compliance_resources(out.resources, deps));
    YUZU_RETURN_IF_ERROR(register_agentic_resources(out.resources, out.tools, deps));
    YUZU_RETURN_IF_ERROR(register_prompts(out.prompts));
    YUZU_RETURN_IF_ERROR(register_fleet_prompts(out.prompts, deps));
    YUZU_RETURN_IF_ERROR(register_compliance_prompts(out.prompts, deps));
    YUZU_RETURN_IF_ERROR(register_agentic_prompts(out.prompts));
    return Status::Ok();
}

}  // namespace yuzu::mcp
