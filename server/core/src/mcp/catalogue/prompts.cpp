// MCP prompts. Caller-supplied text arrives already wrapped as untrusted
// data (McpServer::get_prompt); closed-enum arguments arrive normalised.
#include "yuzu/mcp/yuzu_catalogue.hpp"

namespace yuzu::mcp {

Status register_prompts(PromptCatalogue& prompts) {
    PromptSpec audit;
    audit.name = "audit_investigation";
    audit.title = "Investigate a principal's recent activity";
    audit.description =
        "Walks the audit log for one principal over the last N hours and summarises what they "
        "did, what was denied, and anything unusual.";
    audit.arguments = {
        {"principal", "the user name to investigate", true, {}, false, {}},
        {"hours", "how far back to look (default 24)", false, {}, true, {}},
    };
    audit.render = [](const std::map<std::string, std::string>& args) -> Result<std::string> {
        const auto hours = args.count("hours") ? args.at("hours") : std::string("24");
        return "Investigate the recent activity of one Yuzu principal.\n\n" + args.at("principal") +
               "\n\nUse query_audit_log with principal set to that name and since set to now "
               "minus " +
               hours +
               " hours; page with next_cursor. Group the events by action, list every 'denied' "
               "and 'failure' row with its correlation_id, and point out anything unusual (bursts, "
               "failed logins, token changes, out-of-hours activity). Only read: do not call any "
               "tool that changes state.";
    };
    return prompts.add(std::move(audit));
}

}  // namespace yuzu::mcp
