#include "yuzu/pki/pki_json.hpp"

#include <nlohmann/json.hpp>

namespace yuzu::pki {

using nlohmann::json;

json to_json(const IssuedCertificate& c, bool with_pem) {
    json out = {{"serial_hex", c.serial_hex},
                {"subject", c.subject},
                {"san", c.san},
                {"purpose", purpose_name(c.purpose)},
                {"status", c.revoked() ? "revoked" : "active"},
                {"agent_id", c.agent_id},
                {"generation", c.generation},
                {"issuer_key_id", c.issuer_key_id},
                {"issued_by", c.issued_by},
                {"issued_at", c.issued_at_ms / 1000},
                {"not_before", c.not_before_ms / 1000},
                {"not_after", c.not_after_ms / 1000},
                {"revoked_at", nullptr},
                {"revocation_reason", c.revocation_reason}};
    if (c.revoked_at_ms) out["revoked_at"] = *c.revoked_at_ms / 1000;
    if (with_pem) out["certificate_pem"] = c.certificate_pem;
    return out;
}

json to_json(const CertificatePage& page, const ListFilter& filter) {
    json items = json::array();
    for (const auto& c : page.items) items.push_back(to_json(c));
    const size_t count = items.size();
    json out = {{"items", std::move(items)},
                {"count", count},
                {"limit", filter.limit},
                {"offset", filter.offset},
                {"has_more", page.has_more}};
    if (page.has_more) out["next_offset"] = filter.offset + static_cast<int64_t>(count);
    return out;
}

json to_json(const RotationStatus& s) {
    json out = {
        {"pending", s.pending},     {"from_generation", s.from_generation},
        {"to_generation", nullptr}, {"started_at", nullptr},
        {"started_by", nullptr},    {"agents_on_old_generation", s.agents_on_old_generation}};
    if (s.pending) {
        out["to_generation"] = s.to_generation;
        out["started_at"] = s.started_at_ms / 1000;
        out["started_by"] = s.started_by;
    }
    return out;
}

json to_json(const GenerationInfo& g) {
    const char* state = g.state == GenerationState::kPending   ? "pending"
                        : g.state == GenerationState::kRetired ? "retired"
                                                               : "active";
    json out = {{"generation", g.generation},
                {"state", state},
                {"key_id", g.key_id},
                {"created_at", g.created_at_ms / 1000},
                {"retired_at", nullptr},
                {"crl_number", g.crl_number},
                {"crl_published_at", g.crl_published_at_ms / 1000}};
    if (g.retired_at_ms) out["retired_at"] = *g.retired_at_ms / 1000;
    return out;
}

}  // namespace yuzu::pki
