// Labels and the naming rules of the Prometheus data model.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace yuzu::metrics {

// Label name -> value. std::map keeps the names sorted, and that is the order
// the exposition prints them in.
using Labels = std::map<std::string, std::string>;

// [a-zA-Z_:][a-zA-Z0-9_:]*
bool IsValidMetricName(std::string_view name);

// [a-zA-Z_][a-zA-Z0-9_]*, and not starting with "__" (reserved by Prometheus).
bool IsValidLabelName(std::string_view name);

}  // namespace yuzu::metrics
