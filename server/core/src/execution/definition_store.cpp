#include "yuzu/execution/definition_store.hpp"

#include <string_view>
#include <utility>

#include "execution/builtin_definitions.hpp"
#include "execution/definition_validation.hpp"
#include "execution/identifiers.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::execution {
namespace {

constexpr std::string_view kSelect =
    "SELECT definition_id, name, version, plugin, action, type, description, parameter_schema, "
    "result_columns, approval_mode, destructive, enabled, builtin, created_at_ms, updated_at_ms "
    "FROM definitions ";

constexpr int kCreateAttempts = 3;

std::string select(std::string_view tail) {
    std::string sql(kSelect);
    sql.append(tail);
    return sql;
}

InstructionDefinition read_row(const store::Statement& s) {
    InstructionDefinition d;
    d.id = s.column_text(0);
    d.name = s.column_text(1);
    d.version = static_cast<int>(s.column_int64(2));
    d.plugin = s.column_text(3);
    d.action = s.column_text(4);
    d.type = s.column_text(5);
    d.description = s.column_text(6);
    d.parameter_schema_json = s.column_text(7);
    d.result_columns_json = s.column_text(8);
    d.approval_mode = s.column_text(9);
    d.destructive = s.column_int64(10) != 0;
    d.enabled = s.column_int64(11) != 0;
    d.builtin = s.column_int64(12) != 0;
    d.created_at_ms = s.column_int64(13);
    d.updated_at_ms = s.column_int64(14);
    return d;
}

Status definition_not_found(std::string_view id) {
    return Status::NotFound("instruction definition '" + std::string(id) + "' not found");
}

Result<std::optional<InstructionDefinition>> fetch(store::Conn& conn, std::string_view where,
                                                   std::string_view a, std::string_view b = {}) {
    auto stmt = conn.prepare(select(where));
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, a);
    if (!b.empty()) stmt->bind(2, b);
    auto row = stmt->step();
    if (!row.ok()) return row.status();
    std::optional<InstructionDefinition> out;
    if (*row) out = read_row(*stmt);
    return out;
}

// Inserts `spec` (validated, with an id) as a new row.
Status insert(store::Conn& conn, const DefinitionSpec& spec, bool builtin, int64_t now_ms,
              bool ignore_existing) {
    std::string sql = ignore_existing ? "INSERT OR IGNORE" : "INSERT";
    sql +=
        " INTO definitions(definition_id, name, version, plugin, action, type, description, "
        "parameter_schema, result_columns, approval_mode, destructive, enabled, builtin, "
        "created_at_ms, updated_at_ms) VALUES(?1, ?2, 1, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
        "?12, ?13, ?13)";
    auto stmt = conn.prepare(sql);
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, spec.id).bind(2, spec.name).bind(3, spec.plugin).bind(4, spec.action);
    stmt->bind(5, spec.type).bind(6, spec.description).bind(7, spec.parameter_schema_json);
    stmt->bind(8, spec.result_columns_json).bind(9, spec.approval_mode);
    stmt->bind(10, spec.destructive ? 1 : 0).bind(11, spec.enabled ? 1 : 0);
    stmt->bind(12, builtin ? 1 : 0).bind(13, now_ms);
    return stmt->run();
}

Status taken(const DefinitionSpec& spec) {
    return Status::AlreadyExists("an instruction definition for " + spec.plugin + "." +
                                 spec.action + " or with id '" + spec.id +
                                 "' already exists; update that one instead");
}

}  // namespace

DefinitionStore::DefinitionStore(store::Database& db, const Clock& clock)
    : db_(db), clock_(clock) {}

Status DefinitionStore::seed_builtins() {
    const int64_t now_ms = clock_.now_ms();
    auto conn = db_.lock();
    auto tx = conn.transaction();
    if (!tx.ok()) return tx.status();
    for (const DefinitionSpec& builtin : builtin_definitions()) {
        auto valid = validate_definition(builtin);
        if (!valid.ok()) {
            return Status::Internal("built-in definition " + builtin.id +
                                    " is invalid: " + valid.status().message());
        }
        YUZU_RETURN_IF_ERROR(insert(conn, *valid, /*builtin=*/true, now_ms,
                                    /*ignore_existing=*/true));
    }
    return tx.commit();
}

Result<InstructionDefinition> DefinitionStore::create(const DefinitionSpec& spec) {
    auto valid = validate_definition(spec);
    if (!valid.ok()) return valid.status();
    DefinitionSpec row = std::move(valid).value();
    const bool generate_id = row.id.empty();
    {
        auto conn = db_.lock();
        for (int attempt = 0; attempt < kCreateAttempts; ++attempt) {
            if (generate_id) {
                auto id = new_definition_id();
                if (!id.ok()) return id.status();
                row.id = std::move(id).value();
            }
            Status inserted = insert(conn, row, /*builtin=*/false, clock_.now_ms(),
                                     /*ignore_existing=*/false);
            if (inserted.ok()) break;
            if (inserted.code() != StatusCode::kAlreadyExists) return inserted;
            // A taken plugin+action or a caller-chosen id cannot be fixed by
            // retrying.
            auto by_pair = fetch(conn, "WHERE plugin = ?1 AND action = ?2", row.plugin, row.action);
            if (!by_pair.ok()) return by_pair.status();
            if (!generate_id || by_pair->has_value() || attempt + 1 == kCreateAttempts) {
                return taken(row);
            }
        }
    }
    return get(row.id);
}

