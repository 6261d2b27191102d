// src/model/transpose_counts.cpp: the SPT counts of the tuned tile transpose, automatic's kernel for
// 16-byte aligned rows wider than the skinny threshold (detail/transpose/vector_tiled.cuh): a block a
// 16 KiB tile (tuning.hpp's rows × columns for the element size), 256 threads. Load phase: the tile's
// rows as 16-byte vectors, load_batch of them in flight a thread, each stored whole to the swizzled
// buffer; a barrier; store phase: a thread reads a strip of V words down a tile column (conflict-free by
// the swizzle, β = 1), transposes it in registers into k = word / element output vectors and stores them;
// a barrier. Lower order, left out: partial tiles at the edges (counted whole), the tile loop's arithmetic.
#include "model/counts_support.hpp"
#include "model/families.hpp"

#include <sluice/detail/transpose/tuning.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace sluice::model {

namespace {

namespace tr = sluice::detail::transpose;
constexpr double vector_bytes = 16;
/// Integer instructions a vector of the load phase and a strip of the store phase take besides the
/// moves themselves: the item's row and column, the bounds test, the swizzle and the addresses.
constexpr double item_instructions = 8;

}  // namespace

std::string transpose_kernel_key(std::size_t element_bytes) {
  return "transpose/vector_tiled/k" + std::to_string(element_bytes);
}

vector_tile_plan vector_tile_plan_for(const transpose_problem& q) {
  const int e = static_cast<int>(q.element_bytes);
  vector_tile_plan plan;
  plan.tile_rows = tr::tuning::vector_tile_rows(e);
  plan.tile_cols = tr::tuning::vector_tile_cols(e);
  if (plan.tile_rows == 0)
    throw invalid_argument("model transpose", "--bytes", "must be 1, 2, 4, 8 or 16 (the vector tile's element sizes)");
  plan.threads = tr::tuning::vector_tile_threads;
  plan.tiles = ((q.rows + plan.tile_rows - 1) / plan.tile_rows) * ((q.cols + plan.tile_cols - 1) / plan.tile_cols);
  plan.shared_bytes = static_cast<std::size_t>(plan.tile_rows) * plan.tile_cols * q.element_bytes;
  return plan;
}

algorithm_model vector_tiled_transpose(const device_profile&, const transpose_problem& q, const register_table& regs) {
  if (q.rows == 0 || q.cols == 0) throw invalid_argument("model transpose", "--n", "must hold at least one element");
  if (q.rows * q.element_bytes % 16 != 0 || q.cols * q.element_bytes % 16 != 0)
    throw invalid_argument("model transpose", "--m", "rows and columns must be whole 16-byte vectors (vector_tiled)");
  const vector_tile_plan plan = vector_tile_plan_for(q);
  const double e = static_cast<double>(q.element_bytes);
  const double n = static_cast<double>(q.rows) * static_cast<double>(q.cols);
  const double moved = n * e / 4;  // the matrix in 4-byte words
  const double v = vector_bytes / e;                                      // V: elements a vector
  const double word_bytes = std::max(e, 4.0);
  const double k = word_bytes / e;                                        // output vectors a strip
  const double vectors = n / v;
  const double strips = n / (v * k);

  kernel_model kernel;
  kernel.name = "vector_tiled";
  kernel.plan = {plan.tiles, plan.threads, plan.shared_bytes,
                 registers_of(regs, transpose_kernel_key(q.element_bytes))};
  const double vector_words = vector_bytes / 4;
  kernel.add(op::g, moved, tr::tuning::vector_tile_load_batch * vector_words);               // the loads
  kernel.add(op::g, moved, tr::tuning::vector_tile_store_batch * k * vector_words);          // the stores
  kernel.add_shared(moved, 1, tr::tuning::vector_tile_load_batch * vector_words);            // vectors stored whole
  kernel.add_shared(moved, 1, tr::tuning::vector_tile_store_batch * v * word_bytes / 4);     // a strip's V words
  kernel.add(op::r, (vectors + strips) * item_instructions + (e < 4 ? n : 0));  // + byte packing of small elements
  kernel.add(op::y, static_cast<double>(plan.tiles) * plan.threads * 2);
  return {"transpose [vector_tiled]: " + std::to_string(q.rows) + " × " + std::to_string(q.cols) + ", " +
              std::to_string(q.element_bytes) + "-byte elements, tile " + std::to_string(plan.tile_rows) + " × " +
              std::to_string(plan.tile_cols),
          {kernel}};
}

}  // namespace sluice::model
