// The real Yuzu catalogue, built exactly as the server builds it: every tool
// carries a security registration and consistent annotations. A tool added
// without a tier key fails this test, and so the build.
#include "yuzu/mcp/yuzu_catalogue.hpp"

#include <gtest/gtest.h>

#include "support/temp_dir.hpp"
#include "yuzu/audit/memory_audit_log.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/common/readiness.hpp"

namespace yuzu::mcp {
namespace {

TEST(YuzuCatalogue, EveryToolHasASecurityRegistrationAndHonestAnnotations) {
    testing::TempDir dir;
    auth::IdentityOptions options;
    options.data_dir = dir.str();
    options.bootstrap_password_value = "catalogue-test-password";
    options.user_options.password_log_n = 10;
    auto identity = auth::Identity::open(options, SystemClock::instance());
    ASSERT_TRUE(identity.ok()) << identity.status().to_string();
    audit::MemoryAuditLog audit_log;
    Readiness readiness;
    CatalogueDeps deps{audit_log, **identity, readiness, SystemClock::instance(), "test", 0};
    Catalogues c;
    ASSERT_TRUE(build_yuzu_catalogue(c, deps).ok());

    ASSERT_FALSE(c.tools.tools().empty());
    for (const auto& tool : c.tools.tools()) {
        SCOPED_TRACE(tool.name);
        ASSERT_TRUE(tool.tier_key.has_value()) << "tool without a security registration";
        EXPECT_FALSE(tool.title.empty());
        EXPECT_FALSE(tool.description.empty());
        EXPECT_EQ(tool.annotations.read_only, tool.tier_key->op == auth::Operation::kRead);
        EXPECT_TRUE(tool.output_schema.is_object()) << "every Yuzu tool declares outputSchema";
        EXPECT_TRUE(tool.compiled_input_schema != nullptr);
    }
    EXPECT_NE(c.resources.find("yuzu://server/health"), nullptr);
    EXPECT_NE(c.resources.find("yuzu://audit/recent"), nullptr);
    EXPECT_NE(c.prompts.find("audit_investigation"), nullptr);
}

}  // namespace
}  // namespace yuzu::mcp
