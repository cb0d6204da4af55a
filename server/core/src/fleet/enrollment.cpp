// EnrollmentService: enrollment tokens and the enroll() trade. Device-token
// checks live in device_tokens.cpp.
#include "yuzu/fleet/enrollment.hpp"

#include <cassert>
#include <utility>

#include "fleet/field_rules.hpp"
#include "yuzu/auth/random.hpp"
#include "yuzu/auth/token_codec.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::fleet {
namespace {

// One answer for every way an enrollment token can fail, so the endpoint
// says nothing about which tokens exist.
constexpr std::string_view kBadEnrollmentToken = "enrollment token is invalid, expired or used up";

constexpr size_t kEnrollmentTokenIdBytes = 12;  // 24 hex characters
constexpr size_t kAgentIdBytes = kAgentIdHexChars / 2;
constexpr size_t kMaxNoteBytes = 256;
constexpr size_t kMaxCreatedByBytes = 128;
constexpr size_t kMaxSourceIpBytes = 64;
constexpr int kMaxEnrollmentUses = 100'000;
// Random 96- and 128-bit ids do not collide in practice; a retry with fresh
// randomness is the answer if one ever does.
constexpr int kInsertAttempts = 3;

Status bad_enrollment_token() {
    return Status::Unauthenticated(std::string(kBadEnrollmentToken));
}

EnrollmentToken read_token(const store::Statement& s) {
    EnrollmentToken t;
    t.id = s.column_text(0);
    t.created_by = s.column_text(1);
    t.note = s.column_text(2);
    t.created_at_ms = s.column_int64(3);
    t.expires_at_ms = s.column_int64(4);
    t.max_uses = static_cast<int>(s.column_int64(5));
    t.uses = static_cast<int>(s.column_int64(6));
    t.revoked = s.column_int64(7) != 0;
    return t;
}

constexpr std::string_view kSelectToken =
    "SELECT token_id, created_by, note, created_at_ms, expires_at_ms, max_uses, uses, revoked "
    "FROM enrollment_tokens ";

Status check_new_token(const NewEnrollmentToken& spec) {
    YUZU_RETURN_IF_ERROR(
        check_text_field("created_by", spec.created_by, 1, kMaxCreatedByBytes, true));
    YUZU_RETURN_IF_ERROR(check_text_field("note", spec.note, 0, kMaxNoteBytes, true));
    if (spec.ttl_s < 1 || spec.ttl_s > kMaxEnrollmentTtlS) {
        return Status::InvalidArgument("ttl_s must be between 1 and " +
                                       std::to_string(kMaxEnrollmentTtlS) + " seconds (30 days)");
    }
    if (spec.max_uses < 0 || spec.max_uses > kMaxEnrollmentUses) {
        return Status::InvalidArgument("max_uses must be between 0 (until expiry) and " +
                                       std::to_string(kMaxEnrollmentUses));
    }
    return Status::Ok();
}

// Inside enroll()'s transaction: the token's id if it may enroll one more
// agent, after counting this use.
Result<std::string> consume_enrollment_token(store::Conn& conn, const std::string& hash,
                                             int64_t now_ms) {
    auto find = conn.prepare(
        "SELECT token_id, expires_at_ms, max_uses, uses, revoked FROM enrollment_tokens "
        "WHERE token_hash = ?1");
    if (!find.ok()) return find.status();
    find->bind(1, hash);
    auto row = find->step();
    if (!row.ok()) return row.status();
    if (!*row) return bad_enrollment_token();
    std::string id = find->column_text(0);
    const int64_t expires_at_ms = find->column_int64(1);
    const int64_t max_uses = find->column_int64(2);
    const int64_t uses = find->column_int64(3);
    const bool revoked = find->column_int64(4) != 0;
    find->reset();
    if (revoked || now_ms >= expires_at_ms || (max_uses > 0 && uses >= max_uses)) {
        return bad_enrollment_token();
    }
    auto count = conn.prepare("UPDATE enrollment_tokens SET uses = uses + 1 WHERE token_id = ?1");
    if (!count.ok()) return count.status();
    YUZU_RETURN_IF_ERROR(count->bind(1, id).run());
    return id;
}

}  // namespace

EnrollmentService::EnrollmentService(store::Database& db, const Clock& clock,
                                     store::Database* reader)
    : db_(db), reader_(reader != nullptr ? *reader : db), clock_(clock) {}

