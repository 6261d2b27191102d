// sluice/detail/search/pbs.hpp: the probe sequences of the shared-memory searches PBS, PBS-CF and PBS-CL
// (Karsin §6.2, Algorithm 1 and Figs 6.4–6.6), pure host + device functions: the kernels run them on
// shared memory and the host tests run them through a recorder that counts bank conflicts.
//
// Padding instead of clamps (§6.2.1): the n keys are stored in P = bit_ceil(max(n, w)) slots, the slots
// from n on holding copies of keys[n − 1]. Every function returns the number c of slots i in [0, P) with
// a[i] ≤ q, asking le(i) (through padded_slots, below); min(c, n) is the count over the real keys (the copies agree
// with the last key), and the predecessor is that minus one. P is a power of two and a multiple of w.
//
//   pbs     Algorithm 1 without min/max: log P halving steps at pos + δ − 1, then Algorithm 1's final
//           test of a[pos]. Every probe of the first log(P/w) steps is ≡ −1 (mod w): one bank
//           (Cor. 6.2.1), so queries on distinct paths serialise w-way.
//   pbs_cf  stage 1: the same search over the P/w rows a[r·w + lane] of the lane's own column, δ a
//           multiple of w, so lane ℓ only reads bank ℓ: R = #{r : a[r·w + ℓ] ≤ q}. The answer then lies
//           in the window [s, s + w − 1) with s = R·w + ℓ + 1 − w (a[s − 1] ≤ q < a[s + w − 1]); stage 2
//           scans its w − 1 slots in order: slot s + t is in bank ℓ + 1 + t, distinct across lanes.
//   pbs_cl  stage 1 as pbs_cf; stage 2 a binary search of the window with the same δ in every lane
//           (w/2, w/4, …, 1): the first step is conflict-free, the i-th at most 2^i-way (Fig 6.6), at
//           most w − 1 serialised accesses in all.
// Window slots below 0 are known ≤ q and those from P on known > q: neither is read.
// Probes per query: pbs log P + 1; pbs_cf log(P/w) + 1 + (w − 1); pbs_cl log P + 1. The bank analysis is
// for 4-byte keys (one key a bank word); wider keys span several banks and the argument scales.
#pragma once

#include <sluice/core/config.hpp>

#include <cuda/std/cstdint>

namespace sluice::detail::search {

using pbs_index = cuda::std::int64_t;

/// The padded size P = bit_ceil(max(n, w)) (w a power of two).
SLUICE_HOST_DEVICE constexpr pbs_index pbs_padded_size(pbs_index n, pbs_index w) {
  pbs_index padded = w;
  while (padded < n) padded *= 2;
  return padded;
}

/// Count of leading slots with le true among `count` (a power of two) slots at base + stride·i, by
/// Algorithm 1's halving steps and its final test; probes base + stride·i only for i < count.
template <class Le>
SLUICE_HOST_DEVICE constexpr pbs_index strided_binary_count(pbs_index count, pbs_index base, pbs_index stride, Le le) {
  pbs_index pos = 0;
  for (pbs_index delta = count / 2; delta >= 1; delta /= 2)
    if (le(base + stride * (pos + delta - 1))) pos += delta;
  if (le(base + stride * pos)) ++pos;
  return pos;
}

template <class Le>
SLUICE_HOST_DEVICE constexpr pbs_index pbs_count(pbs_index padded, Le le) {
  return strided_binary_count(padded, 0, 1, le);
}

/// Stage 1 of PBS-CF and PBS-CL: the first slot of the lane's window of w − 1 candidates (may be < 0).
template <class Le>
SLUICE_HOST_DEVICE constexpr pbs_index pbs_window_start(pbs_index padded, pbs_index w, pbs_index lane, Le le) {
  const pbs_index rows_at_most_q = strided_binary_count(padded / w, lane, w, le);
  return rows_at_most_q * w + lane + 1 - w;
}

/// The le every caller passes: slots below 0 (window slots before the array) are known ≤ q, slots from
/// `padded` on known > q, neither is read; `read(i)` (a[i] ≤ q) is called for 0 ≤ i < padded only. The
/// searches call le for every probe, in range or not, so a recorder wrapped around this stays in step.
template <class Read>
struct padded_slots {
  pbs_index padded;
  Read read;
  SLUICE_HOST_DEVICE constexpr bool operator()(pbs_index i) const { return i < 0 || (i < padded && read(i)); }
};

template <class Le>
SLUICE_HOST_DEVICE constexpr pbs_index pbs_cf_count(pbs_index padded, pbs_index w, pbs_index lane, Le le) {
  const pbs_index start = pbs_window_start(padded, w, lane, le);
  pbs_index taken = 0;
  for (pbs_index t = 0; t + 1 < w; ++t) taken += le(start + t) ? 1 : 0;
  return start + taken;
}

template <class Le>
SLUICE_HOST_DEVICE constexpr pbs_index pbs_cl_count(pbs_index padded, pbs_index w, pbs_index lane, Le le) {
  const pbs_index start = pbs_window_start(padded, w, lane, le);
  pbs_index pos = 0;
  for (pbs_index delta = w / 2; delta >= 1; delta /= 2)
    if (le(start + pos + delta - 1)) pos += delta;
  return start + pos;
}

}  // namespace sluice::detail::search
