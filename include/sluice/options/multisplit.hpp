// sluice/options/multisplit.hpp: the public types of multisplit.cuh: the strategies by the seed's
// names, the options, and the bucket identifiers of the seed's experiments. Host-only where possible
// (the automatic choice, detail/multisplit/plan.hpp, and its host tests use them without CUDA).
#pragma once

#include <sluice/core/config.hpp>

#include <cstdint>
#include <string_view>

namespace sluice {

/// The strategies of Ashkiani ch. 3 by their names in the seed.
enum class multisplit_algorithm {
  automatic,  ///< by m, key and value size (detail::multisplit::choose)
  dms,        ///< Direct Multisplit: warp subproblems, no reordering (§3.5.3)
  wms,        ///< Warp-level Multisplit: each warp reorders its tiles in shared memory (§3.5.6.1)
  bms,        ///< Block-level Multisplit: the block reorders its tiles, coalesced scatter (§3.5.6.2)
  rb_sort,    ///< reduced-bit sort: sort (bucket id, index) over ⌈log2(m + 1)⌉ bits, then gather (§3.3)
  scan_split,  ///< m ≤ 2: the scan-based split (§3.3), one single-pass scan of class counts
  onesweep     ///< m ≤ 511: a histogram, then one pass kernel with a per-bucket look-back (not the seed's:
               ///< the onesweep radix sort's design, Adinets & Merrill; CUB)
};

/// The enumerator's name ("bms"), for reports and test names.
[[nodiscard]] constexpr std::string_view to_string(multisplit_algorithm algorithm) {
  switch (algorithm) {
    case multisplit_algorithm::automatic: return "automatic";
    case multisplit_algorithm::dms: return "dms";
    case multisplit_algorithm::wms: return "wms";
    case multisplit_algorithm::bms: return "bms";
    case multisplit_algorithm::rb_sort: return "rb_sort";
    case multisplit_algorithm::scan_split: return "scan_split";
    case multisplit_algorithm::onesweep: return "onesweep";
  }
  return "?";
}

struct multisplit_options {
  multisplit_algorithm algorithm = multisplit_algorithm::automatic;
  /// A bucket id ≥ m (or negative) throws sluice::invalid_argument naming the first offending index,
  /// instead of dropping and counting the key. Checking synchronises the context's stream.
  bool strict = false;
};

/// Bucket identifiers of the seed's experiments (§3.6): trivially copyable, usable on host and device.
namespace buckets {

/// Equal-width buckets: id = key / delta (Ashkiani's delta-buckets).
template <class K>
struct delta {
  K delta;
  SLUICE_HOST_DEVICE K operator()(const K& key) const { return key / delta; }
};

/// id = key (identity buckets: the multisplit is a sort by the key's low ⌈log2 m⌉ bits).
struct identity {
  template <class K>
  SLUICE_HOST_DEVICE K operator()(const K& key) const {
    return key;
  }
};

/// id = (key >> first_bit) & (2^bits − 1) for unsigned keys: one digit of a radix sort (§3.7.1).
struct bit_field {
  int first_bit;
  int bits;
  template <class K>
  SLUICE_HOST_DEVICE std::uint64_t operator()(const K& key) const {
    const std::uint64_t mask = bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    return (static_cast<std::uint64_t>(key) >> first_bit) & mask;
  }
};

/// id = the number of splitters ≤ key (upper bound by binary search), for sorted splitters in device
/// memory: m = count + 1.
template <class K>
struct splitters {
  const K* splitters;
  std::uint32_t count;
  SLUICE_HOST_DEVICE std::uint32_t operator()(const K& key) const {
    std::uint32_t low = 0, high = count;
    while (low < high) {
      const std::uint32_t middle = low + (high - low) / 2;
      if (splitters[middle] <= key) low = middle + 1;
      else high = middle;
    }
    return low;
  }
};

}  // namespace buckets

}  // namespace sluice
