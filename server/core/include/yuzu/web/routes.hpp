// Registers every REST route under /api/v1 and the login/logout routes.
#pragma once

namespace yuzu::http {
class HttpServer;
}

namespace yuzu::web {

struct WebContext;

void register_rest_routes(http::HttpServer& server, const WebContext& ctx);

}  // namespace yuzu::web
