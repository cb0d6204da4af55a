#include "yuzu/execution/definition_store.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "support/temp_dir.hpp"
#include "yuzu/execution/execution_schema.hpp"
#include "yuzu/store/database.hpp"
#include "yuzu/store/migrations.hpp"

namespace yuzu::execution {
namespace {

using nlohmann::json;

class DefinitionStoreTest : public ::testing::Test {
  protected:
    void SetUp() override { reopen(); }

    void reopen() {
        store_.reset();
        db_.reset();
        auto db = store::Database::open((dir_ / "executions.db").string());
        ASSERT_TRUE(db.ok()) << db.status().to_string();
        db_ = std::move(db).value();
        Status migrated =
            store::apply_migrations(*db_, "executions.db", execution_migrations(), clock_);
        ASSERT_TRUE(migrated.ok()) << migrated.to_string();
        store_ = std::make_unique<DefinitionStore>(*db_, clock_);
        Status seeded = store_->seed_builtins();
        ASSERT_TRUE(seeded.ok()) << seeded.to_string();
    }

    static DefinitionSpec valid_spec() {
        DefinitionSpec spec;
        spec.name = "Find sshd";
        spec.plugin = "custom";
        spec.action = "probe";
        spec.description = "A custom probe";
        spec.parameter_schema_json =
            R"({"type":"object","properties":{"port":{"type":"integer"}},"required":["port"]})";
        spec.result_columns_json = R"([{"name":"port","type":"integer"}])";
        return spec;
    }

