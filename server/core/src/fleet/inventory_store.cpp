#include "yuzu/fleet/inventory_store.hpp"

#include <nlohmann/json.hpp>
#include <utility>

#include "fleet/field_rules.hpp"
#include "fleet/inventory_rules.hpp"
#include "yuzu/common/json_parse.hpp"
#include "yuzu/common/json_text.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::fleet {
namespace {

Status check_limit(int limit) {
    if (limit < 1 || limit > kMaxInventoryQueryLimit) {
        return Status::InvalidArgument("limit must be between 1 and " +
                                       std::to_string(kMaxInventoryQueryLimit));
    }
    return Status::Ok();
}

// The caller's view as a JSON array, for `agent_id IN (SELECT value FROM
// json_each(?))`: one bound parameter however many agents it names.
std::string agent_set_json(const std::set<std::string>& agents) {
    return dump_json(nlohmann::json(agents));
}

InventoryItem read_item(const store::Statement& s) {
    InventoryItem it;
    it.agent_id = s.column_text(0);
    it.source = s.column_text(1);
    it.status = s.column_text(2);
    it.reason = s.column_text(3);
    it.data_json = s.column_text(4);
    it.collected_at_ms = s.column_int64(5);
    it.received_at_ms = s.column_int64(6);
    return it;
}

constexpr std::string_view kSelectItem =
    "SELECT agent_id, source, status, reason, data_json, collected_at_ms, received_at_ms "
    "FROM inventory WHERE 1 = 1";
constexpr std::string_view kOnlyAgents = " AND agent_id IN (SELECT value FROM json_each(:only))";

Status require_agent(store::Conn& conn, const std::string& agent_id) {
    auto exists = conn.prepare("SELECT 1 FROM agents WHERE agent_id = ?1");
    if (!exists.ok()) return exists.status();
    auto row = exists->bind(1, agent_id).step();
    if (!row.ok()) return row.status();
    if (!*row) return Status::NotFound("agent '" + agent_id + "' is not registered");
    return Status::Ok();
}

Status replace_software(store::Conn& conn, const std::string& agent_id,
                        const std::vector<Package>& packages) {
    auto clear = conn.prepare("DELETE FROM installed_software WHERE agent_id = ?1");
    if (!clear.ok()) return clear.status();
    YUZU_RETURN_IF_ERROR(clear->bind(1, agent_id).run());
    // OR IGNORE: package managers may list one (name, version, arch) twice.
    auto insert = conn.prepare(
        "INSERT OR IGNORE INTO installed_software(agent_id, name, version, arch) "
        "VALUES(?1, ?2, ?3, ?4)");
    if (!insert.ok()) return insert.status();
    insert->bind(1, agent_id);
    for (const auto& [name, version, arch] : packages) {
        YUZU_RETURN_IF_ERROR(insert->bind(2, name).bind(3, version).bind(4, arch).run());
    }
    return Status::Ok();
}

}  // namespace

InventoryStore::InventoryStore(store::Database& db, const Clock& clock, store::Database* reader)
    : db_(db), reader_(reader != nullptr ? *reader : db), clock_(clock) {}

