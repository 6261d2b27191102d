// src/cli/grep_gpu.hpp: the GPU scanner of `sluice grep` (grep_gpu.cu): the chunks of a file matched by
// string_match_stream (one pattern) or multi_string_match_stream (several) on device 0.
#pragma once

#include "grep.hpp"

#include <cstddef>
#include <memory>

namespace sluice::cli {

/// The GPU scanner, or null where no CUDA device is usable (grep then runs on the CPU); transfer_only:
/// the chunks read and copied to the device as the matching scanner does, with no matching (the bound
/// of the GPU path, scripts/bench_grep.sh).
std::unique_ptr<grep_scanner> make_gpu_grep_scanner(const grep_patterns& patterns, std::size_t chunk_bytes,
                                                    bool transfer_only);

}  // namespace sluice::cli
