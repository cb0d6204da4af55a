// The TLS client certificate of the request being handled, read on the
// handler's own thread (the connection's SSL session belongs to it). The
// handshake already verified it; routes use this to bind it to an identity
// and to re-check revocation on a connection kept alive across one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace yuzu::http {

struct PeerCertificate {
    std::string serial_hex;     // upper-case hex, as the CA writes it
    std::string common_name;    // "" when the subject has none
    std::string issuer_key_id;  // authority key identifier, upper-case hex
    int64_t not_after_ms = 0;
};

// nullopt on a plain connection, or when the peer sent no certificate.
std::optional<PeerCertificate> current_peer_certificate();

}  // namespace yuzu::http
