#include "yuzu/audit/audit_json.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace yuzu::audit {

nlohmann::json to_json(const AuditEvent& event) {
    return nlohmann::json{
        {"id", event.id},
        {"timestamp", event.timestamp_ms / 1000},
        {"timestamp_ms", event.timestamp_ms},
        {"principal", event.principal},
        {"principal_kind", event.principal_kind},
        {"action", event.action},
        {"target_type", event.target_type},
        {"target_id", event.target_id},
        {"detail", event.detail},
        {"source_ip", event.source_ip},
        {"user_agent", event.user_agent},
        {"result", std::string(audit_result_name(event.result))},
        {"correlation_id", event.correlation_id},
    };
}

}  // namespace yuzu::audit
