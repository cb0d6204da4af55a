#include "pki/pki_store.hpp"

#include <array>

namespace yuzu::pki::detail {
namespace {

constexpr store::Migration kMigrations[] = {
    {1, "create_pki",
     "CREATE TABLE ca_keys ("
     "  generation INTEGER PRIMARY KEY,"
     "  state TEXT NOT NULL,"
     "  certificate_pem TEXT NOT NULL,"
     "  sealed_key TEXT NOT NULL,"
     "  key_id TEXT NOT NULL,"
     "  created_at_ms INTEGER NOT NULL,"
     "  created_by TEXT NOT NULL DEFAULT '',"
     "  retired_at_ms INTEGER);"
     "CREATE TABLE crls ("
     "  generation INTEGER PRIMARY KEY,"
     "  crl_number INTEGER NOT NULL,"
     "  published_at_ms INTEGER NOT NULL,"
     "  crl_pem TEXT NOT NULL);"
     "CREATE TABLE certificates ("
     "  serial_hex TEXT PRIMARY KEY,"
     "  purpose TEXT NOT NULL,"
     "  subject TEXT NOT NULL,"
     "  san TEXT NOT NULL DEFAULT '',"
     "  agent_id TEXT NOT NULL DEFAULT '',"
     "  generation INTEGER NOT NULL,"
     "  issuer_key_id TEXT NOT NULL,"
     "  issued_by TEXT NOT NULL,"
     "  issued_at_ms INTEGER NOT NULL,"
     "  not_before_ms INTEGER NOT NULL,"
     "  not_after_ms INTEGER NOT NULL,"
     "  revoked_at_ms INTEGER,"
     "  revocation_reason TEXT NOT NULL DEFAULT '',"
     "  certificate_pem TEXT NOT NULL);"
     "CREATE INDEX certificates_by_issued ON certificates(issued_at_ms);"
     "CREATE INDEX certificates_by_agent ON certificates(agent_id, issued_at_ms);"
     "CREATE INDEX certificates_by_issuer ON certificates(issuer_key_id, revoked_at_ms);"},
};

constexpr std::string_view kCertColumns =
    "SELECT serial_hex, purpose, subject, san, agent_id, generation, issuer_key_id, issued_by, "
    "issued_at_ms, not_before_ms, not_after_ms, revoked_at_ms, revocation_reason, "
    "certificate_pem FROM certificates ";

std::string join_san(const std::vector<std::string>& san) {
    std::string out;
    for (const std::string& s : san) out += (out.empty() ? "" : ",") + s;
    return out;
}

std::vector<std::string> split_san(const std::string& text) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start < text.size()) {
        size_t comma = text.find(',', start);
        if (comma == std::string::npos) comma = text.size();
        out.push_back(text.substr(start, comma - start));
        start = comma + 1;
    }
    return out;
}

Result<IssuedCertificate> read_cert(const store::Statement& s) {
    IssuedCertificate c;
    c.serial_hex = s.column_text(0);
    auto purpose = parse_purpose(s.column_text(1));
    if (!purpose) return Status::Internal("pki.db: certificate " + c.serial_hex + " is unreadable");
    c.purpose = *purpose;
    c.subject = s.column_text(2);
    c.san = split_san(s.column_text(3));
    c.agent_id = s.column_text(4);
    c.generation = static_cast<int>(s.column_int64(5));
    c.issuer_key_id = s.column_text(6);
    c.issued_by = s.column_text(7);
    c.issued_at_ms = s.column_int64(8);
    c.not_before_ms = s.column_int64(9);
    c.not_after_ms = s.column_int64(10);
    if (!s.column_is_null(11)) c.revoked_at_ms = s.column_int64(11);
    c.revocation_reason = s.column_text(12);
    c.certificate_pem = s.column_text(13);
    return c;
}

Result<std::optional<IssuedCertificate>> first_cert(store::Statement& stmt) {
    auto row = stmt.step();
    if (!row.ok()) return row.status();
    if (!*row) return std::optional<IssuedCertificate>();
    auto cert = read_cert(stmt);
    if (!cert.ok()) return cert.status();
    return std::optional<IssuedCertificate>(std::move(cert).value());
}

}  // namespace

std::span<const store::Migration> pki_migrations() {
    return kMigrations;
}

