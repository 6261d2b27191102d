// sluice/core/config.hpp: portability macros shared by host-only (.cpp) and CUDA (.cu) translation units.
//
// Core headers are included from plain C++ files compiled by the host compiler (the CLI, host tests),
// so CUDA execution-space annotations must vanish there.
#pragma once

#if defined(__CUDACC__)
#define SLUICE_HOST_DEVICE __host__ __device__
#define SLUICE_DEVICE __device__
#define SLUICE_FORCEINLINE __forceinline__
#else
#define SLUICE_HOST_DEVICE
#define SLUICE_DEVICE
#define SLUICE_FORCEINLINE inline
#endif

namespace sluice {
/// 128-bit unsigned arithmetic (host and device) for exact products and quotients of 64-bit values.
__extension__ typedef unsigned __int128 uint128_t;
}  // namespace sluice
