// sluice/detail/dist/slab_hash.cuh: the steps of the distributed slab hash (sluice/dist/slab_hash.cuh).
// A batch goes to its keys' owners (routes.hpp): a stable multisplit of the keys by owner carrying what
// travels with each key (a map's values for inserts, the key's position for queries, nothing for a set's
// inserts and for erases), one all-to-all, and the owner's local slab hash applies what it received, in
// global index order. A query's answers come back by the same plan read backwards and are scattered to the
// caller's order by the positions. A world of one applies the batch to its table directly.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/device_buffer.hpp>
#include <sluice/core/error.hpp>
#include <sluice/core/memory.hpp>
#include <sluice/core/values.hpp>
#include <sluice/detail/dist/launch.cuh>
#include <sluice/detail/dist/records.hpp>
#include <sluice/detail/dist/routes.hpp>
#include <sluice/detail/dist/steps.hpp>
#include <sluice/detail/dist/world.hpp>
#include <sluice/detail/multisplit/dispatch.cuh>
#include <sluice/detail/slab_hash/kernels.cuh>
#include <sluice/detail/slab_hash/layout.hpp>

#include <cuda/std/span>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace sluice::detail::dist {

/// positions[i] = i: each key's place in its rank's batch, carried to the owner and back.
template <class Index>
__global__ void positions_kernel(Index* __restrict__ positions, std::uint64_t n) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x)
    positions[i] = static_cast<Index>(i);
}

/// out[positions[j]] = answers[j]: the answers, in the split order, back to the caller's order.
template <class T>
__global__ void scatter_answers_kernel(const T* __restrict__ answers, const std::uint64_t* __restrict__ positions,
                                       std::uint64_t n, T* __restrict__ out) {
  for (std::uint64_t j = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; j < n;
       j += std::uint64_t{gridDim.x} * blockDim.x)
    out[positions[j]] = answers[j];
}

enum class hash_phase : int { split, exchange, local, answer };

inline std::vector<std::string> hash_phase_names() { return {"split", "exchange", "local", "answer"}; }

/// One rank's batch on its way to the owners: `Carried` travels with each key (no_values: nothing).
template <class Key, class Carried>
struct routed_batch {
  static constexpr bool carries = has_values<Carried>;
  cuda::std::span<const Key> keys;
  const Carried* carried = nullptr;
  device_buffer<Key> split_keys;
  device_buffer<Carried> split_carried;
  device_buffer<Key> owned_keys;  ///< what this rank owns, in global index order
  device_buffer<Carried> owned_carried;
};

template <class Key, class Value, class Hash>
call_signature hash_signature(const char* function) {
  call_signature s;
  s.operation = tag(function);
  s.first = type_tag<Key>();
  s.second = type_tag<Value>();
  s.op = type_tag<Hash>();
  return s;
}

/// The first gather of every call: each rank's keys checked (device memory, then `check(i, l)` for the
/// other arguments), the signatures and sizes compared on every rank, and for a batch that inserts the
/// first reserved key, reported by its global index on every rank before anything moves.
template <class Key, class Value, class Check>
void hash_header(call& c, const char* function, const call_signature& signature,
                 std::span<const cuda::std::span<const Key>> keys, bool inserts, Check&& check) {
  using L = slab_hash::layout<Key, Value>;
  const gathered headers = c.gather(sizeof(call_record), [&](std::size_t i, local_rank& l, unsigned char* payload) {
    if (i >= keys.size())
      throw invalid_argument(function, "keys", "has fewer parts than the communicator has ranks in this process");
    require_device_memory(*l.ctx, keys[i], function, "keys");
    check(i, l);
    const call_record record{signature, keys[i].size(), ~0ull};
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(payload, &record, sizeof(record), cudaMemcpyHostToDevice, l.ctx->stream()));
    if (!inserts || keys[i].empty()) return;
    const auto kernel = slab_hash::check_batch_kernel<L, Key>;
    constexpr int threads = slab_hash::tuning::block_threads;
    const auto grid = static_cast<unsigned>(one_wave_grid(*l.ctx, kernel, threads, ceil_div(keys[i].size(), threads)));
    kernel<<<grid, threads, 0, l.ctx->stream()>>>(
        keys[i].data(), nullptr, keys[i].size(),
        reinterpret_cast<unsigned long long*>(payload + offsetof(call_record, first_invalid)), nullptr, nullptr);
    SLUICE_CHECK_LAUNCH();
  });
  std::vector<call_record> records;
  for (int r = 0; r < c.world_size(); ++r) records.push_back(headers.read<call_record>(r));
  require_same_signatures(function, records, "keys", {});
  std::uint64_t offset = 0, first_reserved = ~0ull;
  for (const call_record& r : records) {
    if (r.first_invalid != ~0ull) first_reserved = std::min(first_reserved, offset + r.first_invalid);
    offset += r.n;
  }
  if (first_reserved != ~0ull)
    throw invalid_argument(function, "keys",
                           "holds a reserved key (0xFF…FF marks empty slots, 0xFF…FE erased ones; global index)",
                           static_cast<std::size_t>(first_reserved));
}

