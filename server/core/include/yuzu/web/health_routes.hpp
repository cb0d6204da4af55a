// GET /livez, GET /readyz and GET /metrics.
#pragma once

namespace yuzu {
class Readiness;
}
namespace yuzu::metrics {
class Registry;
}
namespace yuzu::http {
class HttpServer;
}

namespace yuzu::web {

// /livez answers 200 while the process serves; /readyz runs `readiness` and
// answers 503 naming the failing checks; /metrics is Prometheus text 0.0.4.
void register_health_routes(http::HttpServer& server, const Readiness& readiness,
                            const metrics::Registry& registry);

}  // namespace yuzu::web
