// How a 2026-07-28 answer differs from a 2025 one (protocol_era.hpp): every
// result says resultType "complete"; list results and resources/read carry
// caching hints; the methods the revision removed are not found.
// Private to protocol/.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "yuzu/mcp/jsonrpc.hpp"

namespace yuzu::mcp {

struct RequestInfo;

// Caching hints (SEP-2549). Lists change only with the catalogue, which a
// running server does not reload; private, because what tools/list shows
// depends on the caller's tier. A resource is generated from live stores per
// read, so it is never reused.
inline constexpr int64_t kListTtlMs = 300'000;
inline constexpr int64_t kResourceReadTtlMs = 0;
inline constexpr char kCacheScope[] = "private";

// initialize, ping, logging/setLevel, resources/subscribe and
// resources/unsubscribe: 2025 methods the 2026 revision dropped.
bool is_removed_in_modern_era(const std::string& method);
RpcError method_not_found(const std::string& method, bool modern, const RequestInfo& info);

class ToolCatalogue;
struct RequestMeta;

// -32021 when the called tool needs a client capability the request's _meta
// does not declare (data.requiredCapabilities names them); nullopt otherwise.
std::optional<RpcError> missing_client_capability(const ToolCatalogue& tools,
                                                  const nlohmann::json& params,
                                                  const RequestMeta& meta, const RequestInfo& info);

// resultType, and ttlMs/cacheScope where `method` asks for them.
void add_modern_result_fields(const std::string& method, nlohmann::json& result);
// The same fields spliced into a serialized tools/list result (the cached
// page, an object that is never empty).
std::string with_modern_list_fields(const std::string& result_json);

}  // namespace yuzu::mcp
