// The whole Yuzu catalogue as the server builds it (identity, fleet,
// executions, compliance, approvals), called through the real tools/call
// pipeline and McpServer.
#pragma once

#include <array>

#include "execution_tools_fixture.hpp"
#include "yuzu/approval/approval_manager.hpp"
#include "yuzu/auth/secret_box.hpp"
#include "yuzu/compliance/compliance.hpp"
#include "yuzu/mcp/mcp_server.hpp"
#include "yuzu/pki/certificate_authority.hpp"
#include "yuzu/schedule/schedules.hpp"

namespace yuzu::mcp::testing {

class FullCatalogue : public ExecutionToolsTest {
  protected:
    void SetUp() override {
        ExecutionToolsTest::SetUp();
        compliance::ComplianceOptions co;
        co.data_dir = (dir / "compliance").string();
        auto c = compliance::Compliance::open(co, *fleet_, &identity->groups(), clock);
        ASSERT_TRUE(c.ok()) << c.status().to_string();
        compliance_ = std::move(c).value();
        auto m = approval::ApprovalManager::open(":memory:", SystemClock::instance());
        ASSERT_TRUE(m.ok()) << m.status().to_string();
        manager = std::move(m).value();
        schedule::SchedulesOptions so;
        so.data_dir = (dir / "schedules").string();
        auto sch = schedule::Schedules::open(
            so, schedule::DispatchServices{*identity, *fleet_, *executions}, audit_log, clock);
        ASSERT_TRUE(sch.ok()) << sch.status().to_string();
        schedules_ = std::move(sch).value();
        std::array<uint8_t, auth::kSecretBoxKeyBytes> key{};
        key.fill(0x5a);
        auto box = auth::SecretBox::from_key(key);
        ASSERT_TRUE(box.ok());
        pki_box_ = std::make_unique<auth::SecretBox>(std::move(box).value());
        auto ca = pki::CertificateAuthority::open(pki::PkiOptions{":memory:"}, *pki_box_, clock);
        ASSERT_TRUE(ca.ok()) << ca.status().to_string();
        ca_ = std::move(ca).value();
        CatalogueDeps deps{audit_log, *identity, readiness, clock, "test", 0};
        deps.ca = ca_.get();
        deps.fleet = fleet_.get();
        deps.executions = executions.get();
        deps.compliance = compliance_.get();
        deps.approvals = manager.get();
        deps.schedules = schedules_.get();
        ASSERT_TRUE(build_yuzu_catalogue(full, deps).ok());
    }

    CallOutcome call_full(const auth::Principal& who, const std::string& tool, json args) {
        PipelineEnv env{full.tools, settings, &audit_log, &identity->authorizer(), manager.get()};
        env.identity = identity.get();
        env.fleet = fleet_.get();
        RequestInfo info{next_correlation_id(), "127.0.0.1", "test"};
        return run_tool_call(env, who, {{"name", tool}, {"arguments", std::move(args)}}, info);
    }

    // One JSON-RPC request through McpServer (prompts, resources,
    // completion); the parsed response object.
    json rpc(const auth::Principal& who, const std::string& method, json params) {
        McpServerOptions options;
        options.server_version = "test";
        options.identity = identity.get();
        options.fleet = fleet_.get();
        McpServer server(full.tools, full.resources, full.prompts, settings, &audit_log,
                         &identity->authorizer(), options, manager.get());
        RpcMessage message;
        message.id = 1;
        message.method = method;
        message.params = std::move(params);
        RequestInfo info{next_correlation_id(), "127.0.0.1", "test"};
        return json::parse(server.handle(message, who, info).body);
    }

    std::unique_ptr<compliance::Compliance> compliance_;
    std::unique_ptr<approval::ApprovalManager> manager;
    std::unique_ptr<schedule::Schedules> schedules_;
    std::unique_ptr<auth::SecretBox> pki_box_;
    std::unique_ptr<pki::CertificateAuthority> ca_;
    Catalogues full;
};

}  // namespace yuzu::mcp::testing
