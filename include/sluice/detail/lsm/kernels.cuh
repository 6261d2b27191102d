// sluice/detail/lsm/kernels.cuh: the GPU LSM's own kernels (Ashkiani §4.4); sorting, merging, batched
// search, scans, segmented sort and compaction are the project's primitives, called from
// containers/lsm.cuh.
//
//   stage_kernel            a slice of a batch reversed into (key, entry) pairs, so that the stable sort
//                           that follows puts a key's last operation in the batch first (O(slice))
//   check_ops_kernel        the first op code that is not an lsm_op
//   lookup_kernel           §4.4.2: one thread a query, lower_bound in each run newest first
//   candidate_sizes_kernel  §4.4.3 step 1: upper_bound(k2) − lower_bound(k1) per (query, run)
//   segment_offsets_kernel  step 4's per-query segments from step 2's scan
//   gather_kernel           step 3: every candidate copied, one thread an output element
//   validate_kernel         step 5: a warp a query; live flags and the query's count
//   count_in_place_kernel   COUNT after step 1 alone: a warp's queries' candidates judged where they lie
//   mark_live_kernel        the live count of a sorted array (bulk build's, for the cleanup policy);
//                           cleanup's own pass is in cleanup.cuh
//   live_delta_kernel       the automatic policy's change of the live count for a sorted batch
//   neighbour_kernel        successor / predecessor: nearest candidate over the runs, then a lookup
// Every kernel is a grid-stride loop over its work; all indices are 64-bit.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/detail/lsm/plan.hpp>
#include <sluice/detail/search/layouts.hpp>
#include <sluice/options/lsm.hpp>

#include <cuda/std/cstdint>
#include <cuda/std/limits>

