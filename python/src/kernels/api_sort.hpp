// sluice/python/api_sort.hpp: the type-erased API (as api.hpp's) of merge_sort.cuh's other entry points:
// segmented_sort and merge. Apart from api.hpp so that the translation units bound first do not depend on
// it. Keys of the six numeric dtypes, compared as words of their width under the radix sort's order
// (word_order.hpp); values moved as words of their width.
#pragma once

#include "api.hpp"

namespace sluice::python {

/// out_keys = keys with every segment [offsets[s], offsets[s+1]) stably sorted (offsets int64/uint64,
/// segments + 1 entries; keys outside [offsets.front(), offsets.back()) copied through), each value moving
/// with its key (values 8-byte, or 4-byte with 4-byte keys). The host runs the sequential oracle.
void segmented_sort(const call& c, const array& keys, const array* values, const array& offsets, const array& out_keys,
                    const array* out_values, bool descending, bool validate_offsets);

/// out_keys = the stable merge of the sorted arrays a and b (ties: a's first), values moving with their
/// keys (as segmented_sort's). Sorted descending when `descending`.
void merge(const call& c, const array& a, const array* a_values, const array& b, const array* b_values,
           const array& out_keys, const array* out_values, bool descending);

}  // namespace sluice::python