Status InventoryStore::replace(const std::string& agent_id, const std::vector<InventoryItem>& items,
                               const std::string& sources_sha256) {
    if (!sources_sha256.empty() && !is_sha256_hex(sources_sha256)) {
        return Status::InvalidArgument("sources_sha256 must be 64 lowercase hex digits");
    }
    if (!is_agent_id(agent_id)) {
        return Status::NotFound("agent '" + agent_id + "' is not registered");
    }
    const int64_t now_ms = clock_.now_ms();
    auto report = check_inventory_report(agent_id, items, now_ms);
    if (!report.ok()) return report.status();

    auto conn = db_.lock();
    auto tx = conn.transaction();
    if (!tx.ok()) return tx.status();
    YUZU_RETURN_IF_ERROR(require_agent(conn, agent_id));
    auto upsert = conn.prepare(
        "INSERT INTO inventory(agent_id, source, status, reason, data_json, collected_at_ms, "
        "received_at_ms) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7) "
        "ON CONFLICT(agent_id, source) DO UPDATE SET status = excluded.status, "
        "reason = excluded.reason, data_json = excluded.data_json, "
        "collected_at_ms = excluded.collected_at_ms, received_at_ms = "
        "excluded.received_at_ms");
    if (!upsert.ok()) return upsert.status();
    for (const CheckedItem& c : report->items) {
        upsert->bind(1, agent_id).bind(2, c.item->source).bind(3, c.item->status);
        upsert->bind(4, c.reason).bind(5, c.data_json).bind(6, c.collected_at_ms);
        YUZU_RETURN_IF_ERROR(upsert->bind(7, now_ms).run());
    }
    if (report->packages) YUZU_RETURN_IF_ERROR(replace_software(conn, agent_id, *report->packages));
    // A report without a digest leaves none behind: the next digest-only
    // report must not confirm sources it did not describe.
    auto digest = sources_sha256.empty()
                      ? conn.prepare("DELETE FROM inventory_digests WHERE agent_id = ?1")
                      : conn.prepare(
                            "INSERT INTO inventory_digests(agent_id, sha256, received_at_ms) "
                            "VALUES(?1, ?2, ?3) ON CONFLICT(agent_id) DO UPDATE SET "
                            "sha256 = excluded.sha256, received_at_ms = excluded.received_at_ms");
    if (!digest.ok()) return digest.status();
    digest->bind(1, agent_id);
    if (!sources_sha256.empty()) digest->bind(2, sources_sha256).bind(3, now_ms);
    YUZU_RETURN_IF_ERROR(digest->run());
    return tx.commit();
}

Result<bool> InventoryStore::confirm_unchanged(const std::string& agent_id,
                                               const std::string& sources_sha256,
                                               int64_t collected_at_ms) {
    if (!is_sha256_hex(sources_sha256)) {
        return Status::InvalidArgument("sources_sha256 must be 64 lowercase hex digits");
    }
    if (!is_agent_id(agent_id)) {
        return Status::NotFound("agent '" + agent_id + "' is not registered");
    }
    const int64_t now_ms = clock_.now_ms();
    const int64_t collected = collected_at_ms > 0 ? std::min(collected_at_ms, now_ms) : now_ms;
    auto conn = db_.lock();
    auto tx = conn.transaction();
    if (!tx.ok()) return tx.status();
    auto find = conn.prepare("SELECT sha256 FROM inventory_digests WHERE agent_id = ?1");
    if (!find.ok()) return find.status();
    find->bind(1, agent_id);
    auto row = find->step();
    if (!row.ok()) return row.status();
    if (!*row || find->column_text(0) != sources_sha256) return false;
    auto stamp = conn.prepare(
        "UPDATE inventory SET collected_at_ms = ?2, received_at_ms = ?3 WHERE agent_id = ?1");
    if (!stamp.ok()) return stamp.status();
    YUZU_RETURN_IF_ERROR(stamp->bind(1, agent_id).bind(2, collected).bind(3, now_ms).run());
    auto seen =
        conn.prepare("UPDATE inventory_digests SET received_at_ms = ?2 WHERE agent_id = ?1");
    if (!seen.ok()) return seen.status();
    YUZU_RETURN_IF_ERROR(seen->bind(1, agent_id).bind(2, now_ms).run());
    YUZU_RETURN_IF_ERROR(tx.commit());
    return true;
}

Result<std::vector<InventoryItem>> InventoryStore::for_agent(const std::string& agent_id) const {
    auto conn = reader_.lock();
    YUZU_RETURN_IF_ERROR(require_agent(conn, agent_id));
    auto stmt = conn.prepare(std::string(kSelectItem) + " AND agent_id = ?1 ORDER BY source");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, agent_id);
    std::vector<InventoryItem> out;
    for (;;) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        out.push_back(read_item(*stmt));
    }
    return out;
}

