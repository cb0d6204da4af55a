#include "yuzu/audit/audit_read.hpp"

#include <nlohmann/json.hpp>

#include "yuzu/common/json_text.hpp"

namespace yuzu::audit {

std::string audit_read_detail(const AuditQuery& q, const std::string& error) {
    nlohmann::json d = nlohmann::json::object();
    const auto text = [&d](const char* key, const std::string& value) {
        if (!value.empty()) d[key] = value;
    };
    text("principal", q.principal);
    text("action", q.action);
    text("target_type", q.target_type);
    text("target_id", q.target_id);
    text("result", q.result);
    if (q.since_ms != 0) d["since"] = q.since_ms / 1000;
    if (q.until_ms != 0) d["until"] = q.until_ms / 1000;
    d["limit"] = q.limit;
    d["cursor"] = !q.cursor.empty();
    text("error", error);
    return dump_json(d);
}

}  // namespace yuzu::audit
