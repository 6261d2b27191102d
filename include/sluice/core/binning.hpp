// sluice/core/binning.hpp: the bin of a sample, for the GPU histogram and host::histogram, computed
// exactly as the oracle (reference/histogram.hpp, its own copy) computes it, for the three kinds of
// histogram (Ashkiani §3.7.3: Even and Range bins; any bucket identifier).
//
// A binning is staged once per thread block (stage(shared, thread, threads) returns the per-sample lookup; the caller
// synchronises the block after it) so that range bins can search their splitters in shared memory, as
// the seed does for m ≤ 256, instead of in global memory as CUB must for any m. A lookup maps a sample
// to a bin in [0, m), or to out_of_range (≥ m) when the sample is not counted.
//
//   even_binning   lower ≤ x < upper, else out of range. Integers: ⌊(x − lower)·m / (upper − lower)⌋
//                  exactly (unsigned differences); for keys of up to 32 bits the quotient comes from a
//                  double-precision reciprocal and one correction step each way, which is exact (the
//                  estimate is within one of the quotient) and avoids a 64-bit division per sample;
//                  64-bit keys divide in 128 bits. Floats: ((x − lower) / (upper − lower))·m in double,
//                  truncated and clamped to m − 1, the oracle's operations in its order (IEEE division
//                  and no contraction possible, so the device gives the host's bits).
//   range_binning  splitters s_0 < … < s_m staged in shared memory (m ≤ 256; global_range_binning
//                  searches them in global memory beyond); x in [s_0, s_m) goes to the bin whose interval
//                  holds it (upper bound by binary search, ⌈log2(m + 1)⌉ steps). Searched in global memory,
//                  integer and floating-point splitters come with range cells: their keys' span cut into
//                  2^c equal cells, each knowing how many splitters lie at or below its first key, so the
//                  search runs over the splitters of x's cell alone (one or two for spread-out splitters).
//   functor_binning any device functor returning an integer bin; negative or ≥ m is out of range.
// NaN compares false, so it is out of range for even and range bins. The lookups are host-and-device
// code: the CPU backend runs the same ones, and host tests compare them with the oracle value by value.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/core/labels.hpp>
#include <sluice/core/radix_key.hpp>

#include <cuda/std/bit>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

namespace sluice::detail {

inline constexpr cuda::std::uint32_t out_of_range = 0xffffffffu;

/// Binnings that need no shared memory stage to themselves.
struct nothing_shared {};

template <class T>
struct even_binning {
  using shared = nothing_shared;
  using wide = cuda::std::make_unsigned_t<cuda::std::conditional_t<cuda::std::is_integral_v<T>, T, int>>;

  T lower;
  T upper;
  cuda::std::uint32_t bins;
  double lower_value;  ///< floats: double(lower)
  double width_value;  ///< floats: double(upper) − double(lower); integers: bins / (upper − lower)

  /// The binning of bins equal bins over [lower, upper); lower < upper (checked by the caller).
  static even_binning make(T lower, T upper, cuda::std::uint32_t bins) {
    if constexpr (cuda::std::is_integral_v<T>)
      return {lower, upper, bins, 0.0, static_cast<double>(bins) / static_cast<double>(width_of(lower, upper))};
    else
      return {lower, upper, bins, static_cast<double>(lower), static_cast<double>(upper) - static_cast<double>(lower)};
  }

  SLUICE_DEVICE const even_binning& stage(shared&, unsigned, unsigned) const { return *this; }

  SLUICE_HOST_DEVICE cuda::std::uint32_t operator()(T x) const {
    if (!(lower <= x && x < upper)) return out_of_range;
    if constexpr (cuda::std::is_integral_v<T>) return integer_bin(x);
    else {
      const double fraction = (static_cast<double>(x) - lower_value) / width_value;
      const auto bin = static_cast<cuda::std::uint64_t>(fraction * static_cast<double>(bins));
      return bin < bins ? static_cast<cuda::std::uint32_t>(bin) : bins - 1;
    }
  }

 private:
  SLUICE_HOST_DEVICE static wide width_of(T lower, T upper) {
    return static_cast<wide>(static_cast<wide>(upper) - static_cast<wide>(lower));  // wraps to the true width
  }

