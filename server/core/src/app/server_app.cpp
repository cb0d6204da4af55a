#include "yuzu/app/server_app.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "yuzu/common/readiness.hpp"
#include "yuzu/http/server.hpp"
#include "yuzu/metrics/registry.hpp"
#include "yuzu/store/private_dir.hpp"
#include "yuzu/web/health_routes.hpp"

namespace yuzu::app {

struct ServerApp::Parts {
    ServerConfig config;
    metrics::Registry metrics;
    Readiness readiness;
    std::unique_ptr<http::HttpServer> management;
    std::string listen_file;
};

ServerApp::ServerApp(std::unique_ptr<Parts> parts) : parts_(std::move(parts)) {}

ServerApp::~ServerApp() {
    stop();
    if (parts_ && !parts_->listen_file.empty()) {
        std::error_code ec;
        std::filesystem::remove(parts_->listen_file, ec);
    }
}

Result<std::unique_ptr<ServerApp>> ServerApp::create(const ServerConfig& config) {
    auto parts = std::make_unique<Parts>();
    parts->config = config;

    YUZU_RETURN_IF_ERROR(store::ensure_private_dir(config.data_dir));
    const std::string data_dir = config.data_dir;
    parts->readiness.add("data_dir", [data_dir]() -> Status {
        if (::access(data_dir.c_str(), W_OK) != 0) {
            return Status::Unavailable("data dir " + data_dir + " is not writable");
        }
        return Status::Ok();
    });

    http::ServerOptions options;
    options.name = "management";
    options.host = config.listen.host;
    options.port = config.listen.port;
    options.tls_cert_file = config.tls_cert_file;
    options.tls_key_file = config.tls_key_file;
    options.worker_threads = config.effective_worker_threads();
    options.max_request_body = config.max_request_body;
    auto server = http::HttpServer::create(options, parts->metrics);
    if (!server.ok()) return server.status();
    parts->management = std::move(server).value();

    web::register_health_routes(*parts->management, parts->readiness, parts->metrics);
    return std::unique_ptr<ServerApp>(new ServerApp(std::move(parts)));
}

Status ServerApp::start() {
    auto& p = *parts_;
    YUZU_RETURN_IF_ERROR(p.management->bind());
    const std::string scheme = p.management->tls() ? "https" : "http";
    ListenAddress bound{p.config.listen.host, p.management->port()};
    const std::string url = scheme + "://" + bound.to_string();

    // Written atomically so a reader never sees half a file.
    nlohmann::json listen = {{"management", url}, {"pid", static_cast<int>(::getpid())}};
    p.listen_file = (std::filesystem::path(p.config.data_dir) / "listen.json").string();
    const std::string tmp = p.listen_file + ".tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << listen.dump() << "\n";
        if (!out) return Status::Internal("could not write " + tmp);
    }
    std::error_code ec;
    std::filesystem::rename(tmp, p.listen_file, ec);
    if (ec) return Status::Internal("could not rename " + tmp + ": " + ec.message());

    spdlog::info("yuzu-server {} listening on {} (workers={}, data dir {})", YUZU_VERSION, url,
                 p.management->options().worker_threads, p.config.data_dir);
    return Status::Ok();
}

void ServerApp::serve() {
    parts_->management->serve();
}

void ServerApp::stop() {
    if (parts_ && parts_->management) parts_->management->stop();
}

int ServerApp::management_port() const {
    return parts_->management->port();
}

}  // namespace yuzu::app
