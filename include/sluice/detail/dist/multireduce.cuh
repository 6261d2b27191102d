// sluice/detail/dist/multireduce.cuh: the distributed multireduce (sluice/dist.cuh's dist::multireduce):
// one reduction per bucket over the labels and values of every rank, in global index order (rank r's
// elements after rank r − 1's), by one of the ways of detail/dist/owners.hpp, each built from the one-GPU
// multireduce's plan and run functions (detail/multireduce/) and NCCL.
//
//   collective        every rank reduces its pairs into all m buckets (padded to P·⌈m/P⌉ with the
//                     identity); then NCCL reduces them (nccl_reduction: ncclAllReduce for a replicated
//                     output, ncclReduceScatter for a partitioned one), or each block of partial results
//                     goes to its owner, who folds them in rank order (ordered_exchange), followed by an
//                     all-gather of the blocks for a replicated output. Traffic per rank: its pairs read
//                     once, m partial results written and moved.
//   owner_partition   a stable multisplit of the pairs by the owner of their bucket (labels outside
//                     [0, m) dropped and counted there), one all-to-all, the owner's labels rebased to its
//                     block, its local multireduce; all-gather of the blocks for a replicated output.
//                     Traffic: the pairs read three times, written twice, moved once (≈ (P−1)/P of them).
// Labels outside [0, m) are dropped and counted as on one GPU; the call returns their number over all
// ranks. Strict mode finds every rank's first bad label before anything is written and throws
// invalid_argument naming the first one's global index on every rank.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/device_buffer.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/launch.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/operators.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/dist/launch.cuh>
#include <sluice/detail/dist/owners.hpp>
#include <sluice/detail/dist/records.hpp>
#include <sluice/detail/dist/routes.hpp>
#include <sluice/detail/dist/steps.hpp>
#include <sluice/detail/dist/world.hpp>
#include <sluice/detail/multireduce/common.cuh>
#include <sluice/detail/multireduce/dispatch.cuh>
#include <sluice/detail/multireduce/plan.hpp>
#include <sluice/detail/multisplit/dispatch.cuh>
#include <sluice/options/dist.hpp>
#include <sluice/options/multireduce.hpp>

#include <nccl.h>

#include <cuda/std/span>

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace sluice::detail::dist {

// ---- NCCL's exact reductions ------------------------------------------------------------------------------

/// NCCL's type for T: integers of 8, 32 and 64 bits, float, double; nothing for other types.
template <class T>
constexpr std::optional<ncclDataType_t> nccl_type_of() {
  if constexpr (std::is_same_v<T, bool>) return std::nullopt;
  else if constexpr (std::is_integral_v<T> && sizeof(T) == 1) return std::is_signed_v<T> ? ncclInt8 : ncclUint8;
  else if constexpr (std::is_integral_v<T> && sizeof(T) == 4) return std::is_signed_v<T> ? ncclInt32 : ncclUint32;
  else if constexpr (std::is_integral_v<T> && sizeof(T) == 8) return std::is_signed_v<T> ? ncclInt64 : ncclUint64;
  else if constexpr (std::is_same_v<T, float>) return ncclFloat32;
  else if constexpr (std::is_same_v<T, double>) return ncclFloat64;
  else return std::nullopt;
}

/// The NCCL reduction that gives sluice's result for (Op, T) (owners.hpp's header comment): sum, min,
/// max of integers; sum of floats unless the call is deterministic. Min and max of floats stay sluice's
/// (its comparisons order ±0 and NaN as written, NCCL's need not).
template <class Op, class T>
constexpr std::optional<ncclRedOp_t> nccl_reduction_of(bool deterministic) {
  if constexpr (!nccl_type_of<T>().has_value()) {
    return std::nullopt;
  } else if constexpr (std::is_same_v<Op, sluice::plus>) {
    if (std::is_floating_point_v<T> && deterministic) return std::nullopt;
    return ncclSum;
  } else if constexpr (std::is_integral_v<T> && std::is_same_v<Op, sluice::min>) {
    return ncclMin;
  } else if constexpr (std::is_integral_v<T> && std::is_same_v<Op, sluice::max>) {
    return ncclMax;
  } else {
    return std::nullopt;
  }
}

// ---- kernels ----------------------------------------------------------------------------------------------

/// block[k] = ranks' partial results for bucket k folded in rank order (partials[r·width + k]).
template <class T, class Op>
__global__ void fold_ranks_kernel(const T* __restrict__ partials, std::uint64_t width, int ranks, T* __restrict__ block,
                                  Op op) {
  for (std::uint64_t k = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; k < width;
       k += std::uint64_t{gridDim.x} * blockDim.x) {
    T folded = partials[k];
    for (int r = 1; r < ranks; ++r) folded = op(folded, partials[static_cast<std::uint64_t>(r) * width + k]);
    block[k] = folded;
  }
}

/// out[k] = out[k] ⊕ result[k] (accumulate) or result[k].
template <class T, class Op>
__global__ void finish_kernel(T* __restrict__ out, const T* __restrict__ result, std::uint64_t count, bool accumulate,
                              Op op) {
  for (std::uint64_t k = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; k < count;
       k += std::uint64_t{gridDim.x} * blockDim.x)
    out[k] = accumulate ? op(out[k], result[k]) : result[k];
}

/// The owner's labels, all in [begin, begin + its block), as indices into its block.
template <class L>
__global__ void rebase_kernel(const L* __restrict__ labels, std::uint64_t n, std::uint64_t begin,
                              std::uint32_t* __restrict__ local) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    local[i] = static_cast<std::uint32_t>(static_cast<std::uint64_t>(labels[i]) - begin);
}

