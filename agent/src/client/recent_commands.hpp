// The commands this identity has answered recently, with the result body
// it sent. Commands are delivered at least once; one seen again is not run
// again: its stored result is sent again instead.
//
// Thread-safety: none; owned by the identity's command thread.
#pragma once

#include <cstddef>
#include <deque>
#include <string>
#include <unordered_map>

namespace yuzu::agent {

class RecentCommands {
  public:
    explicit RecentCommands(size_t capacity = 1024);

    // The result body sent for command_id, or nullptr if it is not remembered.
    const std::string* find(const std::string& command_id) const;
    // Remembers command_id; the oldest entry goes once capacity is reached.
    void remember(const std::string& command_id, std::string result_body);
    size_t size() const { return results_.size(); }

  private:
    size_t capacity_;
    std::deque<std::string> order_;  // oldest first
    std::unordered_map<std::string, std::string> results_;
};

}  // namespace yuzu::agent
