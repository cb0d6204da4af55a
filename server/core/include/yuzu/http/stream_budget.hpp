// StreamBudget: admission for held-open streams on one listener. Each open
// stream holds a worker thread for its life, so every SSE surface
// (/api/v1/events, the MCP GET channel) leases from one budget: a global
// cap (--max-sse-streams) and a per-principal cap (for the MCP channel,
// --mcp-max-streams-per-principal), so one caller cannot take every slot.
//
// Thread-safe. A Lease gives its slot back when destroyed; it may be moved
// (an MCP stream taken over by a second GET keeps the first one's lease).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace yuzu::http {

class StreamBudget {
  public:
    enum class Refusal { kGlobalCap, kPerPrincipalCap };

    class Lease {
      public:
        Lease() = default;
        Lease(Lease&& other) noexcept;
        Lease& operator=(Lease&& other) noexcept;
        Lease(const Lease&) = delete;
        Lease& operator=(const Lease&) = delete;
        ~Lease();
        bool held() const { return budget_ != nullptr; }
        void release();

      private:
        friend class StreamBudget;
        Lease(StreamBudget* budget, std::string principal)
            : budget_(budget), principal_(std::move(principal)) {}
        StreamBudget* budget_ = nullptr;
        std::string principal_;
    };

    // `per_principal_cap` 0: no per-principal cap.
    StreamBudget(size_t global_cap, size_t per_principal_cap);
    StreamBudget(const StreamBudget&) = delete;
    StreamBudget& operator=(const StreamBudget&) = delete;

    // A slot for `principal`, or why not. `apply_per_principal` false: only
    // the global cap applies (surfaces without a per-principal limit).
    struct Admission {
        std::optional<Lease> lease;
        Refusal refusal = Refusal::kGlobalCap;  // when !lease
    };
    Admission acquire(const std::string& principal, bool apply_per_principal = true);

    size_t active() const;
    size_t active_for(const std::string& principal) const;
    size_t cap() const { return global_cap_; }
    size_t per_principal_cap() const { return per_principal_cap_; }

  private:
    void give_back(const std::string& principal);

    const size_t global_cap_;
    const size_t per_principal_cap_;
    mutable std::mutex mu_;
    size_t active_ = 0;                           // guarded by mu_
    std::map<std::string, size_t> by_principal_;  // guarded by mu_; no zero entries
};

}  // namespace yuzu::http
