// The metric types this registry exposes.
#pragma once

#include <string_view>

namespace yuzu::metrics {

enum class MetricType { kCounter, kGauge, kHistogram };

// The word the `# TYPE` line uses: "counter", "gauge", "histogram".
std::string_view MetricTypeName(MetricType type);

}  // namespace yuzu::metrics
