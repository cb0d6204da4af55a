// Fluent builders for metric families, shaped like prometheus-cpp's:
//   BuildCounter().Name("x_total").Help("...").Labels({{"k", "v"}}).Register(registry)
//
// Thread-safety: a Builder is a plain value used by one thread; Register() is
// safe to call concurrently (see Registry).
#pragma once

#include <cassert>
#include <string>

#include "yuzu/metrics/counter.hpp"
#include "yuzu/metrics/family.hpp"
#include "yuzu/metrics/gauge.hpp"
#include "yuzu/metrics/histogram.hpp"
#include "yuzu/metrics/labels.hpp"
#include "yuzu/metrics/registry.hpp"

namespace yuzu::metrics {
namespace detail {

template <typename T>
class Builder {
  public:
    Builder& Name(const std::string& name) {
        name_ = name;
        return *this;
    }
    Builder& Help(const std::string& help) {
        help_ = help;
        return *this;
    }
    // Constant labels, printed on every series of the family.
    Builder& Labels(const ::yuzu::metrics::Labels& labels) {
        labels_ = labels;
        return *this;
    }
    Family<T>& Register(Registry& registry) {
        assert(!name_.empty() && "a metric family needs a Name()");
        return registry.Add<T>(name_, help_, labels_);
    }

  private:
    std::string name_;
    std::string help_;
    ::yuzu::metrics::Labels labels_;
};

}  // namespace detail

inline detail::Builder<Counter> BuildCounter() {
    return {};
}
inline detail::Builder<Gauge> BuildGauge() {
    return {};
}
inline detail::Builder<Histogram> BuildHistogram() {
    return {};
}

}  // namespace yuzu::metrics
