// sluice/detail/radix_sort/values.cuh: the value type of a keys-only sort, shared by every radix sort
// strategy and by multisplit (whose passes the multisplit strategy runs): no_values has nothing to load,
// stage or store, and its pointers are null, never dereferenced.
#pragma once

#include <sluice/detail/multisplit/common.cuh>

namespace sluice::detail::radix_sort {

using multisplit::has_values;
using multisplit::no_values;

}  // namespace sluice::detail::radix_sort
