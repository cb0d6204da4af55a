// Readiness: the named checks behind GET /readyz (stores open and migrated,
// listeners bound). Safe to call from any thread.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "yuzu/common/status.hpp"

namespace yuzu {

class Readiness {
  public:
    using Check = std::function<Status()>;

    void add(std::string name, Check check) {
        std::lock_guard<std::mutex> lock(mu_);
        checks_.emplace_back(std::move(name), std::move(check));
    }

    struct Outcome {
        std::string name;
        Status status;
    };

    // Runs every check; the server is ready when all pass.
    std::vector<Outcome> evaluate() const {
        std::vector<std::pair<std::string, Check>> copy;
        {
            std::lock_guard<std::mutex> lock(mu_);
            copy = checks_;
        }
        std::vector<Outcome> out;
        out.reserve(copy.size());
        for (auto& [name, check] : copy) out.push_back({name, check()});
        return out;
    }

  private:
    mutable std::mutex mu_;
    std::vector<std::pair<std::string, Check>> checks_;  // guarded by mu_
};

}  // namespace yuzu