Result<std::pair<std::vector<InventoryItem>, bool>> InventoryStore::query(
    const InventoryQuery& q) const {
    YUZU_RETURN_IF_ERROR(check_limit(q.limit));
    std::pair<std::vector<InventoryItem>, bool> out{{}, false};
    if (q.only_agents && q.only_agents->empty()) return out;

    std::string sql(kSelectItem);
    if (q.agent_id) sql += " AND agent_id = :agent";
    if (q.source) sql += " AND source = :source";
    if (q.only_agents) sql += kOnlyAgents;
    sql += " ORDER BY agent_id, source LIMIT :limit";

    auto conn = reader_.lock();
    auto stmt = conn.prepare(sql);
    if (!stmt.ok()) return stmt.status();
    if (q.agent_id) stmt->bind(":agent", *q.agent_id);
    if (q.source) stmt->bind(":source", *q.source);
    if (q.only_agents) stmt->bind(":only", agent_set_json(*q.only_agents));
    stmt->bind(":limit", q.limit + 1);  // one more row tells whether limit cut
    for (;;) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        if (out.first.size() == static_cast<size_t>(q.limit)) {
            out.second = true;
            break;
        }
        out.first.push_back(read_item(*stmt));
    }
    return out;
}

Result<std::vector<InventoryTable>> InventoryStore::tables(
    const std::optional<std::set<std::string>>& only_agents) const {
    std::vector<InventoryTable> out;
    if (only_agents && only_agents->empty()) return out;
    // agent_count counts agents whose latest report of the source had data.
    std::string sql =
        "SELECT source, SUM(status = 'ok'), MAX(collected_at_ms) "
        "FROM inventory WHERE 1 = 1";
    if (only_agents) sql += kOnlyAgents;
    sql += " GROUP BY source ORDER BY source";

    auto conn = reader_.lock();
    auto stmt = conn.prepare(sql);
    if (!stmt.ok()) return stmt.status();
    if (only_agents) stmt->bind(":only", agent_set_json(*only_agents));
    for (;;) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        InventoryTable t;
        t.source = stmt->column_text(0);
        t.agent_count = stmt->column_int64(1);
        t.last_collected_ms = stmt->column_int64(2);
        out.push_back(std::move(t));
    }
    return out;
}

Result<std::pair<std::vector<InstalledSoftware>, bool>> InventoryStore::software(
    const SoftwareQuery& q) const {
    YUZU_RETURN_IF_ERROR(check_limit(q.limit));
    std::pair<std::vector<InstalledSoftware>, bool> out{{}, false};
    if (q.only_agents && q.only_agents->empty()) return out;

    std::string sql =
        "SELECT agent_id, name, version, arch FROM "
        "installed_software WHERE 1 = 1";
    if (q.name) sql += " AND name = :name";
    if (q.agent_id) sql += " AND agent_id = :agent";
    if (q.only_agents) sql += kOnlyAgents;
    sql += " ORDER BY name, agent_id, version, arch LIMIT :limit";

    auto conn = reader_.lock();
    auto stmt = conn.prepare(sql);
    if (!stmt.ok()) return stmt.status();
    if (q.name) stmt->bind(":name", *q.name);
    if (q.agent_id) stmt->bind(":agent", *q.agent_id);
    if (q.only_agents) stmt->bind(":only", agent_set_json(*q.only_agents));
    stmt->bind(":limit", q.limit + 1);
    for (;;) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        if (out.first.size() == static_cast<size_t>(q.limit)) {
            out.second = true;
            break;
        }
        InstalledSoftware s;
        s.agent_id = stmt->column_text(0);
        s.name = stmt->column_text(1);
        s.version = stmt->column_text(2);
        s.arch = stmt->column_text(3);
        out.first.push_back(std::move(s));
    }
    return out;
}

}  // namespace yuzu::fleet
