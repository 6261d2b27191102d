#!/usr/bin/env bash
# Installs what a build of sluice needs on Debian or Ubuntu, only where it is missing.
# Idempotent: a machine that has everything is left alone and the script returns at once.
# CUDA toolkit 13 (nvcc, CCCL) is a prerequisite and is not installed here.
set -euo pipefail

need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for pkg in ninja-build g++ libgtest-dev googletest libcli11-dev nlohmann-json3-dev libfmt-dev \
           libtbb-dev python3-pip; do
  have_pkg "$pkg" || need+=("$pkg")
done

if ((${#need[@]})); then
  echo "setup: installing ${need[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root or sudo to install ${need[*]}" >&2; exit 1; }
    sudo=sudo
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

# CMake 3.30 or newer knows nvcc 13's C++20 dialect; Debian 12 ships 3.25, so take it from PyPI.
cmake_ok() { cmake -P /dev/stdin <<<'if(CMAKE_VERSION VERSION_LESS 3.30)
message(FATAL_ERROR "old")
endif()' >/dev/null 2>&1; }
if ! cmake_ok; then
  echo "setup: installing CMake >= 3.30 from PyPI (the system CMake is older)"
  python3 -m pip install --quiet "cmake>=3.30,<5"
  hash -r
  cmake_ok || { echo "setup: CMake >= 3.30 is not first on PATH ($(command -v cmake))" >&2; exit 1; }
fi

# The Python package (python/, docs/python.md): nanobind and scikit-build-core build it, NumPy and pytest
# test it (torch and CuPy are optional: their tests skip without them).
if ! python3 -c 'import nanobind, scikit_build_core, numpy, pytest' 2>/dev/null; then
  echo "setup: installing nanobind, scikit-build-core, numpy and pytest from PyPI"
  python3 -m pip install --quiet "nanobind>=2.4" "scikit-build-core>=0.10" numpy pytest
fi

# Plots are optional: `sluice bench --plot` says so plainly when matplotlib is missing.
if ! python3 -c 'import matplotlib' 2>/dev/null; then
  python3 -m pip install --quiet matplotlib 2>/dev/null ||
    echo "setup: matplotlib not installed; benchmark plots will be skipped"
fi

# NCCL, the engine of sluice::dist: the CUDA toolkit's where it ships one, else the nvidia-nccl-cu13 wheel
# (header and library in its package folder; cmake/FindNCCL.cmake finds either). Optional: without it the
# configure step says that sluice::dist, its tests and its benchmark are skipped.
nccl_found() {
  local root
  for root in "${NCCL_ROOT:-}" /usr/local/cuda /usr; do
    [ -n "$root" ] && [ -f "$root/include/nccl.h" ] && return 0
  done
  python3 -c 'import os, sys, nvidia.nccl as m
sys.exit(0 if os.path.isfile(os.path.join(list(m.__path__)[0], "include", "nccl.h")) else 1)' 2>/dev/null
}
if ! nccl_found; then
  echo "setup: installing NCCL for sluice::dist (the nvidia-nccl-cu13 wheel)"
  python3 -m pip install --quiet nvidia-nccl-cu13 ||
    echo "setup: NCCL not installed; sluice::dist will be skipped"
fi

command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] ||
  { echo "setup: nvcc not found; install the CUDA toolkit 13 (see README)" >&2; exit 1; }
