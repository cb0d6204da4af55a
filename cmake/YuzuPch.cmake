# Precompiled headers shared across targets (option YUZU_PCH).
#
# GCC accepts a precompiled header only when the compiling target uses the
# same code-generation flags, so there is one per flavour: yuzu_pch_server
# (the build type's flags) for libraries, and the one owned by yuzu_testing
# (YUZU_TEST_COMPILE_OPTIONS) for test binaries. Extra -D macros on the
# reusing targets are harmless as long as the headers below never mention
# them; CMake passes -Winvalid-pch, so with -Werror a mismatch fails loudly
# rather than silently compiling without the header.

set(YUZU_PCH_COMMON_HEADERS
  <algorithm> <chrono> <cstdint> <functional> <map> <memory> <mutex>
  <optional> <string> <string_view> <unordered_map> <utility> <vector>)

if(YUZU_PCH)
  add_library(yuzu_pch_server STATIC ${CMAKE_CURRENT_LIST_DIR}/pch_anchor.cpp)
  target_link_libraries(yuzu_pch_server PRIVATE nlohmann_json::nlohmann_json)
  target_precompile_headers(yuzu_pch_server PRIVATE
    ${YUZU_PCH_COMMON_HEADERS} <nlohmann/json.hpp>)
endif()

# Libraries built with the build type's flags that use nlohmann/json.
function(yuzu_pch_use_server target)
  if(YUZU_PCH)
    target_precompile_headers(${target} REUSE_FROM yuzu_pch_server)
  endif()
endfunction()

# The owner of the tests' header: gtest, JSON and httplib.
function(yuzu_pch_own_tests target)
  if(YUZU_PCH)
    target_precompile_headers(${target} PRIVATE
      ${YUZU_PCH_COMMON_HEADERS} <thread> <gtest/gtest.h> <nlohmann/json.hpp> <httplib.h>)
  endif()
endfunction()

function(yuzu_pch_use_tests target)
  if(YUZU_PCH)
    target_precompile_headers(${target} REUSE_FROM yuzu_testing)
  endif()
endfunction()
