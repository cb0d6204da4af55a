// MCP tools over the internal CA: list_issued_certs (read), and the three
// that change what agents are trusted with, each approval-gated at the
// supervised tier and refused below it by the tier check:
//   revoke_certificate      Security:Delete  (twin of POST
//   /api/v1/pki/certificates/{serial}/revoke) issue_code_signing_cert Security:Write   (signs a
//   CSR; the caller keeps its key) confirm_engine_rotation Security:Execute (twin of POST
//   /api/v1/pki/rotation/confirm)
// confirm_engine_rotation's recall re-checks the live rotation before the
// ticket is consumed: a rotation cancelled, finished, or now to another
// generation leaves the ticket approved and recallable.
#include "yuzu/audit/audit_event.hpp"
#include "yuzu/auth/principal.hpp"
#include "yuzu/mcp/tool.hpp"
#include "yuzu/mcp/yuzu_catalogue.hpp"
#include "yuzu/pki/ca_actions.hpp"
#include "yuzu/pki/certificate_authority.hpp"
#include "yuzu/pki/pki_json.hpp"

namespace yuzu::mcp {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;
using nlohmann::json;

const Permission kSecurityRead{Securable::kSecurity, Operation::kRead};
const Permission kSecurityWrite{Securable::kSecurity, Operation::kWrite};
const Permission kSecurityDelete{Securable::kSecurity, Operation::kDelete};
const Permission kSecurityExecute{Securable::kSecurity, Operation::kExecute};

audit::AuditEvent actor_of(const ToolCall& call) {
    audit::AuditEvent e;
    e.principal = call.principal.username;
    e.principal_kind = std::string(auth::principal_kind_name(call.principal.kind));
    e.source_ip = call.source_ip;
    e.correlation_id = call.correlation_id;
    return e;
}

json certificate_item_schema() {
    const json string = {{"type", "string"}};
    const json integer = {{"type", "integer"}};
    return {{"type", "object"},
            {"properties",
             {{"serial_hex", string},
              {"subject", string},
              {"san", {{"type", "array"}, {"items", string}}},
              {"purpose", {{"type", "string"}, {"enum", {"agent", "server", "code_signing"}}}},
              {"status", {{"type", "string"}, {"enum", {"active", "revoked"}}}},
              {"agent_id", string},
              {"generation", integer},
              {"issuer_key_id", string},
              {"issued_by", string},
              {"issued_at", integer},
              {"not_before", integer},
              {"not_after", integer},
              {"revoked_at", {{"type", {"integer", "null"}}}},
              {"revocation_reason", string}}},
            {"required",
             {"serial_hex", "subject", "purpose", "status", "issued_at", "not_after", "issued_by",
              "issuer_key_id"}}};
}

ToolSpec list_issued_certs_tool(pki::CertificateAuthority& ca) {
    ToolSpec spec;
    spec.name = "list_issued_certs";
    spec.title = "List issued certificates";
    spec.description =
        "Certificates the internal CA issued (agent client certificates, the agent plane's "
        "server certificate, code-signing certificates), newest first: serial_hex, subject, "
        "purpose, status (active or revoked), issued_at / not_after (Unix s), issuer_key_id "
        "and the signing generation. Paged: limit (1-1000, default 200) and offset; "
        "has_more says whether another page follows at next_offset. Filter by purpose or "
        "agent_id.";
    spec.input_schema = {
        {"type", "object"},
        {"properties",
         {{"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 1000}, {"default", 200}}},
          {"offset", {{"type", "integer"}, {"minimum", 0}, {"maximum", 1000000}, {"default", 0}}},
          {"purpose", {{"type", "string"}, {"enum", {"agent", "server", "code_signing"}}}},
          {"agent_id", {{"type", "string"}, {"maxLength", 128}}}}},
        {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties",
                           {{"items", {{"type", "array"}, {"items", certificate_item_schema()}}},
                            {"count", {{"type", "integer"}}},
                            {"limit", {{"type", "integer"}}},
                            {"offset", {{"type", "integer"}}},
                            {"has_more", {{"type", "boolean"}}},
                            {"next_offset", {{"type", "integer"}}}}},
                          {"required", {"items", "count", "limit", "offset", "has_more"}}};
    spec.tier_key = kSecurityRead;
    spec.access = ToolAccess{kSecurityRead, AccessScope::kFleet, ""};
    spec.handler = [&ca](const ToolCall& call) -> Result<json> {
        pki::ListFilter filter;
        filter.limit = call.arguments.value("limit", 200);
        filter.offset = call.arguments.value("offset", int64_t{0});
        if (call.arguments.contains("purpose")) {
            filter.purpose = pki::parse_purpose(call.arguments.at("purpose").get<std::string>());
        }
        filter.agent_id = call.arguments.value("agent_id", "");
        auto page = ca.list(filter);
        if (!page.ok()) return page.status();
        return pki::to_json(*page, filter);
    };
    return spec;
}

ToolSpec revoke_certificate_tool(pki::CertificateAuthority& ca, audit::AuditLog& audit) {
    ToolSpec spec;
    spec.name = "revoke_certificate";
    spec.title = "Revoke a certificate";
    spec.description =
        "Revokes one certificate the internal CA issued (serial_hex from list_issued_certs) and "
        "republishes its CRL before answering: an agent holding it is refused at its next "
        "connection. Cannot be undone. Needs a human's approval at the supervised tier: the "
        "first call returns an approval ticket; call again with the same arguments plus "
        "approval_id once it is approved.";
    spec.input_schema = {
        {"type", "object"},
        {"properties",
         {{"serial_hex", {{"type", "string"}, {"pattern", "^[0-9A-Fa-f]{1,64}$"}}},
          {"reason",
           {{"type", "string"}, {"maxLength", static_cast<int>(pki::kMaxRevocationReasonBytes)}}}}},
        {"required", {"serial_hex"}},
        {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties",
                           {{"revoked", {{"type", "boolean"}}},
                            {"serial_hex", {{"type", "string"}}},
                            {"crl_republished", {{"type", "boolean"}}},
                            {"audit_persisted", {{"type", "boolean"}}}}},
                          {"required", {"revoked", "serial_hex", "crl_republished"}}};
    spec.annotations.read_only = false;
    spec.annotations.destructive = true;
    spec.annotations.idempotent = false;
    spec.tier_key = kSecurityDelete;
    spec.access = ToolAccess{kSecurityDelete, AccessScope::kFleet, ""};
    spec.describe = [](const ToolCall& call) {
        return "serial_hex=" + call.arguments.value("serial_hex", "");
    };
    spec.handler = [&ca, &audit](const ToolCall& call) -> Result<json> {
        auto outcome = pki::revoke_certificate(ca, audit, actor_of(call),
                                               call.arguments.at("serial_hex").get<std::string>(),
                                               call.arguments.value("reason", ""));
        if (!outcome.ok()) {
            // Unknown and already revoked are both a wrong argument here.
            if (outcome.status().code() == StatusCode::kFailedPrecondition) {
                return Status::InvalidArgument(outcome.status().message());
            }
            return outcome.status();
        }
        return json{{"revoked", true},
                    {"serial_hex", outcome->certificate.serial_hex},
                    {"crl_republished", outcome->crl_republished},
                    {"audit_persisted", outcome->audit_persisted}};
    };
    return spec;
}

ToolSpec issue_code_signing_cert_tool(pki::CertificateAuthority& ca, audit::AuditLog& audit) {
    ToolSpec spec;
    spec.name = "issue_code_signing_cert";
    spec.title = "Issue a code-signing certificate";
    spec.description =
        "Signs a code-signing certificate (extended key usage codeSigning, one year) for the "
        "public key in csr (a PEM PKCS#10 request, EC P-256/P-384 or RSA >= 2048) with "
        "common_name as its subject. Returns the certificate and its chain; the private key "
        "stays with whoever made the CSR, the server never sees it. Needs a human's approval "
        "at the supervised tier.";
    spec.input_schema = {
        {"type", "object"},
        {"properties",
         {{"csr", {{"type", "string"}, {"maxLength", static_cast<int>(pki::kMaxCsrBytes)}}},
          {"common_name",
           {{"type", "string"},
            {"minLength", 1},
            {"maxLength", static_cast<int>(pki::kMaxSubjectBytes)}}}}},
        {"required", {"csr", "common_name"}},
        {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties",
                           {{"serial_hex", {{"type", "string"}}},
                            {"subject", {{"type", "string"}}},
                            {"not_after", {{"type", "integer"}}},
                            {"certificate_pem", {{"type", "string"}}},
                            {"certificate_chain_pem", {{"type", "string"}}}}},
                          {"required", {"serial_hex", "certificate_pem", "certificate_chain_pem"}}};
    spec.annotations.read_only = false;
    spec.annotations.idempotent = false;
    spec.tier_key = kSecurityWrite;
    spec.access = ToolAccess{kSecurityWrite, AccessScope::kFleet, ""};
    spec.precheck = [](const ToolCall& call) {
        return pki::CertificateAuthority::check_csr(call.arguments.at("csr").get<std::string>());
    };
    spec.describe = [](const ToolCall& call) {
        return "common_name=" + call.arguments.value("common_name", "");
    };
    spec.handler = [&ca, &audit](const ToolCall& call) -> Result<json> {
        auto issued = pki::issue_code_signing(ca, audit, actor_of(call),
                                              call.arguments.at("csr").get<std::string>(),
                                              call.arguments.at("common_name").get<std::string>());
        if (!issued.ok()) return issued.status();
        return json{{"serial_hex", issued->certificate.serial_hex},
                    {"subject", issued->certificate.subject},
                    {"not_after", issued->certificate.not_after_ms / 1000},
                    {"certificate_pem", issued->certificate.certificate_pem},
                    {"certificate_chain_pem", issued->chain_pem}};
    };
    return spec;
}

ToolSpec confirm_engine_rotation_tool(pki::CertificateAuthority& ca, audit::AuditLog& audit) {
    ToolSpec spec;
    spec.name = "confirm_engine_rotation";
    spec.title = "Confirm an engine-key rotation";
    spec.description =
        "Finishes the pending rotation of the CA's signing key (started by an administrator "
        "with POST /api/v1/pki/rotation): generation to_generation becomes the only trusted "
        "signing "
        "key and the old one is retired, so agents that have not renewed since the rotation "
        "started (agents_on_old_generation in GET /api/v1/pki/rotation) are refused from then "
        "on. Needs a human's approval at the supervised tier; the recall checks again that a "
        "rotation to exactly to_generation is still pending, and if not the ticket is left "
        "unused.";
    spec.input_schema = {
        {"type", "object"},
        {"properties",
         {{"to_generation", {{"type", "integer"}, {"minimum", 2}, {"maximum", 1000000}}}}},
        {"required", {"to_generation"}},
        {"additionalProperties", false}};
    spec.output_schema = {{"type", "object"},
                          {"properties",
                           {{"confirmed", {{"type", "boolean"}}},
                            {"generation", {{"type", "integer"}}},
                            {"retired_generation", {{"type", "integer"}}},
                            {"agents_on_old_generation", {{"type", "integer"}}}}},
                          {"required", {"confirmed", "generation", "retired_generation"}}};
    spec.annotations.read_only = false;
    spec.annotations.destructive = true;
    spec.annotations.idempotent = false;
    spec.tier_key = kSecurityExecute;
    spec.access = ToolAccess{kSecurityExecute, AccessScope::kFleet, ""};
    spec.precondition = [&ca](const ToolCall& call) {
        return ca.check_rotation_pending(call.arguments.at("to_generation").get<int>());
    };
    spec.handler = [&ca, &audit](const ToolCall& call) -> Result<json> {
        const int to = call.arguments.at("to_generation").get<int>();
        auto done = pki::rotation_step(ca, audit, actor_of(call), pki::RotationStep::kConfirm, to);
        if (!done.ok()) return done.status();
        return json{{"confirmed", true},
                    {"generation", to},
                    {"retired_generation", done->from_generation},
                    {"agents_on_old_generation", done->agents_on_old_generation}};
    };
    return spec;
}

}  // namespace

Status register_pki_tools(ToolCatalogue& tools, const CatalogueDeps& deps) {
    if (deps.ca == nullptr) return Status::Ok();
    YUZU_RETURN_IF_ERROR(tools.add(list_issued_certs_tool(*deps.ca)));
    YUZU_RETURN_IF_ERROR(tools.add(revoke_certificate_tool(*deps.ca, deps.audit)));
    YUZU_RETURN_IF_ERROR(tools.add(issue_code_signing_cert_tool(*deps.ca, deps.audit)));
    return tools.add(confirm_engine_rotation_tool(*deps.ca, deps.audit));
}

}  // namespace yuzu::mcp
