// _sluice: the families bound beside module.cpp's, each in its own file, registered by NB_MODULE there.
#pragma once

#include <nanobind/nanobind.h>

namespace sluice::python::module {

/// segmented_sort and merge (sorting.cpp).
void bind_sorting(nanobind::module_& m);
/// predecessor and the SearchIndex class (search.cpp).
void bind_search(nanobind::module_& m);
/// The SlabHash and Lsm classes, hash_unique and group_by_reduce (containers.cpp).
void bind_containers(nanobind::module_& m);
/// string_match, string_match_count, string_match_bitmap, multi_string_match (strings.cpp).
void bind_strings(nanobind::module_& m);

}  // namespace sluice::python::module
