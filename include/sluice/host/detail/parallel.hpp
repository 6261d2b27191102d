// sluice/host/detail/parallel.hpp: the threading layer of the CPU backend.
//
// Every parallel algorithm of sluice::host has the same shape: cut [0, n) into contiguous blocks, work
// on the blocks independently, then combine the blocks' partial results in block order. Because blocks
// are contiguous and combined in order, an associative operator that is not commutative (affine maps,
// matrix products) gives exactly the sequential left fold's bits.
//
// With TBB (SLUICE_HAVE_TBB, defined by the sluice::sluice target when CMake finds TBB) the blocks are
// TBB tasks in the caller's task arena; without it, std::threads, one per worker, each taking every
// workers-th block. A single block, or a single worker, runs on the calling thread.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <mutex>

#if defined(SLUICE_HAVE_TBB)
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#else
#include <thread>
#include <vector>
#endif

namespace sluice::host::detail {

/// Threads the parallel steps may use: TBB's arena concurrency, or the hardware's thread count.
[[nodiscard]] inline std::size_t worker_count() {
#if defined(SLUICE_HAVE_TBB)
  return static_cast<std::size_t>(std::max(1, tbb::this_task_arena::max_concurrency()));
#else
  return std::max(1u, std::thread::hardware_concurrency());
#endif
}

/// Calls f(j) once for every j in [0, count), in parallel; rethrows the first exception f threw.
template <class F>
void parallel_for(std::size_t count, const F& f) {
  if (count == 0) return;
  const std::size_t workers = std::min(worker_count(), count);
  if (workers == 1) {
    for (std::size_t j = 0; j < count; ++j) f(j);
    return;
  }
#if defined(SLUICE_HAVE_TBB)
  tbb::parallel_for(std::size_t{0}, count, [&](std::size_t j) { f(j); });
#else
  std::exception_ptr failure;
  std::mutex failure_lock;
  auto work = [&](std::size_t first) {
    try {
      for (std::size_t j = first; j < count; j += workers) f(j);
    } catch (...) {
      const std::lock_guard<std::mutex> hold(failure_lock);
      if (!failure) failure = std::current_exception();
    }
  };
  {
    std::vector<std::jthread> threads;
    for (std::size_t t = 1; t < workers; ++t) threads.emplace_back(work, t);
    work(0);
  }
  if (failure) std::rethrow_exception(failure);
#endif
}

/// [0, n) cut into `count` contiguous blocks of `size` items (the last one shorter).
struct block_partition {
  std::size_t n = 0;
  std::size_t count = 1;
  std::size_t size = 0;

  [[nodiscard]] std::size_t begin(std::size_t block) const { return std::min(n, block * size); }
  [[nodiscard]] std::size_t end(std::size_t block) const { return std::min(n, (block + 1) * size); }
};

/// Blocks of at least `min_items` (the grain below which a thread is not worth starting), at most
/// `max_blocks` of them; never fewer than one block.
[[nodiscard]] inline block_partition partition_blocks(std::size_t n, std::size_t min_items, std::size_t max_blocks) {
  const std::size_t wanted = std::max<std::size_t>(1, n / std::max<std::size_t>(min_items, 1));
  const std::size_t count = std::clamp<std::size_t>(wanted, 1, std::max<std::size_t>(max_blocks, 1));
  const std::size_t size = std::max<std::size_t>(1, (n + count - 1) / count);
  return {n, n == 0 ? 1 : (n + size - 1) / size, size};
}

/// Items below which a parallel step runs on one thread: starting tasks costs about a pass over this many.
inline constexpr std::size_t parallel_grain = std::size_t{1} << 16;

/// Blocks per worker: a few, so that an uneven block (or a busy core) does not hold up the rest.
inline constexpr std::size_t blocks_per_worker = 4;

/// The usual partition of a streaming pass over n items.
[[nodiscard]] inline block_partition streaming_blocks(std::size_t n) {
  return partition_blocks(n, parallel_grain, worker_count() * blocks_per_worker);
}

}  // namespace sluice::host::detail
