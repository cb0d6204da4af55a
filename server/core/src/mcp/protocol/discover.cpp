// server/discover and the capabilities both eras declare.
#include "yuzu/mcp/mcp_server.hpp"
#include "yuzu/mcp/protocol_era.hpp"

namespace yuzu::mcp {

nlohmann::json McpServer::capabilities(bool modern) const {
    // Lists never change while the server runs (listChanged false), and
    // resources are generated per read: there is nothing to subscribe to.
    // The 2026 revision dropped resources/subscribe, so it is not named.
    nlohmann::json resources = {{"listChanged", false}};
    if (!modern) resources["subscribe"] = false;
    return {{"tools", {{"listChanged", false}}},
            {"resources", std::move(resources)},
            {"prompts", {{"listChanged", false}}},
            {"logging", nlohmann::json::object()},
            {"completions", nlohmann::json::object()}};
}

McpServer::MethodResult McpServer::discover() const {
    nlohmann::json server_info = {
        {"name", "yuzu-server"}, {"title", "Yuzu"}, {"version", options_.server_version}};
    nlohmann::json result = {
        {"supportedVersions", kModernProtocolVersions},
        {"capabilities", capabilities(true)},
        {"_meta", {{kMetaServerInfo, std::move(server_info)}}},
    };
    if (!options_.instructions.empty()) result["instructions"] = options_.instructions;
    return result;
}

}  // namespace yuzu::mcp