/// The one-GPU multireduce of n pairs into out[0, m) (m may be 0: nothing), from its plan and run
/// function: folds onto out (accumulate) or onto the identity.
template <class L, class T, class Op>
void local_multireduce(context& ctx, const char* function, const L* labels, const T* values, std::size_t n, T* out,
                       std::uint64_t m, Op op, bool accumulate, std::size_t* dropped,
                       const sluice::multireduce_options& local) {
  if (m == 0) return;
  sluice::multireduce_options o = local;
  o.accumulate = accumulate;
  o.strict = false;
  const auto buckets = static_cast<std::uint32_t>(m);
  const multireduce::plan plan = multireduce::resolve<T, Op>(ctx, function, buckets, n, o);
  if (!accumulate) multireduce::fill_identity<Op>(ctx, out, m);
  if (n == 0) return;
  naming_out_of_memory(function, sluice::to_string(plan.algorithm),
                       [&] { multireduce::run(ctx, plan, labels, values, n, out, buckets, op, dropped); });
}

// ---- the call ---------------------------------------------------------------------------------------------

inline constexpr std::string_view multireduce_parameter_names[] = {
    "m", "options.output", "options.algorithm", "options.local.algorithm", "options.local.accumulate",
    "options.local.strict", "options.local.deterministic", "options.local.sets and partial_sort_bits"};

template <class L, class T, class Op>
call_signature multireduce_signature(const char* function, std::uint64_t m, const sluice::dist::multireduce_options& o) {
  call_signature s;
  s.operation = tag(function);
  s.first = type_tag<L>();
  s.second = type_tag<T>();
  s.op = type_tag<Op>();
  const std::uint64_t parameters[] = {
      m,
      static_cast<std::uint64_t>(o.output),
      static_cast<std::uint64_t>(o.algorithm),
      static_cast<std::uint64_t>(o.local.algorithm),
      o.local.accumulate,
      o.local.strict,
      o.local.deterministic,
      (std::uint64_t{o.local.sets} << 32) | static_cast<std::uint32_t>(o.local.partial_sort_bits)};
  std::copy(std::begin(parameters), std::end(parameters), s.parameters);
  return s;
}

/// One rank's part of the call.
template <class L, class T>
struct multireduce_rank {
  cuda::std::span<const L> labels;
  cuda::std::span<const T> values;
  cuda::std::span<T> out;
  device_buffer<std::size_t> dropped;
  device_buffer<T> partial;  ///< collective: this rank's results for all buckets, padded to P·width
  device_buffer<T> blocks;   ///< P·width: every rank's partial for this rank's block, or every block
  device_buffer<T> block;    ///< width: this rank's block, folded
  device_buffer<L> split_labels;
  device_buffer<T> split_values;
  device_buffer<L> received_labels;
  device_buffer<T> received_values;
  device_buffer<std::uint32_t> local_labels;
};

enum multireduce_phase : int { local_phase, split_phase_mr, exchange_phase_mr, combine_phase };

/// The largest m: the one-GPU multireduce's (2^32 − 2 buckets).
inline constexpr std::uint64_t max_buckets = std::numeric_limits<std::uint32_t>::max() - 1;

