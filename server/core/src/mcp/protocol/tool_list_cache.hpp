// ToolListCache: the serialized tools/list result for each (tier, page).
//
// A tools/list answer depends only on the caller's MCP tier, the page and
// the catalogue, and the catalogue changes only while the server is wired.
// Building it means a JSON object per tool and a 40 KB dump, so it is built
// once per (catalogue generation, tier, page offset) and the bytes are kept.
// Only the offsets the server hands out as cursors (multiples of the page
// size) are kept, which bounds the cache at tiers × pages.
//
// Thread-safety: safe to call from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace yuzu::mcp {

class ToolListCache {
  public:
    using Page = std::shared_ptr<const std::string>;

    // The result text for (tier, offset) of catalogue `generation`: the kept
    // one, or what `build` returns, kept when `keep` (a cursor offset). Null
    // when `build` returns nullopt (the page is an error; nothing is kept).
    // A new generation drops every kept page first.
    Page get(uint64_t generation, std::string_view tier, size_t offset, bool keep,
             const std::function<std::optional<std::string>()>& build);

    // How many times `build` ran, for tests.
    size_t builds() const;

  private:
    mutable std::mutex mu_;
    uint64_t generation_ = 0;                               // guarded by mu_
    std::map<std::pair<std::string, size_t>, Page> pages_;  // guarded by mu_
    size_t builds_ = 0;                                     // guarded by mu_
};

}  // namespace yuzu::mcp
