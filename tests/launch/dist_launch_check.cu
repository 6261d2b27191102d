// sluice_dist_launch_check: the distributed calls as one process per GPU, the way a launcher runs them
// (scripts/dist_run.sh N, mpirun, torchrun, srun): the communicator from the environment, NCCL's id through
// the id file. Every process generates the same global input, takes its rank's part, and checks its
// part of each result against the sequential oracle over the whole input:
//   sort of u32 keys and of (u32, index) pairs (stable, bit for bit), multireduce of u32 sums
//   (replicated) and of affine maps (non-commutative, partitioned), the hash table (the keys with their
//   global index inserted: sizes, every key's count, then erase_all).
// --fault injects a failure and passes when every rank reports it:
//   mismatch   rank 1 sorts u64 keys, the others u32: invalid_argument("keys") on every rank;
//   missing    rank 1 stops (std::_Exit) before the call: the others' call ends in communication_error
//              within --timeout-s, never a hang;
//   oom        rank 1 has 64 MiB of device memory left: rank_failure(out of memory) naming rank 1 everywhere;
//   drill      rank 1 is drilled to fail at the sort's third step (its local sort, after two collectives):
//              rank_failure naming rank 1 everywhere, twice in a row, the communicator not aborted.
// Prints one line per rank and exits 0 when its checks passed.
#include <sluice/core/operators.hpp>
#include <sluice/data/distributions.hpp>
#include <sluice/dist.cuh>
#include <sluice/reference/multireduce.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace {

namespace dist = sluice::dist;

struct part {
  std::size_t begin, end;
};

part part_of(std::size_t n, int rank, int world) {
  return {n * static_cast<std::size_t>(rank) / static_cast<std::size_t>(world),
          n * static_cast<std::size_t>(rank + 1) / static_cast<std::size_t>(world)};
}

int report(const dist::communicator& comm, bool passed, const std::string& what) {
  std::printf("sluice_dist_launch_check: rank %d of %d (device %d): %s: %s\n", comm.rank(), comm.world_size(),
              comm.device(), passed ? "PASS" : "FAIL", what.c_str());
  return passed ? 0 : 1;
}

template <class T>
bool equal_part(const std::vector<T>& got, const std::vector<T>& whole, std::size_t begin) {
  return begin + got.size() <= whole.size() &&
         (got.empty() || std::memcmp(got.data(), whole.data() + begin, got.size() * sizeof(T)) == 0);
}

int check_results(dist::communicator& comm) {
  sluice::context& ctx = comm.ctx();
  const int rank = comm.rank(), world = comm.world_size();
  const std::size_t n = (std::size_t{1} << 22) + 3;
  std::vector<std::uint32_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = static_cast<std::uint32_t>(sluice::data::mix64(i) >> 40);  // repeats
  const part mine = part_of(n, rank, world);
  const std::span<const std::uint32_t> my_keys(keys.data() + mine.begin, mine.end - mine.begin);
  std::vector<std::uint32_t> index(my_keys.size());
  std::iota(index.begin(), index.end(), static_cast<std::uint32_t>(mine.begin));
  const sluice::device_buffer<std::uint32_t> d_keys(ctx, my_keys), d_index(ctx, std::span<const std::uint32_t>(index));
  bool passed = true;
  std::string failures;
  const auto expect = [&](bool ok, const char* what) {
    passed = passed && ok;
    if (!ok) failures += std::string(failures.empty() ? "" : ", ") + what;
  };

  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
  std::vector<std::uint32_t> sorted_keys(n);
  for (std::size_t i = 0; i < n; ++i) sorted_keys[i] = keys[order[i]];

  const auto sorted = dist::radix_sort(comm, d_keys.span());
  expect(equal_part(sorted.part().to_host(), sorted_keys, sorted.global_offset(rank)), "sort of keys");
  const auto pairs = dist::radix_sort_pairs(comm, d_keys.span(), d_index.span());
  expect(equal_part(pairs.keys.part().to_host(), sorted_keys, pairs.keys.global_offset(rank)), "sort of pairs (keys)");
  expect(equal_part(pairs.values.part().to_host(), order, pairs.values.global_offset(rank)), "sort of pairs (values)");

  const std::uint64_t m = 4096;
  std::vector<std::uint32_t> labels(n);
  for (std::size_t i = 0; i < n; ++i) labels[i] = keys[i] % static_cast<std::uint32_t>(m);
  const std::span<const std::uint32_t> my_labels(labels.data() + mine.begin, my_keys.size());
  const sluice::device_buffer<std::uint32_t> d_labels(ctx, my_labels);
  sluice::device_buffer<std::uint32_t> sums(ctx, m);
  const std::uint64_t dropped = dist::multireduce(comm, d_labels.span(), d_keys.span(), sums.span(), m, sluice::plus{});
  const auto expected_sums = sluice::reference::multireduce(std::span<const std::uint32_t>(labels),
                                                            std::span<const std::uint32_t>(keys), m, sluice::plus{}, 0u);
  expect(dropped == 0 && equal_part(sums.to_host(), expected_sums.buckets, 0), "multireduce of sums");

  using map = sluice::affine<std::uint32_t>;
  std::vector<map> maps(n);
  for (std::size_t i = 0; i < n; ++i) maps[i] = {keys[i] | 1u, static_cast<std::uint32_t>(i)};
  const sluice::device_buffer<map> d_maps(ctx, std::span<const map>(maps.data() + mine.begin, my_keys.size()));
  const dist::bucket_range owned = dist::owned_buckets(m, world, rank);
  sluice::device_buffer<map> composed(ctx, owned.size());
  dist::multireduce_options partitioned;
  partitioned.output = dist::layout::partitioned;
  (void)dist::multireduce(comm, d_labels.span(), d_maps.span(), composed.span(), m, sluice::affine_compose{}, partitioned);
  const auto expected_maps = sluice::reference::multireduce(std::span<const std::uint32_t>(labels), std::span<const map>(maps),
                                                            m, sluice::affine_compose{}, map{1, 0});
  expect(equal_part(composed.to_host(), expected_maps.buckets, owned.begin), "multireduce of affine maps");

  dist::slab_hash<std::uint32_t, std::uint32_t> table(comm);
  table.insert(d_keys.span(), d_index.span());
  expect(table.size() == n, "hash table size after insert");
  std::vector<std::uint32_t> multiplicity(std::size_t{1} << 24, 0);
  for (std::uint32_t k : keys) ++multiplicity[k];
  sluice::device_buffer<std::uint32_t> counts(ctx, my_keys.size());
  table.count(d_keys.span(), counts.span());
  const auto got_counts = counts.to_host();
  bool counts_ok = true;
  for (std::size_t i = 0; i < my_keys.size(); ++i) counts_ok = counts_ok && got_counts[i] == multiplicity[my_keys[i]];
  expect(counts_ok, "hash table counts");
  table.erase_all(d_keys.span());
  expect(table.size() == 0, "hash table size after erase_all");
  return report(comm, passed, passed ? "sort, pairs, multireduce (replicated sums, partitioned maps), hash table" : failures);
}

