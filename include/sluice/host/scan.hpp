// sluice/host/scan.hpp: inclusive and exclusive scans on the CPU (Palik §4.1–4.2).
//
//   inclusive_scan: out[i] = in[0] ⊕ … ⊕ in[i]                 (with init: init ⊕ in[0] ⊕ … ⊕ in[i])
//   exclusive_scan: out[0] = init, out[i] = init ⊕ in[0] ⊕ … ⊕ in[i−1]
//
// Any associative operator; operands are combined in index order, so non-commutative operators give
// the sequential oracle's bits. In place (out == in) is allowed.
//
//   sluice::host::inclusive_scan<std::uint32_t>(in, out, sluice::plus{});
//   sluice::host::exclusive_scan<std::uint32_t>(in, out, 0u, sluice::plus{});
//
// Strategies (scan_options::algorithm): sequential (one pass: n reads, n writes), reduce_then_scan
// (all cores: fold each contiguous block, scan the block totals in order, rescan each block from its
// carry-in; 2n reads, n writes), automatic (reduce_then_scan where there is more than one block).
#pragma once

#include <sluice/core/error.hpp>
#include <sluice/host/detail/parallel.hpp>
#include <sluice/host/reduce.hpp>

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace sluice::host {

enum class scan_algo { automatic, sequential, reduce_then_scan };

struct scan_options {
  scan_algo algorithm = scan_algo::automatic;
};

namespace detail {

/// Scans in[begin, end) into out from an optional carry-in (none, inclusive only: the first element
/// starts the running value).
template <class T, class Op>
void scan_block(std::span<const T> in, std::span<T> out, std::size_t begin, std::size_t end,
                const std::optional<T>& carry, bool inclusive, const Op& op) {
  if (begin == end) return;
  std::size_t i = begin;
  T acc = carry ? *carry : in[i];
  if (!carry) out[i++] = acc;
  if (inclusive) {
    for (; i < end; ++i) out[i] = acc = op(acc, in[i]);
    return;
  }
  for (; i < end; ++i) {
    const T x = in[i];  // read before writing: out may be in
    out[i] = acc;
    acc = op(acc, x);
  }
}

template <class T, class Op>
void scan(const char* function, std::span<const T> in, std::span<T> out, std::optional<T> init, bool inclusive,
          const Op& op, const scan_options& options) {
  if (out.size() != in.size()) throw invalid_argument(function, "out", "must have as many elements as in");
  const block_partition blocks = options.algorithm == scan_algo::sequential ? block_partition{in.size(), 1, in.size()}
                                                                            : streaming_blocks(in.size());
  if (blocks.count == 1) {
    scan_block(in, out, 0, in.size(), init, inclusive, op);
    return;
  }
  // Carry-in of each block: init ⊕ the totals of the blocks before it, in order (blocks are non-empty here).
  const std::vector<T> totals = block_totals(in, blocks, op);
  std::vector<std::optional<T>> carry(blocks.count);
  carry[0] = init;
  for (std::size_t b = 1; b < blocks.count; ++b) carry[b] = carry[b - 1] ? op(*carry[b - 1], totals[b - 1]) : totals[b - 1];
  parallel_for(blocks.count, [&](std::size_t b) { scan_block(in, out, blocks.begin(b), blocks.end(b), carry[b], inclusive, op); });
}

}  // namespace detail

/// out[i] = in[0] ⊕ … ⊕ in[i].
template <class T, class Op>
void inclusive_scan(std::span<const T> in, std::span<T> out, Op op, const scan_options& options = {}) {
  detail::scan<T>("host::inclusive_scan", in, out, std::nullopt, true, op, options);
}

/// out[i] = init ⊕ in[0] ⊕ … ⊕ in[i].
template <class T, class Op>
void inclusive_scan(std::span<const T> in, std::span<T> out, Op op, T init, const scan_options& options = {}) {
  detail::scan<T>("host::inclusive_scan", in, out, init, true, op, options);
}

/// out[0] = init, out[i] = init ⊕ in[0] ⊕ … ⊕ in[i−1].
template <class T, class Op>
void exclusive_scan(std::span<const T> in, std::span<T> out, T init, Op op, const scan_options& options = {}) {
  detail::scan<T>("host::exclusive_scan", in, out, init, false, op, options);
}

}  // namespace sluice::host
