#include "plugins/outcome.hpp"

#include <cmath>
#include <utility>

namespace yuzu::agent::plugins {

PluginOutcome success(const nlohmann::json& output) {
    PluginOutcome out;
    out.status = "success";
    out.output_json = output.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return out;
}

PluginOutcome failure(std::string error) {
    PluginOutcome out;
    out.status = "failure";
    out.error = std::move(error);
    return out;
}

PluginOutcome timed_out(std::string error) {
    PluginOutcome out;
    out.status = "timeout";
    out.error = std::move(error);
    return out;
}

PluginOutcome failure_from(const Status& status) {
    return failure(status.message());
}

double round_pct(double pct) {
    if (!std::isfinite(pct)) return 0.0;
    return std::round(pct * 10.0) / 10.0;
}

}  // namespace yuzu::agent::plugins
