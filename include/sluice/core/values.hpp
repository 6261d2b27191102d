// sluice/core/values.hpp: the value type of a keys-only operation (sort, multisplit, partition passes):
// no_values has nothing to load, stage or store, and its pointers are null, never dereferenced.
#pragma once

#include <cuda/std/type_traits>

namespace sluice::detail {

struct no_values {};
template <class V>
inline constexpr bool has_values = !cuda::std::is_same_v<V, no_values>;

}  // namespace sluice::detail
