# Development dependencies (tests, CLI, benchmarks): GoogleTest, CLI11, nlohmann-json, fmt.
#
# They come from the system packages that scripts/setup.sh installs. A machine that cannot install
# packages (the GPU machine has no network) gets them from SLUICE_DEPS_DIR instead, a folder that
# scripts/stage_deps.sh fills from this machine's packages: googletest/ (sources), include/ (headers).
set(SLUICE_DEPS_DIR "${PROJECT_SOURCE_DIR}/.deps" CACHE PATH "Staged dependency sources (fallback)")

function(sluice_require_staged what path)
  if(NOT EXISTS "${SLUICE_DEPS_DIR}/${path}")
    message(FATAL_ERROR "sluice: ${what} not found. Run scripts/setup.sh (installs the Debian packages) "
                        "or scripts/stage_deps.sh on a machine that has them.")
  endif()
endfunction()

find_package(GTest QUIET)
if(NOT GTest_FOUND)
  sluice_require_staged(GoogleTest googletest/CMakeLists.txt)
  set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
  set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
  add_subdirectory("${SLUICE_DEPS_DIR}/googletest" "${PROJECT_BINARY_DIR}/_deps/googletest" EXCLUDE_FROM_ALL)
  add_library(GTest::gtest ALIAS gtest)
  add_library(GTest::gtest_main ALIAS gtest_main)
endif()

foreach(header_only IN ITEMS "CLI11;CLI11::CLI11;CLI/CLI.hpp" "nlohmann_json;nlohmann_json::nlohmann_json;nlohmann/json.hpp")
  list(GET header_only 0 package)
  list(GET header_only 1 target)
  list(GET header_only 2 header)
  find_package(${package} QUIET)
  if(NOT TARGET ${target})
    sluice_require_staged(${package} include/${header})
    add_library(${target} INTERFACE IMPORTED)
    target_include_directories(${target} INTERFACE "${SLUICE_DEPS_DIR}/include")
  endif()
endforeach()

find_package(fmt QUIET)
if(NOT TARGET fmt::fmt)
  sluice_require_staged(fmt include/fmt/format.h)
  add_library(fmt::fmt INTERFACE IMPORTED)
  target_include_directories(fmt::fmt INTERFACE "${SLUICE_DEPS_DIR}/include")
  target_compile_definitions(fmt::fmt INTERFACE FMT_HEADER_ONLY=1)
endif()
