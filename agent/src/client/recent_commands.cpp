#include "client/recent_commands.hpp"

#include <algorithm>
#include <utility>

namespace yuzu::agent {

RecentCommands::RecentCommands(size_t capacity) : capacity_(std::max<size_t>(capacity, 1)) {}

const std::string* RecentCommands::find(const std::string& command_id) const {
    const auto it = results_.find(command_id);
    return it == results_.end() ? nullptr : &it->second;
}

void RecentCommands::remember(const std::string& command_id, std::string result_body) {
    if (auto it = results_.find(command_id); it != results_.end()) {
        it->second = std::move(result_body);
        return;
    }
    if (order_.size() >= capacity_) {
        results_.erase(order_.front());
        order_.pop_front();
    }
    order_.push_back(command_id);
    results_.emplace(command_id, std::move(result_body));
}

}  // namespace yuzu::agent
