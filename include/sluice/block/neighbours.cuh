// sluice/block/neighbours.cuh: passing one value to the neighbouring thread of a block, for tiles in
// blocked arrangement whose elements need their predecessor (run heads, exclusive forms) or successor
// (run tails) and the neighbour lives in the previous or next thread.
#pragma once

namespace sluice::block {

/// One slot per thread (raw bytes: U need not be default-constructible in shared memory). The caller
/// synchronises before the storage is reused.
template <int Threads, class U>
struct neighbour_storage {
  alignas(U) unsigned char bytes[Threads * sizeof(U)];
  __device__ U* slot() { return reinterpret_cast<U*>(bytes); }
};

/// Returns `mine` of thread t − 1; thread 0 gets `before` (the tile's predecessor, when there is one).
template <int Threads, class U>
__device__ __forceinline__ U from_previous_thread(const U& mine, const U& before,
                                                  neighbour_storage<Threads, U>& temp) {
  temp.slot()[threadIdx.x] = mine;
  __syncthreads();
  return threadIdx.x == 0 ? before : temp.slot()[threadIdx.x - 1];
}

/// Returns `mine` of thread t + 1; the last thread gets `after` (the tile's successor).
template <int Threads, class U>
__device__ __forceinline__ U from_next_thread(const U& mine, const U& after, neighbour_storage<Threads, U>& temp) {
  temp.slot()[threadIdx.x] = mine;
  __syncthreads();
  return threadIdx.x + 1 == Threads ? after : temp.slot()[threadIdx.x + 1];
}

}  // namespace sluice::block