Result<std::vector<KeyRow>> read_keys(store::Conn& conn) {
    auto stmt = conn.prepare(
        "SELECT generation, state, certificate_pem, sealed_key, key_id, created_at_ms, "
        "created_by, retired_at_ms FROM ca_keys ORDER BY generation");
    if (!stmt.ok()) return stmt.status();
    std::vector<KeyRow> out;
    while (true) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        KeyRow k;
        k.generation = static_cast<int>(stmt->column_int64(0));
        k.state = stmt->column_text(1);
        k.certificate_pem = stmt->column_text(2);
        k.sealed_key = stmt->column_text(3);
        k.key_id = stmt->column_text(4);
        k.created_at_ms = stmt->column_int64(5);
        k.created_by = stmt->column_text(6);
        if (!stmt->column_is_null(7)) k.retired_at_ms = stmt->column_int64(7);
        out.push_back(std::move(k));
    }
    return out;
}

Status insert_key(store::Conn& conn, const KeyRow& row) {
    auto stmt = conn.prepare(
        "INSERT INTO ca_keys(generation, state, certificate_pem, sealed_key, key_id, "
        "created_at_ms, created_by) VALUES(?,?,?,?,?,?,?)");
    if (!stmt.ok()) return stmt.status();
    return stmt->bind(1, row.generation)
        .bind(2, row.state)
        .bind(3, row.certificate_pem)
        .bind(4, row.sealed_key)
        .bind(5, row.key_id)
        .bind(6, row.created_at_ms)
        .bind(7, row.created_by)
        .run();
}

Status set_key_state(store::Conn& conn, int generation, const std::string& state,
                     std::optional<int64_t> retired_at_ms) {
    auto stmt =
        conn.prepare("UPDATE ca_keys SET state = ?, retired_at_ms = ? WHERE generation = ?");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, state);
    if (retired_at_ms) {
        stmt->bind(2, *retired_at_ms);
    } else {
        stmt->bind_null(2);
    }
    return stmt->bind(3, generation).run();
}

Status delete_key(store::Conn& conn, int generation) {
    for (std::string_view sql : {std::string_view("DELETE FROM ca_keys WHERE generation = ?"),
                                 std::string_view("DELETE FROM crls WHERE generation = ?")}) {
        auto stmt = conn.prepare(sql);
        if (!stmt.ok()) return stmt.status();
        YUZU_RETURN_IF_ERROR(stmt->bind(1, generation).run());
    }
    return Status::Ok();
}

Result<std::optional<CrlRow>> read_crl(store::Conn& conn, int generation) {
    auto stmt =
        conn.prepare("SELECT crl_number, published_at_ms, crl_pem FROM crls WHERE generation = ?");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, generation);
    auto row = stmt->step();
    if (!row.ok()) return row.status();
    if (!*row) return std::optional<CrlRow>();
    return std::optional<CrlRow>(
        CrlRow{generation, stmt->column_int64(0), stmt->column_int64(1), stmt->column_text(2)});
}

Status upsert_crl(store::Conn& conn, const CrlRow& row) {
    auto stmt = conn.prepare(
        "INSERT INTO crls(generation, crl_number, published_at_ms, crl_pem) VALUES(?,?,?,?) "
        "ON CONFLICT(generation) DO UPDATE SET crl_number = excluded.crl_number, "
        "published_at_ms = excluded.published_at_ms, crl_pem = excluded.crl_pem");
    if (!stmt.ok()) return stmt.status();
    return stmt->bind(1, row.generation)
        .bind(2, row.crl_number)
        .bind(3, row.published_at_ms)
        .bind(4, row.crl_pem)
        .run();
}

Status insert_certificate(store::Conn& conn, const IssuedCertificate& c) {
    auto stmt = conn.prepare(
        "INSERT INTO certificates(serial_hex, purpose, subject, san, agent_id, generation, "
        "issuer_key_id, issued_by, issued_at_ms, not_before_ms, not_after_ms, certificate_pem) "
        "VALUES(?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!stmt.ok()) return stmt.status();
    return stmt->bind(1, c.serial_hex)
        .bind(2, purpose_name(c.purpose))
        .bind(3, c.subject)
        .bind(4, join_san(c.san))
        .bind(5, c.agent_id)
        .bind(6, c.generation)
        .bind(7, c.issuer_key_id)
        .bind(8, c.issued_by)
        .bind(9, c.issued_at_ms)
        .bind(10, c.not_before_ms)
        .bind(11, c.not_after_ms)
        .bind(12, c.certificate_pem)
        .run();
}

Result<std::optional<IssuedCertificate>> find_certificate(store::Conn& conn,
                                                          const std::string& serial_hex) {
    auto stmt = conn.prepare(std::string(kCertColumns) + "WHERE serial_hex = ?");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, serial_hex);
    return first_cert(*stmt);
}

