#include "yuzu/compliance/policy_store.hpp"

#include <nlohmann/json.hpp>
#include <utility>

#include "yuzu/auth/random.hpp"
#include "yuzu/common/json_text.hpp"
#include "yuzu/scope/scope.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::compliance {
namespace {

constexpr std::string_view kSelectPolicy =
    "SELECT policy_id, name, description, enabled, scope_expression, "
    "rule_json, created_by, "
    "created_at_ms, updated_at_ms FROM policies ";
constexpr int kCreateAttempts = 3;

bool has_control_chars(std::string_view s, bool allow_newlines) {
    for (char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (allow_newlines && (c == '\n' || c == '\t')) continue;
        if (u < 0x20 || u == 0x7f) return true;
    }
    return false;
}

Status policy_not_found(const std::string& id) {
    return Status::NotFound("policy not found: " + id);
}

Result<Policy> read_policy(const store::Statement& s) {
    Policy p;
    p.id = s.column_text(0);
    p.name = s.column_text(1);
    p.description = s.column_text(2);
    p.enabled = s.column_int64(3) != 0;
    p.scope_expression = s.column_text(4);
    auto rule = parse_rule_text(s.column_text(5));
    if (!rule.ok()) {
        return Status::Internal("compliance.db: policy " + p.id +
                                " has an unreadable rule: " + rule.status().message());
    }
    p.rule = std::move(rule).value();
    p.created_by = s.column_text(6);
    p.created_at_ms = s.column_int64(7);
    p.updated_at_ms = s.column_int64(8);
    return p;
}

Result<std::optional<Policy>> fetch(store::Conn& conn, const std::string& id) {
    auto stmt = conn.prepare(std::string(kSelectPolicy) + "WHERE policy_id = ?1");
    if (!stmt.ok()) return stmt.status();
    auto row = stmt->bind(1, id).step();
    if (!row.ok()) return row.status();
    if (!*row) return std::optional<Policy>{};
    auto p = read_policy(*stmt);
    stmt->reset();
    if (!p.ok()) return p.status();
    return std::optional<Policy>{std::move(p).value()};
}

// The checks every write runs on the complete policy it is about to store.
Status validate(const Policy& p) {
    if (p.name.empty() || p.name.size() > kMaxPolicyNameBytes || has_control_chars(p.name, false)) {
        return Status::InvalidArgument("name: 1 to " + std::to_string(kMaxPolicyNameBytes) +
                                       " characters without control characters");
    }
    if (p.description.size() > kMaxPolicyDescriptionBytes ||
        has_control_chars(p.description, true)) {
        return Status::InvalidArgument("description: at most " +
                                       std::to_string(kMaxPolicyDescriptionBytes) +
                                       " bytes without control characters");
    }
    if (!p.scope_expression.empty()) {
        auto parsed = scope::parse(p.scope_expression);
        if (!parsed.ok()) {
            return Status::InvalidArgument("scope_expression: " + parsed.status().message());
        }
    }
    // A Rule built in code passes the same strict check as one from JSON.
    auto rule = parse_rule(to_json(p.rule));
    if (!rule.ok()) return rule.status();
    return Status::Ok();
}

Status check_name_free(store::Conn& conn, const std::string& name, const std::string& except_id) {
    auto stmt = conn.prepare("SELECT policy_id FROM policies WHERE name = ?1 AND policy_id != ?2");
    if (!stmt.ok()) return stmt.status();
    auto row = stmt->bind(1, name).bind(2, except_id).step();
    if (!row.ok()) return row.status();
    if (*row) {
        return Status::AlreadyExists("name: a policy named '" + name + "' already exists (" +
                                     stmt->column_text(0) + ")");
    }
    return Status::Ok();
}

}  // namespace

PolicyStore::PolicyStore(store::Database& db, const Clock& clock) : db_(db), clock_(clock) {}