Result<InstructionDefinition> DefinitionStore::update(const std::string& id,
                                                      const DefinitionSpec& spec) {
    auto valid = validate_definition(spec);
    if (!valid.ok()) return valid.status();
    const DefinitionSpec& row = *valid;
    {
        auto conn = db_.lock();
        auto tx = conn.transaction();
        if (!tx.ok()) return tx.status();
        auto existing = fetch(conn, "WHERE definition_id = ?1", id);
        if (!existing.ok()) return existing.status();
        if (!existing->has_value()) return definition_not_found(id);
        if ((*existing)->builtin) {
            return Status::FailedPrecondition("built-in definition '" + id +
                                              "' can only be enabled or disabled");
        }
        auto stmt = conn.prepare(
            "UPDATE definitions SET name = ?2, version = version + 1, plugin = ?3, action = ?4, "
            "type = ?5, description = ?6, parameter_schema = ?7, result_columns = ?8, "
            "approval_mode = ?9, destructive = ?10, enabled = ?11, updated_at_ms = ?12 WHERE "
            "definition_id = ?1");
        if (!stmt.ok()) return stmt.status();
        stmt->bind(1, id).bind(2, row.name).bind(3, row.plugin).bind(4, row.action);
        stmt->bind(5, row.type).bind(6, row.description).bind(7, row.parameter_schema_json);
        stmt->bind(8, row.result_columns_json).bind(9, row.approval_mode);
        stmt->bind(10, row.destructive ? 1 : 0).bind(11, row.enabled ? 1 : 0);
        stmt->bind(12, clock_.now_ms());
        Status updated = stmt->run();
        if (updated.code() == StatusCode::kAlreadyExists) {
            DefinitionSpec named = row;
            named.id = id;
            return taken(named);
        }
        YUZU_RETURN_IF_ERROR(updated);
        YUZU_RETURN_IF_ERROR(tx.commit());
    }
    return get(id);
}

Status DefinitionStore::set_enabled(const std::string& id, bool enabled) {
    auto conn = db_.lock();
    auto stmt = conn.prepare(
        "UPDATE definitions SET enabled = ?2, updated_at_ms = ?3 WHERE definition_id = ?1");
    if (!stmt.ok()) return stmt.status();
    YUZU_RETURN_IF_ERROR(stmt->bind(1, id).bind(2, enabled ? 1 : 0).bind(3, clock_.now_ms()).run());
    if (conn.changes() == 0) return definition_not_found(id);
    return Status::Ok();
}

Status DefinitionStore::remove(const std::string& id) {
    auto conn = db_.lock();
    auto existing = fetch(conn, "WHERE definition_id = ?1", id);
    if (!existing.ok()) return existing.status();
    if (!existing->has_value()) return definition_not_found(id);
    if ((*existing)->builtin) {
        return Status::FailedPrecondition("built-in definition '" + id +
                                          "' cannot be deleted; disable it instead");
    }
    auto stmt = conn.prepare("DELETE FROM definitions WHERE definition_id = ?1");
    if (!stmt.ok()) return stmt.status();
    return stmt->bind(1, id).run();
}

Result<InstructionDefinition> DefinitionStore::get(const std::string& id) const {
    auto conn = db_.lock();
    auto row = fetch(conn, "WHERE definition_id = ?1", id);
    if (!row.ok()) return row.status();
    if (!row->has_value()) return definition_not_found(id);
    return std::move(**row);
}

Result<InstructionDefinition> DefinitionStore::find(const std::string& plugin,
                                                    const std::string& action) const {
    if (plugin.empty() || action.empty()) {
        return Status::NotFound("no instruction definition for an empty plugin or action");
    }
    auto conn = db_.lock();
    auto row = fetch(conn, "WHERE plugin = ?1 AND action = ?2", plugin, action);
    if (!row.ok()) return row.status();
    if (!row->has_value()) {
        return Status::NotFound("no instruction definition for " + plugin + "." + action);
    }
    return std::move(**row);
}

Result<std::vector<InstructionDefinition>> DefinitionStore::list(
    const DefinitionFilter& filter) const {
    if (!filter.type.empty() && filter.type != "question" && filter.type != "action") {
        return Status::InvalidArgument("type must be \"question\" or \"action\"");
    }
    auto conn = db_.lock();
    auto stmt =
        conn.prepare(select("WHERE (?1 = '' OR plugin = ?1) AND (?2 = '' OR type = ?2) AND "
                            "(?3 < 0 OR enabled = ?3) ORDER BY plugin, action, definition_id"));
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, filter.plugin).bind(2, filter.type);
    stmt->bind(3, filter.enabled.has_value() ? (*filter.enabled ? 1 : 0) : -1);
    std::vector<InstructionDefinition> out;
    for (;;) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        out.push_back(read_row(*stmt));
    }
    return out;
}

}  // namespace yuzu::execution
