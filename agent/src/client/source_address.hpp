// Source addresses for virtual identities. The server caps connections per
// peer address, so 10,000 identities all connecting from 127.0.0.1 would be
// refused with 429s. Linux routes all of 127.0.0.0/8 to lo, so against a
// loopback server each virtual identity binds its sockets to an address of
// its own: 127.100.(i / 250).(i % 250 + 1), 250 identities per /24.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "yuzu/agent/server_endpoint.hpp"

namespace yuzu::agent {

// A 127.0.0.0/8 literal, or "localhost" (any case).
bool is_loopback_host(std::string_view host);

// 127.100.(i / 250).(i % 250 + 1) for identity i, 0 <= i < 64,000:
// 0 -> 127.100.0.1, 249 -> 127.100.0.250, 250 -> 127.100.1.1.
std::string virtual_source_address(int index);

// The address identity `index` of `identities` binds to, or "" to let the
// kernel pick: only with `enabled` (not --no-virtual-source-addresses),
// more than one identity and a loopback server.
std::string source_address_for(const ServerEndpoint& endpoint, int index, int identities,
                               bool enabled);

}  // namespace yuzu::agent
