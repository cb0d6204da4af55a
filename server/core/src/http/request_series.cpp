#include "http/request_series.hpp"

#include <string>
#include <utility>

#include "yuzu/metrics/family.hpp"

namespace yuzu::http {

RequestSeries::RequestSeries(metrics::Family<metrics::Counter>& requests_total,
                             metrics::Family<metrics::Histogram>& request_seconds,
                             std::string listener)
    : requests_total_(requests_total),
      request_seconds_(request_seconds),
      listener_(std::move(listener)) {}

template <typename T, typename Make>
T& RequestSeries::lookup(std::mutex& mu, std::vector<Remembered<T>>& list, std::string_view route,
                         std::string_view method, int status, Make&& make) {
    {
        std::lock_guard<std::mutex> lock(mu);
        for (const Remembered<T>& r : list) {
            if (r.status == status && r.route == route && r.method == method) return *r.series;
        }
    }
    // Outside our lock: the family takes its own, and a second thread making
    // the same series gets the same object from it.
    T& series = make();
    std::lock_guard<std::mutex> lock(mu);
    for (const Remembered<T>& r : list) {
        if (r.series == &series) return series;  // remembered meanwhile
    }
    if (list.size() < kMaxRemembered) {
        list.push_back({std::string(route), std::string(method), status, &series});
    }
    return series;
}

metrics::Counter& RequestSeries::requests(std::string_view route, std::string_view method,
                                          int status) {
    return lookup(mu_, counters_, route, method, status, [&]() -> metrics::Counter& {
        return requests_total_.Add({{"listener", listener_},
                                    {"route", std::string(route)},
                                    {"method", std::string(method)},
                                    {"status", std::to_string(status)}});
    });
}

metrics::Histogram& RequestSeries::latency(std::string_view route, std::string_view method) {
    return lookup(mu_, latencies_, route, method, 0, [&]() -> metrics::Histogram& {
        return request_seconds_.Add({{"listener", listener_},
                                     {"route", std::string(route)},
                                     {"method", std::string(method)}},
                                    metrics::Histogram::DefaultLatencyBuckets());
    });
}

}  // namespace yuzu::http
