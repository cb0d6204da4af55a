// docs/mcp-server.md prints the one Status table; this keeps the two equal.
#include <gtest/gtest.h>

#include <string>

#include "support/doc_block.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu {
namespace {

TEST(StatusTableDoc, MatchesTheCode) {
    std::string expected =
        "| Status | HTTP | JSON-RPC | audit result |\n| --- | --- | --- | --- |\n";
    for (StatusCode code : all_status_codes()) {
        expected += "| " + std::string(status_code_name(code)) + " | " +
                    std::to_string(http_status_for(code)) + " | " +
                    std::to_string(jsonrpc_code_for(code)) + " | " +
                    std::string(audit_result_for(code)) + " |\n";
    }
    EXPECT_EQ(testing::doc_block("mcp-server.md", "status-table"), expected);
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
