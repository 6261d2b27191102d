# FindNCCL: NVIDIA's collective communication library, the engine of sluice::dist (include/sluice/dist/).
#
# Looks, in this order, in: NCCL_ROOT (CMake or environment) and NCCL_HOME; the CUDA toolkit (its include
# and library folders); the `nvidia-nccl-cu13` (or -cu12) wheel of the python3 on PATH, whose package
# folder holds include/nccl.h and lib/libnccl.so.2 (no libnccl.so link, and no __init__.py: the folder is
# read from the namespace package's __path__); then the system's folders.
#
# Defines NCCL_FOUND, NCCL_INCLUDE_DIR, NCCL_LIBRARY, NCCL_VERSION ("2.28.9") and the imported target
# NCCL::nccl. Non-blocking communicators (ncclCommInitRankConfig, ncclCommFinalize) need NCCL 2.14.
set(_sluice_nccl_hints)
foreach(root IN ITEMS "${NCCL_ROOT}" "$ENV{NCCL_ROOT}" "$ENV{NCCL_HOME}")
  if(root)
    list(APPEND _sluice_nccl_hints "${root}")
  endif()
endforeach()
if(CUDAToolkit_INCLUDE_DIRS)
  foreach(dir IN LISTS CUDAToolkit_INCLUDE_DIRS)
    get_filename_component(_sluice_nccl_parent "${dir}" DIRECTORY)
    list(APPEND _sluice_nccl_hints "${_sluice_nccl_parent}")
  endforeach()
endif()
if(CUDAToolkit_LIBRARY_DIR)
  get_filename_component(_sluice_nccl_parent "${CUDAToolkit_LIBRARY_DIR}" DIRECTORY)
  list(APPEND _sluice_nccl_hints "${_sluice_nccl_parent}")
endif()

find_program(_sluice_nccl_python NAMES python3)
if(_sluice_nccl_python)
  execute_process(
    COMMAND "${_sluice_nccl_python}" -c "import nvidia.nccl as m; print(list(m.__path__)[0])"
    OUTPUT_VARIABLE _sluice_nccl_wheel OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _sluice_nccl_rc)
  if(_sluice_nccl_rc EQUAL 0 AND IS_DIRECTORY "${_sluice_nccl_wheel}")
    list(APPEND _sluice_nccl_hints "${_sluice_nccl_wheel}")
  endif()
endif()

find_path(NCCL_INCLUDE_DIR NAMES nccl.h HINTS ${_sluice_nccl_hints} PATH_SUFFIXES include)
find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 NAMES_PER_DIR HINTS ${_sluice_nccl_hints} PATH_SUFFIXES lib lib64)

if(NCCL_INCLUDE_DIR AND EXISTS "${NCCL_INCLUDE_DIR}/nccl.h")
  file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _sluice_nccl_defines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
  foreach(part IN ITEMS MAJOR MINOR PATCH)
    string(REGEX MATCH "NCCL_${part} +([0-9]+)" _ "${_sluice_nccl_defines}")
    set(_sluice_nccl_${part} "${CMAKE_MATCH_1}")
  endforeach()
  set(NCCL_VERSION "${_sluice_nccl_MAJOR}.${_sluice_nccl_MINOR}.${_sluice_nccl_PATCH}")
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR VERSION_VAR NCCL_VERSION)

if(NCCL_FOUND AND NOT TARGET NCCL::nccl)
  add_library(NCCL::nccl UNKNOWN IMPORTED)
  set_target_properties(NCCL::nccl PROPERTIES IMPORTED_LOCATION "${NCCL_LIBRARY}"
                                              INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
endif()
mark_as_advanced(NCCL_INCLUDE_DIR NCCL_LIBRARY)
