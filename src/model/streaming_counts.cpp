// src/model/streaming_counts.cpp: the memory-bound families as one pass over their elements: copy (the
// bench's vectorised copy: 16-byte loads, 512 threads), reduce (two_pass_tiles: the tile pass over
// one wave, then one block over the partials), the single-pass scan (decoupled look-back: the
// status memset and the tile kernel) and the first-order recurrence, the same scan over its steps. Their
// kernels are not in the register table; the model assumes they run at full occupancy (M_o = threads an
// SM / cores an SM), which holds for kernels of up to 32 registers. ILP: the words a thread loads before
// using them (the tuning tables' tile shapes).
// Lower order, left out: the partials, the look-back's status traffic and the block reductions' shuffles.
#include "model/counts_support.hpp"
#include "model/families.hpp"

#include <sluice/block/tile_shape.hpp>
#include <sluice/detail/scan/tuning.hpp>

#include <string>

namespace sluice::model {

namespace {

using counts::bytes_of;

/// Items a thread of block::default_tile_shape (reduce's tile) for elements of `bytes`.
int default_tile_items(std::size_t bytes) {
  switch (bytes) {
    case 1: return block::default_tile_shape<bytes_of<1>>::items;
    case 2: return block::default_tile_shape<bytes_of<2>>::items;
    case 4: return block::default_tile_shape<bytes_of<4>>::items;
    case 8: return block::default_tile_shape<bytes_of<8>>::items;
    default: return block::default_tile_shape<bytes_of<16>>::items;
  }
}

}  // namespace

algorithm_model streaming(const device_profile& p, streaming_kind kind, std::uint64_t n, std::size_t element_bytes) {
  if (n == 0) throw invalid_argument("model", "--n", "must be at least 1");
  if (element_bytes == 0 || element_bytes > 64) throw invalid_argument("model", "--bytes", "must be 1 to 64");
  const double elements = static_cast<double>(n);
  const double ew = counts::words(element_bytes);
  kernel_model k;
  k.oversubscription = static_cast<double>(p.limits.max_threads_per_sm) / p.limits.cores_per_sm;
  std::string name;
  switch (kind) {
    case streaming_kind::copy:
      name = "copy";
      k.name = "copy";
      k.add(op::g, 2 * elements * ew, 4);
      break;
    case streaming_kind::reduce:
      name = "reduce";
      k.name = "reduce (two passes)";
      k.launches = 2;
      k.add(op::g, elements * ew, default_tile_items(element_bytes) * ew);
      k.add(op::r, elements * ew, default_tile_items(element_bytes));
      break;
    case streaming_kind::scan: {
      name = "scan";
      const int items = detail::scan::tuning::single_pass_items(static_cast<int>(element_bytes));
      k.name = "scan (memset, look-back)";
      k.launches = 2;
      k.add(op::g, 2 * elements * ew, items * ew);
      k.add(op::r, 2 * elements * ew, items);
      break;
    }
    case streaming_kind::recurrence: {
      // The scan of the steps: a step is a and b side by side, read from two arrays; the state written.
      name = "recurrence";
      const int items = detail::scan::tuning::single_pass_items(static_cast<int>(2 * element_bytes));
      k.name = "recurrence (memset, look-back)";
      k.launches = 2;
      k.add(op::g, 3 * elements * ew, 2 * items * ew);
      k.add(op::r, 2 * elements * 2 * ew, items);
      break;
    }
  }
  return {name + ": n = " + std::to_string(n) + ", " + std::to_string(element_bytes) +
              "-byte elements (full occupancy assumed)",
          {k}};
}

}  // namespace sluice::model
