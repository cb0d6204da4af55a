// docs/mcp-server.md prints the one Status table; this keeps the two equal.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "yuzu/common/status.hpp"

namespace yuzu {
namespace {

std::string doc_block(const std::string& marker) {
    std::ifstream in(std::string(YUZU_SOURCE_DIR) + "/docs/mcp-server.md");
    std::stringstream text;
    text << in.rdbuf();
    const std::string all = text.str();
    const size_t begin = all.find("<!-- " + marker + ":begin");
    const size_t end = all.find("<!-- " + marker + ":end -->");
    if (begin == std::string::npos || end == std::string::npos) return "";
    const size_t body = all.find('\n', begin) + 1;
    return all.substr(body, end - body);
}

TEST(StatusTableDoc, MatchesTheCode) {
    std::string expected =
        "| Status | HTTP | JSON-RPC | audit result |\n| --- | --- | --- | --- |\n";
    for (StatusCode code : all_status_codes()) {
        expected += "| " + std::string(status_code_name(code)) + " | " +
                    std::to_string(http_status_for(code)) + " | " +
                    std::to_string(jsonrpc_code_for(code)) + " | " +
                    std::string(audit_result_for(code)) + " |\n";
    }
    EXPECT_EQ(doc_block("status-table"), expected);
}

TEST(StatusTable, DenialsAreTheCallersAuthorityAndErrorsTheServers) {
    EXPECT_EQ(audit_result_for(StatusCode::kPermissionDenied), "denied");
    EXPECT_EQ(audit_result_for(StatusCode::kUnauthenticated), "denied");
    EXPECT_EQ(audit_result_for(StatusCode::kInternal), "error");
    EXPECT_EQ(audit_result_for(StatusCode::kUnavailable), "error");
    EXPECT_EQ(audit_result_for(StatusCode::kNotFound), "failure");
    EXPECT_EQ(all_status_codes().size(), 11u);
}

}  // namespace
}  // namespace yuzu
