#include "yuzu/fleet/inventory_store.hpp"

#include <gtest/gtest.h>

#include <string>

#include "fleet_fixture.hpp"

namespace yuzu::fleet {
namespace {

InventoryItem ok_item(const std::string& source, const std::string& json,
                      int64_t collected_at_ms = 1'000) {
    InventoryItem item;
    item.source = source;
    item.status = "ok";
    item.data_json = json;
    item.collected_at_ms = collected_at_ms;
    return item;
}

InventoryItem unavailable(const std::string& source, const std::string& reason) {
    InventoryItem item;
    item.source = source;
    item.status = "unavailable";
    item.reason = reason;
    return item;
}

std::string packages_json(std::initializer_list<const char*> names) {
    std::string out = "[";
    for (const char* n : names) {
        if (out.size() > 1) out += ",";
        out += std::string(R"({"name":")") + n + R"(","version":"1.0","arch":"amd64"})";
    }
    return out + "]";
}

using InventoryStoreTest = FleetTest;

TEST_F(InventoryStoreTest, ReplaceStoresAndReplacesPerSource) {
    auto a = enroll("web-01");
    InventoryStore& inv = fleet_->inventory();
    ASSERT_TRUE(inv.replace(a.agent_id, {ok_item("kernel", R"({"release":"6.1"})"),
                                         unavailable("packages", "no dpkg-query")})
                    .ok());
    clock_.advance_ms(500);
    // A later report of one source leaves the others alone.
    ASSERT_TRUE(inv.replace(a.agent_id, {ok_item("kernel", R"({"release":"6.2"})", 2'000)}).ok());

    auto rows = inv.for_agent(a.agent_id);
    ASSERT_TRUE(rows.ok()) << rows.status().to_string();
    ASSERT_EQ(rows->size(), 2u);
    EXPECT_EQ((*rows)[0].source, "kernel");
    EXPECT_EQ((*rows)[0].data_json, R"({"release":"6.2"})");
    EXPECT_EQ((*rows)[0].status, "ok");
    EXPECT_EQ((*rows)[0].collected_at_ms, 2'000);
    EXPECT_EQ((*rows)[0].received_at_ms, clock_.now_ms());
    EXPECT_EQ((*rows)[0].agent_id, a.agent_id);
    EXPECT_EQ((*rows)[1].source, "packages");
    EXPECT_EQ((*rows)[1].status, "unavailable");
    EXPECT_EQ((*rows)[1].reason, "no dpkg-query");
    EXPECT_EQ((*rows)[1].data_json, "null");
}

TEST_F(InventoryStoreTest, ReplaceValidatesEverySourceBeforeWritingAny) {
    auto a = enroll("web-01");
    InventoryStore& inv = fleet_->inventory();
    auto code = [&](std::vector<InventoryItem> items) {
        return inv.replace(a.agent_id, items).code();
    };
    EXPECT_EQ(code({ok_item("Kernel", "{}")}), StatusCode::kInvalidArgument);
    EXPECT_EQ(code({ok_item("", "{}")}), StatusCode::kInvalidArgument);
    EXPECT_EQ(code({ok_item(std::string(65, 'a'), "{}")}), StatusCode::kInvalidArgument);
    EXPECT_EQ(code({ok_item("cpu", "{}"), ok_item("kernel", "{not json")}),
              StatusCode::kInvalidArgument);
    InventoryItem odd = ok_item("cpu", "{}");
    odd.status = "maybe";
    EXPECT_EQ(code({odd}), StatusCode::kInvalidArgument);
    EXPECT_EQ(code({ok_item("cpu", "{}"), ok_item("cpu", "{}")}), StatusCode::kInvalidArgument);
    EXPECT_EQ(code({ok_item("cpu", "{}", -1)}), StatusCode::kInvalidArgument);
    std::string huge = "\"" + std::string(kMaxInventorySourceBytes, 'x') + "\"";
    EXPECT_EQ(code({ok_item("cpu", "{}"), ok_item("processes", huge)}),
              StatusCode::kPayloadTooLarge);
    EXPECT_TRUE(inv.for_agent(a.agent_id)->empty());

    EXPECT_EQ(inv.replace("0123456789abcdef0123456789abcdef", {ok_item("cpu", "{}")}).code(),
              StatusCode::kNotFound);
    EXPECT_EQ(inv.for_agent("0123456789abcdef0123456789abcdef").status().code(),
              StatusCode::kNotFound);
}

TEST_F(InventoryStoreTest, QueryFiltersOrdersAndReportsTruncation) {
    auto a = enroll("web-01");
    auto b = enroll("web-02");
    auto c = enroll("web-03");
    InventoryStore& inv = fleet_->inventory();
    for (const auto& agent : {a, b, c}) {
        ASSERT_TRUE(
            inv.replace(agent.agent_id, {ok_item("kernel", "{}"), ok_item("cpu", "{}")}).ok());
    }

    InventoryQuery q;
    auto all = inv.query(q);
    ASSERT_TRUE(all.ok());
    ASSERT_EQ(all->first.size(), 6u);
    EXPECT_FALSE(all->second);
    for (size_t i = 1; i < all->first.size(); ++i) {
        const auto& p = all->first[i - 1];
        const auto& n = all->first[i];
        EXPECT_TRUE(p.agent_id < n.agent_id || (p.agent_id == n.agent_id && p.source < n.source));
    }

    q.source = "kernel";
    q.limit = 2;
    auto cut = inv.query(q);
    ASSERT_TRUE(cut.ok());
    EXPECT_EQ(cut->first.size(), 2u);
    EXPECT_TRUE(cut->second);
    q.limit = 3;
    EXPECT_FALSE(inv.query(q)->second);

    q.only_agents = std::set<std::string>{a.agent_id, c.agent_id};
    auto scoped = inv.query(q);
    ASSERT_TRUE(scoped.ok());
    ASSERT_EQ(scoped->first.size(), 2u);
    for (const auto& row : scoped->first) {
        EXPECT_NE(row.agent_id, b.agent_id);
        EXPECT_EQ(row.source, "kernel");
    }
    // An agent outside the view is never returned, even when asked for.
    q.agent_id = b.agent_id;
    EXPECT_TRUE(inv.query(q)->first.empty());
    q.only_agents = std::set<std::string>{};
    q.agent_id.reset();
    EXPECT_TRUE(inv.query(q)->first.empty());

    InventoryQuery bad;
    bad.limit = 0;
    EXPECT_EQ(inv.query(bad).status().code(), StatusCode::kInvalidArgument);
    bad.limit = kMaxInventoryQueryLimit + 1;
    EXPECT_EQ(inv.query(bad).status().code(), StatusCode::kInvalidArgument);
    bad.limit = kMaxInventoryQueryLimit;
    EXPECT_TRUE(inv.query(bad).ok());
}

TEST_F(InventoryStoreTest, TablesCountAgentsWithDataPerSource) {
    auto a = enroll("web-01");
    auto b = enroll("web-02");
    InventoryStore& inv = fleet_->inventory();
    ASSERT_TRUE(
        inv.replace(a.agent_id, {ok_item("kernel", "{}", 100), ok_item("cpu", "{}", 100)}).ok());
    ASSERT_TRUE(
        inv.replace(b.agent_id, {ok_item("kernel", "{}", 300), unavailable("cpu", "no /proc")})
            .ok());
    auto tables = inv.tables();
    ASSERT_TRUE(tables.ok());
    ASSERT_EQ(tables->size(), 2u);
    EXPECT_EQ((*tables)[0].source, "cpu");
    EXPECT_EQ((*tables)[0].agent_count, 1);
    EXPECT_EQ((*tables)[1].source, "kernel");
    EXPECT_EQ((*tables)[1].agent_count, 2);
    EXPECT_EQ((*tables)[1].last_collected_ms, 300);

    auto scoped = inv.tables(std::set<std::string>{a.agent_id});
    ASSERT_TRUE(scoped.ok());
    ASSERT_EQ(scoped->size(), 2u);
    EXPECT_EQ((*scoped)[1].agent_count, 1);
    EXPECT_EQ((*scoped)[1].last_collected_ms, 100);
    EXPECT_TRUE(inv.tables(std::set<std::string>{})->empty());
}

TEST_F(InventoryStoreTest, PackagesAreIndexedAsInstalledSoftware) {
    auto a = enroll("web-01");
    auto b = enroll("web-02");
    InventoryStore& inv = fleet_->inventory();
    ASSERT_TRUE(
        inv.replace(a.agent_id, {ok_item("packages", packages_json({"openssl", "curl"}))}).ok());
    ASSERT_TRUE(inv.replace(b.agent_id, {ok_item("packages",
                                                 R"([{"name":"openssl","version":"3.0.11"},
                                                     {"version":"no name"}, 42,
                                                     {"name":"openssl","version":"3.0.11"}])")})
                    .ok());

    SoftwareQuery q;
    q.name = "openssl";
    auto found = inv.software(q);
    ASSERT_TRUE(found.ok()) << found.status().to_string();
    ASSERT_EQ(found->first.size(), 2u);
    EXPECT_FALSE(found->second);
    std::set<std::string> agents;
    for (const auto& s : found->first) agents.insert(s.agent_id);
    EXPECT_EQ(agents, (std::set<std::string>{a.agent_id, b.agent_id}));
    const auto& of_b = found->first[0].agent_id == b.agent_id ? found->first[0] : found->first[1];
    EXPECT_EQ(of_b.version, "3.0.11");
    EXPECT_EQ(of_b.arch, "");

    q.only_agents = std::set<std::string>{b.agent_id};
    ASSERT_EQ(inv.software(q)->first.size(), 1u);
    EXPECT_EQ(inv.software(q)->first[0].agent_id, b.agent_id);

    SoftwareQuery everything;
    everything.limit = 2;
    auto cut = inv.software(everything);
    ASSERT_TRUE(cut.ok());
    EXPECT_EQ(cut->first.size(), 2u);
    EXPECT_TRUE(cut->second);
    EXPECT_EQ(cut->first[0].name, "curl");  // ordered by name
    everything.agent_id = a.agent_id;
    everything.limit = 10;
    EXPECT_EQ(inv.software(everything)->first.size(), 2u);

    // A new report replaces the index; an unavailable one empties it.
    ASSERT_TRUE(inv.replace(a.agent_id, {ok_item("packages", packages_json({"nginx"}))}).ok());
    auto now_a = inv.software(everything);
    ASSERT_EQ(now_a->first.size(), 1u);
    EXPECT_EQ(now_a->first[0].name, "nginx");
    ASSERT_TRUE(inv.replace(a.agent_id, {unavailable("packages", "rpm failed")}).ok());
    EXPECT_TRUE(inv.software(everything)->first.empty());

    SoftwareQuery bad;
    bad.limit = 1001;
    EXPECT_EQ(inv.software(bad).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace yuzu::fleet
