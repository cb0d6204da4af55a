// Private to the web module: the dashboard's static assets, compiled into
// the server so it needs no asset directory and no external CDN. Served as
// /ui/app.js and /ui/app.css (same origin, so the CSP's 'self' covers them).
//
// Thread-safety: constant data.
#pragma once

#include <string_view>

namespace yuzu::web {

std::string_view dashboard_script();
std::string_view dashboard_stylesheet();

}  // namespace yuzu::web
