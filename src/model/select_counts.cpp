// src/model/select_counts.cpp: the SPT counts of select_if, unique and stable_partition as
// detail/select/dispatch.cuh's classify_scatter runs them, a block a tile of threads × items in
// warp-striped order (classify_scatter.cuh). select_if: the look-back state's memset, then the
// classify-scatter kernel: load, classify, one ballot an item a kept class and its population counts,
// the warps' counts through shared memory, warp 0's decoupled look-back, and the stores straight from
// registers. unique is select_if whose classifier compares each element with the one before it, a warp
// shuffle of its neighbour lane's item (classify_scatter.cuh's run_head_classes). stable_partition: the
// counting kernel (the same tiles, loaded and classified the same way, a count a tile), CUB's scan of
// the tile counts (two launches), then the classify-scatter kernel, which reads its tile's prefix
// instead of looking back. Shapes from detail/select/tuning.hpp. Lower order, left
// out: the partial tile, the count written by the last tile, the copy of the class sizes.
#include "model/counts_support.hpp"
#include "model/families.hpp"

#include <sluice/detail/select/tuning.hpp>

#include <cmath>
#include <string>

namespace sluice::model {

namespace {

namespace sel = sluice::detail::select;
using counts::words;

/// The look-back state of one tile: a status word and the class count (scan::tile_status), in words.
constexpr double status_words = 2;
/// A tile's count in the partition's scan: one 64-bit count (stable_partition keeps one class), in words.
constexpr double tile_count_words = 2;

}  // namespace

algorithm_model classify_scatter(const device_profile&, const select_problem& q, const register_table& regs) {
  if (q.n == 0) throw invalid_argument("model select", "--n", "must be at least 1");
  if (q.element_bytes == 0 || q.element_bytes > 64) throw invalid_argument("model select", "--bytes", "must be 1 to 64");
  if (q.kept < 0 || q.kept > 1) throw invalid_argument("model select", "kept", "must be a share in [0, 1]");
  const int nominal = q.partition ? sel::tuning::partition_items : sel::tuning::select_items;
  const int items = q.items_per_thread != 0 ? q.items_per_thread
                                            : sel::tuning::scatter_items(nominal, static_cast<int>(q.element_bytes));
  const int threads = sel::tuning::scatter_threads;
  const double n = static_cast<double>(q.n);
  const double w = words(q.element_bytes);
  const double tile = static_cast<double>(threads) * items;
  const double tiles = std::ceil(n / tile);
  const double written = q.partition ? n : n * q.kept;

  algorithm_model m;
  const char* operation = q.partition ? "stable_partition" : q.run_heads ? "unique" : "select_if";
  m.name = std::string(operation) + ": n = " + std::to_string(q.n) + ", " + std::to_string(q.element_bytes) +
           "-byte elements, " + std::to_string(static_cast<int>(q.kept * 100)) + "% kept, tile " +
           std::to_string(threads) + " × " + std::to_string(items);

  const std::size_t shared = static_cast<std::size_t>(threads / 32) * 4 + 16;  // warp counts, prefix, tile
  if (q.partition) {
    // count_tile_classes_kernel: the scatter pass's tiles, loaded and classified alike, a ballot an item,
    // the warps' counts through shared memory, one count a tile.
    kernel_model count;
    count.name = "count";
    count.plan = {static_cast<std::uint64_t>(tiles), threads, static_cast<std::size_t>(threads / 32) * 4,
                  registers_of(regs, select_kernel_key("count", q.element_bytes))};
    count.add(op::g, n * w, items * w);
    count.add(op::g, tiles * tile_count_words);
    count.add(op::v, n, items);
    count.add(op::r, n * 4);  // the classifier, the compare, the popc and its add
    count.add_shared(tiles * (threads / 32.0) * 2, 1, 1);
    count.add(op::y, tiles * threads);
    m.kernels.push_back(count);
    // cub::DeviceScan::InclusiveScan of the tile counts: its tile-state initialisation and one pass.
    kernel_model scan_init;
    scan_init.name = "scan (tile counts, init)";
    scan_init.oversubscription = 1;
    m.kernels.push_back(scan_init);
    kernel_model scan;
    scan.name = "scan (tile counts)";
    scan.oversubscription = 1;  // a few blocks over tiles · 8 bytes: latency, not occupancy
    scan.add(op::g, tiles * tile_count_words * 2, 1);
    m.kernels.push_back(scan);
  } else {
    kernel_model state;
    state.name = "memset (look-back state)";
    state.oversubscription = 1;
    m.kernels.push_back(state);
  }

  kernel_model scatter;
  scatter.name = q.partition ? "partition_scatter" : "scatter";
  scatter.plan = {static_cast<std::uint64_t>(tiles), threads, shared,
                  registers_of(regs, select_kernel_key(q.partition ? "partition_scatter" : "scatter", q.element_bytes))};
  scatter.add(op::g, n * w, items * w);            // the loads, all of a thread's items in flight
  scatter.add(op::g, written * w, items);          // the stores from registers
  scatter.add(op::v, n, items);                     // a ballot an item (one kept class)
  scatter.add(op::r, n * (q.partition ? 14 : 10));  // classify, two popc, the rank, the store's address
  if (q.run_heads) {
    scatter.add(op::x, n * w, 1);  // the neighbour lane's item
    scatter.add(op::r, n * 2);     // the compare, lane 0's choice of the row's predecessor
  }
  scatter.add_shared(tiles * (threads / 32.0) * (1 + threads / 32.0), 1, 1);  // the warps' counts
  if (q.partition) {
    scatter.add(op::y, tiles * threads);              // the warps' counts; the prefix comes from memory
    scatter.add(op::l2, tiles * tile_count_words * 2, 1);  // the tile's prefix and the totals
  } else {
    scatter.add(op::y, tiles * threads * 2);
    // Warp 0 publishes the aggregate, reads the earlier tiles' states (a warp's lanes, one tile each,
    // until an inclusive one: mostly the tile before) and publishes the inclusive count.
    scatter.add(op::l2, tiles * status_words * 2, 1);
    scatter.add(op::l2, tiles * 32 * status_words, 32);
  }
  m.kernels.push_back(scatter);
  return m;
}

}  // namespace sluice::model
