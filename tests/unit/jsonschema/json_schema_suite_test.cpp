// Runs Debian's json-schema-test-suite (draft 7, its newest set) against
// JsonSchema for every keyword the validator claims. Groups that rely on
// something JsonSchema deliberately refuses are listed below with the reason,
// and the test checks that compile() really refuses them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "yuzu/jsonschema/json_schema.hpp"

namespace yuzu::jsonschema {
namespace {

using nlohmann::json;

constexpr const char* kSuiteDir = "/usr/share/json-schema-test-suite/tests/draft7";

// One suite file per claimed keyword (items: its single-schema form), plus the
// optional files that only exercise claimed keywords: big numbers against
// type/minimum/maximum, and 1.0 as an integer (the 2020-12 rule).
const char* const kClaimedFiles[] = {
    "type",
    "enum",
    "const",
    "required",
    "properties",
    "additionalProperties",
    "patternProperties",
    "minProperties",
    "maxProperties",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "boolean_schema",
    "ref",
    "items",
    "optional/bignum",
    "optional/zeroTerminatedFloats",
};

// No case needs excluding: with the groups below skipped, every draft-07 case
// of these files also holds under 2020-12 semantics. A case that ever needs an
// exclusion belongs in a table here with its reason, not in a silent skip.

struct SkippedGroup {
    const char* file;
    const char* group;
    const char* reason;
};

// Every group here must fail JsonSchema::compile(); the test asserts it.
const SkippedGroup kSkippedGroups[] = {
    {"ref", "relative pointer ref to array",
     "draft-07 array form of items; 2020-12 spells it prefixItems"},
    {"ref", "escaped pointer ref",
     "its refs point into members that are not keywords ('tilda~field'), which compile() "
     "refuses as unsupported keywords; ~0/~1/%25 decoding: JsonSchema.RefPointerEscapes"},
    {"ref", "nested refs",
     "draft-07 'definitions'; the $defs twin is JsonSchema.RefToRefThroughDefs"},
    {"ref", "ref overrides any sibling keywords",
     "draft-07-only semantics (2020-12 evaluates $ref's siblings) and 'definitions'; "
     "see JsonSchema.RefSiblingsAreEvaluated"},
    {"ref", "remote ref, containing refs itself", "remote $ref"},
    {"ref", "$ref to boolean schema true",
     "draft-07 'definitions'; the $defs twin is JsonSchema.RefToBooleanSchemas"},
    {"ref", "$ref to boolean schema false",
     "draft-07 'definitions'; the $defs twin is JsonSchema.RefToBooleanSchemas"},
    {"ref", "Recursive references between schemas", "refs relative to a nested $id (remote)"},
    {"items", "an array of schemas for items",
     "draft-07 array form of items; 2020-12 spells it prefixItems"},
    {"items", "items with boolean schemas",
     "draft-07 array form of items; 2020-12 spells it prefixItems"},
};

const SkippedGroup* find_skip(const std::string& file, const std::string& group) {
    for (const SkippedGroup& s : kSkippedGroups) {
        if (file == s.file && group == s.group) return &s;
    }
    return nullptr;
}

class Draft7Suite : public ::testing::TestWithParam<const char*> {};

TEST_P(Draft7Suite, EveryCase) {
    if (!std::filesystem::is_directory(kSuiteDir)) {
        FAIL() << kSuiteDir
               << " is missing: install Debian's json-schema-test-suite package "
                  "(apt-get install json-schema-test-suite)";
    }
    const std::string file = GetParam();
    const std::filesystem::path path = std::filesystem::path(kSuiteDir) / (file + ".json");
    std::ifstream in(path);
    ASSERT_TRUE(in) << "cannot read " << path;
    const json groups = json::parse(in);
    ASSERT_TRUE(groups.is_array());

    std::size_t cases_run = 0;
    std::set<std::string> skips_seen;
    for (const json& group : groups) {
        const std::string name = group.at("description");
        const auto compiled = JsonSchema::compile(group.at("schema"));
        if (const SkippedGroup* skip = find_skip(file, name)) {
            skips_seen.insert(name);
            EXPECT_FALSE(compiled.ok()) << file << " / " << name << ": skipped (" << skip->reason
                                        << ") but compile() accepts it; run it instead";
            continue;
        }
        if (!compiled.ok()) {
            ADD_FAILURE() << file << " / " << name
                          << ": schema does not compile: " << compiled.status().to_string();
            continue;
        }
        for (const json& test : group.at("tests")) {
            const std::string description = test.at("description");
            const bool valid = test.at("valid");
            const json& data = test.at("data");
            const auto first = compiled->validate(data);
            const auto all = compiled->validate_all(data);
            EXPECT_EQ(!first.has_value(), valid)
                << file << " / " << name << " / " << description << " (data " << data.dump()
                << "): " << (first ? "violation: " + first->message : "no violation");
            EXPECT_EQ(all.empty(), valid) << file << " / " << name << " / " << description;
            if (first && !all.empty()) {
                EXPECT_EQ(all.front(), *first) << file << " / " << name << " / " << description;
            }
            ++cases_run;
        }
    }
    EXPECT_GT(cases_run, 0u) << file << ": no case ran";
    for (const SkippedGroup& s : kSkippedGroups) {
        if (file == s.file) {
            EXPECT_TRUE(skips_seen.count(s.group))
                << "stale skip entry: " << s.file << " / " << s.group << " is not in the suite";
        }
    }
    RecordProperty("cases_run", static_cast<int>(cases_run));
    std::printf("[ suite    ] %s: %zu cases run, %zu groups skipped\n", file.c_str(), cases_run,
                skips_seen.size());
}

INSTANTIATE_TEST_SUITE_P(Draft7, Draft7Suite, ::testing::ValuesIn(kClaimedFiles),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                             std::string name = info.param;
                             std::replace(name.begin(), name.end(), '/', '_');
                             return name;
                         });

}  // namespace
}  // namespace yuzu::jsonschema
