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
//                  holds it (upper bound by binary search, ⌈log2(m + 1)⌉ steps).
//   functor_binning any device functor returning an integer bin; negative or ≥ m is out of range.
// NaN compares false, so it is out of range for even and range bins. The lookups are host-and-device
// code: the CPU backend runs the same ones, and host tests compare them with the oracle value by value.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/core/labels.hpp>

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

/// Splitters s_0 < … < s_m (levels = m + 1 of them, at most max_levels) in device memory.
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
      cuda::std::uint32_t first = 0;
      cuda::std::uint32_t length = count;
      while (length > 0) {
        const cuda::std::uint32_t half = length / 2;
        if (x < levels[first + half]) {
          length = half;
        } else {
          first += half + 1;
          length -= half + 1;
        }
      }
      return first - 1;
    }
  };

  const T* splitters;
  cuda::std::uint32_t levels;

  /// Copies the splitters into the block's shared memory (all `threads` threads call it; the caller
  /// synchronises the block after it).
  SLUICE_DEVICE lookup stage(shared& storage, unsigned thread, unsigned threads) const {
    for (cuda::std::uint32_t i = thread; i < levels; i += threads) storage.levels[i] = splitters[i];
    return {storage.levels, levels};
  }
};

/// More than range_binning::max_levels splitters (m > 256): searched where they are, in global memory
/// (cached), as CUB does for any m. A type of its own, so that the staged lookup keeps its shared-memory
/// loads (a pointer that may be either costs the warp-ballot kernels registers and spills).
template <class T>
struct global_range_binning {
  using shared = nothing_shared;

  const T* splitters;
  cuda::std::uint32_t levels;

  SLUICE_DEVICE typename range_binning<T>::lookup stage(shared&, unsigned, unsigned) const { return {splitters, levels}; }
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
