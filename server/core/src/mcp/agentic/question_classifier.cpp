#include "yuzu/mcp/agentic/question_classifier.hpp"

#include <algorithm>
#include <cassert>
#include <unordered_map>
#include <unordered_set>

namespace yuzu::mcp::agentic {
namespace {

// A term is one word or a phrase of consecutive words.
struct Rule {
    QuestionClass question_class;
    std::vector<std::string> terms;
    const char* rationale;
};

const std::vector<Rule>& rules() {
    // In precedence order: a request to change something is unsafe whatever
    // else it mentions; a platform Yuzu cannot see outranks an endpoint
    // check, which outranks "not our business".
    static const std::vector<Rule> table = {
        {QuestionClass::kUnsafeWithoutApproval,
         {"reboot",      "reboots",    "restart",  "restarts",  "patch",
          "patching",    "quarantine", "isolate",  "revoke",    "remediate",
          "remediation", "fix it",     "delete",   "remove",    "uninstall",
          "kill",        "wipe",       "shutdown", "shut down", "roll back",
          "rollback",    "disable",    "redeploy", "reinstall", "upgrade"},
         "The question asks for a change to endpoints. Read first; any change goes through "
         "execute_instruction or a write tool, and at a tier that gates it a person approves "
         "the ticket before anything runs."},
        {QuestionClass::kRequiresExternalConnector,
         {"openshift",
          "ocp",
          "kubernetes",
          "k8s",
          "kubectl",
          "crashloop",
          "crashloopbackoff",
          "cluster operator",
          "etcd",
          "pod",
          "pods",
          "postgres",
          "postgresql",
          "oracle",
          "lock contention",
          "replication lag",
          "deadlock",
          "libvirt",
          "kvm",
          "qemu",
          "hypervisor",
          "virsh",
          "vm",
          "vms",
          "virtual machine",
          "registry",
          "artifactory",
          "harbor"},
         "The facts live inside a platform Yuzu does not collect from (its API, engine or "
         "control plane). Yuzu can still read the endpoints that platform runs on: installed "
         "software, processes, services, sockets, disks and performance."},
        {QuestionClass::kAnswerableWithLiveDispatch,
         {"buildx",       "docker",     "container",     "containers", "chisel",   "chiselled",
          "chiseled",     "node",       "nodejs",        "npm",        "java",     "jvm",
          "spring",       "gateway",    "crowdstrike",   "falcon",     "zscaler",  "check point",
          "checkpoint",   "anyconnect", "secure client", "vpn",        "teams",    "zoom",
          "call quality", "process",    "processes",     "service",    "services", "port",
          "listening"},
         "Answering needs a fresh reading from the endpoints (processes, service state, "
         "network connections): a read-only instruction through execute_instruction, after "
         "the stored inventory has narrowed the targets."},
        {QuestionClass::kOutsideYuzuScope,
         {"weather", "stock price", "share price", "recipe", "football", "poem", "joke",
          "horoscope", "lottery"},
         "This is not a question about endpoints Yuzu manages."},
    };
    return table;
}

const std::vector<std::pair<std::string, ConnectorGap>>& gaps() {
    static const std::vector<std::pair<std::string, ConnectorGap>> table = [] {
        const ConnectorGap openshift{"openshift", "OpenShift / Kubernetes API",
                                     "cluster operator, pod and event state"};
        const ConnectorGap database{"database", "Database engine connection",
                                    "locks, replication, query plans and engine metrics"};
        const ConnectorGap virt{"kvm_libvirt", "libvirt / hypervisor API",
                                "guest state, vCPU scheduling and storage pools"};
        const ConnectorGap collab{"teams_zoom", "Teams / Zoom call-quality service",
                                  "per-call jitter, loss and MOS from the service side"};
        const ConnectorGap registry{"registry", "Container registry API",
                                    "image tags, pulls and layer storage"};
        const ConnectorGap security{"security_console", "Security vendor console",
                                    "sensor policy, detections and tenant-side status"};
        std::vector<std::pair<std::string, ConnectorGap>> t;
        for (const char* w : {"openshift", "ocp", "kubernetes", "k8s", "kubectl", "crashloop",
                              "crashloopbackoff", "cluster operator", "etcd", "pod", "pods"}) {
            t.emplace_back(w, openshift);
        }
        for (const char* w : {"postgres", "postgresql", "oracle", "lock contention",
                              "replication lag", "deadlock"}) {
            t.emplace_back(w, database);
        }
        for (const char* w :
             {"libvirt", "kvm", "qemu", "hypervisor", "virsh", "vm", "vms", "virtual machine"}) {
            t.emplace_back(w, virt);
        }
        for (const char* w : {"teams", "zoom", "call quality"}) t.emplace_back(w, collab);
        for (const char* w : {"registry", "artifactory", "harbor"}) t.emplace_back(w, registry);
        for (const char* w : {"crowdstrike", "falcon", "zscaler", "check point", "checkpoint"}) {
            t.emplace_back(w, security);
        }
        return t;
    }();
    return table;
}

// A question's words, indexed once so each single-word term is one lookup.
class QuestionText {
  public:
    explicit QuestionText(std::string_view question)
        : words_(question_words(question)), set_(words_.begin(), words_.end()) {}

