// The tool, resource and prompt catalogues. Built once at start-up, then
// read-only: safe to read from any thread after wiring finishes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "yuzu/common/status.hpp"
#include "yuzu/mcp/tool.hpp"

namespace yuzu::mcp {

// Whether a caller of this MCP tier can ever call the tool (directly or
// through an approval); tools/list shows only these.
bool tier_can_reach(const ToolSpec& spec, std::string_view tier);

class ToolCatalogue {
  public:
    // Compiles the input schema; a schema the validator cannot enforce, or a
    // duplicate name, is a wiring bug reported as a Status.
    Status add(ToolSpec spec);
    const ToolSpec* find(const std::string& name) const;
    // In registration order (stable across calls and restarts).
    const std::vector<ToolSpec>& tools() const { return tools_; }
    // The tools/list entry as a caller of `tier` sees it (approval-gated
    // tools are marked for the tiers that gate them).
    nlohmann::json list_entry(const ToolSpec& spec, std::string_view tier = "") const;
    // Changes with every add(): what a cached tools/list answer was built
    // from (tool_list_cache.hpp).
    uint64_t generation() const { return generation_; }

  private:
    std::vector<ToolSpec> tools_;
    uint64_t generation_ = 0;
    std::map<std::string, size_t> index_;
};

struct ResourceSpec {
    std::string uri;
    std::string name;
    std::string title;
    std::string description;
    std::string mime_type = "application/json";
    // When true, read() returns base64 and the content is sent as "blob"
    // (binary resources); otherwise it is sent as "text".
    bool base64_blob = false;
    // RBAC for reading it; empty = any authenticated principal.
    std::function<Status(const auth::Principal&)> authorize;
    std::function<Result<std::string>(const auth::Principal&)> read;
};

// Variables taken from a URI that matched a template ("{id}" → value).
using UriVariables = std::map<std::string, std::string>;

struct ResourceTemplateSpec {
    std::string uri_template;  // RFC 6570 level 1: literal text and {name}
    std::string name;
    std::string title;
    std::string description;
    std::string mime_type = "application/json";
    // Reads a concrete URI matching the template; empty = listed only.
    std::function<Result<std::string>(const UriVariables&, const auth::Principal&)> read;
};

// Matches `uri` against a level-1 template; a variable matches one or more
// characters other than '/', '?' and '#'. nullopt when it does not match.
std::optional<UriVariables> match_uri_template(const std::string& uri_template,
                                               const std::string& uri);

struct PromptArgument {
    std::string name;
    std::string description;
    bool required = false;
    // A closed set: caller text is normalised to one of these (the first is
    // the default), so it never reaches the model as free text.
    std::vector<std::string> allowed_values;
    bool is_integer = false;
    // completion/complete for an open argument whose useful values depend on
    // the caller (e.g. the agent ids it may see); empty = none offered.
    std::function<std::vector<std::string>(const auth::Principal&)> complete_values;
};

struct PromptSpec {
    std::string name;
    std::string title;
    std::string description;
    std::vector<PromptArgument> arguments;
    // Builds the user message from the already-wrapped/normalised argument
    // text (name → text ready to embed).
    std::function<Result<std::string>(const std::map<std::string, std::string>& args)> render;
    // Instead of `render`, for prompts with several messages or non-text
    // content (images, embedded resources): returns the `messages` array.
    std::function<Result<nlohmann::json>(const std::map<std::string, std::string>& args)>
        render_messages;
};

class ResourceCatalogue {
  public:
    Status add(ResourceSpec spec);
    Status add_template(ResourceTemplateSpec spec);
    const ResourceSpec* find(const std::string& uri) const;
    // The first readable template that matches `uri`, with its variables.
    const ResourceTemplateSpec* find_template(const std::string& uri, UriVariables& vars) const;
    const std::vector<ResourceSpec>& resources() const { return resources_; }
    const std::vector<ResourceTemplateSpec>& templates() const { return templates_; }

  private:
    std::vector<ResourceSpec> resources_;
    std::vector<ResourceTemplateSpec> templates_;
};

class PromptCatalogue {
  public:
    Status add(PromptSpec spec);
    const PromptSpec* find(const std::string& name) const;
    const std::vector<PromptSpec>& prompts() const { return prompts_; }

  private:
    std::vector<PromptSpec> prompts_;
};

// Wraps caller-supplied prompt text as labelled, untrusted data.
std::string wrap_untrusted_argument(const std::string& name, const std::string& value);

}  // namespace yuzu::mcp