  SLUICE_HOST_DEVICE cuda::std::uint32_t integer_bin(T x) const {
    const wide offset = static_cast<wide>(static_cast<wide>(x) - static_cast<wide>(lower));
    const wide width = width_of(lower, upper);
    if constexpr (sizeof(T) <= 4) {
      // offset < width < 2^32 and bins < 2^32: the product fits 64 bits; the estimate's relative error
      // is a few 2^-53, far below 1 / bins, so it is off by at most one.
      const cuda::std::uint64_t product = static_cast<cuda::std::uint64_t>(offset) * bins;
      auto bin = static_cast<cuda::std::uint64_t>(static_cast<double>(offset) * width_value);
      if (bin * width > product) --bin;
      else if ((bin + 1) * width <= product) ++bin;
      return static_cast<cuda::std::uint32_t>(bin);
    } else {
      return static_cast<cuda::std::uint32_t>(static_cast<uint128_t>(offset) * bins / width);
    }
  }
};

/// The index of the first of levels[first, first + length) for which above(level) holds, or
/// first + length (`above` false then true along the levels): a binary search.
template <class T, class Above>
SLUICE_HOST_DEVICE cuda::std::uint32_t first_above(const T* levels, cuda::std::uint32_t first,
                                                   cuda::std::uint32_t length, Above above) {
  while (length > 0) {
    const cuda::std::uint32_t half = length / 2;
    if (above(levels[first + half])) {
      length = half;
    } else {
      first += half + 1;
      length -= half + 1;
    }
  }
  return first;
}

/// The index of the first of levels[first, first + length) above x, or first + length: the upper bound.
template <class T>
SLUICE_HOST_DEVICE cuda::std::uint32_t upper_bound_in(const T* levels, cuda::std::uint32_t first,
                                                      cuda::std::uint32_t length, T x) {
  return first_above(levels, first, length, [x](const T& level) { return x < level; });
}

/// Splitter types whose order has a key (radix_key.hpp: integers and float / double, not bool).
template <class T>
inline constexpr bool has_range_cells = radix_key<T>;

/// The key range cells cut: radix_word of x widened to 32 bits at least, zeros made +0.0 so that −0.0
/// and +0.0, equal as values, share a key.
template <class T>
using cell_key_t = cuda::std::conditional_t<sizeof(T) <= 4, cuda::std::uint32_t, cuda::std::uint64_t>;
template <class T>
SLUICE_HOST_DEVICE cell_key_t<T> cell_key(T x) {
  if constexpr (cuda::std::is_floating_point_v<T>) x = x == T(0) ? T(0) : x;
  return static_cast<cell_key_t<T>>(radix_word(x));
}

/// The range cells of splitters s_0 … s_m, built on the device (detail/histogram/range_cells.cuh) into
/// words[0, range_cell_words(c)): a header (s_0's key, the shift; 64 bits each), then 2^c + 1 counts.
/// Cell j holds the keys k with (k − key(s_0)) >> shift = j; its count is the number of splitters whose
/// key is at most the cell's first key, so the upper bound of any x in cell j lies between count j and
/// count j + 1.
inline constexpr cuda::std::uint32_t range_cell_header_words = 4;
[[nodiscard]] constexpr cuda::std::size_t range_cell_words(unsigned cells_log2) {
  return range_cell_header_words + (cuda::std::size_t{1} << cells_log2) + 1;
}

/// Where the cells of splitters s_0 … s_m start and how wide they are: s_0's key and the fewest bits that
/// bring the keys' span key(s_m) − key(s_0) below 2^cells_log2 (0 when s_m is not above s_0).
template <class T>
struct range_cell_plan {
  cell_key_t<T> first_key;
  cell_key_t<T> span;
  cuda::std::uint32_t shift;
};
template <class T>
SLUICE_HOST_DEVICE range_cell_plan<T> plan_range_cells(const T* splitters, cuda::std::uint32_t levels,
                                                       unsigned cells_log2) {
  const cell_key_t<T> first = cell_key(splitters[0]);
  const cell_key_t<T> last = cell_key(splitters[levels - 1]);
  const cell_key_t<T> span = last > first ? static_cast<cell_key_t<T>>(last - first) : cell_key_t<T>{0};
  const auto bits = static_cast<unsigned>(cuda::std::bit_width(span));
  return {first, span, bits > cells_log2 ? bits - cells_log2 : 0u};
}

/// Cell `cell`'s count (0 ≤ cell ≤ 2^cells_log2): the splitters whose key is at most the cell's first
/// key, by binary search over their keys; past the span, and for the last entry, all of them.
template <class T>
SLUICE_HOST_DEVICE cuda::std::uint32_t range_cell_count(const T* splitters, cuda::std::uint32_t levels,
                                                        const range_cell_plan<T>& plan, cuda::std::uint32_t cell,
                                                        unsigned cells_log2) {
  using key = cell_key_t<T>;
  if (cell >= (cuda::std::uint32_t{1} << cells_log2)) return levels;
  const auto offset = static_cast<key>(key{cell} << plan.shift);  // cell < 2^c and shift ≤ width − c: no overflow
  if (offset > plan.span) return levels;
  const auto bound = static_cast<key>(plan.first_key + offset);
  return first_above(splitters, 0u, levels, [bound](const T& splitter) { return bound < cell_key(splitter); });
}

/// The bin of x among splitters in global memory, through their range cells: the range check against
/// s_0 and s_m (held in registers), x's cell, then the upper bound among that cell's splitters alone.
template <class T>
struct range_cell_lookup {
  const T* levels;
  cuda::std::uint32_t count;
  T lowest;   ///< s_0
  T highest;  ///< s_m
  const cuda::std::uint32_t* counts;
  cell_key_t<T> first_key;
  cuda::std::uint32_t shift;

