#include "yuzu/pki/certificate.hpp"

#include <arpa/inet.h>

#include <cctype>
#include <string>

namespace yuzu::pki {

std::string_view purpose_name(Purpose purpose) {
    switch (purpose) {
        case Purpose::kAgent:
            return "agent";
        case Purpose::kServer:
            return "server";
        case Purpose::kCodeSigning:
            return "code_signing";
    }
    return "agent";
}

std::optional<Purpose> parse_purpose(std::string_view name) {
    if (name == "agent") return Purpose::kAgent;
    if (name == "server") return Purpose::kServer;
    if (name == "code_signing") return Purpose::kCodeSigning;
    return std::nullopt;
}

bool is_valid_dns_name(std::string_view name) {
    if (name.empty() || name.size() > 253) return false;
    size_t label = 0;
    for (size_t i = 0; i < name.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(name[i]);
        if (c == '.') {
            if (label == 0) return false;
            label = 0;
            continue;
        }
        const bool wildcard = c == '*' && i == 0 && name.size() > 2 && name[1] == '.';
        if (!std::isalnum(c) && c != '-' && !wildcard) return false;
        if (++label > 63) return false;
    }
    return label > 0;
}

bool is_valid_ip_address(std::string_view address) {
    if (address.size() > 45) return false;
    const std::string text(address);
    unsigned char buf[16];
    return inet_pton(AF_INET, text.c_str(), buf) == 1 ||
           inet_pton(AF_INET6, text.c_str(), buf) == 1;
}

std::optional<std::string> normalize_serial_hex(std::string_view serial) {
    if (serial.empty() || serial.size() > kMaxSerialHexChars) return std::nullopt;
    std::string out;
    out.reserve(serial.size());
    for (char c : serial) {
        if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
        out.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    }
    // OpenSSL's BN_bn2hex has no leading zero nibble pairs beyond one byte.
    const size_t first = out.find_first_not_of('0');
    if (first == std::string::npos) return std::string("0");
    out.erase(0, first - (first % 2));
    if (out.size() % 2 != 0) out.insert(out.begin(), '0');
    return out;
}

}  // namespace yuzu::pki
