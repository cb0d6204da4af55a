// RequestSeries: the request-count and latency series of one listener,
// found by (route, method, status) without a label map per request.
//
// Family::Add takes a map of four strings and a lookup in the family's map
// of maps: a few thousand instructions on every request, for series that
// are nearly always the same handful. This keeps the series already met in
// a short list and asks the family only for a new one.
//
// Thread-safety: safe to call from any thread.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace yuzu::metrics {
template <typename T>
class Family;
class Counter;
class Histogram;
}  // namespace yuzu::metrics

namespace yuzu::http {

class RequestSeries {
  public:
    // The families must outlive this object, and no series of theirs may be
    // removed while it lives (their references would go stale here).
    RequestSeries(metrics::Family<metrics::Counter>& requests_total,
                  metrics::Family<metrics::Histogram>& request_seconds, std::string listener);

    // requests_total{listener, route, method, status}
    metrics::Counter& requests(std::string_view route, std::string_view method, int status);
    // request_seconds{listener, route, method}, with the default latency buckets
    metrics::Histogram& latency(std::string_view route, std::string_view method);

    // Series remembered beyond this many are still found, but through the
    // family each time: the method label is the client's, so the set of
    // series is not bounded by the routes alone.
    static constexpr size_t kMaxRemembered = 128;

  private:
    template <typename T>
    struct Remembered {
        std::string route;
        std::string method;
        int status = 0;  // unused for latency series
        T* series = nullptr;
    };
    template <typename T, typename Make>
    static T& lookup(std::mutex& mu, std::vector<Remembered<T>>& list, std::string_view route,
                     std::string_view method, int status, Make&& make);

    metrics::Family<metrics::Counter>& requests_total_;
    metrics::Family<metrics::Histogram>& request_seconds_;
    const std::string listener_;
    std::mutex mu_;
    std::vector<Remembered<metrics::Counter>> counters_;     // guarded by mu_
    std::vector<Remembered<metrics::Histogram>> latencies_;  // guarded by mu_
};

}  // namespace yuzu::http
