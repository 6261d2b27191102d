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

/// The architecture whose tuning tables (detail/<family>/tuning.hpp) a build takes, as 100 × major +
/// 10 × minor: sm_90 unless the build defines it. A family without a table for it falls back to sm_90's.
#ifndef SLUICE_TUNING_ARCH
#define SLUICE_TUNING_ARCH 900
#endif

namespace sluice {
/// 128-bit unsigned arithmetic (host and device) for exact products and quotients of 64-bit values.
__extension__ typedef unsigned __int128 uint128_t;
}  // namespace sluice

namespace sluice::detail {
/// The high 64 bits of the 128-bit product a·b.
SLUICE_HOST_DEVICE inline unsigned long long multiply_high64(unsigned long long a, unsigned long long b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<unsigned long long>((static_cast<uint128_t>(a) * b) >> 64);
#endif
}
}  // namespace sluice::detail
