// Reads a marked block out of a doc page, for tests that keep a table in the
// docs equal to the code that it describes.
#pragma once

#include <string>

namespace yuzu::testing {

// The lines between "<!-- MARKER:begin ... -->" and "<!-- MARKER:end -->" in
// docs/<page> of the source tree; "" when the page or a marker is missing.
std::string doc_block(const std::string& page, const std::string& marker);

}  // namespace yuzu::testing
