#include "yuzu/fleet/tag_store.hpp"

#include <algorithm>
#include <cassert>
#include <utility>

#include "fleet/field_rules.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::fleet {
namespace {

bool is_tag_key(std::string_view key) {
    return !key.empty() && key.size() <= kMaxTagKeyBytes &&
           std::all_of(key.begin(), key.end(), [](char c) {
               return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '.' || c == '-';
           });
}

Status check_key(std::string_view key) {
    if (!is_tag_key(key)) {
        return Status::InvalidArgument("tag key must be 1 to 64 characters of [A-Za-z0-9_.-]");
    }
    return Status::Ok();
}

Status require_agent(store::Conn& conn, const std::string& agent_id) {
    auto exists = conn.prepare("SELECT 1 FROM agents WHERE agent_id = ?1");
    if (!exists.ok()) return exists.status();
    auto row = exists->bind(1, agent_id).step();
    if (!row.ok()) return row.status();
    if (!*row) return Status::NotFound("agent '" + agent_id + "' is not registered");
    return Status::Ok();
}

}  // namespace

TagStore::TagStore(store::Database& db, const Clock& clock) : db_(db), clock_(clock) {}

Status TagStore::set(const std::string& agent_id, const std::string& key, const std::string& value,
                     const std::string& source) {
    YUZU_RETURN_IF_ERROR(check_key(key));
    YUZU_RETURN_IF_ERROR(check_text_field("tag value", value, 0, kMaxTagValueBytes, true));
    if (source != "api" && source != "mcp" && source != "agent") {
        return Status::InvalidArgument("tag source must be one of api, mcp, agent");
    }

    auto conn = db_.lock();
    auto tx = conn.transaction();
    if (!tx.ok()) return tx.status();
    YUZU_RETURN_IF_ERROR(require_agent(conn, agent_id));
    auto count = conn.prepare("SELECT COUNT(*) FROM tags WHERE agent_id = ?1 AND key != ?2");
    if (!count.ok()) return count.status();
    auto row = count->bind(1, agent_id).bind(2, key).step();
    if (!row.ok()) return row.status();
    assert(*row);  // COUNT(*) always answers one row
    if (static_cast<size_t>(count->column_int64(0)) >= kMaxTagsPerAgent) {
        return Status::ResourceExhausted("agent '" + agent_id + "' already has " +
                                         std::to_string(kMaxTagsPerAgent) +
                                         " tags; remove one before adding another");
    }
    count->reset();
    auto upsert = conn.prepare(
        "INSERT INTO tags(agent_id, key, value, source, updated_at_ms) VALUES(?1, ?2, ?3, ?4, ?5) "
        "ON CONFLICT(agent_id, key) DO UPDATE SET value = excluded.value, "
        "source = excluded.source, updated_at_ms = excluded.updated_at_ms");
    if (!upsert.ok()) return upsert.status();
    upsert->bind(1, agent_id).bind(2, key).bind(3, value).bind(4, source);
    YUZU_RETURN_IF_ERROR(upsert->bind(5, clock_.now_ms()).run());
    return tx.commit();
}

Status TagStore::remove(const std::string& agent_id, const std::string& key) {
    auto conn = db_.lock();
    auto del = conn.prepare("DELETE FROM tags WHERE agent_id = ?1 AND key = ?2");
    if (!del.ok()) return del.status();
    YUZU_RETURN_IF_ERROR(del->bind(1, agent_id).bind(2, key).run());
    if (conn.changes() == 0) {
        return Status::NotFound("agent '" + agent_id + "' has no tag '" + key + "'");
    }
    return Status::Ok();
}

Result<std::vector<Tag>> TagStore::of_agent(const std::string& agent_id) const {
    auto conn = db_.lock();
    YUZU_RETURN_IF_ERROR(require_agent(conn, agent_id));
    auto stmt = conn.prepare(
        "SELECT key, value, source, updated_at_ms FROM tags "
        "WHERE agent_id = ?1 ORDER BY key");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, agent_id);
    std::vector<Tag> out;
    for (;;) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        Tag t;
        t.agent_id = agent_id;
        t.key = stmt->column_text(0);
        t.value = stmt->column_text(1);
        t.source = stmt->column_text(2);
        t.updated_at_ms = stmt->column_int64(3);
        out.push_back(std::move(t));
    }
    return out;
}

Result<std::vector<std::string>> TagStore::agents_with(
    const std::string& key, const std::optional<std::string>& value) const {
    YUZU_RETURN_IF_ERROR(check_key(key));
    auto conn = db_.lock();
    auto stmt = conn.prepare(value ? "SELECT agent_id FROM tags WHERE key = ?1 AND value = ?2 "
                                     "ORDER BY agent_id"
                                   : "SELECT agent_id FROM tags WHERE key = ?1 ORDER BY agent_id");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, key);
    if (value) stmt->bind(2, *value);
    return store::read_text_column(*stmt);
}

Result<std::map<std::string, std::map<std::string, std::string>>> TagStore::all() const {
    auto conn = db_.lock();
    auto stmt = conn.prepare("SELECT agent_id, key, value FROM tags");
    if (!stmt.ok()) return stmt.status();
    std::map<std::string, std::map<std::string, std::string>> out;
    for (;;) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        out[stmt->column_text(0)].emplace(stmt->column_text(1), stmt->column_text(2));
    }
    return out;
}

}  // namespace yuzu::fleet
