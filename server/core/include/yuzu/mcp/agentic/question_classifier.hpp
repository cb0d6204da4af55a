// An advisory reading of an operator's question: is it safe to act on, can
// Yuzu answer it from what it already holds, does it need a fresh dispatch to
// endpoints, or does the answer live in a system Yuzu does not see (a
// connector gap)? Keyword rules over lower-cased ASCII words, the first class
// that matches wins. It never reads fleet data and never decides anything:
// the tier policy, RBAC and approvals still do.
//
// Thread-safety: pure functions over static tables; safe from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace yuzu::mcp::agentic {

enum class QuestionClass {
    kUnsafeWithoutApproval,       // asks for a change to endpoints
    kRequiresExternalConnector,   // the facts live in a platform Yuzu does not see
    kAnswerableWithLiveDispatch,  // needs an instruction run on endpoints now
    kOutsideYuzuScope,            // not an endpoint question at all
    kAnswerableNow,               // Yuzu's stores already hold the facts
};

std::string_view question_class_name(QuestionClass c);

// A platform whose internals Yuzu does not collect.
struct ConnectorGap {
    std::string topic;      // "openshift"
    std::string connector;  // "OpenShift / Kubernetes API"
    std::string what_it_would_add;
};

struct Classification {
    QuestionClass question_class = QuestionClass::kAnswerableNow;
    std::string rationale;
    std::vector<std::string> matched_terms;  // the words or phrases that decided it
    // Connector gaps the question touches, whatever its class (a Teams call
    // question is answerable from endpoints, but the call-quality service
    // data is still a gap).
    std::vector<ConnectorGap> connector_gaps;
};

// The question is read as words of [a-z0-9] (ASCII letters lower-cased; any
// other byte separates words), so "CrashLoopBackOff," and "crashloopbackoff"
// match alike and "nodes" does not match "node".
Classification classify_question(std::string_view question);

// Every connector gap the classifier knows, once each, in a stable order
// (yuzu://capabilities lists them).
const std::vector<ConnectorGap>& known_connector_gaps();

// The words of `text` as classify_question sees them.
std::vector<std::string> question_words(std::string_view text);

}  // namespace yuzu::mcp::agentic
