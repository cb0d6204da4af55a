// What the internal CA issues and keeps: one row per certificate, its
// purpose, subject and revocation state. The private key of an issued
// certificate is never here: agents and code-signing callers send a CSR and
// keep their key; the server's own TLS key lives in memory only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace yuzu::pki {

enum class Purpose { kAgent, kServer, kCodeSigning };

std::string_view purpose_name(Purpose purpose);  // "agent" | "server" | "code_signing"
std::optional<Purpose> parse_purpose(std::string_view name);

// Lifetimes of what the CA signs. Agents renew when a third of the life is
// left (certificate_renewal in the heartbeat answer); the server renews its
// own agent-plane identity the same way.
inline constexpr int64_t kRootLifetimeS = int64_t{20} * 365 * 86400;
inline constexpr int64_t kSigningLifetimeS = int64_t{5} * 365 * 86400;
inline constexpr int64_t kAgentLifetimeS = int64_t{90} * 86400;
inline constexpr int64_t kServerLifetimeS = int64_t{90} * 86400;
inline constexpr int64_t kCodeSigningLifetimeS = int64_t{365} * 86400;
// A CRL is valid this long; it is republished on every revocation and by
// the maintenance pass once it is a day old, so an idle CA never lets its
// CRLs lapse (an expired CRL makes every handshake fail, by design).
inline constexpr int64_t kCrlLifetimeS = int64_t{7} * 86400;
inline constexpr int64_t kCrlRepublishAfterS = 86400;
// How often the server's maintenance pass refreshes CRLs and renews its own
// agent-plane certificate.
inline constexpr int64_t kMaintenancePeriodS = 300;

// Bounds on caller input.
inline constexpr size_t kMaxCsrBytes = 16 * 1024;
inline constexpr size_t kMaxSubjectBytes = 64;  // X.509 CN upper bound
inline constexpr size_t kMaxRevocationReasonBytes = 256;
inline constexpr size_t kMaxSerialHexChars = 64;

struct IssuedCertificate {
    std::string serial_hex;  // upper-case hex, no separators
    Purpose purpose = Purpose::kAgent;
    std::string subject;  // the CN
    std::vector<std::string> san;
    std::string agent_id;       // agent certificates: the agent it belongs to
    int generation = 0;         // the signing generation that issued it
    std::string issuer_key_id;  // that generation's subject key identifier, hex
    std::string issued_by;      // principal name, or "enrollment"
    int64_t issued_at_ms = 0;
    int64_t not_before_ms = 0;
    int64_t not_after_ms = 0;
    std::optional<int64_t> revoked_at_ms;
    std::string revocation_reason;
    std::string certificate_pem;

    bool revoked() const { return revoked_at_ms.has_value(); }
};

// What a subjectAltName may hold: a DNS name (letters, digits, '-', dots
// between labels, a leading "*." wildcard) or an IPv4/IPv6 address.
bool is_valid_dns_name(std::string_view name);
bool is_valid_ip_address(std::string_view address);

// Upper-cased; nullopt unless 1..kMaxSerialHexChars hex digits.
std::optional<std::string> normalize_serial_hex(std::string_view serial);

}  // namespace yuzu::pki
