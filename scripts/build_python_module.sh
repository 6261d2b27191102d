#!/usr/bin/env bash
# Builds the Python package's parts apart, for a machine whose Python differs from the build machine's
# (the GPU machine: Python 3.12 with torch and CuPy, no network):
#   scripts/build_python_module.sh kernels
#       here: builds libsluice_python_kernels.so (all the CUDA) in build/python-gpu for sm_90 SASS alone,
#       without line tables (the python preset's library, with PTX and -lineinfo, packs to 60 MB, too
#       much for the device tool's 64 MiB carry), and packs it into build/python-prebuilt.tar.xz with
#       the shared libraries it links that the other machine may lack (libcudart.so.13, libtbb.so.12);
#       stages nanobind into .deps/nanobind and the wheels of pytest into .deps/wheels. Carry
#       build/python-prebuilt.tar.xz and .deps to the other machine.
#   scripts/build_python_module.sh module [PYTHON] [PREBUILT]
#       there: builds only the _sluice module (host C++, seconds) for PYTHON (default
#       /opt/torch/.venv/bin/python3) against the prebuilt library (PREBUILT: the .tar.xz or its unpacked
#       folder; default build/python-prebuilt.tar.xz), into build/python-module/python/, beside a copy of
#       the library and its companions; installs pytest there from .deps/wheels where PYTHON lacks it;
#       then prints the PYTHONPATH that imports sluice (and pytest) from the tree.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
mode=${1:?usage: scripts/build_python_module.sh kernels | module [PYTHON] [PREBUILT_DIR]}

case "$mode" in
  kernels)
    cmake --preset python -B build/python-gpu -DCMAKE_CUDA_ARCHITECTURES=90-real -DCMAKE_CUDA_FLAGS= >/dev/null
    cmake --build build/python-gpu --target sluice_python_kernels -j "${SLUICE_JOBS:-$(nproc)}"
    library=build/python-gpu/python/libsluice_python_kernels.so
    prebuilt=build/python-prebuilt
    rm -rf "$prebuilt" && mkdir -p "$prebuilt"
    cp "$library" "$prebuilt/"
    for dependency in libcudart.so.13 libtbb.so.12; do
      path=$(ldd "$library" | awk -v l="$dependency" '$1 == l { print $3 }')
      [ -n "$path" ] && cp -L "$path" "$prebuilt/"
    done
    if [ ! -d .deps/nanobind ] && nanobind_dir=$(python3 -c 'import nanobind, os; print(os.path.dirname(nanobind.__file__))'); then
      mkdir -p .deps && cp -r "$nanobind_dir" .deps/nanobind
    fi
    tar cf - -C "$prebuilt" . | xz -9 -T0 >build/python-prebuilt.tar.xz
    python3 -m pip download --quiet --only-binary=:all: --dest .deps/wheels pytest
    du -sh build/python-prebuilt.tar.xz .deps/nanobind .deps/wheels
    ;;
  module)
    python=${2:-/opt/torch/.venv/bin/python3}
    prebuilt=${3:-build/python-prebuilt.tar.xz}
    build=build/python-module
    if [ -f "$prebuilt" ]; then
      mkdir -p build/python-prebuilt && tar xJf "$prebuilt" -C build/python-prebuilt
      prebuilt=build/python-prebuilt
    fi
    prebuilt=$(realpath "$prebuilt")
    nanobind_args=()
    if ! "$python" -m nanobind --cmake_dir >/dev/null 2>&1; then
      nanobind_args=(-Dnanobind_DIR="$PWD/.deps/nanobind/cmake")
    fi
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DSLUICE_PYTHON=ON -DSLUICE_BUILD_TESTS=OFF -DSLUICE_BUILD_TOOLS=OFF -DSLUICE_BUILD_EXAMPLES=OFF \
      -DPython_EXECUTABLE="$python" -DSLUICE_PYTHON_PREBUILT_KERNELS="$prebuilt/libsluice_python_kernels.so" \
      "${nanobind_args[@]}" >/dev/null
    cmake --build "$build" --target _sluice
    cp "$prebuilt"/*.so* "$build/python/"
    if ! "$python" -c 'import pytest' 2>/dev/null && [ -d .deps/wheels ]; then
      "$python" -m pip install --quiet --no-index --find-links .deps/wheels --target "$build/site" pytest
    fi
    echo "PYTHONPATH=$PWD/python:$PWD/$build/python:$PWD/$build/site"
    ;;
  *)
    echo "usage: scripts/build_python_module.sh kernels | module [PYTHON] [PREBUILT_DIR]" >&2
    exit 2
    ;;
esac