Result<Policy> PolicyStore::create(const NewPolicy& spec) {
    Policy p;
    p.name = spec.name;
    p.description = spec.description;
    p.enabled = spec.enabled;
    p.scope_expression = spec.scope_expression;
    p.rule = spec.rule;
    p.created_by = spec.created_by;
    YUZU_RETURN_IF_ERROR(validate(p));
    if (p.created_by.empty()) return Status::InvalidArgument("created_by must not be empty");
    p.created_at_ms = p.updated_at_ms = clock_.now_ms();

    auto conn = db_.lock();
    auto tx = conn.transaction();
    if (!tx.ok()) return tx.status();
    {
        auto count = conn.prepare("SELECT COUNT(*) FROM policies");
        if (!count.ok()) return count.status();
        auto row = count->step();
        if (!row.ok()) return row.status();
        if (*row && static_cast<size_t>(count->column_int64(0)) >= kMaxPolicies) {
            return Status::ResourceExhausted("there are already " + std::to_string(kMaxPolicies) +
                                             " policies; delete one before adding another");
        }
    }
    YUZU_RETURN_IF_ERROR(check_name_free(conn, p.name, ""));
    auto insert = conn.prepare(
        "INSERT INTO policies(policy_id, name, description, "
        "enabled, scope_expression, "
        "rule_json, created_by, created_at_ms, updated_at_ms) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)");
    if (!insert.ok()) return insert.status();
    const std::string rule_json = dump_json(to_json(p.rule));
    // 48-bit ids: a collision is unlikely but possible, so retry a few times.
    for (int attempt = 0; attempt < kCreateAttempts; ++attempt) {
        auto id = auth::random_hex(6);
        if (!id.ok()) return id.status();
        insert->bind(1, *id).bind(2, p.name).bind(3, p.description).bind(4, p.enabled ? 1 : 0);
        insert->bind(5, p.scope_expression).bind(6, rule_json).bind(7, p.created_by);
        insert->bind(8, p.created_at_ms);
        Status inserted = insert->run();
        if (inserted.code() == StatusCode::kAlreadyExists) continue;
        YUZU_RETURN_IF_ERROR(inserted);
        YUZU_RETURN_IF_ERROR(tx.commit());
        p.id = *id;
        return p;
    }
    return Status::Internal("could not allocate a unique policy id");
}

Result<Policy> PolicyStore::get(const std::string& id) const {
    auto conn = db_.lock();
    auto p = fetch(conn, id);
    if (!p.ok()) return p.status();
    if (!*p) return policy_not_found(id);
    return std::move(**p);
}

Result<std::vector<Policy>> PolicyStore::list() const {
    auto conn = db_.lock();
    auto stmt = conn.prepare(std::string(kSelectPolicy) + "ORDER BY name, policy_id");
    if (!stmt.ok()) return stmt.status();
    std::vector<Policy> out;
    while (true) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        auto p = read_policy(*stmt);
        if (!p.ok()) return p.status();
        out.push_back(std::move(p).value());
    }
    return out;
}

Result<Policy> PolicyStore::update(const std::string& id, const PolicyUpdate& update) {
    auto conn = db_.lock();
    auto tx = conn.transaction();
    if (!tx.ok()) return tx.status();
    auto current = fetch(conn, id);
    if (!current.ok()) return current.status();
    if (!*current) return policy_not_found(id);
    Policy p = **current;
    if (update.name) p.name = *update.name;
    if (update.description) p.description = *update.description;
    if (update.enabled) p.enabled = *update.enabled;
    if (update.scope_expression) p.scope_expression = *update.scope_expression;
    if (update.rule) p.rule = *update.rule;
    YUZU_RETURN_IF_ERROR(validate(p));
    YUZU_RETURN_IF_ERROR(check_name_free(conn, p.name, id));
    p.updated_at_ms = clock_.now_ms();

    const std::string rule_json = dump_json(to_json(p.rule));
    const bool judged_differently = p.enabled != (*current)->enabled ||
                                    p.scope_expression != (*current)->scope_expression ||
                                    rule_json != dump_json(to_json((*current)->rule));
    auto write = conn.prepare(
        "UPDATE policies SET name = ?2, description = ?3, enabled = "
        "?4, scope_expression = ?5, "
        "rule_json = ?6, updated_at_ms = ?7 WHERE policy_id = ?1");
    if (!write.ok()) return write.status();
    write->bind(1, id).bind(2, p.name).bind(3, p.description).bind(4, p.enabled ? 1 : 0);
    write->bind(5, p.scope_expression).bind(6, rule_json).bind(7, p.updated_at_ms);
    YUZU_RETURN_IF_ERROR(write->run());
    if (judged_differently) {
        auto clear = conn.prepare("DELETE FROM results WHERE policy_id = ?1");
        if (!clear.ok()) return clear.status();
        YUZU_RETURN_IF_ERROR(clear->bind(1, id).run());
    }
    YUZU_RETURN_IF_ERROR(tx.commit());
    return p;
}

Status PolicyStore::remove(const std::string& id) {
    auto conn = db_.lock();
    auto stmt = conn.prepare("DELETE FROM policies WHERE policy_id = ?1");
    if (!stmt.ok()) return stmt.status();
    YUZU_RETURN_IF_ERROR(stmt->bind(1, id).run());
    if (conn.changes() == 0) return policy_not_found(id);
    return Status::Ok();
}

}  // namespace yuzu::compliance
