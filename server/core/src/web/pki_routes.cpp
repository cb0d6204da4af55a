// Internal CA routes under /api/v1/pki: the CA and its generations, issued
// certificates, revocation, CRLs, and the engine-key rotation (start,
// cancel, confirm). The MCP twins are list_issued_certs, revoke_certificate
// and confirm_engine_rotation. The Security securable: Read to look,
// Delete to revoke, Execute for the rotation steps (Administrator only by
// default). Revocation and rotation steps write the ca.* audit rows
// (pki/ca_actions.hpp).
#include <string>

#include "route_registry.hpp"
#include "yuzu/pki/ca_actions.hpp"
#include "yuzu/pki/certificate_authority.hpp"
#include "yuzu/pki/pki_json.hpp"

namespace yuzu::web {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;
using nlohmann::json;

const Permission kRead{Securable::kSecurity, Operation::kRead};
const Permission kDelete{Securable::kSecurity, Operation::kDelete};
const Permission kExecute{Securable::kSecurity, Operation::kExecute};

audit::AuditEvent actor_of(const httplib::Request& req, const httplib::Response& res,
                           const auth::Principal& who) {
    audit::AuditEvent e;
    e.principal = who.username;
    e.principal_kind = std::string(auth::principal_kind_name(who.kind));
    e.source_ip = req.remote_addr;
    e.user_agent = req.get_header_value("User-Agent");
    e.correlation_id = http::correlation_id_of(res);
    return e;
}

void get_ca(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
            const auth::Principal& who) {
    if (!permitted(ctx, req, res, who, kRead, "ca.read", "CA", "")) return;
    auto generations = ctx.ca->generations();
    auto rotation = ctx.ca->rotation_status();
    if (!generations.ok() || !rotation.ok()) {
        write_status(res, generations.ok() ? rotation.status() : generations.status());
        return;
    }
    json gens = json::array();
    for (const auto& g : *generations) gens.push_back(pki::to_json(g));
    http::write_json(res, 200,
                     json{{"root_certificate_pem", ctx.ca->root_certificate_pem()},
                          {"root_fingerprint_sha256", ctx.ca->root_fingerprint_sha256()},
                          {"issuing_generation", ctx.ca->issuing_generation()},
                          {"generations", std::move(gens)},
                          {"rotation", pki::to_json(*rotation)}});
}

void list_certificates(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                       const auth::Principal& who) {
    if (!permitted(ctx, req, res, who, kRead, "ca.cert.list", "CA", "")) return;
    pki::ListFilter filter;
    const int64_t limit = query_limit(req, res, 200, 1000);
    if (limit < 0) return;
    filter.limit = static_cast<int>(limit);
    if (auto offset = query_param(req, "offset")) {
        try {
            filter.offset = std::stoll(*offset);
        } catch (...) {
            filter.offset = -1;
        }
        if (filter.offset < 0 || filter.offset > 1'000'000) {
            write_status(res, Status::InvalidArgument("offset must be 0..1000000"));
            return;
        }
    }
    if (auto purpose = query_param(req, "purpose")) {
        filter.purpose = pki::parse_purpose(*purpose);
        if (!filter.purpose) {
            write_status(res,
                         Status::InvalidArgument("purpose must be agent, server or code_signing"));
            return;
        }
    }
    filter.agent_id = query_param(req, "agent_id").value_or("");
    auto page = ctx.ca->list(filter);
    if (!page.ok()) {
        write_status(res, page.status());
        return;
    }
    http::write_json(res, 200, pki::to_json(*page, filter));
}

void get_certificate(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                     const auth::Principal& who) {
    const std::string serial = req.matches[1];
    if (!permitted(ctx, req, res, who, kRead, "ca.cert.read", "AgentCertificate", serial)) return;
    auto cert = ctx.ca->find(serial);
    if (!cert.ok()) {
        write_status(res, cert.status());
        return;
    }
    http::write_json(res, 200, pki::to_json(*cert, /*with_pem=*/true));
}

void revoke(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
            const auth::Principal& who) {
    const std::string serial = req.matches[1];
    if (!permitted(ctx, req, res, who, kDelete, "ca.cert.revoked", "AgentCertificate", serial)) {
        return;
    }
    auto body = parse_json_body(req, res);
    if (!body) return;
    std::string reason;
    if (!read_string(*body, "reason", reason, false, res)) return;
    auto outcome =
        pki::revoke_certificate(*ctx.ca, ctx.audit, actor_of(req, res, who), serial, reason);
    if (!outcome.ok()) {
        write_status(res, outcome.status());
        return;
    }
    json out = pki::to_json(outcome->certificate);
    out["crl_republished"] = outcome->crl_republished;
    out["audit_persisted"] = outcome->audit_persisted;
    http::write_json(res, 200, out);
}

void get_crl(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
             const auth::Principal& who) {
    const std::string generation = req.matches[1];
    if (!permitted(ctx, req, res, who, kRead, "ca.crl.read", "CRL", generation)) return;
    int g = 0;
    try {
        g = std::stoi(generation);
    } catch (...) {
        g = 0;
    }
    auto crl = ctx.ca->crl_pem(g);
    if (!crl.ok()) {
        write_status(res, crl.status());
        return;
    }
    res.set_header("Cache-Control", "no-store");
    res.set_content(*crl, "application/x-pem-file");
}

void get_rotation(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                  const auth::Principal& who) {
    if (!permitted(ctx, req, res, who, kRead, "ca.rotation.read", "CA", "")) return;
    auto status = ctx.ca->rotation_status();
    if (!status.ok()) {
        write_status(res, status.status());
        return;
    }
    http::write_json(res, 200, pki::to_json(*status));
}

void rotation_step(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                   const auth::Principal& who, pki::RotationStep step, const char* action) {
    if (!permitted(ctx, req, res, who, kExecute, action, "CA", "")) return;
    int64_t to = 0;
    if (step == pki::RotationStep::kConfirm) {
        auto body = parse_json_body(req, res);
        if (!body) return;
        if (!read_int(*body, "to_generation", to, true, res)) return;
    }
    auto status =
        pki::rotation_step(*ctx.ca, ctx.audit, actor_of(req, res, who), step, static_cast<int>(to));
    if (!status.ok()) {
        write_status(res, status.status());
        return;
    }
    auto now = ctx.ca->rotation_status();
    http::write_json(res, 200, pki::to_json(now.ok() ? *now : *status));
}

}  // namespace

