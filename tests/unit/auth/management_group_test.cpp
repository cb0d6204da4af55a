#include "yuzu/auth/management_group.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <regex>
#include <span>

#include "yuzu/auth/auth_schema.hpp"
#include "yuzu/auth/user_store.hpp"
#include "yuzu/store/database.hpp"
#include "yuzu/store/migrations.hpp"

namespace yuzu::auth {
namespace {

const std::string kRoot(kRootGroupId);

class ManagementGroupTest : public ::testing::Test {
  protected:
    void SetUp() override {
        auto db = store::Database::open(":memory:");
        ASSERT_TRUE(db.ok()) << db.status().to_string();
        db_ = std::move(*db);
        Status migrated =
            store::apply_migrations(*db_, "auth.db", std::span(&kIdentitySchemaMigration, 1));
        ASSERT_TRUE(migrated.ok()) << migrated.to_string();
        groups_ = std::make_unique<ManagementGroupStore>(*db_, clock_);
    }

    Result<ManagementGroup> create(const std::string& name, const std::string& parent = kRoot) {
        NewManagementGroup spec;
        spec.name = name;
        spec.parent_id = parent;
        spec.created_by = "admin";
        return groups_->create(spec);
    }

    std::string make(const std::string& name, const std::string& parent = kRoot) {
        auto g = create(name, parent);
        EXPECT_TRUE(g.ok()) << name << ": " << g.status().to_string();
        return g.ok() ? g->id : "";
    }

    Status move(const std::string& id, const std::string& parent) {
        ManagementGroupUpdate change;
        change.parent_id = parent;
        return groups_->update(id, change).status();
    }

    ManualClock clock_;
    std::unique_ptr<store::Database> db_;
    std::unique_ptr<ManagementGroupStore> groups_;
};

TEST_F(ManagementGroupTest, RootExistsAfterMigration) {
    auto root = groups_->get(kRoot);
    ASSERT_TRUE(root.ok()) << root.status().to_string();
    EXPECT_EQ(root->id, "000000000000");
    EXPECT_EQ(root->name, "All devices");
    EXPECT_EQ(root->parent_id, "");
    EXPECT_EQ(root->membership_type, "static");
    EXPECT_TRUE(root->is_root());
    EXPECT_GT(root->created_at_ms, 0);
    auto all = groups_->list();
    ASSERT_TRUE(all.ok());
    ASSERT_EQ(all->size(), 1u);
    EXPECT_EQ(all->front().id, kRoot);
    EXPECT_TRUE(groups_->ancestors(kRoot)->empty());
}

TEST_F(ManagementGroupTest, CreateFillsEveryField) {
    clock_.set_ms(1'710'000'000'000);
    NewManagementGroup spec;
    spec.name = "Berlin";
    spec.description = "Office machines\nthird floor";
    spec.created_by = "alice";
    spec.parent_id = "";  // means the root
    auto g = groups_->create(spec);
    ASSERT_TRUE(g.ok()) << g.status().to_string();
    EXPECT_TRUE(std::regex_match(g->id, std::regex("^[0-9a-f]{12}$"))) << g->id;
    EXPECT_NE(g->id, kRoot);
    EXPECT_EQ(g->name, "Berlin");
    EXPECT_EQ(g->description, "Office machines\nthird floor");
    EXPECT_EQ(g->parent_id, kRoot);
    EXPECT_EQ(g->membership_type, "static");
    EXPECT_EQ(g->created_by, "alice");
    EXPECT_EQ(g->created_at_ms, 1'710'000'000'000);
    EXPECT_EQ(g->updated_at_ms, 1'710'000'000'000);
    EXPECT_FALSE(g->is_root());

    auto again = groups_->get(g->id);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->name, g->name);
    EXPECT_EQ(again->description, g->description);
    EXPECT_EQ(again->parent_id, g->parent_id);

