// sluice/host/reduce.hpp: reduction on the CPU, out = init ⊕ in[0] ⊕ … ⊕ in[n−1] (Palik §3.1).
//
// Any associative operator. The blocked strategy folds contiguous blocks on all cores, each from its
// first element (no identity needed), then folds init and the block results in block order, so a
// non-commutative operator gives the sequential fold's exact bits; floating-point sums differ from the
// sequential rounding by the regrouping. n = 0 gives init.
//
//   std::uint64_t sum = sluice::host::reduce<std::uint64_t>(values, 0, sluice::plus{});
//   auto product = sluice::host::reduce<sluice::affine<std::uint32_t>>(maps, {1, 0}, sluice::affine_compose{});
//
// Strategies (reduce_options::algorithm): sequential (one left fold), blocked (all cores; one read of
// the input: n · sizeof(T) bytes), automatic (blocked where there is more than one block of work).
#pragma once

#include <sluice/host/detail/parallel.hpp>

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace sluice::host {

enum class reduce_algo { automatic, sequential, blocked };

[[nodiscard]] constexpr std::string_view to_string(reduce_algo algorithm) {
  switch (algorithm) {
    case reduce_algo::automatic: return "automatic";
    case reduce_algo::sequential: return "sequential";
    case reduce_algo::blocked: return "blocked";
  }
  return "unknown";
}

struct reduce_options {
  reduce_algo algorithm = reduce_algo::automatic;
};

namespace detail {

/// in[begin] ⊕ … ⊕ in[end−1] for a non-empty range.
template <class T, class Op>
T fold_block(std::span<const T> in, std::size_t begin, std::size_t end, const Op& op) {
  T acc = in[begin];
  for (std::size_t i = begin + 1; i < end; ++i) acc = op(acc, in[i]);
  return acc;
}

/// Each block's fold (blocks with items only), in block order.
template <class T, class Op>
std::vector<T> block_totals(std::span<const T> in, const block_partition& blocks, const Op& op) {
  std::vector<std::optional<T>> totals(blocks.count);
  parallel_for(blocks.count, [&](std::size_t b) {
    if (blocks.begin(b) < blocks.end(b)) totals[b] = fold_block(in, blocks.begin(b), blocks.end(b), op);
  });
  std::vector<T> kept;
  for (auto& t : totals)
    if (t) kept.push_back(*t);
  return kept;
}

}  // namespace detail

/// init ⊕ in[0] ⊕ … ⊕ in[n−1], operands in index order.
template <class T, class Op>
[[nodiscard]] T reduce(std::span<const T> in, T init, Op op, const reduce_options& options = {}) {
  const detail::block_partition blocks = options.algorithm == reduce_algo::sequential
                                             ? detail::block_partition{in.size(), 1, in.size()}
                                             : detail::streaming_blocks(in.size());
  T acc = init;
  for (const T& total : detail::block_totals(in, blocks, op)) acc = op(acc, total);
  return acc;
}

}  // namespace sluice::host
