// libFuzzer target for the scope DSL parser (built and run by
// scripts/fuzz.sh). Any input must either fail to parse with a positioned
// error, or parse into an expression whose canonical form re-parses, is a
// fixed point, reads the same attributes and selects the same agents.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "yuzu/scope/scope.hpp"

namespace {

class FixedAgent : public yuzu::scope::AttributeSource {
  public:
    FixedAgent(std::map<std::string, std::string, std::less<>> attributes,
               std::set<std::string, std::less<>> groups)
        : attributes_(std::move(attributes)), groups_(std::move(groups)) {}

    std::optional<std::string> attribute(std::string_view name) const override {
        auto it = attributes_.find(name);
        if (it == attributes_.end()) return std::nullopt;
        return it->second;
    }
    bool has_group(std::string_view group_id) const override {
        return groups_.find(group_id) != groups_.end();
    }

  private:
    std::map<std::string, std::string, std::less<>> attributes_;
    std::set<std::string, std::less<>> groups_;
};

const FixedAgent& full_agent() {
    static const FixedAgent agent({{"agent_id", "a1"},
                                   {"hostname", "web-01"},
                                   {"os", "Linux"},
                                   {"os_version", "22.04"},
                                   {"arch", "x86_64"},
                                   {"version", "1.10.0"},
                                   {"online", "true"},
                                   {"tag:env", "prod"},
                                   {"tag:cost", "-3.5"},
                                   {"tag:a", "%_\"\\"}},
                                  {"g1", "root"});
    return agent;
}

const FixedAgent& sparse_agent() {
    static const FixedAgent agent({{"os", "windows"}, {"os_version", "10"}}, {});
    return agent;
}

[[noreturn]] void fail(const char* what, std::string_view text, const std::string& canonical) {
    std::fprintf(stderr, "scope fuzz: %s\n  input:     %.*s\n  canonical: %s\n", what,
                 static_cast<int>(text.size()), text.data(), canonical.c_str());
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    yuzu::scope::ParseError error;
    auto parsed = yuzu::scope::parse(text, &error);
    if (!parsed.ok()) {
        if (error.message.empty()) fail("error without a message", text, "");
        if (error.position > size) fail("error position beyond the input", text, error.to_string());
        return 0;
    }

    const yuzu::scope::Expression& expression = *parsed;
    const bool full = expression.matches(full_agent());
    const bool sparse = expression.matches(sparse_agent());
    const std::string canonical = expression.canonical();

    auto reparsed = yuzu::scope::parse(canonical);
    if (!reparsed.ok()) fail(reparsed.status().message().c_str(), text, canonical);
    if (reparsed->canonical() != canonical) fail("canonical is not idempotent", text, canonical);
    if (reparsed->attributes() != expression.attributes()) {
        fail("canonical reads different attributes", text, canonical);
    }
    if (reparsed->matches(full_agent()) != full || reparsed->matches(sparse_agent()) != sparse) {
        fail("canonical selects differently", text, canonical);
    }
    return 0;
}