Result<IssuedEnrollmentToken> EnrollmentService::create_token(const NewEnrollmentToken& spec) {
    YUZU_RETURN_IF_ERROR(check_new_token(spec));
    const int64_t now_ms = clock_.now_ms();

    auto conn = db_.lock();
    auto insert = conn.prepare(
        "INSERT INTO enrollment_tokens(token_id, token_hash, created_by, note, created_at_ms, "
        "expires_at_ms, max_uses) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    if (!insert.ok()) return insert.status();
    for (int attempt = 0; attempt < kInsertAttempts; ++attempt) {
        auto secret = auth::generate_api_token();
        if (!secret.ok()) return secret.status();
        auto id = auth::random_hex(kEnrollmentTokenIdBytes);
        if (!id.ok()) return id.status();

        IssuedEnrollmentToken issued;
        issued.info.id = std::move(id).value();
        issued.info.created_by = spec.created_by;
        issued.info.note = spec.note;
        issued.info.created_at_ms = now_ms;
        issued.info.expires_at_ms = now_ms + spec.ttl_s * 1000;
        issued.info.max_uses = spec.max_uses;
        issued.token = std::move(secret).value();

        insert->bind(1, issued.info.id).bind(2, auth::sha256_hex(issued.token));
        insert->bind(3, spec.created_by).bind(4, spec.note).bind(5, now_ms);
        insert->bind(6, issued.info.expires_at_ms).bind(7, spec.max_uses);
        Status inserted = insert->run();
        if (inserted.code() == StatusCode::kAlreadyExists) continue;
        YUZU_RETURN_IF_ERROR(inserted);
        return issued;
    }
    return Status::Internal("could not allocate a unique enrollment token id; try again");
}

Result<std::vector<EnrollmentToken>> EnrollmentService::list_tokens() const {
    auto conn = db_.lock();
    auto stmt =
        conn.prepare(std::string(kSelectToken) + "ORDER BY created_at_ms DESC, token_id ASC");
    if (!stmt.ok()) return stmt.status();
    std::vector<EnrollmentToken> out;
    for (;;) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        out.push_back(read_token(*stmt));
    }
    return out;
}

Status EnrollmentService::revoke_token(const std::string& id) {
    auto conn = db_.lock();
    auto update = conn.prepare(
        "UPDATE enrollment_tokens SET revoked = 1, revoked_at_ms = ?1 "
        "WHERE token_id = ?2 AND revoked = 0");
    if (!update.ok()) return update.status();
    YUZU_RETURN_IF_ERROR(update->bind(1, clock_.now_ms()).bind(2, id).run());
    if (conn.changes() > 0) return Status::Ok();

    auto exists = conn.prepare("SELECT 1 FROM enrollment_tokens WHERE token_id = ?1");
    if (!exists.ok()) return exists.status();
    auto row = exists->bind(1, id).step();
    if (!row.ok()) return row.status();
    if (!*row) return Status::NotFound("enrollment token '" + id + "' not found");
    return Status::Ok();  // already revoked: revoking again changes nothing
}

Result<EnrolledAgent> EnrollmentService::enroll(const EnrollRequest& request) {
    // The shape check costs no hashing and no store access.
    if (!auth::looks_like_api_token(request.enrollment_token)) return bad_enrollment_token();
    YUZU_RETURN_IF_ERROR(check_self_description(request.hostname, request.os, request.os_version,
                                                request.arch, request.agent_version));
    YUZU_RETURN_IF_ERROR(
        check_text_field("source_ip", request.source_ip, 0, kMaxSourceIpBytes, false));

    auto device_token = auth::generate_api_token();
    if (!device_token.ok()) return device_token.status();
    const std::string enrollment_hash = auth::sha256_hex(request.enrollment_token);
    const std::string device_hash = auth::sha256_hex(*device_token);
    const int64_t now_ms = clock_.now_ms();

    auto conn = db_.lock();
    auto tx = conn.transaction();
    if (!tx.ok()) return tx.status();
    auto token_id = consume_enrollment_token(conn, enrollment_hash, now_ms);
    if (!token_id.ok()) return token_id.status();

    auto insert_agent = conn.prepare(
        "INSERT INTO agents(agent_id, hostname, os, os_version, arch, version, source_ip, "
        "enrollment_token_id, enrolled_at_ms, first_seen_ms, last_seen_ms) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9, ?9)");
    if (!insert_agent.ok()) return insert_agent.status();
    std::string agent_id;
    for (int attempt = 0; attempt < kInsertAttempts && agent_id.empty(); ++attempt) {
        auto candidate = auth::random_hex(kAgentIdBytes);
        if (!candidate.ok()) return candidate.status();
        insert_agent->bind(1, *candidate).bind(2, request.hostname).bind(3, request.os);
        insert_agent->bind(4, request.os_version).bind(5, request.arch);
        insert_agent->bind(6, request.agent_version).bind(7, request.source_ip);
        insert_agent->bind(8, *token_id).bind(9, now_ms);
        Status inserted = insert_agent->run();
        if (inserted.code() == StatusCode::kAlreadyExists) continue;
        YUZU_RETURN_IF_ERROR(inserted);
        agent_id = std::move(candidate).value();
    }
    if (agent_id.empty())
        return Status::Internal("could not allocate a unique agent id; try again");

    auto insert_device = conn.prepare(
        "INSERT INTO device_tokens(token_hash, agent_id, "
        "created_at_ms) VALUES(?1, ?2, ?3)");
    if (!insert_device.ok()) return insert_device.status();
    YUZU_RETURN_IF_ERROR(
        insert_device->bind(1, device_hash).bind(2, agent_id).bind(3, now_ms).run());
    YUZU_RETURN_IF_ERROR(tx.commit());

    assert(is_agent_id(agent_id));
    EnrolledAgent enrolled;
    enrolled.agent_id = std::move(agent_id);
    enrolled.device_token = std::move(device_token).value();
    return enrolled;
}

}  // namespace yuzu::fleet
