// libFuzzer target for the agentic layer's readers of caller text (built
// and run by scripts/fuzz.sh): the question classifier and the playbook
// lookup. Any bytes classify to one class with its rationale; a class other
// than answerable_now names the terms that decided it, and each of those
// occurs in the question's words; the words are non-empty runs of [a-z0-9];
// a playbook found for a scenario is found again by its own name.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "yuzu/mcp/agentic/playbooks.hpp"
#include "yuzu/mcp/agentic/question_classifier.hpp"

namespace {

void fail(const char* what) {
    std::fprintf(stderr, "question_text_fuzz: %s\n", what);
    std::abort();
}

bool word_ok(const std::string& w) {
    if (w.empty()) return false;
    for (char c : w) {
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return false;
    }
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace yuzu::mcp::agentic;
    const std::string_view text(reinterpret_cast<const char*>(data), size);

    const auto words = question_words(text);
    size_t letters = 0;
    for (const auto& w : words) {
        if (!word_ok(w)) fail("a word outside [a-z0-9]+");
        letters += w.size();
    }
    if (letters > size) fail("more word characters than input bytes");

    const Classification c = classify_question(text);
    if (c.rationale.empty()) fail("a classification without a rationale");
    if ((c.question_class == QuestionClass::kAnswerableNow) != c.matched_terms.empty()) {
        fail("matched terms disagree with the class");
    }
    for (const auto& term : c.matched_terms) {
        const auto parts = question_words(term);
        bool found = false;
        for (size_t i = 0; !found && i + parts.size() <= words.size(); ++i) {
            found = std::equal(parts.begin(), parts.end(), words.begin() + static_cast<long>(i));
        }
        if (!found) fail("a matched term that is not in the question");
    }

    if (auto p = find_playbook(text)) {
        auto again = find_playbook(p->playbook->name);
        if (!again || again->playbook != p->playbook) fail("a playbook not found by its own name");
    }
    return 0;
}
