#include "yuzu/web/health_routes.hpp"

#include <nlohmann/json.hpp>

#include "yuzu/common/readiness.hpp"
#include "yuzu/http/server.hpp"
#include "yuzu/metrics/registry.hpp"

namespace yuzu::web {

void register_health_routes(http::HttpServer& server, const Readiness& readiness,
                            const metrics::Registry& registry) {
    server.get("/livez", "/livez", [](const httplib::Request&, httplib::Response& res) {
        http::write_json(res, 200, R"({"status":"ok"})");
    });

    server.get("/readyz", "/readyz", [&readiness](const httplib::Request&, httplib::Response& res) {
        nlohmann::json checks = nlohmann::json::object();
        bool ready = true;
        for (const auto& outcome : readiness.evaluate()) {
            checks[outcome.name] =
                outcome.status.ok() ? std::string("ok") : outcome.status.message();
            ready = ready && outcome.status.ok();
        }
        nlohmann::json body = {{"status", ready ? "ready" : "not_ready"}, {"checks", checks}};
        http::write_json(res, ready ? 200 : 503, body);
    });

    server.get(
        "/metrics", "/metrics", [&registry](const httplib::Request&, httplib::Response& res) {
            res.set_content(registry.Serialize(), "text/plain; version=0.0.4; charset=utf-8");
        });
}

}  // namespace yuzu::web
