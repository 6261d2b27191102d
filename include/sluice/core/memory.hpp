// sluice/core/memory.hpp: where a pointer lives, and the check that device memory was passed.
//
// A host pointer handed to a kernel is a crash far from its cause (or silent garbage through a
// stale mapping). Every public entry point checks its spans here first and names the parameter.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>

#include <cuda/std/span>

#include <string>
#include <string_view>

namespace sluice {

enum class memory_kind { host_pageable, host_pinned, device, managed };

[[nodiscard]] inline memory_kind memory_kind_of(const void* pointer, int* device = nullptr) {
  cudaPointerAttributes attributes{};
  SLUICE_CUDA_CHECK(cudaPointerGetAttributes(&attributes, pointer));
  if (device) *device = attributes.device;
  switch (attributes.type) {
    case cudaMemoryTypeDevice: return memory_kind::device;
    case cudaMemoryTypeManaged: return memory_kind::managed;
    case cudaMemoryTypeHost: return memory_kind::host_pinned;
    default: return memory_kind::host_pageable;
  }
}

/// Throws invalid_argument unless `pointer` is device or managed memory usable on the context's device.
/// A null pointer is accepted only when `bytes` is 0 (an empty range).
inline void require_device_memory(const context& ctx, const void* pointer, std::size_t bytes,
                                  std::string_view function, std::string_view parameter) {
  if (bytes == 0) return;
  if (pointer == nullptr) throw invalid_argument(function, parameter, "is null but the range is not empty");
  int device = -1;
  switch (memory_kind_of(pointer, &device)) {
    case memory_kind::host_pageable:
      throw invalid_argument(function, parameter, "points to host (pageable) memory; pass device memory");
    case memory_kind::host_pinned:
      throw invalid_argument(function, parameter, "points to pinned host memory; pass device memory");
    case memory_kind::device:
      if (device != ctx.device())
        throw invalid_argument(function, parameter,
                               "is memory of device " + std::to_string(device) + " but the context is on device " +
                                   std::to_string(ctx.device()));
      return;
    case memory_kind::managed: return;
  }
}

template <class T, std::size_t Extent>
void require_device_memory(const context& ctx, cuda::std::span<T, Extent> range, std::string_view function,
                           std::string_view parameter) {
  require_device_memory(ctx, range.data(), range.size_bytes(), function, parameter);
}

namespace detail {

/// The checks every key-value call makes of its values: device memory, and one value and one output
/// element per key.
template <class V>
void require_values_per_key(const context& ctx, const char* function, std::size_t keys,
                            cuda::std::span<const V> values, cuda::std::span<V> out_values) {
  require_device_memory(ctx, values, function, "values");
  require_device_memory(ctx, out_values, function, "out_values");
  if (values.size() != keys) throw invalid_argument(function, "values", "must have one value per key");
  if (out_values.size() != keys) throw invalid_argument(function, "out_values", "must have one element per key");
}

}  // namespace detail

}  // namespace sluice
