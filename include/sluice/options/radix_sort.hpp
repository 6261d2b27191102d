// sluice/options/radix_sort.hpp: the public option types of radix_sort.cuh, beside it so that its dispatch
// (detail/radix_sort/dispatch.cuh) and the families built on it can name them without the entry points.
#pragma once

#include <string_view>
#include <sluice/options/multisplit.hpp>

namespace sluice {

enum class radix_sort_algorithm {
  automatic,   ///< onesweep; multisplit for what onesweep does not do (see the header comment)
  onesweep,    ///< 8-bit passes of one kernel each, decoupled look-back per digit (Adinets & Merrill; CUB)
  multisplit,  ///< r-bit passes, each a stable multisplit (Ashkiani §3.7.1)
  split,       ///< 1-bit passes, each a stable split by one scan (DTU §5.7, Palik §5.3)
};

/// The enumerator's name ("onesweep"), for reports and test names.
[[nodiscard]] constexpr std::string_view to_string(radix_sort_algorithm algorithm) {
  switch (algorithm) {
    case radix_sort_algorithm::automatic: return "automatic";
    case radix_sort_algorithm::onesweep: return "onesweep";
    case radix_sort_algorithm::multisplit: return "multisplit";
    case radix_sort_algorithm::split: return "split";
  }
  return "?";
}

struct radix_sort_options {
  radix_sort_algorithm algorithm = radix_sort_algorithm::automatic;
  int begin_bit = 0;   ///< the least significant bit sorted on
  int end_bit = -1;    ///< one past the most significant bit sorted on; −1: every bit of the key
  bool descending = false;
  /// multisplit: the widest pass in bits, 1 to 8 (passes are balanced: ⌈bits / r⌉ of them, widths
  /// differing by at most one); 0: automatic. Rerun the seed's Table 3.8 sweep with 4 to 8. onesweep
  /// takes 0 or 8 (its passes are 8 bits), split 0 or 1; automatic runs multisplit for any other width.
  int bits_per_pass = 0;
  /// multisplit: the strategy of each pass (Ashkiani used BMS). onesweep requires automatic; automatic
  /// runs multisplit for any other.
  multisplit_algorithm pass_algorithm = multisplit_algorithm::automatic;
};

}  // namespace sluice