  SLUICE_HOST_DEVICE cuda::std::uint32_t operator()(T x) const {
    if (!(lowest <= x && x < highest)) return out_of_range;
    const auto cell = static_cast<cuda::std::uint32_t>((cell_key(x) - first_key) >> shift);
    const cuda::std::uint32_t first = counts[cell];
    const cuda::std::uint32_t end = counts[cell + 1];
    return upper_bound_in(levels, first, end > first ? end - first : 0u, x) - 1;  // unsorted splitters: ≥ m or 2^32 − 1
  }
};

/// Splitters s_0 < … < s_m (levels = m + 1 of them, at most max_levels) in device memory, and their range
/// cells when the pair kernels search them in global memory (binned_samples.cuh's unstaged).
template <class T>
struct range_binning {
  static constexpr cuda::std::uint32_t max_levels = 257;  // staged in shared memory up to m = 256
  struct shared {
    T levels[max_levels];
  };
  struct lookup {
    const T* levels;
    cuda::std::uint32_t count;

    /// The bin whose interval [s_b, s_{b+1}) holds x: one less than the first splitter above x.
    SLUICE_HOST_DEVICE cuda::std::uint32_t operator()(T x) const {
      if (!(levels[0] <= x && x < levels[count - 1])) return out_of_range;
      return upper_bound_in(levels, 0u, count, x) - 1;
    }
  };

  const T* splitters;
  cuda::std::uint32_t levels;
  const cuda::std::uint32_t* cells = nullptr;  ///< range_cell_words of them; null where has_range_cells<T> is false

  /// Copies the splitters into the block's shared memory (all `threads` threads call it; the caller
  /// synchronises the block after it).
  SLUICE_DEVICE lookup stage(shared& storage, unsigned thread, unsigned threads) const {
    for (cuda::std::uint32_t i = thread; i < levels; i += threads) storage.levels[i] = splitters[i];
    return {storage.levels, levels};
  }
};

/// Splitters searched where they are, in global memory (cached): more than range_binning::max_levels of
/// them (m > 256), or any m in the pair kernels. Through their range cells where the type has keys (a
/// search over x's cell, not all m + 1 splitters, as CUB does for any m). A type of its own, so that the
/// staged lookup keeps its shared-memory loads (a pointer that may be either costs the warp-ballot
/// kernels registers and spills).
template <class T>
struct global_range_binning {
  using shared = nothing_shared;

  const T* splitters;
  cuda::std::uint32_t levels;
  const cuda::std::uint32_t* cells = nullptr;  ///< as range_binning's

  /// Each thread reads s_0, s_m and the cells' header once.
  SLUICE_DEVICE auto stage(shared&, unsigned, unsigned) const {
    if constexpr (has_range_cells<T>) {
      const auto* header = reinterpret_cast<const cuda::std::uint64_t*>(cells);
      return range_cell_lookup<T>{splitters,
                                  levels,
                                  splitters[0],
                                  splitters[levels - 1],
                                  cells + range_cell_header_words,
                                  static_cast<cell_key_t<T>>(header[0]),
                                  static_cast<cuda::std::uint32_t>(header[1])};
    } else {
      return typename range_binning<T>::lookup{splitters, levels};
    }
  }
};

/// A caller's bin function: bin_of(x) returns an integer; negative or ≥ bins is out of range.
template <class F>
struct functor_binning {
  using shared = nothing_shared;

  F bin_of;
  cuda::std::uint32_t bins;

  SLUICE_DEVICE const functor_binning& stage(shared&, unsigned, unsigned) const { return *this; }

  template <class T>
  SLUICE_HOST_DEVICE cuda::std::uint32_t operator()(const T& x) const {
    const auto id = bin_of(x);
    using Id = decltype(id);
    static_assert(cuda::std::is_integral_v<Id>, "a histogram bin function returns an integer bin");
    return valid_label(id, bins) ? static_cast<cuda::std::uint32_t>(id) : out_of_range;
  }
};

}  // namespace sluice::detail
