// sluice/detail/quicksort/round_kernels.cuh: the element-wise steps of one round of Palik's segmented
// quicksort (§6.2 parallel_partition). The two scans of a round are sluice's segmented scans; these
// kernels sit between them. With s = start of i's segment (from seg_copy of positions):
//
//   choose_pivots:  at each segment's last element, pivots[s] = the segment's pivot (pivot rule)
//   classify:       one_hot[i] = (k_i < p, k_i ≡ p) as counts, p = pivots[s]          (Palik's F)
//   [segmented +-scan of one_hot → ranks: inclusive (<, ≡) counts from s to i]
//   record_totals:  at each segment's last element, totals[s] = ranks[i] = (L, E)
//   split:          element i moves to s + (its rank within its class) + (sizes of the classes before it),
//                   the stable 3-way seg_split of §5.3/§6.2; its destination is flagged as a new head when
//                   it is the first of its class (new_seg_flags)
//
// Classes use only `less`: k < p, p < k, or neither (≡, the "=" part). The pivot is an element of its
// segment, so every segment's ≡ part is non-empty: each round finishes at least one element per unsorted
// segment. A round's cost is O(n) work and a constant number of passes over n elements, whatever the
// segments look like.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/detail/quicksort/tuning.hpp>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

namespace sluice::detail::quicksort {

inline constexpr int block_threads = tuning::block_threads;

/// How each round picks a segment's pivot.
enum class pivot_rule_id { first, median_of_three };

/// Per-element counts of the two classes before the pivot's end: k < p and k ≡ p. (The third class,
/// k > p, is implied: position − start + 1 − less − equal.)
template <class C>
struct split_counts {
  C less;
  C equal;
};

struct add_split_counts {
  template <class C>
  SLUICE_HOST_DEVICE split_counts<C> operator()(const split_counts<C>& a, const split_counts<C>& b) const {
    return {static_cast<C>(a.less + b.less), static_cast<C>(a.equal + b.equal)};
  }
};

/// x ⊕ y = x: the segmented scan that broadcasts each segment's head value (Palik §4.6 seg_copy).
struct take_first {
  template <class T>
  SLUICE_HOST_DEVICE T operator()(const T& head, const T&) const { return head; }
};

/// Element i ends its segment: the last element, or the next one starts a segment.
[[nodiscard]] __device__ __forceinline__ bool ends_segment(const cuda::std::uint8_t* heads, cuda::std::size_t i,
                                                           cuda::std::size_t n) {
  return i + 1 == n || heads[i + 1] != 0;
}

template <class Less, class K>
[[nodiscard]] __device__ __forceinline__ K median_of_three(K a, K b, K c, const Less& less) {
  if (less(b, a)) {
    const K t = a;
    a = b;
    b = t;
  }  // now a ≤ b
  if (!less(c, b)) return b;
  return less(c, a) ? a : c;
}

/// Calls f(i) for i in [0, n), grid-strided (one wave of blocks covers any n).
template <class F>
__device__ __forceinline__ void for_each_element(cuda::std::size_t n, F f) {
  for (cuda::std::size_t i = blockIdx.x * cuda::std::size_t{block_threads} + threadIdx.x; i < n;
       i += cuda::std::size_t{gridDim.x} * block_threads)
    f(i);
}

template <class C>
__global__ void __launch_bounds__(block_threads) fill_positions_kernel(C* positions, cuda::std::size_t n) {
  for_each_element(n, [&](cuda::std::size_t i) { positions[i] = static_cast<C>(i); });
}

/// pivots[s] for every segment [s, e): its first key (Palik) or the median of its first, middle and last.
template <class K, class C, class Less>
__global__ void __launch_bounds__(block_threads)
    choose_pivots_kernel(const K* keys, const cuda::std::uint8_t* heads, const C* starts, cuda::std::size_t n,
                         pivot_rule_id rule, Less less, K* pivots) {
  for_each_element(n, [&](cuda::std::size_t last) {
    if (!ends_segment(heads, last, n)) return;
    const cuda::std::size_t s = starts[last];
    pivots[s] = rule == pivot_rule_id::first ? keys[s]
                                             : median_of_three(keys[s], keys[s + (last - s) / 2], keys[last], less);
  });
}

template <class C, class K, class Less>
[[nodiscard]] __device__ __forceinline__ split_counts<C> class_of(const K& key, const K& pivot, const Less& less) {
  const bool below = less(key, pivot);
  return {static_cast<C>(below), static_cast<C>(!below && !less(pivot, key))};
}

template <class K, class C, class Less>
__global__ void __launch_bounds__(block_threads)
    classify_kernel(const K* keys, const C* starts, const K* pivots, cuda::std::size_t n, Less less,
                    split_counts<C>* one_hot) {
  for_each_element(n, [&](cuda::std::size_t i) { one_hot[i] = class_of<C>(keys[i], pivots[starts[i]], less); });
}

template <class C>
__global__ void __launch_bounds__(block_threads)
    record_totals_kernel(const split_counts<C>* ranks, const cuda::std::uint8_t* heads, const C* starts,
                         cuda::std::size_t n, split_counts<C>* totals) {
  for_each_element(n, [&](cuda::std::size_t last) {
    if (ends_segment(heads, last, n)) totals[starts[last]] = ranks[last];
  });
}

/// The stable 3-way split within segments. Writes every position of keys_out and heads_out exactly once
/// (the destinations form a permutation of each segment). *unsorted_left is set to 1 when a < or >
/// part gets a second element: that part is a segment the next round must split.
template <class K, class C, class Less>
__global__ void __launch_bounds__(block_threads)
    split_kernel(const K* keys, const C* starts, const K* pivots, const split_counts<C>* ranks,
                 const split_counts<C>* totals, cuda::std::size_t n, Less less, K* keys_out,
                 cuda::std::uint8_t* heads_out, unsigned* unsorted_left) {
  for_each_element(n, [&](cuda::std::size_t i) {
    const cuda::std::size_t s = starts[i];
    const K key = keys[i];
    const split_counts<C> in_class = class_of<C>(key, pivots[s], less);
    const split_counts<C> rank = ranks[i];  // inclusive counts from s to i
    const split_counts<C> total = totals[s];
    cuda::std::size_t first_of_class;  // where i's class starts within the segment
    cuda::std::size_t rank_in_class;   // how many of i's class precede it in the segment
    if (in_class.less) {
      first_of_class = s;
      rank_in_class = rank.less - 1;
    } else if (in_class.equal) {
      first_of_class = s + total.less;
      rank_in_class = rank.equal - 1;
    } else {
      first_of_class = s + total.less + total.equal;
      rank_in_class = (i - s) - rank.less - rank.equal;
    }
    keys_out[first_of_class + rank_in_class] = key;
    heads_out[first_of_class + rank_in_class] = rank_in_class == 0;
    if (rank_in_class == 1 && !in_class.equal) *unsorted_left = 1;  // a plain store: every writer writes 1
  });
}

}  // namespace sluice::detail::quicksort
