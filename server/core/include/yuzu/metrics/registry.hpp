// Registry: owns every metric family and renders them in the Prometheus text
// exposition format 0.0.4 (what GET /metrics serves).
//
// Families are created through the builders in builder.hpp:
//   auto& requests = BuildCounter().Name("yuzu_http_requests_total")
//                        .Help("HTTP requests served.").Register(registry);
//   requests.Add({{"method", "GET"}}).Increment();
//
// Thread-safety: every member is safe to call from any thread; families can
// be registered and series observed while another thread serializes.
// Families are never removed, so references handed out stay valid for the
// registry's lifetime.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "yuzu/metrics/family.hpp"
#include "yuzu/metrics/labels.hpp"

namespace yuzu::metrics {

// The Content-Type of Registry::Serialize()'s output.
inline constexpr std::string_view kExpositionContentType =
    "text/plain; version=0.0.4; charset=utf-8";

namespace detail {
template <typename T>
class Builder;
}  // namespace detail

class Registry {
  public:
    Registry();
    ~Registry();
    Registry(const Registry&) = delete;
    Registry& operator=(const Registry&) = delete;

    // Every family sorted by name, each with its HELP and TYPE lines even
    // when it has no series yet.
    std::string Serialize() const;

    // Runs `collect` at the start of every Serialize(), before any family is
    // read, so gauges that mirror state held elsewhere (process statistics,
    // fleet counts) are current at scrape time. Collectors run on the
    // scraping thread, one scrape at a time, in the order they were added;
    // they must not call Serialize(). A collector must not throw.
    void AddCollector(std::function<void()> collect);

  private:
    template <typename T>
    friend class detail::Builder;

    // The family called `name`, created on first use. The name must be valid;
    // registering it again with another type or other constant labels is a
    // programming error (asserted). In release builds a type clash returns a
    // family that is never exported, and a constant-label clash returns the
    // first family.
    template <typename T>
    Family<T>& Add(const std::string& name, const std::string& help, const Labels& constant_labels);

    mutable std::mutex collect_mu_;                  // serialises scrapes' collector runs
    std::vector<std::function<void()>> collectors_;  // guarded by collect_mu_

    mutable std::mutex mu_;
    std::map<std::string, std::unique_ptr<FamilyBase>> families_;  // guarded by mu_
    std::vector<std::unique_ptr<FamilyBase>> unexported_;          // guarded by mu_
};

}  // namespace yuzu::metrics