int inject(dist::communicator& comm, const std::string& fault) {
  sluice::context& ctx = comm.ctx();
  const int rank = comm.rank();
  sluice::device_buffer<std::uint32_t> keys32(ctx, 1 << 20);
  sluice::device_buffer<std::uint64_t> keys64(ctx, 1 << 20);
  keys32.fill_bytes(1);
  keys64.fill_bytes(1);
  try {
    if (fault == "mismatch") {
      if (rank == 1) (void)dist::radix_sort(comm, keys64.span());
      else (void)dist::radix_sort(comm, keys32.span());
    } else if (fault == "missing") {
      if (rank == 1) {
        std::printf("sluice_dist_launch_check: rank 1 stops without calling\n");
        std::fflush(stdout);
        std::_Exit(0);
      }
      (void)dist::radix_sort(comm, keys32.span());
    } else if (fault == "oom") {
      sluice::device_buffer<std::uint32_t> big(ctx, std::size_t{1} << 26);
      big.fill_bytes(2);
      (void)dist::radix_sort(comm, keys32.span());  // NCCL connects its peers before memory runs short
      void* hog = nullptr;
      if (rank == 1) {
        auto device = ctx.activate();  // the hog on this rank's GPU, not on whichever is current
        ctx.synchronize();
        (void)cudaMemPoolTrimTo(ctx.memory_pool(), 0);
        std::size_t free = 0, total = 0;
        (void)cudaMemGetInfo(&free, &total);
        (void)cudaMalloc(&hog, free - (std::size_t{64} << 20));
      }
      (void)dist::radix_sort(comm, big.span());
    } else if (fault == "drill") {  // main() made the communicator with inject_failure = {1, 3}
      for (int call = 0; call < 2; ++call) {
        try {
          (void)dist::radix_sort_pairs(comm, keys32.span(), keys32.span());
          return report(comm, false, "the drilled sort returned");
        } catch (const dist::rank_failure& e) {
          if (e.failed_rank() != 1 || e.kind() != dist::failure_kind::other || comm.aborted())
            return report(comm, false, e.what());
          if (call == 1) return report(comm, true, e.what());
        }
      }
    } else {
      return report(comm, false, "unknown --fault " + fault);
    }
  } catch (const sluice::invalid_argument& e) {
    return report(comm, fault == "mismatch" && e.parameter() == "keys", e.what());
  } catch (const dist::rank_failure& e) {
    return report(comm, fault == "oom" && e.failed_rank() == 1 && e.kind() == dist::failure_kind::out_of_memory, e.what());
  } catch (const dist::communication_error& e) {
    return report(comm, fault == "missing", e.what());
  }
  return report(comm, false, "the fault '" + fault + "' raised nothing");
}

}  // namespace

int main(int argc, char** argv) {
  std::string fault = "none";
  int timeout_s = 120;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--fault") fault = argv[i + 1];
    else if (std::string(argv[i]) == "--timeout-s") timeout_s = std::atoi(argv[i + 1]);
  }
  try {
    dist::communicator_options options;
    options.timeout = std::chrono::seconds(timeout_s);
    if (fault == "drill") options.inject_failure = {1, 3};
    dist::communicator comm = dist::communicator::from_environment(options);
    if (fault != "none" && comm.world_size() < 2) return report(comm, false, "--fault needs at least 2 ranks");
    return fault == "none" ? check_results(comm) : inject(comm, fault);
  } catch (const std::exception& e) {
    std::printf("sluice_dist_launch_check: FAIL: %s\n", e.what());
    return 1;
  }
}