namespace sluice::detail::lsm {

/// What a level stores beside each key: the value and the status (§4.4.1's status bit, moved out of the
/// key so that every key bit is usable). Sorts and merges move it as the key's value.
template <class V>
struct entry {
  V value;
  cuda::std::uint32_t status;
};

/// The sorted runs a query searches, newest first: P (when not empty), then the full levels from level 0
/// up. Passed by value to kernels.
template <class K, class V>
struct run_list {
  const K* keys[max_runs];
  const entry<V>* entries[max_runs];
  index_t sizes[max_runs];
  int count = 0;
};

/// The first index of keys[0, n) whose key is not less than q.
template <class K>
SLUICE_DEVICE index_t lower_bound_of(const K* keys, index_t n, K q) {
  return search::sorted_count(n, [&](index_t j) { return keys[j] < q; });
}
/// The first index of keys[0, n) whose key is greater than q.
template <class K>
SLUICE_DEVICE index_t upper_bound_of(const K* keys, index_t n, K q) {
  return search::sorted_count(n, [&](index_t j) { return !(q < keys[j]); });
}

/// The newest copy of key q: a live value, or none (absent, or a tombstone first, §4.3.4).
template <class V>
struct found_value {
  bool live = false;
  V value{};
};
template <class K, class V>
SLUICE_DEVICE found_value<V> newest(const run_list<K, V>& runs, K q) {
  for (int j = 0; j < runs.count; ++j) {
    const index_t i = lower_bound_of(runs.keys[j], runs.sizes[j], q);
    if (i < runs.sizes[j] && runs.keys[j][i] == q) {
      const entry<V> e = runs.entries[j][i];
      return {e.status == regular, e.value};
    }
  }
  return {};
}

template <class K, class V>
__global__ void stage_kernel(const K* keys, const V* values, const lsm_op* ops, cuda::std::uint32_t status, index_t first,
                             index_t count, K* out_keys, entry<V>* out_entries) {
  for (index_t i = blockIdx.x * index_t{blockDim.x} + threadIdx.x; i < count; i += index_t{gridDim.x} * blockDim.x) {
    const index_t from = first + i;
    const index_t to = count - 1 - i;
    out_keys[to] = keys[from];
    const cuda::std::uint32_t s = ops == nullptr ? status : ops[from] == lsm_op::erase ? tombstone : regular;
    out_entries[to] = {values != nullptr && s == regular ? values[from] : V{}, s};
  }
}

static __global__ void check_ops_kernel(const lsm_op* ops, index_t n, unsigned long long* first_bad) {
  for (index_t i = blockIdx.x * index_t{blockDim.x} + threadIdx.x; i < n; i += index_t{gridDim.x} * blockDim.x) {
    const auto code = static_cast<cuda::std::uint8_t>(ops[i]);
    if (code > static_cast<cuda::std::uint8_t>(lsm_op::erase)) atomicMin(first_bad, static_cast<unsigned long long>(i));
  }
}

/// values (may be null) = the live value or `absent`; present (may be null) = 1 where live, else 0.
template <class K, class V>
__global__ void lookup_kernel(run_list<K, V> runs, const K* queries, index_t n, V* values, cuda::std::uint8_t* present,
                              V absent) {
  for (index_t i = blockIdx.x * index_t{blockDim.x} + threadIdx.x; i < n; i += index_t{gridDim.x} * blockDim.x) {
    const found_value<V> f = newest(runs, queries[i]);
    if (values != nullptr) values[i] = f.live ? f.value : absent;
    if (present != nullptr) present[i] = f.live ? 1 : 0;
  }
}

/// sizes[q·runs + j] = candidates of query q in run j (lower and upper are run-major: j·Q + q);
/// sizes[Q·runs] = 0, so that an exclusive scan of Q·runs + 1 entries ends with the total.
template <class K>
__global__ void candidate_sizes_kernel(const K* k1, const K* k2, index_t queries, index_t runs, const index_t* lower,
                                       const index_t* upper, index_t* sizes) {
  const index_t slots = queries * runs;
  for (index_t s = blockIdx.x * index_t{blockDim.x} + threadIdx.x; s <= slots; s += index_t{gridDim.x} * blockDim.x) {
    if (s == slots) {
      sizes[s] = 0;
      continue;
    }
    const index_t q = s / runs, j = s % runs;
    sizes[s] = candidate_count(k2[q] < k1[q], lower[j * queries + q], upper[j * queries + q]);
  }
}

/// segments[q] = starts[q·runs] for q ≤ Q: query q's candidates are [segments[q], segments[q+1]).
template <class Offset>
__global__ void segment_offsets_kernel(const index_t* starts, index_t queries, index_t runs, Offset* segments) {
  for (index_t q = blockIdx.x * index_t{blockDim.x} + threadIdx.x; q <= queries; q += index_t{gridDim.x} * blockDim.x)
    segments[q] = static_cast<Offset>(starts[q * runs]);
}

/// Candidate t belongs to the last slot whose start is ≤ t (empty slots share their start with the next).
template <class K, class V>
__global__ void gather_kernel(run_list<K, V> runs, const index_t* starts, const index_t* lower, index_t queries,
                              index_t total, K* out_keys, entry<V>* out_entries) {
  const index_t m = static_cast<index_t>(runs.count);
  const index_t slots = queries * m;
  for (index_t t = blockIdx.x * index_t{blockDim.x} + threadIdx.x; t < total; t += index_t{gridDim.x} * blockDim.x) {
    const index_t s = search::sorted_count(slots, [&](index_t i) { return starts[i] <= t; }) - 1;
    const index_t q = s / m;
    const int j = static_cast<int>(s % m);
    const index_t from = lower[j * queries + q] + (t - starts[s]);
    out_keys[t] = runs.keys[j][from];
    out_entries[t] = runs.entries[j][from];
  }
}

/// A warp a query: flags[t] = whether candidate t is live (plan.hpp's rule over the sorted segment),
/// counts[q] = the query's live candidates.
template <class K, class V, class Offset>
__global__ void validate_kernel(const K* keys, const entry<V>* entries, const Offset* segments, index_t queries,
                                cuda::std::uint8_t* flags, index_t* counts) {
  const unsigned lane = threadIdx.x % 32;
  const index_t warps = index_t{gridDim.x} * (blockDim.x / 32);
  for (index_t q = (blockIdx.x * index_t{blockDim.x} + threadIdx.x) / 32; q < queries; q += warps) {
    const index_t first = segments[q], last = segments[q + 1];
    unsigned long long live = 0;
    for (index_t t = first + lane; t < last; t += 32) {
      const bool ok = live_candidate(t == first, t > first && keys[t - 1] == keys[t], entries[t].status);
      flags[t] = ok ? 1 : 0;
      live += ok ? 1 : 0;
    }
    for (int offset = 16; offset > 0; offset /= 2) live += __shfl_down_sync(0xFFFFFFFFu, live, offset);
    if (lane == 0) counts[q] = live;
  }
}

/// Whether candidate i of run j (its query's candidates there start at `first`) is live: live_in_place,
/// its key searched in the newer runs' candidates of query q (bounds run-major, j·Q + q).
template <class K, class V>
SLUICE_DEVICE bool live_where_it_lies(const run_list<K, V>& runs, index_t queries, const index_t* lower,
                                      const index_t* upper, index_t q, int j, index_t first, index_t i) {
  const K* keys = runs.keys[j];
  const K key = keys[i];
  bool in_newer = false;
  for (int n = 0; n < j && !in_newer; ++n) {
    const index_t from = lower[n * queries + q], to = upper[n * queries + q];
    const K* newer = runs.keys[n] + from;
    const index_t at = from < to ? lower_bound_of(newer, to - from, key) : 0;
    in_newer = from + at < to && newer[at] == key;
  }
  return live_in_place(in_newer, i > first && keys[i - 1] == key, runs.entries[j][i].status);
}

/// COUNT without steps 2–5: a warp takes `per_warp` consecutive queries (a power of two, 1 to 32: plan.hpp's
/// count_queries_per_warp), 32 of their (query, run) slots at a time, and judges each candidate where it
/// lies (live_where_it_lies). Slots of many candidates (1024 and more in the 32) are walked one after the
/// other by all lanes; fewer are spread over the lanes, a lane finding its candidate's slot by a search of
/// the slots' scanned sizes. A lane meets its queries in ascending order, so it sums a query's live
/// candidates in a register and adds the sum to the query's tally in shared memory when its query changes
/// (one shared atomic a lane and query: one a candidate made 32 lanes of one query contend for a word).
/// lower and upper are run-major (j·Q + q), as step 1 writes them; k1 > k2 leaves upper ≤ lower, no
/// candidate. Candidates are read once, nothing is written but Q counts: no wait, no gather, no sort.
template <int Threads, class K, class V>
__global__ void __launch_bounds__(Threads) count_in_place_kernel(run_list<K, V> runs, index_t queries, int per_warp,
                                                                 const index_t* lower, const index_t* upper,
                                                                 index_t* counts) {
  __shared__ unsigned long long tally[Threads / 32][32];
  const int lane = static_cast<int>(threadIdx.x % 32);
  unsigned long long* mine = tally[threadIdx.x / 32];
  const int m = runs.count;
  const index_t warps = index_t{gridDim.x} * (Threads / 32);
  for (index_t base = (blockIdx.x * index_t{Threads} + threadIdx.x) / 32 * per_warp; base < queries;
       base += warps * per_warp) {
    const int here = queries - base < static_cast<index_t>(per_warp) ? static_cast<int>(queries - base) : per_warp;
    mine[lane] = 0;
    __syncwarp();
    int held = 0;  // the query (of the warp's) whose live candidates `sum` holds
    unsigned long long sum = 0;
    const auto tally_add = [&](int query, bool live) {
      if (query != held) {
        if (sum != 0) atomicAdd(&mine[held], sum);
        held = query;
        sum = 0;
      }
      sum += live ? 1 : 0;
    };
    for (int chunk = 0; chunk < here * m; chunk += 32) {
      const int slot = chunk + lane;
      const bool real = slot < here * m;
      const int query = real ? slot / m : here - 1, run = real ? slot % m : 0;
      const index_t q = base + static_cast<index_t>(query);
      const index_t first = real ? lower[run * queries + q] : 0, last = real ? upper[run * queries + q] : 0;
      const index_t size = last > first ? last - first : 0;
      index_t end = size;  // inclusive scan of the slots' sizes
      for (int d = 1; d < 32; d *= 2) {
        const index_t before = __shfl_up_sync(0xFFFFFFFFu, end, d);
        if (lane >= d) end += before;
      }
      const index_t total = __shfl_sync(0xFFFFFFFFu, end, 31);
      if (total >= 32 * 32) {
        const int slots = here * m - chunk < 32 ? here * m - chunk : 32;
        for (int o = 0; o < slots; ++o) {
          const index_t o_first = __shfl_sync(0xFFFFFFFFu, first, o), o_size = __shfl_sync(0xFFFFFFFFu, size, o);
          const int o_query = __shfl_sync(0xFFFFFFFFu, query, o), o_run = __shfl_sync(0xFFFFFFFFu, run, o);
          const index_t o_q = base + static_cast<index_t>(o_query);
          for (index_t i = o_first + lane; i < o_first + o_size; i += 32)
            tally_add(o_query, live_where_it_lies(runs, queries, lower, upper, o_q, o_run, o_first, i));
        }
        continue;
      }
      for (index_t round = 0; round < total; round += 32) {
        const index_t t = round + static_cast<index_t>(lane);
        int owner = 0;  // the slot holding candidate t: the number of slots that end at or before it
        for (int step = 16; step > 0; step /= 2)
          if (__shfl_sync(0xFFFFFFFFu, end, owner + step - 1) <= t) owner += step;
        const index_t o_end = __shfl_sync(0xFFFFFFFFu, end, owner), o_size = __shfl_sync(0xFFFFFFFFu, size, owner);
        const index_t o_first = __shfl_sync(0xFFFFFFFFu, first, owner);
        const int o_query = __shfl_sync(0xFFFFFFFFu, query, owner), o_run = __shfl_sync(0xFFFFFFFFu, run, owner);
        if (t >= total) continue;
        const index_t i = o_first + (t - (o_end - o_size));
        const index_t o_q = base + static_cast<index_t>(o_query);
        tally_add(o_query, live_where_it_lies(runs, queries, lower, upper, o_q, o_run, o_first, i));
      }
    }
    if (sum != 0) atomicAdd(&mine[held], sum);
    __syncwarp();
    if (lane < here) counts[base + static_cast<index_t>(lane)] = mine[lane];
    __syncwarp();
  }
}

/// *live_count += the live elements of a sorted array (each key's first copy, if not a tombstone):
/// bulk build's count for the automatic cleanup policy.
template <class K, class V>
__global__ void mark_live_kernel(const K* keys, const entry<V>* entries, index_t n, unsigned long long* live_count) {
  unsigned long long live = 0;
  for (index_t t = blockIdx.x * index_t{blockDim.x} + threadIdx.x; t < n; t += index_t{gridDim.x} * blockDim.x)
    live += live_candidate(t == 0, t > 0 && keys[t - 1] == keys[t], entries[t].status) ? 1 : 0;
  for (int offset = 16; offset > 0; offset /= 2) live += __shfl_down_sync(0xFFFFFFFFu, live, offset);
  if (threadIdx.x % 32 == 0 && live != 0) atomicAdd(live_count, live);
}

/// For a batch sorted newest first per key: Σ live_delta over each key's newest copy against `runs` (the
/// structure before the batch lands).
template <class K, class V>
__global__ void live_delta_kernel(run_list<K, V> runs, const K* keys, const entry<V>* entries, index_t n,
                                  unsigned long long* delta) {
  long long sum = 0;
  for (index_t t = blockIdx.x * index_t{blockDim.x} + threadIdx.x; t < n; t += index_t{gridDim.x} * blockDim.x)
    if (t == 0 || !(keys[t - 1] == keys[t])) sum += live_delta(newest(runs, keys[t]).live, entries[t].status);
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xFFFFFFFFu, sum, offset);
  if (threadIdx.x % 32 == 0 && sum != 0) atomicAdd(delta, static_cast<unsigned long long>(sum));  // two's complement
}

