// sluice/reference/reference.hpp: every sequential oracle (host-only C++20, namespace sluice::reference).
//
// The oracles define the semantics the GPU primitives are tested against: plain loops in index order,
// operators combined left to right (never assumed commutative), edge cases and bad inputs given defined
// behaviour. Each header's opening comment states its exact semantics.
#pragma once

#include <sluice/reference/by_key.hpp>
#include <sluice/reference/group_by.hpp>
#include <sluice/reference/hash_map.hpp>
#include <sluice/reference/histogram.hpp>
#include <sluice/reference/lsm.hpp>
#include <sluice/reference/merge.hpp>
#include <sluice/reference/multireduce.hpp>
#include <sluice/reference/multisplit.hpp>
#include <sluice/reference/ordered_map.hpp>
#include <sluice/reference/radix_sort.hpp>
#include <sluice/reference/recurrence.hpp>
#include <sluice/reference/reduce.hpp>
#include <sluice/reference/scan.hpp>
#include <sluice/reference/scatter.hpp>
#include <sluice/reference/search.hpp>
#include <sluice/reference/segmented.hpp>
#include <sluice/reference/select.hpp>
#include <sluice/reference/sort.hpp>
#include <sluice/reference/string_match.hpp>
#include <sluice/reference/transpose.hpp>
