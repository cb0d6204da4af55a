#include "support/doc_block.hpp"

#include <fstream>
#include <sstream>

namespace yuzu::testing {

std::string doc_block(const std::string& page, const std::string& marker) {
    std::ifstream in(std::string(YUZU_SOURCE_DIR) + "/docs/" + page);
    std::stringstream text;
    text << in.rdbuf();
    const std::string all = text.str();
    const size_t begin = all.find("<!-- " + marker + ":begin");
    const size_t end = all.find("<!-- " + marker + ":end -->");
    if (begin == std::string::npos || end == std::string::npos || end < begin) return "";
    const size_t body = all.find('\n', begin) + 1;
    return all.substr(body, end - body);
}

}  // namespace yuzu::testing
