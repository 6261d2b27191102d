// sluice/core/comparators.hpp: which comparators are the standard library's less and greater, for the
// families that hand such orders to the radix sort or skip work that only a custom order needs (merge
// sort's radix hand-over and GPU-MMS's stability tags, search's query sorting). Plain C++, host and device.
#pragma once

#include <functional>
#include <type_traits>

namespace sluice::detail {

template <class Less, class K>
inline constexpr bool is_std_less = std::is_same_v<Less, std::less<>> || std::is_same_v<Less, std::less<K>>;

template <class Less, class K>
inline constexpr bool is_std_greater = std::is_same_v<Less, std::greater<>> || std::is_same_v<Less, std::greater<K>>;

/// Integers other than bool: their radix words order them as < does, and equal keys are equal bits.
template <class K>
inline constexpr bool is_plain_integer = std::is_integral_v<K> && !std::is_same_v<K, bool>;

}  // namespace sluice::detail
