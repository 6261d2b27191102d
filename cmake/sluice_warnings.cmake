# Warnings for sluice's own targets (not imposed on consumers of the header-only library).
add_library(sluice_warnings INTERFACE)
target_compile_options(sluice_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion -Werror>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --Werror=all-warnings -Xptxas=-warn-spills>)