Status mark_revoked(store::Conn& conn, const std::string& serial_hex, int64_t at_ms,
                    const std::string& reason) {
    auto stmt = conn.prepare(
        "UPDATE certificates SET revoked_at_ms = ?, revocation_reason = ? "
        "WHERE serial_hex = ? AND revoked_at_ms IS NULL");
    if (!stmt.ok()) return stmt.status();
    return stmt->bind(1, at_ms).bind(2, reason).bind(3, serial_hex).run();
}

Result<CertificatePage> list_certificates(store::Conn& conn, const ListFilter& filter) {
    std::string sql(kCertColumns);
    sql +=
        "WHERE (?1 = '' OR purpose = ?1) AND (?2 = '' OR agent_id = ?2) "
        "ORDER BY issued_at_ms DESC, serial_hex LIMIT ?3 OFFSET ?4";
    auto stmt = conn.prepare(sql);
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, filter.purpose ? std::string(purpose_name(*filter.purpose)) : std::string())
        .bind(2, filter.agent_id)
        .bind(3, static_cast<int64_t>(filter.limit) + 1)
        .bind(4, filter.offset);
    CertificatePage page;
    while (true) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        if (static_cast<int>(page.items.size()) == filter.limit) {
            page.has_more = true;
            break;
        }
        auto cert = read_cert(*stmt);
        if (!cert.ok()) return cert.status();
        page.items.push_back(std::move(cert).value());
    }
    return page;
}

Result<std::optional<IssuedCertificate>> newest_agent_certificate(store::Conn& conn,
                                                                  const std::string& agent_id,
                                                                  bool include_revoked) {
    auto stmt = conn.prepare(std::string(kCertColumns) +
                             "WHERE agent_id = ? AND purpose = 'agent' "
                             "AND (? = 1 OR revoked_at_ms IS NULL) "
                             "ORDER BY issued_at_ms DESC, rowid DESC LIMIT 1");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, agent_id).bind(2, include_revoked ? 1 : 0);
    return first_cert(*stmt);
}

Result<int64_t> count_agents_not_renewed(store::Conn& conn, const std::string& old_key_id,
                                         const std::string& new_key_id, int64_t now_ms) {
    auto stmt = conn.prepare(
        "SELECT COUNT(DISTINCT c.agent_id) FROM certificates c "
        "WHERE c.issuer_key_id = ?1 AND c.purpose = 'agent' AND c.revoked_at_ms IS NULL "
        "AND c.not_after_ms > ?3 AND NOT EXISTS (SELECT 1 FROM certificates n "
        "WHERE n.agent_id = c.agent_id AND n.issuer_key_id = ?2 AND n.revoked_at_ms IS NULL "
        "AND n.not_after_ms > ?3)");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, old_key_id).bind(2, new_key_id).bind(3, now_ms);
    auto row = stmt->step();
    if (!row.ok()) return row.status();
    return *row ? stmt->column_int64(0) : 0;
}

Result<std::vector<std::pair<std::string, int64_t>>> revoked_by_issuer(
    store::Conn& conn, const std::string& issuer_key_id) {
    auto stmt = conn.prepare(
        "SELECT serial_hex, revoked_at_ms FROM certificates "
        "WHERE issuer_key_id = ? AND revoked_at_ms IS NOT NULL ORDER BY serial_hex");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, issuer_key_id);
    std::vector<std::pair<std::string, int64_t>> out;
    while (true) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        out.emplace_back(stmt->column_text(0), stmt->column_int64(1));
    }
    return out;
}

Result<int64_t> latest_revocation_ms(store::Conn& conn, const std::string& issuer_key_id) {
    auto stmt = conn.prepare(
        "SELECT COALESCE(MAX(revoked_at_ms), 0) FROM certificates WHERE issuer_key_id = ?");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, issuer_key_id);
    auto row = stmt->step();
    if (!row.ok()) return row.status();
    return *row ? stmt->column_int64(0) : 0;
}

Result<int64_t> count_valid(store::Conn& conn, const std::string& issuer_key_id, int64_t now_ms,
                            bool agents_only) {
    auto stmt = conn.prepare(
        "SELECT COUNT(*) FROM certificates WHERE issuer_key_id = ? AND revoked_at_ms IS NULL "
        "AND not_after_ms > ? AND (? = 0 OR purpose = 'agent')");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, issuer_key_id).bind(2, now_ms).bind(3, agents_only ? 1 : 0);
    auto row = stmt->step();
    if (!row.ok()) return row.status();
    return *row ? stmt->column_int64(0) : 0;
}

}  // namespace yuzu::pki::detail
