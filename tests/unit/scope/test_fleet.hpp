// Test agents for the scope DSL: a map-backed AttributeSource and a small
// fleet with distinct OSes, versions, tags and groups.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "yuzu/scope/scope.hpp"

namespace yuzu::scope::testing {

class FakeAgent : public AttributeSource {
  public:
    explicit FakeAgent(std::string name) : name_(std::move(name)) {}

    FakeAgent& set(std::string attribute, std::string value) {
        attributes_[std::move(attribute)] = std::move(value);
        return *this;
    }
    FakeAgent& tag(const std::string& key, std::string value) {
        return set("tag:" + key, std::move(value));
    }
    FakeAgent& group(std::string id) {
        groups_.insert(std::move(id));
        return *this;
    }

    const std::string& name() const { return name_; }

    std::optional<std::string> attribute(std::string_view name) const override {
        asked_.insert(std::string(name));
        auto it = attributes_.find(std::string(name));
        if (it == attributes_.end()) return std::nullopt;
        return it->second;
    }
    bool has_group(std::string_view group_id) const override {
        return groups_.count(std::string(group_id)) > 0;
    }

    // Every name attribute() was called with, to check what matches() asks.
    const std::set<std::string>& asked() const { return asked_; }

  private:
    std::string name_;
    std::map<std::string, std::string> attributes_;
    std::set<std::string> groups_;
    mutable std::set<std::string> asked_;
};

inline std::vector<FakeAgent> make_fleet() {
    std::vector<FakeAgent> fleet;
    fleet.push_back(FakeAgent("web1")
                        .set("agent_id", "a1")
                        .set("hostname", "web-01")
                        .set("os", "linux")
                        .set("os_version", "22.04")
                        .set("arch", "x86_64")
                        .set("version", "1.10.0")
                        .set("online", "true")
                        .tag("env", "prod")
                        .tag("owner", "alice")
                        .tag("build.id", "42")
                        .tag("team-name", "Core \"Infra\"")
                        .group("g-root")
                        .group("g-web"));
    fleet.push_back(FakeAgent("web2")
                        .set("agent_id", "a2")
                        .set("hostname", "WEB-02")
                        .set("os", "Linux")
                        .set("os_version", "12")
                        .set("arch", "aarch64")
                        .set("version", "1.9.3")
                        .set("online", "false")
                        .tag("env", "staging")
                        .tag("build.id", "7")
                        .group("g-root"));
    fleet.push_back(FakeAgent("db1")
                        .set("agent_id", "a3")
                        .set("hostname", "db_1")
                        .set("os", "windows")
                        .set("os_version", "10.0")
                        .set("arch", "x86_64")
                        .set("version", "2.0.0")
                        .set("online", "TRUE")
                        .tag("env", "prod")
                        .tag("cost", "100")
                        .tag("path", "C:\\data")
                        .group("g-root")
                        .group("g-db"));
    fleet.push_back(FakeAgent("mac")
                        .set("agent_id", "a4")
                        .set("hostname", "mac%book")
                        .set("os", "darwin")
                        .set("os_version", "14.2")
                        .set("arch", "arm64")
                        .set("version", "1.10.0")
                        .set("online", "true")
                        .tag("cost", "-3.5"));
    return fleet;
}

// Names of the fleet agents `expression` matches, in fleet order, joined
// by spaces ("web1 db1"), or "PARSE ERROR: ..." when it does not parse.
inline std::string matching(std::string_view expression) {
    auto parsed = parse(expression);
    if (!parsed.ok()) return "PARSE ERROR: " + parsed.status().message();
    std::string names;
    for (const FakeAgent& agent : make_fleet()) {
        if (!parsed->matches(agent)) continue;
        if (!names.empty()) names += ' ';
        names += agent.name();
    }
    return names;
}

// A sample of valid expressions covering every construct; canonical-form
// tests re-parse and re-evaluate each of them.
inline const std::vector<std::string>& sample_expressions() {
    static const std::vector<std::string> kSamples = {
        R"(os = "linux")",
        R"(os="linux" AND tag:env="prod" OR hostname LIKE "web-%")",
        R"(NOT (arch IN ("aarch64", "armv7l")) AND tag:owner EXISTS)",
        R"(tag:owner NOT EXISTS)",
        R"(not not os = "darwin")",
        R"(((os = "linux")))",
        R"((os = "linux" OR os = "darwin") AND (arch = "arm64" OR online = true))",
        R"(os = "linux" OR (os = "darwin" OR os = "windows"))",
        R"(online = TRUE AND os_version > 9)",
        R"(version >= 1.10 and version < 2)",
        R"(tag:cost > -4 AND tag:cost <= 100.0)",
        R"(os_version != "12")",
        R"(hostname NOT LIKE "%0_" AND agent_id IN ("a1", "a3", 7, true))",
        R"(group = "g-web" OR group IN ("g-db") AND NOT group != "g-root")",
        R"(group NOT IN ("g-root", "g-x"))",
        R"(tag:team-name = "core \"infra\"")",
        R"(tag:path = "c:\\DATA")",
        R"(tag:build.id IN (42, 7) AND NOT (tag:env = "prod" AND online = false))",
        R"(NOT (NOT (os = "linux" AND arch = "x86_64") OR tag:env EXISTS))",
        R"(os LIKE "%" AND hostname LIKE "mac_book" OR hostname LIKE "%%-0_")",
    };
    return kSamples;
}

}  // namespace yuzu::scope::testing
