// The server the agent talks to, parsed from --server: scheme, host, port
// and an optional path prefix (for a server behind a reverse proxy).
//
// Thread-safety: a plain value.
#pragma once

#include <string>
#include <string_view>

#include "yuzu/common/status.hpp"

namespace yuzu::agent {

struct ServerEndpoint {
    std::string scheme;     // "http" or "https"
    std::string host;       // a name or an address; IPv6 without brackets
    int port = 0;           // explicit, or 80/443 by scheme
    std::string base_path;  // "" or "/prefix" without a trailing slash

    bool tls() const { return scheme == "https"; }
    // "scheme://host:port", IPv6 hosts in brackets.
    std::string origin() const;
    // origin() + base_path: the normalised URL identity.json records.
    std::string url() const;
};

// InvalidArgument (naming what is wrong) unless url is http:// or https://
// with a host, an optional port in 1..65535 and an optional path; user
// info, queries and fragments are refused.
Result<ServerEndpoint> parse_server_url(std::string_view url);

}  // namespace yuzu::agent
