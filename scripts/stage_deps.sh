#!/usr/bin/env bash
# Copies the development dependencies from this machine's Debian packages into .deps/ (git-ignored),
# for a machine that cannot install packages, such as the GPU machine: pass `.deps` in the device
# tool's `carry` list and CMake picks them up (cmake/sluice_dependencies.cmake).
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .deps && mkdir -p .deps/include
cp -r /usr/src/googletest .deps/googletest
cp -r /usr/include/CLI /usr/include/nlohmann /usr/include/fmt .deps/include/
# nanobind (sources and CMake package) for building the Python module offline (python/CMakeLists.txt).
if nanobind_dir=$(python3 -c 'import nanobind, os; print(os.path.dirname(nanobind.__file__))' 2>/dev/null); then
  cp -r "$nanobind_dir" .deps/nanobind
fi
du -sh .deps
