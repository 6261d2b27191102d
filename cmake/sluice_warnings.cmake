# Warnings for sluice's own targets (never imposed on consumers of the header-only library).
# SLUICE_WARNINGS_AS_ERRORS (on in the release preset, which scripts/test and scripts/bench use) makes
# them fatal.
# Register spills are not a compile warning here: CUB kernels instantiated in our translation units
# (the benchmark baselines) spill a few bytes in their own tuning policies. Spills of sluice kernels
# are read from the resource report (scripts/gpu_check.sh prints it) instead.
option(SLUICE_WARNINGS_AS_ERRORS "Treat warnings in sluice's own targets as errors" OFF)
add_library(sluice_warnings INTERFACE)
target_compile_options(sluice_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
if(SLUICE_WARNINGS_AS_ERRORS)
  target_compile_options(sluice_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-Werror> $<$<COMPILE_LANGUAGE:CUDA>:--Werror=all-warnings>)
endif()