    yuzu::testing::TempDir dir_;
    ManualClock clock_;
    std::unique_ptr<store::Database> db_;
    std::unique_ptr<DefinitionStore> store_;
};

TEST_F(DefinitionStoreTest, SeedsTheBuiltInCatalogue) {
    auto all = store_->list();
    ASSERT_TRUE(all.ok()) << all.status().to_string();
    std::set<std::string> ids;
    for (const auto& d : *all) {
        ids.insert(d.id);
        EXPECT_TRUE(d.builtin);
        EXPECT_TRUE(d.enabled);
        EXPECT_EQ(d.id, d.plugin + "." + d.action);
        const json schema = json::parse(d.parameter_schema_json);
        EXPECT_EQ(schema["type"], "object") << d.id;
        EXPECT_EQ(schema["additionalProperties"], false) << d.id;
        EXPECT_FALSE(json::parse(d.result_columns_json).empty()) << d.id;
    }
    const std::set<std::string> expected = {
        "os.info",        "process.list",  "process.find", "service.status",      "service.restart",
        "disk.usage",     "file.exists",   "file.hash",    "network.connections", "packages.list",
        "reboot.pending", "user.sessions", "perf.snapshot"};
    EXPECT_EQ(ids, expected);
}

TEST_F(DefinitionStoreTest, BuiltInSchemasCarryTheParameterLimits) {
    auto restart = store_->get("service.restart");
    ASSERT_TRUE(restart.ok());
    EXPECT_EQ(restart->type, "action");
    EXPECT_TRUE(restart->destructive);
    EXPECT_EQ(restart->approval_mode, "always");

    const json find = json::parse(store_->get("process.find")->parameter_schema_json);
    EXPECT_EQ(find["properties"]["name"]["maxLength"], 255);
    EXPECT_EQ(find["required"], json::array({"name"}));
    const json list = json::parse(store_->get("process.list")->parameter_schema_json);
    EXPECT_EQ(list["properties"]["limit"]["minimum"], 1);
    EXPECT_EQ(list["properties"]["limit"]["maximum"], 10000);
    const json conns = json::parse(store_->get("network.connections")->parameter_schema_json);
    EXPECT_EQ(conns["properties"]["state"]["enum"], json::array({"listen", "established", "all"}));
    EXPECT_EQ(conns["properties"]["limit"]["maximum"], 4000);
    const json hash = json::parse(store_->get("file.hash")->parameter_schema_json);
    EXPECT_EQ(hash["properties"]["path"]["maxLength"], 4096);
    EXPECT_EQ(hash["properties"]["max_bytes"]["type"], "integer");
    const json status = json::parse(store_->get("service.status")->parameter_schema_json);
    EXPECT_TRUE(status["properties"]["unit"].contains("pattern"));

    auto questions = store_->list(DefinitionFilter{"", "question", std::nullopt});
    ASSERT_TRUE(questions.ok());
    EXPECT_EQ(questions->size(), 12u);
}

TEST_F(DefinitionStoreTest, SeedingAgainKeepsAnOperatorsChanges) {
    ASSERT_TRUE(store_->set_enabled("os.info", false).ok());
    reopen();  // seeds again
    auto os = store_->get("os.info");
    ASSERT_TRUE(os.ok());
    EXPECT_FALSE(os->enabled);
    EXPECT_EQ(store_->list()->size(), 13u);
}

TEST_F(DefinitionStoreTest, CreateStoresAndFindsByIdAndByPluginAction) {
    clock_.advance_ms(1000);
    auto created = store_->create(valid_spec());
    ASSERT_TRUE(created.ok()) << created.status().to_string();
    EXPECT_EQ(created->id.rfind("def-", 0), 0u);
    EXPECT_EQ(created->id.size(), 4u + 16u);
    EXPECT_EQ(created->version, 1);
    EXPECT_FALSE(created->builtin);
    EXPECT_EQ(created->created_at_ms, clock_.now_ms());

    auto by_pair = store_->find("custom", "probe");
    ASSERT_TRUE(by_pair.ok());
    EXPECT_EQ(by_pair->id, created->id);
    EXPECT_EQ(json::parse(by_pair->parameter_schema_json)["required"], json::array({"port"}));
    EXPECT_EQ(store_->find("custom", "nope").status().code(), StatusCode::kNotFound);
    EXPECT_EQ(store_->get("nope").status().code(), StatusCode::kNotFound);

    DefinitionSpec named = valid_spec();
    named.id = "team.probe-2";
    named.action = "probe2";
    auto with_id = store_->create(named);
    ASSERT_TRUE(with_id.ok()) << with_id.status().to_string();
    EXPECT_EQ(with_id->id, "team.probe-2");
}

TEST_F(DefinitionStoreTest, CreateRefusesTakenIdsAndPluginActions) {
    ASSERT_TRUE(store_->create(valid_spec()).ok());
    EXPECT_EQ(store_->create(valid_spec()).status().code(), StatusCode::kAlreadyExists);
    DefinitionSpec same_id = valid_spec();
    same_id.id = "os.info";
    same_id.action = "other";
    EXPECT_EQ(store_->create(same_id).status().code(), StatusCode::kAlreadyExists);
    DefinitionSpec builtin_pair = valid_spec();
    builtin_pair.plugin = "os";
    builtin_pair.action = "info";
    EXPECT_EQ(store_->create(builtin_pair).status().code(), StatusCode::kAlreadyExists);
}

TEST_F(DefinitionStoreTest, CreateValidatesEveryField) {
    struct Case {
        const char* what;
        void (*mutate)(DefinitionSpec&);
    };
    const Case cases[] = {
        {"id", [](DefinitionSpec& s) { s.id = "Bad Id"; }},
        {"name", [](DefinitionSpec& s) { s.name = ""; }},
        {"name", [](DefinitionSpec& s) { s.name = "tab\there"; }},
        {"name", [](DefinitionSpec& s) { s.name = std::string(129, 'n'); }},
        {"UTF-8", [](DefinitionSpec& s) { s.name = "bad \xff byte"; }},
        {"plugin", [](DefinitionSpec& s) { s.plugin = "Custom"; }},
        {"plugin", [](DefinitionSpec& s) { s.plugin = "a;rm -rf"; }},
        {"action", [](DefinitionSpec& s) { s.action = ""; }},
        {"type", [](DefinitionSpec& s) { s.type = "command"; }},
        {"destructive", [](DefinitionSpec& s) { s.destructive = true; }},
        {"description", [](DefinitionSpec& s) { s.description = std::string(2049, 'd'); }},
        {"approval_mode", [](DefinitionSpec& s) { s.approval_mode = "never"; }},
        {"parameter_schema", [](DefinitionSpec& s) { s.parameter_schema_json = "[]"; }},
        {"parameter_schema", [](DefinitionSpec& s) { s.parameter_schema_json = "{oops"; }},
        {"object", [](DefinitionSpec& s) { s.parameter_schema_json = R"({"type":"array"})"; }},
        {"properties",
         [](DefinitionSpec& s) { s.parameter_schema_json = R"({"properties":[1]})"; }},
        {"properties.x",
         [](DefinitionSpec& s) { s.parameter_schema_json = R"({"properties":{"x":3}})"; }},
        {"required", [](DefinitionSpec& s) { s.parameter_schema_json = R"({"required":"x"})"; }},
        {"64 KiB",
         [](DefinitionSpec& s) {
             s.parameter_schema_json = R"({"description":")" + std::string(70 * 1024, 'x') + "\"}";
         }},
        {"result_columns", [](DefinitionSpec& s) { s.result_columns_json = "{}"; }},
        {"unknown type",
         [](DefinitionSpec& s) { s.result_columns_json = R"([{"name":"a","type":"date"}])"; }},
        {"twice",
         [](DefinitionSpec& s) {
             s.result_columns_json =
                 R"([{"name":"a","type":"string"},{"name":"a","type":"string"}])";
         }},
        {"names",
         [](DefinitionSpec& s) { s.result_columns_json = R"([{"name":"a b","type":"string"}])"; }},
    };
    for (const auto& c : cases) {
        DefinitionSpec spec = valid_spec();
        c.mutate(spec);
        auto created = store_->create(spec);
        ASSERT_FALSE(created.ok()) << c.what;
        EXPECT_EQ(created.status().code(), StatusCode::kInvalidArgument) << c.what;
        EXPECT_NE(created.status().message().find(c.what), std::string::npos)
            << c.what << ": " << created.status().message();
    }
    EXPECT_EQ(store_->list()->size(), 13u);  // nothing was stored

