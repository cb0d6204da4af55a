#include "yuzu/mcp/yuzu_catalogue.hpp"

namespace yuzu::mcp {

Status build_yuzu_catalogue(Catalogues& out, const CatalogueDeps& deps) {
    YUZU_RETURN_IF_ERROR(register_identity_tools(out.tools, deps));
    YUZU_RETURN_IF_ERROR(register_audit_tools(out.tools, deps));
    YUZU_RETURN_IF_ERROR(register_resources(out.resources, deps));
    YUZU_RETURN_IF_ERROR(register_prompts(out.prompts));
    return Status::Ok();
}

}  // namespace yuzu::mcp
