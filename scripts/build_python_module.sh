#!/usr/bin/env bash
# Builds the Python package's parts apart, for a machine whose Python differs from the build machine's
# (the GPU machine: Python 3.12 with torch and CuPy, no network):
#   scripts/build_python_module.sh kernels
#       here: builds libsluice_python_kernels.so (all the CUDA; the python preset, build/python) and puts
#       it in build/python-prebuilt/ with the shared libraries it links that the other machine may lack
#       (libcudart.so.13, libtbb.so.12); stages nanobind into .deps/nanobind (scripts/stage_deps.sh does
#       too). Carry build/python-prebuilt and .deps to the other machine.
#   scripts/build_python_module.sh module [PYTHON] [PREBUILT_DIR]
#       there: builds only the _sluice module (host C++, seconds) for PYTHON (default
#       /opt/torch/.venv/bin/python3) against PREBUILT_DIR/libsluice_python_kernels.so (default
#       build/python-prebuilt), into build/python-module/, beside a copy of the library and its
#       companions; then prints the PYTHONPATH that imports sluice from the tree.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
mode=${1:?usage: scripts/build_python_module.sh kernels | module [PYTHON] [PREBUILT_DIR]}

case "$mode" in
  kernels)
    cmake --preset python >/dev/null
    cmake --build --preset python --target sluice_python_kernels
    prebuilt=build/python-prebuilt
    rm -rf "$prebuilt" && mkdir -p "$prebuilt"
    cp build/python/python/libsluice_python_kernels.so "$prebuilt/"
    for library in libcudart.so.13 libtbb.so.12; do
      path=$(ldd build/python/python/libsluice_python_kernels.so | awk -v l="$library" '$1 == l { print $3 }')
      [ -n "$path" ] && cp -L "$path" "$prebuilt/"
    done
    if [ ! -d .deps/nanobind ] && nanobind_dir=$(python3 -c 'import nanobind, os; print(os.path.dirname(nanobind.__file__))'); then
      mkdir -p .deps && cp -r "$nanobind_dir" .deps/nanobind
    fi
    du -sh "$prebuilt" .deps/nanobind
    ;;
  module)
    python=${2:-/opt/torch/.venv/bin/python3}
    prebuilt=$(realpath "${3:-build/python-prebuilt}")
    build=build/python-module
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
    echo "PYTHONPATH=$PWD/python:$PWD/$build/python"
    ;;
  *)
    echo "usage: scripts/build_python_module.sh kernels | module [PYTHON] [PREBUILT_DIR]" >&2
    exit 2
    ;;
esac
