// cluster_atomics: the rates that bound a multireduce of random labels once its buckets leave one block's
// shared memory (docs/perf-notes.md, "Buckets past one block"). 2^28 pairs of u32 labels (uniform in
// [0, m)) and u32 values, summed into m buckets three ways:
//   l2        one red.global.add per pair into the m buckets (the L2's atomic rate at that footprint)
//   cluster C the buckets spread over the shared memory of a cluster of C blocks (Hopper's distributed
//             shared memory): bucket b lives in block b mod C at b / C, every pair one shared atomic,
//             local or remote; the cluster adds its buckets into the output at the end
//   read      the pairs read and summed, no buckets (the read-bandwidth floor)
// Each row: the median of 15 timed runs (CUDA events) after a warm-up, and whether the buckets equal the
// l2 row's (exact: integer sums). Built with the rest (bench/probes/CMakeLists.txt).
#include <sluice/core/error.hpp>

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace cg = cooperative_groups;

constexpr int threads = 1024;

__global__ void fill_labels(std::uint32_t* labels, std::uint32_t* values, std::size_t n, std::uint32_t m) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    std::uint64_t x = i * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    labels[i] = static_cast<std::uint32_t>((x & 0xffffffffu) * std::uint64_t{m} >> 32);
    values[i] = static_cast<std::uint32_t>(x >> 60) + 1;
  }
}

__global__ void l2_kernel(const uint4* labels, const uint4* values, std::size_t quads, std::uint32_t* out) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < quads; i += std::size_t{gridDim.x} * blockDim.x) {
    const uint4 l = labels[i], v = values[i];
    atomicAdd(out + l.x, v.x); atomicAdd(out + l.y, v.y); atomicAdd(out + l.z, v.z); atomicAdd(out + l.w, v.w);
  }
}

__global__ void read_kernel(const uint4* labels, const uint4* values, std::size_t quads, std::uint32_t* out) {
  std::uint32_t sum = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < quads; i += std::size_t{gridDim.x} * blockDim.x) {
    const uint4 l = labels[i], v = values[i];
    sum += (l.x ^ v.x) + (l.y ^ v.y) + (l.z ^ v.z) + (l.w ^ v.w);
  }
  if (sum == 0x12345678u) out[0] = sum;  // keeps the loads
}

template <bool Red>
__device__ __forceinline__ void cluster_add(cg::cluster_group& cluster, std::uint32_t* bins, std::uint32_t label,
                                            std::uint32_t value, unsigned size) {
  if constexpr (Red) {
    // red.shared::cluster: no reply awaited (atomicAdd through map_shared_rank's generic address is an
    // ATOM that returns the old value).
    const std::uint32_t local = static_cast<std::uint32_t>(__cvta_generic_to_shared(bins + label / size));
    std::uint32_t remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(label % size));
    asm volatile("red.shared::cluster.add.u32 [%0], %1;" ::"r"(remote), "r"(value) : "memory");
  } else {
    std::uint32_t* owner = cluster.map_shared_rank(bins, label % size);
    atomicAdd(owner + label / size, value);
  }
}

template <bool Red>
__global__ void cluster_kernel(const uint4* labels, const uint4* values, std::size_t quads, std::uint32_t m,
                               std::uint32_t* out) {
  extern __shared__ std::uint32_t bins[];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned size = cluster.num_blocks(), rank = cluster.block_rank();
  const std::uint32_t local = (m + size - 1) / size;
  for (std::uint32_t b = threadIdx.x; b < local; b += blockDim.x) bins[b] = 0;
  cluster.sync();
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < quads; i += std::size_t{gridDim.x} * blockDim.x) {
    const uint4 l = labels[i], v = values[i];
    cluster_add<Red>(cluster, bins, l.x, v.x, size); cluster_add<Red>(cluster, bins, l.y, v.y, size);
    cluster_add<Red>(cluster, bins, l.z, v.z, size); cluster_add<Red>(cluster, bins, l.w, v.w, size);
  }
  cluster.sync();
  for (std::uint32_t b = threadIdx.x; b < local; b += blockDim.x) {
    const std::uint32_t label = b * size + rank;
    if (label < m && bins[b] != 0) atomicAdd(out + label, bins[b]);
  }
}

template <class Launch>
float median_ms(Launch launch) {
  cudaEvent_t start, stop;
  SLUICE_CUDA_CHECK(cudaEventCreate(&start)); SLUICE_CUDA_CHECK(cudaEventCreate(&stop));
  launch();
  std::vector<float> times;
  for (int r = 0; r < 15; ++r) {
    SLUICE_CUDA_CHECK(cudaEventRecord(start));
    launch();
    SLUICE_CUDA_CHECK(cudaEventRecord(stop));
    SLUICE_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0; SLUICE_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop)); times.push_back(ms);
  }
  SLUICE_CUDA_CHECK(cudaGetLastError());
  std::sort(times.begin(), times.end());
  SLUICE_CUDA_CHECK(cudaEventDestroy(start)); SLUICE_CUDA_CHECK(cudaEventDestroy(stop));
  return times[times.size() / 2];
}

