// sluice/core/values.hpp: the value type of a keys-only operation (sort, multisplit, partition passes):
// no_values has nothing to load, stage or store, and its pointers are null, never dereferenced. Plain
// C++ without CUDA headers, so that the host-only tuning tables may include it.
#pragma once

#include <type_traits>

namespace sluice::detail {

struct no_values {};
template <class V>
inline constexpr bool has_values = !std::is_same_v<V, no_values>;

}  // namespace sluice::detail