/// Split by owner, the split's offsets gathered, one all-to-all: afterwards each rank's owned_keys (and
/// owned_carried) hold what it owns; its split_carried stays for the answers' way back.
template <class Key, class Carried>
route_plan route_to_owners(call& c, const char* function, std::vector<routed_batch<Key, Carried>>& ranks) {
  constexpr bool carries = routed_batch<Key, Carried>::carries;
  const auto owners = static_cast<std::uint32_t>(c.world_size());
  const gathered offsets = c.gather((owners + 1) * sizeof(std::size_t), [&](std::size_t i, local_rank& l,
                                                                           unsigned char* payload) {
    routed_batch<Key, Carried>& r = ranks[i];
    c.begin(i, int(hash_phase::split));
    const std::size_t n = r.keys.size();
    r.split_keys = device_buffer<Key>(*l.ctx, n);
    if constexpr (carries) r.split_carried = device_buffer<Carried>(*l.ctx, n);
    const multisplit::pass_io<Key, Carried> io{r.keys.data(), r.carried, r.split_keys.data(),
                                               carries ? r.split_carried.data() : nullptr, n};
    multisplit::run(*l.ctx, function, io, owners, owner_of_key<Key>{.world_size = owners},
                    cuda::std::span<std::size_t>(reinterpret_cast<std::size_t*>(payload), owners + 1), nullptr,
                    multisplit_options{});
    c.end(i, int(hash_phase::split));
  });
  std::vector<std::vector<std::uint64_t>> starts;
  for (int r = 0; r < c.world_size(); ++r) starts.push_back(offsets.read_array<std::uint64_t>(r, 0, owners + 1));
  route_plan plan(std::move(starts));
  c.run_local([&](std::size_t i, local_rank& l) {
    ranks[i].owned_keys = device_buffer<Key>(*l.ctx, plan.received(l.rank));
    if constexpr (carries) ranks[i].owned_carried = device_buffer<Carried>(*l.ctx, plan.received(l.rank));
  });
  c.vote();
  for (std::size_t i = 0; i < c.local_count(); ++i) c.begin(i, int(hash_phase::exchange));
  c.exchange("exchange of the keys to their owners", [&](std::size_t i, local_rank& l, int peer) {
    routed_batch<Key, Carried>& r = ranks[i];
    std::array<piece, 2> moved{};
    moved[0] = routed_piece(plan, l.rank, peer, r.split_keys.data(), r.owned_keys.data());
    if constexpr (carries) moved[1] = routed_piece(plan, l.rank, peer, r.split_carried.data(), r.owned_carried.data());
    return moved;
  });
  for (std::size_t i = 0; i < c.local_count(); ++i) c.end(i, int(hash_phase::exchange));
  c.run_local([&](std::size_t i, local_rank&) { ranks[i].split_keys = device_buffer<Key>(); });
  return plan;
}