    DefinitionSpec destructive_action = valid_spec();
    destructive_action.type = "action";
    destructive_action.destructive = true;
    EXPECT_TRUE(store_->create(destructive_action).ok());
}

TEST_F(DefinitionStoreTest, UpdateReplacesFieldsAndBumpsVersion) {
    auto created = store_->create(valid_spec());
    ASSERT_TRUE(created.ok());
    clock_.advance_ms(5000);
    DefinitionSpec changed = valid_spec();
    changed.name = "Probe v2";
    changed.type = "action";
    changed.approval_mode = "role-gated";
    auto updated = store_->update(created->id, changed);
    ASSERT_TRUE(updated.ok()) << updated.status().to_string();
    EXPECT_EQ(updated->version, 2);
    EXPECT_EQ(updated->name, "Probe v2");
    EXPECT_EQ(updated->type, "action");
    EXPECT_EQ(updated->approval_mode, "role-gated");
    EXPECT_EQ(updated->created_at_ms, created->created_at_ms);
    EXPECT_EQ(updated->updated_at_ms, clock_.now_ms());

    EXPECT_EQ(store_->update("missing", changed).status().code(), StatusCode::kNotFound);
    DefinitionSpec bad = changed;
    bad.type = "?";
    EXPECT_EQ(store_->update(created->id, bad).status().code(), StatusCode::kInvalidArgument);
    DefinitionSpec onto_builtin = changed;
    onto_builtin.plugin = "os";
    onto_builtin.action = "info";
    EXPECT_EQ(store_->update(created->id, onto_builtin).status().code(),
              StatusCode::kAlreadyExists);
    EXPECT_EQ(store_->get(created->id)->version, 2);
}

TEST_F(DefinitionStoreTest, BuiltInsCanOnlyBeEnabledOrDisabled) {
    DefinitionSpec spec = valid_spec();
    spec.plugin = "os";
    spec.action = "info";
    EXPECT_EQ(store_->update("os.info", spec).status().code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(store_->remove("os.info").code(), StatusCode::kFailedPrecondition);
    ASSERT_TRUE(store_->set_enabled("os.info", false).ok());
    EXPECT_FALSE(store_->get("os.info")->enabled);
    ASSERT_TRUE(store_->set_enabled("os.info", true).ok());
    EXPECT_TRUE(store_->get("os.info")->enabled);
    EXPECT_EQ(store_->set_enabled("missing", true).code(), StatusCode::kNotFound);
}

TEST_F(DefinitionStoreTest, RemoveDeletesACustomDefinition) {
    auto created = store_->create(valid_spec());
    ASSERT_TRUE(created.ok());
    ASSERT_TRUE(store_->remove(created->id).ok());
    EXPECT_EQ(store_->get(created->id).status().code(), StatusCode::kNotFound);
    EXPECT_EQ(store_->remove(created->id).code(), StatusCode::kNotFound);
    // The plugin+action is free again.
    EXPECT_TRUE(store_->create(valid_spec()).ok());
}

TEST_F(DefinitionStoreTest, ListFiltersByPluginTypeAndEnabled) {
    ASSERT_TRUE(store_->set_enabled("process.find", false).ok());
    auto process = store_->list(DefinitionFilter{"process", "", std::nullopt});
    ASSERT_TRUE(process.ok());
    ASSERT_EQ(process->size(), 2u);
    EXPECT_EQ((*process)[0].id, "process.find");  // ordered by plugin, action
    EXPECT_EQ((*process)[1].id, "process.list");
    auto enabled = store_->list(DefinitionFilter{"process", "", true});
    ASSERT_EQ(enabled->size(), 1u);
    EXPECT_EQ((*enabled)[0].id, "process.list");
    auto disabled = store_->list(DefinitionFilter{"", "", false});
    ASSERT_EQ(disabled->size(), 1u);
    auto actions = store_->list(DefinitionFilter{"", "action", std::nullopt});
    ASSERT_EQ(actions->size(), 1u);
    EXPECT_EQ((*actions)[0].id, "service.restart");
    EXPECT_EQ(store_->list(DefinitionFilter{"", "bogus", std::nullopt}).status().code(),
              StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace yuzu::execution
