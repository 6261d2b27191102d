// sluice/dist.cuh compiled as a user's file would be, warnings as errors on the host and device side
// (tests/CMakeLists.txt; built where NCCL is found): the sort of keys and of pairs, the multireduce with a
// commutative operator NCCL reduces and with a non-commutative one it cannot; the hash table as a map and
// as a set. Compiled only, never run.
#include <sluice/core/operators.hpp>
#include <sluice/dist.cuh>

#include <cstdint>

void instantiate_dist(sluice::dist::communicator& comm, cuda::std::span<const std::uint32_t> keys,
                      cuda::std::span<std::uint32_t> sums, cuda::std::span<sluice::affine<std::uint32_t>> maps,
                      cuda::std::span<sluice::affine<std::uint32_t>> composed) {
  auto sorted = sluice::dist::radix_sort(comm, keys);
  auto pairs = sluice::dist::radix_sort_pairs(comm, keys, keys, {.local = {.descending = true}});
  (void)sluice::dist::multireduce(comm, keys, keys, sums, sums.size(), sluice::plus{});
  (void)sluice::dist::multireduce(comm, keys, cuda::std::span<const sluice::affine<std::uint32_t>>(maps), composed,
                                  composed.size(), sluice::affine_compose{},
                                  {.output = sluice::dist::layout::partitioned});
  sluice::dist::slab_hash<std::uint32_t, std::uint32_t> table(comm);
  table.insert(keys, keys);
  table.insert_or_assign(keys, keys);
  table.find(keys, sums);
  table.erase(keys);
  sluice::dist::slab_hash<std::uint32_t> set(comm);
  set.insert_unique(keys);
  set.erase_all(keys);
  (void)(table.size() + set.size());
  comm.barrier();
  (void)sorted.global_size();
  (void)pairs.values.global_size();
}