/// A batch that changes the tables: apply(table, ctx, keys, carried) on each owner with what it owns
/// (the rank's own batch in a world of one).
template <class Table, class Key, class Carried, class Apply>
void update_owners(call& c, const char* function, std::vector<Table>& tables,
                   std::span<const cuda::std::span<const Key>> keys,
                   std::span<const cuda::std::span<const Carried>> carried, Apply&& apply) {
  constexpr bool carries = has_values<Carried>;
  std::vector<routed_batch<Key, Carried>> ranks(c.local_count());
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    ranks[i].keys = keys[i];
    if constexpr (carries) ranks[i].carried = carried[i].data();
  }
  if (c.world_size() == 1) {
    c.run_local([&](std::size_t i, local_rank& l) {
      c.begin(i, int(hash_phase::local));
      cuda::std::span<const Carried> mine{};
      if constexpr (carries) mine = carried[i];
      apply(tables[i], *l.ctx, keys[i], mine);
      c.end(i, int(hash_phase::local));
    });
  } else {
    (void)route_to_owners(c, function, ranks);
    c.run_local([&](std::size_t i, local_rank& l) {
      routed_batch<Key, Carried>& r = ranks[i];
      r.split_carried = device_buffer<Carried>();
      c.begin(i, int(hash_phase::local));
      apply(tables[i], *l.ctx, cuda::std::span<const Key>(r.owned_keys.data(), r.owned_keys.size()),
            cuda::std::span<const Carried>(r.owned_carried.data(), r.owned_carried.size()));
      c.end(i, int(hash_phase::local));
    });
  }
  (void)c.finish([](std::size_t) -> const std::uint64_t* { return nullptr; });
}

/// A query: ask(table, ctx, keys, answers) on each owner with what it owns, the answers sent back and
/// scattered to out (the rank's own batch straight into out in a world of one).
template <class Table, class Key, class Answer, class Ask>
void query_owners(call& c, const char* function, const std::vector<Table>& tables,
                  std::span<const cuda::std::span<const Key>> keys, std::span<const cuda::std::span<Answer>> out,
                  Ask&& ask) {
  if (c.world_size() == 1) {
    c.run_local([&](std::size_t i, local_rank& l) {
      c.begin(i, int(hash_phase::local));
      ask(tables[i], *l.ctx, keys[i], out[i]);
      c.end(i, int(hash_phase::local));
    });
    (void)c.finish([](std::size_t) -> const std::uint64_t* { return nullptr; });
    return;
  }
  std::vector<routed_batch<Key, std::uint64_t>> ranks(c.local_count());
  std::vector<device_buffer<std::uint64_t>> positions(c.local_count());
  std::vector<device_buffer<Answer>> owned_answers(c.local_count()), answers(c.local_count());
  c.run_local([&](std::size_t i, local_rank& l) {
    const std::uint64_t n = keys[i].size();
    positions[i] = device_buffer<std::uint64_t>(*l.ctx, n);
    launch_streaming(*l.ctx, positions_kernel<std::uint64_t>, n, positions[i].data(), n);
    ranks[i].keys = keys[i];
    ranks[i].carried = positions[i].data();
  });
  const route_plan plan = route_to_owners(c, function, ranks);
  c.run_local([&](std::size_t i, local_rank& l) {
    routed_batch<Key, std::uint64_t>& r = ranks[i];
    positions[i] = device_buffer<std::uint64_t>();
    r.owned_carried = device_buffer<std::uint64_t>();  // the owner answers in the order it received
    c.begin(i, int(hash_phase::local));
    owned_answers[i] = device_buffer<Answer>(*l.ctx, r.owned_keys.size());
    ask(tables[i], *l.ctx, cuda::std::span<const Key>(r.owned_keys.data(), r.owned_keys.size()),
        cuda::std::span<Answer>(owned_answers[i].data(), owned_answers[i].size()));
    c.end(i, int(hash_phase::local));
    answers[i] = device_buffer<Answer>(*l.ctx, keys[i].size());
  });
  c.vote();
  for (std::size_t i = 0; i < c.local_count(); ++i) c.begin(i, int(hash_phase::answer));
  c.exchange("exchange of the answers to the askers", [&](std::size_t i, local_rank& l, int peer) {
    return std::array<piece, 1>{returned_piece(plan, l.rank, peer, owned_answers[i].data(), answers[i].data())};
  });
  c.run_local([&](std::size_t i, local_rank& l) {
    const std::uint64_t n = keys[i].size();
    launch_streaming(*l.ctx, scatter_answers_kernel<Answer>, n, answers[i].data(), ranks[i].split_carried.data(), n,
                     out[i].data());
    c.end(i, int(hash_phase::answer));
  });
  (void)c.finish([](std::size_t) -> const std::uint64_t* { return nullptr; });
}

}  // namespace sluice::detail::dist
