#include "execution/json_text.hpp"

#include "yuzu/common/json_parse.hpp"
#include "yuzu/common/json_text.hpp"
#include "yuzu/execution/execution_tracker.hpp"

namespace yuzu::execution {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Length of the well-formed UTF-8 sequence at text[i], or 0 if there is none.
size_t sequence_length(std::string_view text, size_t i) {
    const auto b0 = static_cast<unsigned char>(text[i]);
    if (b0 < 0x80) return 1;
    size_t len = 0;
    uint32_t min = 0;
    uint32_t cp = 0;
    if ((b0 & 0xE0) == 0xC0) {
        len = 2;
        min = 0x80;
        cp = b0 & 0x1F;
    } else if ((b0 & 0xF0) == 0xE0) {
        len = 3;
        min = 0x800;
        cp = b0 & 0x0F;
    } else if ((b0 & 0xF8) == 0xF0) {
        len = 4;
        min = 0x10000;
        cp = b0 & 0x07;
    } else {
        return 0;
    }
    if (i + len > text.size()) return 0;
    for (size_t k = 1; k < len; ++k) {
        const auto b = static_cast<unsigned char>(text[i + k]);
        if ((b & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (b & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return len;
}

}  // namespace

std::string valid_utf8(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    size_t i = 0;
    while (i < text.size()) {
        const size_t len = sequence_length(text, i);
        if (len == 0) {
            out.append(kReplacement);
            ++i;
        } else {
            out.append(text.substr(i, len));
            i += len;
        }
    }
    return out;
}

std::string dump_json(const nlohmann::json& value) {
    return yuzu::dump_json(value);
}

Result<std::string> canonical_params(std::string_view text, std::string_view what) {
    const std::string name(what);
    auto parsed = parse_json(text);
    if (!parsed.ok()) {
        return Status::InvalidArgument(is_json_too_deep(parsed.status())
                                           ? name + ": " + parsed.status().message()
                                           : name + " must be valid JSON");
    }
    nlohmann::json params = std::move(parsed).value();
    if (!params.is_object()) return Status::InvalidArgument(name + " must be a JSON object");
    if (params.size() > kMaxParams) {
        return Status::InvalidArgument(name + " has " + std::to_string(params.size()) +
                                       " keys; at most " + std::to_string(kMaxParams) +
                                       " are allowed");
    }
    for (const auto& [key, value] : params.items()) {
        if (key.empty() || key.size() > kMaxParamKeyBytes) {
            return Status::InvalidArgument(name + " keys must be 1 to " +
                                           std::to_string(kMaxParamKeyBytes) + " bytes");
        }
        if (dump_json(value).size() > kMaxParamValueBytes) {
            return Status::InvalidArgument(name + " value of '" + valid_utf8(key) +
                                           "' is larger than 64 KiB");
        }
    }
    return dump_json(params);
}

std::string canonical_output(std::string_view text, std::string& error) {
    if (text.empty()) return "null";
    auto output = parse_json(text);
    if (!output.ok()) {
        if (!error.empty()) error += "; ";
        error += is_json_too_deep(output.status())
                     ? "the agent's output was discarded: " + output.status().message()
                     : std::string("the agent's output was not valid JSON and was discarded");
        return "null";
    }
    return dump_json(*output);
}

nlohmann::json parse_stored(std::string_view text) {
    nlohmann::json value = parse_json_or_discarded(text);
    return value.is_discarded() ? nlohmann::json() : value;
}

}  // namespace yuzu::execution