int main() {
  const std::size_t n = std::size_t{1} << 28, quads = n / 4;
  cudaDeviceProp prop{};
  SLUICE_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs, L2 %d MB, shared per block (opt-in) %zu KiB\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize >> 20, prop.sharedMemPerBlockOptin >> 10);
  std::uint32_t *labels, *values, *out, *expected;
  SLUICE_CUDA_CHECK(cudaMalloc(&labels, n * 4)); SLUICE_CUDA_CHECK(cudaMalloc(&values, n * 4));
  SLUICE_CUDA_CHECK(cudaMalloc(&out, (std::size_t{1} << 24) * 4));
  SLUICE_CUDA_CHECK(cudaMalloc(&expected, (std::size_t{1} << 24) * 4));
  for (auto kernel : {cluster_kernel<false>, cluster_kernel<true>}) {
    SLUICE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    SLUICE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(prop.sharedMemPerBlockOptin)));
  }
  const int grid_stride_blocks = prop.multiProcessorCount * 2;
  const double bytes = 8.0 * n;
  std::printf("%-10s %9s %10s %9s %9s %s\n", "row", "m", "ms", "G pairs/s", "GB/s", "ok");
  float read_ms = median_ms([&] { read_kernel<<<grid_stride_blocks, threads>>>(reinterpret_cast<uint4*>(labels),
                                                                               reinterpret_cast<uint4*>(values), quads, out); });
  std::printf("%-10s %9s %10.4f %9.1f %9.1f %s\n", "read", "-", read_ms, n / read_ms / 1e6, bytes / read_ms / 1e6, "-");
  for (int log_m : {12, 16, 18, 19, 20, 21, 22, 23, 24}) {
    const std::uint32_t m = 1u << log_m;
    fill_labels<<<1024, 256>>>(labels, values, n, m);
    SLUICE_CUDA_CHECK(cudaMemset(expected, 0, std::size_t{m} * 4));
    l2_kernel<<<grid_stride_blocks, threads>>>(reinterpret_cast<uint4*>(labels), reinterpret_cast<uint4*>(values), quads, expected);
    const float l2_ms = median_ms([&] {
      l2_kernel<<<grid_stride_blocks, threads>>>(reinterpret_cast<uint4*>(labels), reinterpret_cast<uint4*>(values), quads, out);
    });
    std::printf("%-10s %9u %10.4f %9.1f %9.1f %s\n", "l2", m, l2_ms, n / l2_ms / 1e6, bytes / l2_ms / 1e6, "-");
    for (int variant = 0; variant < 2; ++variant)
    for (int size : {1, 2, 4, 8, 16}) {
      auto* kernel = variant == 0 ? cluster_kernel<false> : cluster_kernel<true>;
      const char* name = variant == 0 ? "atom" : "red";
      const std::size_t shared = (std::size_t{m} / size) * 4;
      if (shared > prop.sharedMemPerBlockOptin) continue;
      cudaLaunchConfig_t config{};
      cudaLaunchAttribute attribute{};
      attribute.id = cudaLaunchAttributeClusterDimension;
      attribute.val.clusterDim.x = size; attribute.val.clusterDim.y = 1; attribute.val.clusterDim.z = 1;
      config.blockDim = dim3(threads);
      config.dynamicSmemBytes = shared;
      config.attrs = &attribute;
      config.numAttrs = 1;
      int clusters = 0;
      config.gridDim = dim3(size);
      if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) != cudaSuccess || clusters == 0) {
        cudaGetLastError();
        std::printf("%-7s%-3d %9u  no resident cluster\n", "cluster", size, m);
        continue;
      }
      config.gridDim = dim3(clusters * size);
      auto launch = [&] {
        SLUICE_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, reinterpret_cast<const uint4*>(labels),
                                             reinterpret_cast<const uint4*>(values), quads, m, out));
      };
      SLUICE_CUDA_CHECK(cudaMemset(out, 0, std::size_t{m} * 4));
      launch();
      SLUICE_CUDA_CHECK(cudaDeviceSynchronize());
      std::vector<std::uint32_t> got(m), want(m);
      SLUICE_CUDA_CHECK(cudaMemcpy(got.data(), out, m * 4, cudaMemcpyDeviceToHost));
      SLUICE_CUDA_CHECK(cudaMemcpy(want.data(), expected, m * 4, cudaMemcpyDeviceToHost));
      const bool ok = got == want;
      const float ms = median_ms([&] { SLUICE_CUDA_CHECK(cudaMemsetAsync(out, 0, std::size_t{m} * 4)); launch(); });
      std::printf("%-4s%-6d %9u %10.4f %9.1f %9.1f %s (%d clusters)\n", name, size, m, ms, n / ms / 1e6,
                  bytes / ms / 1e6, ok ? "yes" : "NO", clusters);
    }
  }
  return 0;
}
