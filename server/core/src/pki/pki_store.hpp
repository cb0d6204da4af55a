// The SQL of pki.db: CA key rows, CRLs and issued certificates. Private to
// the pki module; every call runs on a Conn the caller holds, so the CA can
// put several in one transaction.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "yuzu/common/status.hpp"
#include "yuzu/pki/certificate.hpp"
#include "yuzu/pki/certificate_authority.hpp"
#include "yuzu/store/database.hpp"
#include "yuzu/store/migrations.hpp"

namespace yuzu::pki::detail {

std::span<const store::Migration> pki_migrations();

// Generation 0 is the root; its state is "root".
struct KeyRow {
    int generation = 0;
    std::string state;  // root | active | pending | retired
    std::string certificate_pem;
    std::string sealed_key;
    std::string key_id;
    int64_t created_at_ms = 0;
    std::string created_by;
    std::optional<int64_t> retired_at_ms;
};

struct CrlRow {
    int generation = 0;
    int64_t crl_number = 0;
    int64_t published_at_ms = 0;
    std::string crl_pem;
};

Result<std::vector<KeyRow>> read_keys(store::Conn& conn);
Status insert_key(store::Conn& conn, const KeyRow& row);
Status set_key_state(store::Conn& conn, int generation, const std::string& state,
                     std::optional<int64_t> retired_at_ms);
Status delete_key(store::Conn& conn, int generation);

Result<std::optional<CrlRow>> read_crl(store::Conn& conn, int generation);
Status upsert_crl(store::Conn& conn, const CrlRow& row);

Status insert_certificate(store::Conn& conn, const IssuedCertificate& cert);
Result<std::optional<IssuedCertificate>> find_certificate(store::Conn& conn,
                                                          const std::string& serial_hex);
Status mark_revoked(store::Conn& conn, const std::string& serial_hex, int64_t at_ms,
                    const std::string& reason);
Result<CertificatePage> list_certificates(store::Conn& conn, const ListFilter& filter);
// The newest agent certificate of the agent; revoked ones count only when
// `include_revoked`.
Result<std::optional<IssuedCertificate>> newest_agent_certificate(store::Conn& conn,
                                                                  const std::string& agent_id,
                                                                  bool include_revoked);
// Agents holding a valid certificate of `old_key_id` and none of
// `new_key_id` at now_ms: the ones a rotation still waits for.
Result<int64_t> count_agents_not_renewed(store::Conn& conn, const std::string& old_key_id,
                                         const std::string& new_key_id, int64_t now_ms);
// Serials revoked among what the key with `issuer_key_id` issued.
Result<std::vector<std::pair<std::string, int64_t>>> revoked_by_issuer(
    store::Conn& conn, const std::string& issuer_key_id);
// When the last certificate of `issuer_key_id` was revoked (0: none).
Result<int64_t> latest_revocation_ms(store::Conn& conn, const std::string& issuer_key_id);
// Unrevoked certificates of `issuer_key_id` still valid at now_ms (agent
// ones only when `agents_only`).
Result<int64_t> count_valid(store::Conn& conn, const std::string& issuer_key_id, int64_t now_ms,
                            bool agents_only);

}  // namespace yuzu::pki::detail