/// Successor (Up: the smallest live key ≥ q) or predecessor (the largest live key ≤ q): the nearest key
/// over the runs, then its newest copy; a dead one moves q past it. O(runs · log n) per key skipped.
template <bool Up, class K, class V>
__global__ void neighbour_kernel(run_list<K, V> runs, const K* queries, index_t n, K* out_keys, V* out_values,
                                 cuda::std::uint8_t* found) {
  for (index_t i = blockIdx.x * index_t{blockDim.x} + threadIdx.x; i < n; i += index_t{gridDim.x} * blockDim.x) {
    constexpr K end = Up ? cuda::std::numeric_limits<K>::max() : cuda::std::numeric_limits<K>::min();
    K q = queries[i];
    bool hit = false;
    found_value<V> f{};
    K best{};
    for (;;) {
      bool any = false;
      for (int j = 0; j < runs.count; ++j) {
        const index_t size = runs.sizes[j];
        const index_t at = Up ? lower_bound_of(runs.keys[j], size, q) : upper_bound_of(runs.keys[j], size, q);
        if (Up ? at == size : at == 0) continue;
        const K candidate = runs.keys[j][Up ? at : at - 1];
        if (!any || (Up ? candidate < best : best < candidate)) best = candidate;
        any = true;
      }
      if (!any) break;
      f = newest(runs, best);
      if (f.live) {
        hit = true;
        break;
      }
      if (best == end) break;
      q = Up ? static_cast<K>(best + 1) : static_cast<K>(best - 1);
    }
    out_keys[i] = hit ? best : queries[i];
    out_values[i] = hit ? f.value : V{};
    found[i] = hit ? 1 : 0;
  }
}

/// values[i] = entries[i].value (range's output).
template <class V>
__global__ void extract_values_kernel(const entry<V>* entries, index_t n, V* values) {
  for (index_t i = blockIdx.x * index_t{blockDim.x} + threadIdx.x; i < n; i += index_t{gridDim.x} * blockDim.x)
    values[i] = entries[i].value;
}

}  // namespace sluice::detail::lsm
