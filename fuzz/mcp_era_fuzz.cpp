// libFuzzer target: what the 2026-07-28 era reads from an untrusted request
// before anything runs. The input's first line is a header value, the rest
// a JSON-RPC body. Invariants:
//   - nothing crashes, throws or recurses past the JSON depth limit;
//   - a header value outside the =?base64?...?= form decodes to itself,
//     trimmed, when it holds only visible ASCII, spaces and tabs, and is
//     refused otherwise; one inside it decodes to bytes that encode back to
//     its data (only canonical base64 is accepted);
//   - parse_request_meta answers a RequestMeta whose version is one the
//     server speaks, or a -32602 / -32022 error, and -32022 lists the
//     supported versions and echoes at most 64 bytes of the requested one.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>

#include "mcp/transport/modern_headers.hpp"
#include "yuzu/auth/token_codec.hpp"
#include "yuzu/common/json_text.hpp"
#include "yuzu/mcp/error_codes.hpp"
#include "yuzu/mcp/jsonrpc.hpp"
#include "yuzu/mcp/protocol_era.hpp"

namespace {

void require(bool condition) {
    if (!condition) std::abort();
}

void check_header_value(std::string_view raw) {
    const auto decoded = yuzu::mcp::decode_mcp_header_value(raw);
    const std::string_view trimmed = yuzu::mcp::trim_header_ows(raw);
    constexpr std::string_view kOpen = "=?base64?";
    constexpr std::string_view kClose = "?=";
    const bool wrapped = trimmed.size() >= kOpen.size() + kClose.size() &&
                         trimmed.substr(0, kOpen.size()) == kOpen &&
                         trimmed.substr(trimmed.size() - kClose.size()) == kClose;
    if (!wrapped) {
        bool literal = true;
        for (char c : trimmed) {
            const auto u = static_cast<unsigned char>(c);
            // Said another way than the code does: tab, or space through tilde.
            literal = literal && (u == 0x09 || (u >= 0x20 && u <= 0x7e));
        }
        require(literal ? decoded.has_value() && *decoded == trimmed : !decoded.has_value());
        return;
    }
    if (!decoded) return;
    const std::string_view data =
        trimmed.substr(kOpen.size(), trimmed.size() - kOpen.size() - kClose.size());
    require(yuzu::auth::base64_encode(*decoded) == data);
}

void check_meta(const std::string& body) {
    auto parsed = yuzu::mcp::parse_message(body);
    const auto* message = std::get_if<yuzu::mcp::RpcMessage>(&parsed);
    if (message == nullptr) return;
    (void)yuzu::mcp::is_modern_request(*message, "2026-07-28");
    auto meta = yuzu::mcp::parse_request_meta(message->params, "req-fuzz");
    if (const auto* error = std::get_if<yuzu::mcp::RpcError>(&meta)) {
        require(error->code == yuzu::mcp::kInvalidParams ||
                error->code == yuzu::mcp::kUnsupportedProtocolVersion);
        if (error->code == yuzu::mcp::kUnsupportedProtocolVersion) {
            require(error->data["supported"] == yuzu::mcp::kModernProtocolVersions);
            require(error->data["requested"].get<std::string>().size() <= 64);
        }
        // The answer the transport writes is valid JSON.
        require(!yuzu::mcp::make_error(message->id, *error).empty());
        return;
    }
    const auto& ok = std::get<yuzu::mcp::RequestMeta>(meta);
    require(ok.protocol_version == yuzu::mcp::kModernProtocolVersion);
    require(ok.client_capabilities.is_object());
    require(ok.client_info.is_null() || ok.client_info.is_object());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const size_t newline = input.find('\n');
    check_header_value(input.substr(0, newline));
    if (newline != std::string_view::npos) check_meta(std::string(input.substr(newline + 1)));
    return 0;
}