template <class L, class T, class Op>
std::uint64_t distributed_multireduce(world& w, const char* function, std::span<const cuda::std::span<const L>> labels,
                                      std::span<const cuda::std::span<const T>> values,
                                      std::span<const cuda::std::span<T>> out, std::uint64_t m, Op op,
                                      const sluice::dist::multireduce_options& options) {
  using sluice::dist::layout;
  call c(w, function, options.report, {"local", "split", "exchange", "combine"});
  const int world_size = c.world_size();
  const bool replicated = options.output == layout::replicated;
  const bool accumulate = options.local.accumulate;
  const std::uint64_t width = m == 0 ? 0 : block_width(m, world_size);
  std::vector<multireduce_rank<L, T>> ranks(c.local_count());

  // header: the arguments checked on each rank, strict mode's first bad label, signatures and sizes.
  const call_signature signature = multireduce_signature<L, T, Op>(function, m, options);
  const gathered headers = c.gather(sizeof(call_record), [&](std::size_t i, local_rank& l, unsigned char* payload) {
    if (i >= labels.size() || i >= values.size() || i >= out.size())
      throw invalid_argument(function, "labels", "has fewer parts than the communicator has ranks in this process");
    if (m == 0 || m > max_buckets)
      throw invalid_argument(function, "m", "is " + std::to_string(m) + ": must be in [1, 2^32 − 2]");
    require_known_algorithm(function, options.algorithm, "dist::multireduce_algorithm");
    if (to_string(options.output) == "?") throw invalid_argument(function, "options.output", "is not a dist::layout");
    multireduce_rank<L, T>& r = ranks[i];
    r.labels = labels[i];
    r.values = values[i];
    r.out = out[i];
    require_device_memory(*l.ctx, r.labels, function, "labels");
    require_device_memory(*l.ctx, r.values, function, "values");
    require_device_memory(*l.ctx, r.out, function, "out");
    if (r.values.size() != r.labels.size())
      throw invalid_argument(function, "values",
                             "has " + std::to_string(r.values.size()) + " elements but labels has " +
                                 std::to_string(r.labels.size()));
    const std::uint64_t expected = replicated ? m : owned_range(m, world_size, l.rank).size();
    if (r.out.size() != expected)
      throw invalid_argument(function, "out",
                             "has " + std::to_string(r.out.size()) + " elements but rank " + std::to_string(l.rank) +
                                 " holds " + std::to_string(expected) +
                                 (replicated ? " buckets (replicated: m)" : " buckets (dist::owned_buckets)"));
    if (overlaps(r.out, r.labels)) throw invalid_argument(function, "out", "overlaps labels");
    if (overlaps(r.out, r.values)) throw invalid_argument(function, "out", "overlaps values");
    sluice::multireduce_options local = options.local;
    local.strict = false;
    (void)multireduce::resolve<T, Op>(*l.ctx, function, static_cast<std::uint32_t>(m), r.labels.size(), local);
    const call_record record{signature, r.labels.size(), ~0ull};
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(payload, &record, sizeof(record), cudaMemcpyHostToDevice, l.ctx->stream()));
    if (options.local.strict && !r.labels.empty()) {
      auto kernel = scatter::find_first_invalid_kernel<L>;
      const std::size_t grid =
          one_wave_grid(*l.ctx, kernel, scatter::block_threads, ceil_div(r.labels.size(), scatter::block_threads));
      kernel<<<static_cast<unsigned>(grid), scatter::block_threads, 0, l.ctx->stream()>>>(
          r.labels.data(), r.labels.size(), m,
          reinterpret_cast<unsigned long long*>(payload + offsetof(call_record, first_invalid)));
      SLUICE_CHECK_LAUNCH();
    }
  });
  std::vector<call_record> records;
  for (int r = 0; r < world_size; ++r) records.push_back(headers.read<call_record>(r));
  require_same_signatures(function, records, "labels", multireduce_parameter_names);
  std::uint64_t offset = 0, first_invalid = ~0ull, largest = 0;
  for (const call_record& r : records) {
    if (r.first_invalid != ~0ull) first_invalid = std::min(first_invalid, offset + r.first_invalid);
    offset += r.n;
    largest = std::max(largest, r.n);
  }
  if (first_invalid != ~0ull)
    throw invalid_argument(function, "labels",
                           "has a label outside [0, " + std::to_string(m) + ") (strict mode; global index)",
                           static_cast<std::size_t>(first_invalid));

  const combine_way way = choose_way({world_size, m, sizeof(L), sizeof(T), largest,
                                      nccl_reduction_of<Op, T>(options.local.deterministic).has_value(),
                                      options.algorithm});
  c.run_local([&](std::size_t i, local_rank& l) {
    ranks[i].dropped = device_buffer<std::size_t>(*l.ctx, 1);
    ranks[i].dropped.fill_bytes(0);
  });

  /// replicated: every block all-gathered into `blocks`, then out = (out ⊕) the first m.
  const auto all_gather_blocks = [&] {
    c.vote();
    w.group("all-gather of the blocks", [&](std::size_t i, local_rank& l) {
      w.check(ncclAllGather(ranks[i].block.data(), ranks[i].blocks.data(), width * sizeof(T), ncclUint8, l.comm,
                            l.ctx->stream()),
              l, "ncclAllGather");
    });
  };
  const auto finish_out = [&](std::size_t i, local_rank& l, const T* result) {
    launch_streaming(*l.ctx, finish_kernel<T, Op>, ranks[i].out.size(), ranks[i].out.data(), result,
                     static_cast<std::uint64_t>(ranks[i].out.size()), accumulate, op);
  };

  switch (way) {
    case combine_way::local:
      c.run_local([&](std::size_t i, local_rank& l) {
        multireduce_rank<L, T>& r = ranks[i];
        c.begin(i, local_phase);
        local_multireduce(*l.ctx, function, r.labels.data(), r.values.data(), r.labels.size(), r.out.data(), m, op,
                          accumulate, r.dropped.data(), options.local);
        c.end(i, local_phase);
      });
      break;

    case combine_way::nccl_reduction:
    case combine_way::ordered_exchange: {
      const bool by_nccl = way == combine_way::nccl_reduction;
      const std::uint64_t padded = width * static_cast<std::uint64_t>(world_size);
      c.run_local([&](std::size_t i, local_rank& l) {
        multireduce_rank<L, T>& r = ranks[i];
        c.begin(i, local_phase);
        r.partial = device_buffer<T>(*l.ctx, padded);
        multireduce::fill_identity<Op>(*l.ctx, r.partial.data(), padded);
        local_multireduce(*l.ctx, function, r.labels.data(), r.values.data(), r.labels.size(), r.partial.data(), m, op,
                          true, r.dropped.data(), options.local);
        c.end(i, local_phase);
        if (!by_nccl || !replicated) r.block = device_buffer<T>(*l.ctx, width);
        if (!by_nccl) r.blocks = device_buffer<T>(*l.ctx, padded);
      });
      c.vote();
      for (std::size_t i = 0; i < c.local_count(); ++i) c.begin(i, combine_phase);
      if constexpr (nccl_type_of<T>().has_value()) {
        if (by_nccl) {
          constexpr ncclDataType_t type = *nccl_type_of<T>();
          const ncclRedOp_t reduction = *nccl_reduction_of<Op, T>(options.local.deterministic);
          w.group(replicated ? "ncclAllReduce of the partial results" : "ncclReduceScatter of the partial results",
                [&](std::size_t i, local_rank& l) {
                  multireduce_rank<L, T>& r = ranks[i];
                  if (replicated)
                    w.check(ncclAllReduce(r.partial.data(), r.partial.data(), m, type, reduction, l.comm, l.ctx->stream()),
                            l, "ncclAllReduce");
                  else
                    w.check(ncclReduceScatter(r.partial.data(), r.block.data(), width, type, reduction, l.comm,
                                              l.ctx->stream()),
                            l, "ncclReduceScatter");
                });
        }
      }
      if (!by_nccl) {
        c.exchange("exchange of the partial results", [&](std::size_t i, local_rank&, int peer) {
          multireduce_rank<L, T>& r = ranks[i];
          const std::size_t bytes = width * sizeof(T);
          return std::array<piece, 1>{piece{r.partial.data() + static_cast<std::uint64_t>(peer) * width, bytes,
                                            r.blocks.data() + static_cast<std::uint64_t>(peer) * width, bytes}};
        });
        c.run_local([&](std::size_t i, local_rank& l) {
          launch_streaming(*l.ctx, fold_ranks_kernel<T, Op>, width, ranks[i].blocks.data(), width, world_size,
                           ranks[i].block.data(), op);
        });
        if (replicated) all_gather_blocks();
      }
      c.run_local([&](std::size_t i, local_rank& l) {
        multireduce_rank<L, T>& r = ranks[i];
        finish_out(i, l, by_nccl && replicated ? r.partial.data() : replicated ? r.blocks.data() : r.block.data());
        c.end(i, combine_phase);
      });
      break;
    }

    case combine_way::owner_partition: {
      const auto owners = static_cast<std::uint32_t>(world_size);
      const gathered offsets = c.gather((owners + 1) * sizeof(std::size_t), [&](std::size_t i, local_rank& l,
                                                                               unsigned char* payload) {
        multireduce_rank<L, T>& r = ranks[i];
        c.begin(i, split_phase_mr);
        const std::size_t n = r.labels.size();
        r.split_labels = device_buffer<L>(*l.ctx, n);
        r.split_values = device_buffer<T>(*l.ctx, n);
        const multisplit::pass_io<L, T> io{r.labels.data(), r.values.data(), r.split_labels.data(),
                                           r.split_values.data(), n};
        multisplit::run(*l.ctx, function, io, owners, owner_of<L>{m, width, owners},
                        cuda::std::span<std::size_t>(reinterpret_cast<std::size_t*>(payload), owners + 1),
                        r.dropped.data(), multisplit_options{});
        c.end(i, split_phase_mr);
      });
      std::vector<std::vector<std::uint64_t>> starts;
      for (int r = 0; r < world_size; ++r) starts.push_back(offsets.read_array<std::uint64_t>(r, 0, owners + 1));
      const route_plan plan(std::move(starts));
      c.run_local([&](std::size_t i, local_rank& l) {
        multireduce_rank<L, T>& r = ranks[i];
        const std::uint64_t received = plan.received(l.rank);
        r.received_labels = device_buffer<L>(*l.ctx, received);
        r.received_values = device_buffer<T>(*l.ctx, received);
        r.local_labels = device_buffer<std::uint32_t>(*l.ctx, received);
        if (replicated) {
          r.block = device_buffer<T>(*l.ctx, width);
          r.blocks = device_buffer<T>(*l.ctx, width * owners);
        }
      });
      c.vote();
      for (std::size_t i = 0; i < c.local_count(); ++i) c.begin(i, exchange_phase_mr);
      c.exchange("exchange of the labelled values", [&](std::size_t i, local_rank& l, int peer) {
        multireduce_rank<L, T>& r = ranks[i];
        return std::array<piece, 2>{
            routed_piece(plan, l.rank, peer, r.split_labels.data(), r.received_labels.data()),
            routed_piece(plan, l.rank, peer, r.split_values.data(), r.received_values.data())};
      });
      for (std::size_t i = 0; i < c.local_count(); ++i) c.end(i, exchange_phase_mr);
      c.run_local([&](std::size_t i, local_rank& l) {
        multireduce_rank<L, T>& r = ranks[i];
        c.begin(i, local_phase);
        r.split_labels = device_buffer<L>();
        r.split_values = device_buffer<T>();
        const bucket_range mine = owned_range(m, world_size, l.rank);
        const std::uint64_t n = r.received_labels.size();
        launch_streaming(*l.ctx, rebase_kernel<L>, n, r.received_labels.data(), n, mine.begin, r.local_labels.data());
        if (replicated) {
          multireduce::fill_identity<Op>(*l.ctx, r.block.data(), width);
          local_multireduce(*l.ctx, function, r.local_labels.data(), r.received_values.data(), n, r.block.data(),
                            mine.size(), op, true, nullptr, options.local);
        } else {
          local_multireduce(*l.ctx, function, r.local_labels.data(), r.received_values.data(), n, r.out.data(),
                            mine.size(), op, accumulate, nullptr, options.local);
        }
        c.end(i, local_phase);
      });
      if (replicated) {
        all_gather_blocks();
        c.run_local([&](std::size_t i, local_rank& l) { finish_out(i, l, ranks[i].blocks.data()); });
      }
      break;
    }
  }

  const std::vector<std::uint64_t> dropped = c.finish([&](std::size_t i) -> const std::uint64_t* {
    return ranks[i].dropped.empty() ? nullptr : reinterpret_cast<const std::uint64_t*>(ranks[i].dropped.data());
  });
  std::uint64_t total = 0;
  for (std::uint64_t d : dropped) total += d;
  return total;
}

}  // namespace sluice::detail::dist