    // Whether the words of `term` occur consecutively.
    bool contains(const std::string& term) const {
        const std::vector<std::string>& parts = split(term);
        if (parts.empty() || parts.size() > words_.size()) return false;
        if (parts.size() == 1) return set_.count(parts.front()) != 0;
        if (set_.count(parts.front()) == 0) return false;
        return std::search(words_.begin(), words_.end(), parts.begin(), parts.end()) !=
               words_.end();
    }

  private:
    // The terms' words, split once for the process.
    static const std::vector<std::string>& split(const std::string& term) {
        static const std::unordered_map<std::string, std::vector<std::string>> cache = [] {
            std::unordered_map<std::string, std::vector<std::string>> m;
            for (const auto& rule : rules()) {
                for (const auto& t : rule.terms) m.emplace(t, question_words(t));
            }
            for (const auto& entry : gaps()) m.emplace(entry.first, question_words(entry.first));
            return m;
        }();
        static const std::vector<std::string> kNone;
        auto it = cache.find(term);
        assert(it != cache.end() && "every term comes from the tables");
        return it == cache.end() ? kNone : it->second;
    }

    std::vector<std::string> words_;
    std::unordered_set<std::string> set_;
};

}  // namespace

std::string_view question_class_name(QuestionClass c) {
    switch (c) {
        case QuestionClass::kUnsafeWithoutApproval:
            return "unsafe_without_approval";
        case QuestionClass::kRequiresExternalConnector:
            return "requires_external_connector";
        case QuestionClass::kAnswerableWithLiveDispatch:
            return "answerable_with_live_dispatch";
        case QuestionClass::kOutsideYuzuScope:
            return "outside_yuzu_scope";
        case QuestionClass::kAnswerableNow:
            return "answerable_now";
    }
    return "answerable_now";
}

const std::vector<ConnectorGap>& known_connector_gaps() {
    static const std::vector<ConnectorGap> all = [] {
        std::vector<ConnectorGap> out;
        for (const auto& entry : gaps()) {
            const ConnectorGap& gap = entry.second;
            const bool seen = std::any_of(out.begin(), out.end(), [&gap](const ConnectorGap& g) {
                return g.topic == gap.topic;
            });
            if (!seen) out.push_back(gap);
        }
        return out;
    }();
    return all;
}

std::vector<std::string> question_words(std::string_view text) {
    std::vector<std::string> words;
    std::string word;
    for (const char raw : text) {
        char c = raw;
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
            word += c;
        } else if (!word.empty()) {
            words.push_back(std::move(word));
            word.clear();
        }
    }
    if (!word.empty()) words.push_back(std::move(word));
    return words;
}

Classification classify_question(std::string_view question) {
    const QuestionText text(question);
    Classification out;
    for (const auto& entry : gaps()) {
        const ConnectorGap& gap = entry.second;
        if (!text.contains(entry.first)) continue;
        const bool known =
            std::any_of(out.connector_gaps.begin(), out.connector_gaps.end(),
                        [&gap](const ConnectorGap& g) { return g.topic == gap.topic; });
        if (!known) out.connector_gaps.push_back(gap);
    }
    for (const auto& rule : rules()) {
        for (const auto& term : rule.terms) {
            if (text.contains(term)) out.matched_terms.push_back(term);
        }
        if (out.matched_terms.empty()) continue;
        out.question_class = rule.question_class;
        out.rationale = rule.rationale;
        return out;
    }
    out.question_class = QuestionClass::kAnswerableNow;
    out.rationale =
        "Yuzu's stores likely hold the answer already: agents, inventory, installed software, "
        "compliance and performance samples. Start with the posture, then the read tools.";
    return out;
}

}  // namespace yuzu::mcp::agentic