    NewManagementGroup dynamic;
    dynamic.name = "Linux boxes";
    dynamic.membership_type = "dynamic";
    dynamic.scope_expression = "os == \"linux\"";
    dynamic.created_by = "alice";
    auto d = groups_->create(dynamic);
    ASSERT_TRUE(d.ok()) << d.status().to_string();
    EXPECT_EQ(d->membership_type, "dynamic");
    EXPECT_EQ(d->scope_expression, "os == \"linux\"");
}

TEST_F(ManagementGroupTest, CreateValidatesFields) {
    EXPECT_EQ(create("").status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(create(std::string(129, 'n')).status().code(), StatusCode::kInvalidArgument);
    EXPECT_TRUE(create(std::string(128, 'n')).ok());
    EXPECT_EQ(create("tab\tname").status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(create("Orphan", "ffffffffffff").status().code(), StatusCode::kNotFound);

    NewManagementGroup spec;
    spec.name = "X";
    spec.created_by = "alice";
    spec.membership_type = "smart";
    EXPECT_EQ(groups_->create(spec).status().code(), StatusCode::kInvalidArgument);
    spec.membership_type = "static";
    spec.scope_expression = "os == \"linux\"";
    EXPECT_EQ(groups_->create(spec).status().code(), StatusCode::kInvalidArgument);
    spec.membership_type = "dynamic";
    spec.scope_expression = "";
    EXPECT_EQ(groups_->create(spec).status().code(), StatusCode::kInvalidArgument);
    spec.scope_expression = "os == \"linux\"";
    spec.created_by = "";
    EXPECT_EQ(groups_->create(spec).status().code(), StatusCode::kInvalidArgument);
    spec.created_by = "alice";
    spec.description = std::string(1025, 'd');
    EXPECT_EQ(groups_->create(spec).status().code(), StatusCode::kInvalidArgument);

    EXPECT_EQ(groups_->list()->size(), 2u);  // the root and the 128-character name
}

TEST_F(ManagementGroupTest, NamesAreUniqueAmongSiblings) {
    const std::string berlin = make("Berlin");
    const std::string paris = make("Paris");
    auto dup = create("Berlin");
    EXPECT_EQ(dup.status().code(), StatusCode::kAlreadyExists);
    // The same name under another parent is fine.
    EXPECT_TRUE(create("Servers", berlin).ok());
    EXPECT_TRUE(create("Servers", paris).ok());
    EXPECT_EQ(create("Servers", paris).status().code(), StatusCode::kAlreadyExists);

    // Renaming onto a sibling's name, or moving next to a same-named group.
    ManagementGroupUpdate rename;
    rename.name = "Paris";
    EXPECT_EQ(groups_->update(berlin, rename).status().code(), StatusCode::kAlreadyExists);
    const std::string lone = make("Servers");  // under the root
    EXPECT_EQ(move(lone, berlin).code(), StatusCode::kAlreadyExists);
}

TEST_F(ManagementGroupTest, GetMissingIsNotFound) {
    EXPECT_EQ(groups_->get("abcdefabcdef").status().code(), StatusCode::kNotFound);
    ManagementGroupUpdate change;
    change.name = "x";
    EXPECT_EQ(groups_->update("abcdefabcdef", change).status().code(), StatusCode::kNotFound);
    EXPECT_EQ(groups_->ancestors("abcdefabcdef").status().code(), StatusCode::kNotFound);
    EXPECT_EQ(groups_->descendants("abcdefabcdef").status().code(), StatusCode::kNotFound);
    EXPECT_EQ(groups_->members("abcdefabcdef").status().code(), StatusCode::kNotFound);
    EXPECT_EQ(groups_->list_roles("abcdefabcdef").status().code(), StatusCode::kNotFound);
}

TEST_F(ManagementGroupTest, UpdateChangesNameDescriptionAndTime) {
    const std::string id = make("Berlin");
    clock_.advance_ms(5'000);
    ManagementGroupUpdate change;
    change.name = "Berlin office";
    change.description = "renamed";
    auto updated = groups_->update(id, change);
    ASSERT_TRUE(updated.ok()) << updated.status().to_string();
    EXPECT_EQ(updated->name, "Berlin office");
    EXPECT_EQ(updated->description, "renamed");
    EXPECT_EQ(updated->updated_at_ms, updated->created_at_ms + 5'000);
    auto stored = groups_->get(id);
    ASSERT_TRUE(stored.ok());
    EXPECT_EQ(stored->name, "Berlin office");
    EXPECT_EQ(stored->updated_at_ms, updated->updated_at_ms);

    ManagementGroupUpdate bad;
    bad.name = "";
    EXPECT_EQ(groups_->update(id, bad).status().code(), StatusCode::kInvalidArgument);
    ManagementGroupUpdate scope;
    scope.scope_expression = "os == \"linux\"";
    EXPECT_EQ(groups_->update(id, scope).status().code(), StatusCode::kInvalidArgument);

    // The root can be renamed but not moved.
    ManagementGroupUpdate root_name;
    root_name.name = "Everything";
    EXPECT_TRUE(groups_->update(kRoot, root_name).ok());
    EXPECT_EQ(move(kRoot, id).code(), StatusCode::kFailedPrecondition);
    EXPECT_TRUE(move(kRoot, "").ok());  // "no parent" is what the root has
    EXPECT_EQ(groups_->get(kRoot)->parent_id, "");
}

TEST_F(ManagementGroupTest, ReparentingMovesTheSubtree) {
    const std::string a = make("A");
    const std::string b = make("B");
    const std::string a1 = make("A1", a);
    ASSERT_TRUE(groups_->add_member(a1, "agent-1").ok());
    ASSERT_TRUE(move(a, b).ok());
    EXPECT_EQ(groups_->get(a)->parent_id, b);
    EXPECT_EQ(*groups_->ancestors(a1), (std::vector<std::string>{a, b, kRoot}));
    EXPECT_EQ(*groups_->descendants(b), (std::vector<std::string>{a, a1}));
    // "" moves back under the root.
    ASSERT_TRUE(move(a, "").ok());
    EXPECT_EQ(groups_->get(a)->parent_id, kRoot);
    EXPECT_EQ(move(a, "ffffffffffff").code(), StatusCode::kNotFound);
}

TEST_F(ManagementGroupTest, CyclesAreRefused) {
    const std::string a = make("A");
    const std::string b = make("B", a);
    const std::string c = make("C", b);
    for (const std::string& target : {a, b, c}) {
        Status s = move(a, target);
        EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << target;
    }
    EXPECT_NE(move(a, c).message().find("cycle"), std::string::npos);
    EXPECT_EQ(move(b, c).code(), StatusCode::kFailedPrecondition);
    // Nothing moved.
    EXPECT_EQ(*groups_->ancestors(c), (std::vector<std::string>{b, a, kRoot}));
    // Moving sideways is fine.
    EXPECT_TRUE(move(c, a).ok());
}

TEST_F(ManagementGroupTest, DepthIsBounded) {
    std::string parent = kRoot;
    std::vector<std::string> chain;
    for (int level = 1; level <= kMaxGroupDepth; ++level) {
        parent = make("level " + std::to_string(level), parent);
        ASSERT_FALSE(parent.empty());
        chain.push_back(parent);
    }
    EXPECT_EQ(groups_->ancestors(chain.back())->size(), static_cast<size_t>(kMaxGroupDepth));
    EXPECT_EQ(groups_->descendants(kRoot)->size(), static_cast<size_t>(kMaxGroupDepth));
    EXPECT_EQ(create("too deep", chain.back()).status().code(), StatusCode::kFailedPrecondition);

    // A two-level subtree cannot go under level 31 either.
    const std::string top = make("top");
    make("under top", top);
    EXPECT_EQ(move(top, chain[30]).code(), StatusCode::kFailedPrecondition);
    EXPECT_TRUE(move(top, chain[29]).ok());
}

TEST_F(ManagementGroupTest, MembersAreAddedAndRemoved) {
    const std::string g = make("Berlin");
    const std::string h = make("Hamburg");
    ASSERT_TRUE(groups_->add_member(g, "agent-b").ok());
    ASSERT_TRUE(groups_->add_member(g, "agent-a").ok());
    ASSERT_TRUE(groups_->add_member(h, "agent-a").ok());
    EXPECT_EQ(groups_->add_member(g, "agent-a").code(), StatusCode::kAlreadyExists);

    auto members = groups_->members(g);
    ASSERT_TRUE(members.ok());
    ASSERT_EQ(members->size(), 2u);
    EXPECT_EQ((*members)[0].agent_id, "agent-a");
    EXPECT_EQ((*members)[0].source, "static");
    EXPECT_EQ((*members)[0].group_id, g);
    EXPECT_EQ((*members)[1].agent_id, "agent-b");

    std::vector<std::string> expected{g, h};
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(*groups_->groups_of_agent("agent-a"), expected);
    EXPECT_TRUE(groups_->groups_of_agent("agent-z")->empty());

    ASSERT_TRUE(groups_->remove_member(g, "agent-a").ok());
    EXPECT_EQ(groups_->remove_member(g, "agent-a").code(), StatusCode::kNotFound);
    EXPECT_EQ(*groups_->groups_of_agent("agent-a"), std::vector<std::string>{h});
}

TEST_F(ManagementGroupTest, MembershipRules) {
    const std::string g = make("Berlin");
    EXPECT_EQ(groups_->add_member(kRoot, "agent-1").code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(groups_->add_member("ffffffffffff", "agent-1").code(), StatusCode::kNotFound);
    EXPECT_EQ(groups_->add_member(g, "").code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(groups_->add_member(g, std::string(129, 'a')).code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(groups_->add_member(g, "bad\nid").code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(groups_->add_member(g, "agent-1", "manual").code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(groups_->add_member(g, "agent-1", "dynamic").code(), StatusCode::kFailedPrecondition);

    NewManagementGroup spec;
    spec.name = "Linux";
    spec.membership_type = "dynamic";
    spec.scope_expression = "os == \"linux\"";
    spec.created_by = "admin";
    auto dyn = groups_->create(spec);
    ASSERT_TRUE(dyn.ok());
    EXPECT_EQ(groups_->add_member(dyn->id, "agent-1").code(), StatusCode::kFailedPrecondition);
    EXPECT_TRUE(groups_->add_member(dyn->id, "agent-1", "dynamic").ok());
    EXPECT_EQ(groups_->members(dyn->id)->front().source, "dynamic");
}

TEST_F(ManagementGroupTest, AncestorsAndDescendants) {
    const std::string eu = make("Europe");
    const std::string de = make("Germany", eu);
    const std::string fr = make("France", eu);
    const std::string ber = make("Berlin", de);
    EXPECT_EQ(*groups_->ancestors(ber), (std::vector<std::string>{de, eu, kRoot}));
    EXPECT_EQ(*groups_->ancestors(eu), std::vector<std::string>{kRoot});
    auto below = groups_->descendants(eu);
    ASSERT_TRUE(below.ok());
    ASSERT_EQ(below->size(), 3u);
    // Nearest level first.
    EXPECT_EQ((*below)[2], ber);
    EXPECT_TRUE(((*below)[0] == de && (*below)[1] == fr) ||
                ((*below)[0] == fr && (*below)[1] == de));
    EXPECT_TRUE(groups_->descendants(ber)->empty());

    ASSERT_TRUE(groups_->add_member(ber, "agent-ber").ok());
    ASSERT_TRUE(groups_->add_member(fr, "agent-fr").ok());
    auto covering = groups_->groups_covering_agent("agent-ber");
    ASSERT_TRUE(covering.ok());
    EXPECT_EQ(*covering, (std::set<std::string>{ber, de, eu, kRoot}));
    EXPECT_EQ(*groups_->groups_covering_agent("agent-unknown"), std::set<std::string>{kRoot});
    EXPECT_EQ(*groups_->agents_in_subtree(eu), (std::set<std::string>{"agent-ber", "agent-fr"}));
    EXPECT_EQ(*groups_->agents_in_subtree(de), std::set<std::string>{"agent-ber"});
}

TEST_F(ManagementGroupTest, RoleAssignments) {
    UserStore users(*db_, clock_, UserStoreOptions{kScryptMinLogN});
    ASSERT_TRUE(users.create_user("olga", "olga's long password", {}).ok());
    const std::string g = make("Berlin");
    clock_.set_ms(1'720'000'000'000);

    EXPECT_EQ(groups_->assign_role(g, "user", "olga", "Wizard").code(),
              StatusCode::kInvalidArgument);
    EXPECT_EQ(groups_->assign_role(g, "team", "olga", "Operator").code(),
              StatusCode::kInvalidArgument);
    EXPECT_EQ(groups_->assign_role(g, "user", "nobody", "Operator").code(), StatusCode::kNotFound);
    EXPECT_EQ(groups_->assign_role("ffffffffffff", "user", "olga", "Operator").code(),
              StatusCode::kNotFound);
    ASSERT_TRUE(groups_->assign_role(g, "user", "olga", "Operator").ok());
    EXPECT_EQ(groups_->assign_role(g, "user", "olga", "Operator").code(),
              StatusCode::kAlreadyExists);
    ASSERT_TRUE(groups_->assign_role(g, "user", "olga", "Viewer").ok());

    auto roles = groups_->list_roles(g);
    ASSERT_TRUE(roles.ok());
    ASSERT_EQ(roles->size(), 2u);
    EXPECT_EQ((*roles)[0].group_id, g);
    EXPECT_EQ((*roles)[0].principal_type, "user");
    EXPECT_EQ((*roles)[0].principal_id, "olga");
    EXPECT_EQ((*roles)[0].role_name, "Operator");
    EXPECT_EQ((*roles)[0].granted_at_ms, 1'720'000'000'000);
    EXPECT_EQ((*roles)[1].role_name, "Viewer");
    EXPECT_TRUE(groups_->list_roles(kRoot)->empty());
    EXPECT_EQ(groups_->roles_held_by("user", "olga")->size(), 2u);

    ASSERT_TRUE(groups_->revoke_role(g, "user", "olga", "Viewer").ok());
    EXPECT_EQ(groups_->revoke_role(g, "user", "olga", "Viewer").code(), StatusCode::kNotFound);
    EXPECT_EQ(groups_->list_roles(g)->size(), 1u);
}

}  // namespace
}  // namespace yuzu::auth
