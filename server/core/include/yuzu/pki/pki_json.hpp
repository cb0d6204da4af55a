// JSON views of the CA's records, shared by the REST routes and MCP tools.
// Times are Unix seconds. No view ever carries a private key: there is none
// to carry.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "yuzu/pki/certificate.hpp"
#include "yuzu/pki/certificate_authority.hpp"

namespace yuzu::pki {

// {serial_hex, subject, san, purpose, status, agent_id, generation,
//  issuer_key_id, issued_by, issued_at, not_before, not_after, revoked_at,
//  revocation_reason}; with_pem adds certificate_pem.
nlohmann::json to_json(const IssuedCertificate& cert, bool with_pem = false);
// {items, count, limit, offset, has_more, next_offset?}: one page of a list.
nlohmann::json to_json(const CertificatePage& page, const ListFilter& filter);
nlohmann::json to_json(const RotationStatus& status);
nlohmann::json to_json(const GenerationInfo& generation);

}  // namespace yuzu::pki
