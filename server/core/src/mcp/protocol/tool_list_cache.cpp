#include "mcp/protocol/tool_list_cache.hpp"

namespace yuzu::mcp {

ToolListCache::Page ToolListCache::get(uint64_t generation, std::string_view tier, size_t offset,
                                       bool keep,
                                       const std::function<std::optional<std::string>()>& build) {
    std::lock_guard<std::mutex> lock(mu_);
    if (generation != generation_) {
        pages_.clear();
        generation_ = generation;
    }
    auto key = std::make_pair(std::string(tier), offset);
    if (auto it = pages_.find(key); it != pages_.end()) return it->second;
    // Built under the lock: a page is built once, not once per waiting caller.
    ++builds_;
    std::optional<std::string> text = build();
    if (!text) return nullptr;
    auto page = std::make_shared<const std::string>(std::move(*text));
    if (keep) pages_.emplace(std::move(key), page);
    return page;
}

size_t ToolListCache::builds() const {
    std::lock_guard<std::mutex> lock(mu_);
    return builds_;
}

}  // namespace yuzu::mcp
