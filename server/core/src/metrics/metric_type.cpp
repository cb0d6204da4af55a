#include "yuzu/metrics/metric_type.hpp"

namespace yuzu::metrics {

std::string_view MetricTypeName(MetricType type) {
    switch (type) {
        case MetricType::kCounter:
            return "counter";
        case MetricType::kGauge:
            return "gauge";
        case MetricType::kHistogram:
            return "histogram";
    }
    return "untyped";  // unreachable: the switch covers every enumerator
}

}  // namespace yuzu::metrics
