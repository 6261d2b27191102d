// sluice/block/per_bank_buckets.cuh: a thread block's per-bank bucket sets in shared memory (Eilers
// §4.4c, Alg. 4.10, Fig. 4.14), the block piece of per-bank multireduce and of the shared-memory
// histogram.
//
// `sets` copies (a power of two ≤ 32) of the block's buckets; bucket b of set s lives at b·sets + s, so
// with 32 sets of 4-byte values set s lies wholly in bank s. Lane l combines into set l mod sets: the
// lanes of a warp then touch different sets, so a warp's atomics neither collide on an address nor (with
// 32 sets of 4-byte values) on a bank, whatever the labels. Warps of one block share the sets through
// shared-memory atomics; they seldom meet, since each spends most of its time waiting for its loads.
// Fewer sets hold more buckets in the same memory (plan.hpp chooses): lanes l and l + sets then share a
// set and collide only when their labels agree.
//
//   clear   every slot to the identity (all threads; the caller synchronises after it)
//   add     slot (bucket, this lane's set) ⊕= value, atomically (the slots start at the identity, so
//           float min/max take the integer atomics: core/atomics.cuh, atomic_combine_from_identity)
//   flush   out[b] ⊕= the fold of bucket b's sets, one atomic per bucket that is not the identity (all
//           threads, after a barrier). Thread t starts its fold at set t mod sets, so the threads of a
//           warp read different banks (the seed's rotation).
// Shared memory: sets · buckets · sizeof(T). The operator must be commutative; T of 4 or 8 bytes.
#pragma once

#include <sluice/core/atomics.cuh>
#include <sluice/core/operators.hpp>
#include <sluice/warp/shuffle.cuh>

#include <cuda/std/cstdint>

namespace sluice::block {

template <class T, class Op>
class per_bank_buckets {
 public:
  /// storage: sets · buckets values of shared memory; sets a power of two in [1, 32].
  __device__ per_bank_buckets(T* storage, cuda::std::uint32_t buckets, unsigned sets)
      : storage_(storage), buckets_(buckets), sets_(sets), set_(static_cast<unsigned>(warp::lane_id()) & (sets - 1)) {}

  __device__ void clear(unsigned thread, unsigned threads) const {
    const cuda::std::uint64_t slots = cuda::std::uint64_t{buckets_} * sets_;
    for (cuda::std::uint64_t i = thread; i < slots; i += threads) storage_[i] = identity<Op, T>();
  }

  [[nodiscard]] __device__ unsigned sets() const { return sets_; }

  /// bucket < the window's bucket count.
  __device__ __forceinline__ void add(cuda::std::uint32_t bucket, const T& value, Op op) const {
    sluice::detail::atomic_combine_from_identity(storage_ + static_cast<cuda::std::uint64_t>(bucket) * sets_ + set_,
                                                 value, op);
  }

  /// out[b] ⊕= the block's bucket b, for every b whose fold is not the identity.
  __device__ void flush(T* out, unsigned thread, unsigned threads, Op op) const {
    const T e = identity<Op, T>();
    for (cuda::std::uint32_t b = thread; b < buckets_; b += threads) {
      const T* sets = storage_ + static_cast<cuda::std::uint64_t>(b) * sets_;
      T total = e;
      for (unsigned k = 0; k < sets_; ++k) total = op(total, sets[(k + thread) & (sets_ - 1)]);
      if (!sluice::detail::same_bits(total, e))
        sluice::detail::atomic_combine(out + b, total, op);
    }
  }

 private:
  T* storage_;
  cuda::std::uint32_t buckets_;
  unsigned sets_;
  unsigned set_;
};

}  // namespace sluice::block
