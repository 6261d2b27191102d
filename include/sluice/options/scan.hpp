// sluice/options/scan.hpp: the public option types of scan.cuh, beside it so that the scan's dispatch
// (detail/scan/dispatch.cuh) and the families built on it can name them without the entry points.
#pragma once

namespace sluice {

enum class scan_algorithm {
  automatic,            ///< decoupled_look_back
  decoupled_look_back,  ///< single pass, tiles chained by look-back (Merrill & Garland)
  reduce_then_scan,     ///< reduce runs, scan the partials, rescan the runs
  brent_kung,           ///< work-efficient up-sweep/down-sweep tree per block (Palik §4.4)
  hillis_steele,        ///< log2 n passes over global memory (DTU §5.4, Palik §4.3)
};

struct scan_options {
  scan_algorithm algorithm = scan_algorithm::automatic;
};

}  // namespace sluice