void register_pki_routes(http::HttpServer& server, const WebContext& ctx) {
    if (ctx.ca == nullptr) return;
    const std::string serial = "/api/v1/pki/certificates/([0-9A-Fa-f]{1,64})";
    server.get("/api/v1/pki/ca", "/api/v1/pki/ca", with_principal(ctx, get_ca));
    server.get("/api/v1/pki/certificates", "/api/v1/pki/certificates",
               with_principal(ctx, list_certificates));
    server.get(serial, "/api/v1/pki/certificates/{serial}", with_principal(ctx, get_certificate));
    server.post(serial + "/revoke", "/api/v1/pki/certificates/{serial}/revoke",
                with_principal(ctx, revoke));
    server.get("/api/v1/pki/crl/([0-9]{1,7})", "/api/v1/pki/crl/{generation}",
               with_principal(ctx, get_crl));
    server.get("/api/v1/pki/rotation", "/api/v1/pki/rotation", with_principal(ctx, get_rotation));
    server.post("/api/v1/pki/rotation", "/api/v1/pki/rotation",
                with_principal(ctx, [](const WebContext& c, const httplib::Request& q,
                                       httplib::Response& r, const auth::Principal& w) {
                    rotation_step(c, q, r, w, pki::RotationStep::kStart, "ca.rotation.started");
                }));
    server.del("/api/v1/pki/rotation", "/api/v1/pki/rotation",
               with_principal(ctx, [](const WebContext& c, const httplib::Request& q,
                                      httplib::Response& r, const auth::Principal& w) {
                   rotation_step(c, q, r, w, pki::RotationStep::kCancel, "ca.rotation.cancelled");
               }));
    server.post("/api/v1/pki/rotation/confirm", "/api/v1/pki/rotation/confirm",
                with_principal(ctx, [](const WebContext& c, const httplib::Request& q,
                                       httplib::Response& r, const auth::Principal& w) {
                    rotation_step(c, q, r, w, pki::RotationStep::kConfirm, "ca.rotation.confirmed");
                }));
}

}  // namespace yuzu::web
