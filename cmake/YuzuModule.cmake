# yuzu_module(NAME DEPS dep...)
# Builds server/core/src/NAME/**/*.cpp into the static library yuzu_NAME, and
# tests/unit/NAME/**/*.cpp into the test binary yuzu_NAME_tests. Sources are
# globbed per module folder, so adding a file never means editing a list, and
# a module only links the modules below it (DESIGN.md's layering).
function(yuzu_module name)
  cmake_parse_arguments(M "" "" "DEPS" ${ARGN})
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${YUZU_SRC_DIR}/${name}/*.cpp)
  list(FILTER srcs EXCLUDE REGEX ".*/main\\.cpp$")
  if(srcs)
    add_library(yuzu_${name} STATIC ${srcs})
    target_include_directories(yuzu_${name}
      PUBLIC ${YUZU_INCLUDE_DIR}
      PRIVATE ${YUZU_SRC_DIR})
    target_link_libraries(yuzu_${name} PUBLIC ${M_DEPS})
    if(nlohmann_json::nlohmann_json IN_LIST M_DEPS)
      yuzu_pch_use_server(yuzu_${name})
    endif()
  else()
    add_library(yuzu_${name} INTERFACE)
    target_include_directories(yuzu_${name} INTERFACE ${YUZU_INCLUDE_DIR})
    target_link_libraries(yuzu_${name} INTERFACE ${M_DEPS})
  endif()
  set_property(GLOBAL APPEND PROPERTY YUZU_MODULES yuzu_${name})

  if(YUZU_BUILD_TESTS)
    file(GLOB_RECURSE tests CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/unit/${name}/*.cpp)
    if(tests)
      add_executable(yuzu_${name}_tests ${tests})
      target_link_libraries(yuzu_${name}_tests PRIVATE yuzu_${name} yuzu_testing
        GTest::gtest GTest::gtest_main)
      target_include_directories(yuzu_${name}_tests PRIVATE ${YUZU_SRC_DIR})
      yuzu_pch_use_tests(yuzu_${name}_tests)
      gtest_discover_tests(yuzu_${name}_tests DISCOVERY_MODE PRE_TEST
        PROPERTIES LABELS "unit;${name}" TIMEOUT 120)
    endif()
  endif()
endfunction()
