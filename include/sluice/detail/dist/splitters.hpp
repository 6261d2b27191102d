// sluice/detail/dist/splitters.hpp: where the distributed radix sort cuts the global order into the
// ranks' shares, and what each rank sends to each other rank. Pure arithmetic (host tests cover it on
// every distribution, world size and edge case); the kernels call key_order and fine_bucket_start.
//
// The global order is the stable sort of all ranks' keys concatenated in rank order: by the sort's field
// (key_order: the bits [begin_bit, end_bit) of the key's order-preserving word, inverted when descending),
// ties by (source rank, index). The steps:
//   1. Each rank samples its keys at stratified pseudo-random positions (sample_position), a number
//      fixed by the world size alone (samples_per_rank), so that the gathered record has the same size
//      on every rank before their arguments are compared.
//   2. Every rank picks the same q candidate words: the words at the quantiles j·N/(q+1) of the gathered
//      sample, each sample weighted by its rank's n / samples (a rank with all the data weighs as much as
//      it holds; an empty rank not at all), duplicates dropped (candidate_words).
//   3. Each rank sorts its keys by the order (the one-GPU stable radix sort), so they are also in order of
//      the m = 2q' + 1 fine buckets (fine_bucket_of): the open interval below the first candidate, the
//      candidate itself, the open interval above it, … Each bucket is a contiguous range of the sorted
//      keys, which binary searches for the candidates find (fine_bucket_start).
//   4. Every rank all-gathers every rank's bucket starts and computes the same cut_plan: destination d's
//      share starts at global position cut(d), the allowed position nearest the ideal ⌊d·N/P⌋. Inside a
//      candidate's bucket (all keys equal) any position is allowed: equal keys are split by position,
//      which is the tie-break by (source rank, index); an open bucket can only be cut at its ends.
//      What rank r sends to d is one contiguous range of its sorted keys (piece, send_offset): where the
//      global order is cut, its restriction to rank r is that order (equal keys in index order).
//   5. After the exchange, d holds the pieces in source-rank order, each sorted; their stable merge (ties:
//      the lower source rank first) is exactly the global order's slice [cut(d), cut(d+1)).
// Balance: |share(d) − N/P| ≤ the largest open bucket (each cut is off by at most half the open bucket
// it falls in). With the defaults (q = 255 candidates from 32 768 samples, 128 per candidate) an open
// bucket holds 1/256 of the keys ± 9% (one standard deviation), so a share is within about ±1% of N/P
// on 2 ranks and ±4% on 8; runs of equal keys never add to it (docs/dist.md, "Balance").
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/core/mix.hpp>
#include <sluice/core/radix_key.hpp>
#include <sluice/detail/dist/tuning.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace sluice::detail::dist {

/// The sort's order as one unsigned number per key: ascending numbers, ties by (rank, index), are the
/// stable sort by bits [begin_bit, begin_bit + bits) of radix_word(key), descending when asked.
template <radix_key K>
struct key_order {
  int begin_bit = 0;
  int bits = key_bits<K>;
  bool descending = false;

  SLUICE_HOST_DEVICE constexpr std::uint64_t operator()(K key) const {
    if (bits == 0) return 0;
    const std::uint64_t mask = bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    const std::uint64_t field = (static_cast<std::uint64_t>(radix_word(key)) >> begin_bit) & mask;
    return descending ? mask - field : field;
  }
};

// ---- 1. sampling ---------------------------------------------------------------------------------------

/// Samples each rank gathers: the world's sample spread over the ranks; depends on the world size
/// alone (the record must have one size on every rank).
[[nodiscard]] constexpr std::uint64_t samples_per_rank(int world_size) {
  const auto p = static_cast<std::uint64_t>(world_size);
  return std::max(tuning::min_samples_per_rank, (tuning::world_samples + p - 1) / p);
}

/// Samples a rank of n keys takes: all of them when fewer.
[[nodiscard]] constexpr std::uint64_t samples_taken(std::uint64_t n, int world_size) {
  return std::min(n, samples_per_rank(world_size));
}

/// SplitMix64's step (core/mix.hpp's finaliser after the golden-ratio increment): a well-mixed word.
SLUICE_HOST_DEVICE constexpr std::uint64_t sample_mix(std::uint64_t x) { return mix64(x + 0x9e3779b97f4a7c15ull); }

/// Position of sample k of s ≤ n: a pseudo-random point of stratum [⌊k·n/s⌋, ⌊(k+1)·n/s⌋) (never
/// empty since s ≤ n), so the samples are spread evenly and still random within their strata (sorted
/// and periodic inputs sample as well as random ones). Strictly increasing in k.
SLUICE_HOST_DEVICE constexpr std::uint64_t sample_position(std::uint64_t n, std::uint64_t s, std::uint64_t k,
                                                           std::uint64_t seed) {
  const auto low = static_cast<std::uint64_t>(static_cast<uint128_t>(k) * n / s);
  const auto high = static_cast<std::uint64_t>(static_cast<uint128_t>(k + 1) * n / s);
  return low + sample_mix(seed ^ sample_mix(k)) % (high - low);
}

// ---- 2. candidate words --------------------------------------------------------------------------------

/// One rank's gathered sample: its key count and the words of its samples_taken keys.
struct rank_sample {
  std::uint64_t n = 0;
  std::span<const std::uint64_t> words;
};

/// The most candidates: a rank's gathered bucket starts (2q + 2 words) stay within 4 KiB.
inline constexpr unsigned max_candidates = 255;

/// The sorted distinct words at the weighted quantiles j·N/(q+1), j = 1 … q, of the gathered samples.
/// Each rank's words sorted (the sort's sample step sorts them on the device) are merged in linear time.
[[nodiscard]] inline std::vector<std::uint64_t> candidate_words(std::span<const rank_sample> samples, unsigned q) {
  struct weighted {
    std::uint64_t word;
    double weight;
  };
  const auto by_word = [](const weighted& a, const weighted& b) { return a.word < b.word; };
  std::size_t count = 0;
  for (const rank_sample& s : samples) count += s.words.size();
  std::vector<weighted> all;
  all.reserve(count);
  double total = 0;
  for (const rank_sample& s : samples) {
    if (s.words.empty()) continue;
    const double weight = static_cast<double>(s.n) / static_cast<double>(s.words.size());
    const auto run = static_cast<std::ptrdiff_t>(all.size());
    for (std::uint64_t w : s.words) all.push_back({w, weight});
    if (!std::is_sorted(all.begin() + run, all.end(), by_word)) std::sort(all.begin() + run, all.end(), by_word);
    std::inplace_merge(all.begin(), all.begin() + run, all.end(), by_word);
    total += static_cast<double>(s.n);
  }
  std::vector<std::uint64_t> words;
  if (all.empty() || q == 0) return words;
  double cumulative = 0;
  std::size_t next = 0;
  for (unsigned j = 1; j <= q; ++j) {
    const double target = total * j / (q + 1.0);
    while (next < all.size() && cumulative + all[next].weight < target) cumulative += all[next++].weight;
    const std::uint64_t word = all[std::min(next, all.size() - 1)].word;
    if (words.empty() || words.back() != word) words.push_back(word);
  }
  return words;
}

// ---- 3. fine buckets ------------------------------------------------------------------------------------

/// 2·(candidates below word) + (word is a candidate): bucket 2i + 1 holds candidate i's keys, bucket 2i
/// the keys between candidates i − 1 and i; m = 2·count + 1 buckets, in the global order.
SLUICE_HOST_DEVICE constexpr std::uint32_t fine_bucket_of(std::uint64_t word, const std::uint64_t* candidates,
                                                          std::uint32_t count) {
  std::uint32_t low = 0, high = count;
  while (low < high) {
    const std::uint32_t middle = low + (high - low) / 2;
    if (candidates[middle] < word) low = middle + 1;
    else high = middle;
  }
  return 2 * low + (low < count && candidates[low] == word ? 1u : 0u);
}

[[nodiscard]] constexpr std::uint32_t fine_bucket_count(std::size_t candidates) {
  return static_cast<std::uint32_t>(2 * candidates + 1);
}

/// Where fine bucket b ∈ [0, m] starts in a rank's n keys sorted by the order (word_at(p): the word at
/// position p): 0 and n at the ends; bucket 2j + 1 at the first word not below candidate j, bucket 2j + 2
/// at the first word above it. The starts of a sorted array are the counts a multisplit would find.
template <class WordAt>
SLUICE_HOST_DEVICE constexpr std::uint64_t fine_bucket_start(std::uint32_t b, const std::uint64_t* candidates,
                                                             std::uint32_t count, std::uint64_t n, WordAt word_at) {
  if (b == 0) return 0;
  if (b >= fine_bucket_count(count)) return n;
  const std::uint64_t candidate = candidates[(b - 1) / 2];
  const bool past_candidate = b % 2 == 0;
  std::uint64_t low = 0, high = n;
  while (low < high) {
    const std::uint64_t middle = low + (high - low) / 2;
    const std::uint64_t word = word_at(middle);
    if (word < candidate || (past_candidate && word == candidate)) low = middle + 1;
    else high = middle;
  }
  return low;
}

// ---- 4. the cut plan ------------------------------------------------------------------------------------

/// From every rank's fine-bucket counts (row r: rank r's multisplit output), the cuts and the pieces.
class cut_plan {
 public:
  explicit cut_plan(std::vector<std::vector<std::uint64_t>> counts) : counts_(std::move(counts)) {
    const std::size_t ranks = counts_.size();
    const std::size_t m = ranks == 0 ? 0 : counts_[0].size();
    bucket_start_.assign(m + 1, 0);
    rank_before_.assign(m * ranks, 0);
    bucket_before_.assign(m * ranks, 0);
    std::vector<std::uint64_t> rank_running(ranks, 0);
    for (std::size_t b = 0; b < m; ++b) {
      std::uint64_t within = 0;
      for (std::size_t r = 0; r < ranks; ++r) {
        rank_before_[b * ranks + r] = within;
        bucket_before_[b * ranks + r] = rank_running[r];
        within += counts_[r][b];
        rank_running[r] += counts_[r][b];
      }
      bucket_start_[b + 1] = bucket_start_[b] + within;
    }
    rank_total_ = std::move(rank_running);
    cuts_.resize(ranks + 1);
    for (std::size_t d = 0; d <= ranks; ++d) cuts_[d] = nearest_allowed(target(static_cast<int>(d)));
  }

  [[nodiscard]] int ranks() const { return static_cast<int>(counts_.size()); }
  [[nodiscard]] std::uint64_t total() const { return bucket_start_.back(); }
  [[nodiscard]] std::size_t buckets() const { return bucket_start_.size() - 1; }

  /// The ideal start of destination d's share: ⌊d·N/P⌋.
  [[nodiscard]] std::uint64_t target(int d) const {
    return static_cast<std::uint64_t>(static_cast<uint128_t>(d) * total() / static_cast<std::uint64_t>(ranks()));
  }
  /// Where destination d's share starts in the global order (cut(0) = 0, cut(P) = N).
  [[nodiscard]] std::uint64_t cut(int d) const { return cuts_[static_cast<std::size_t>(d)]; }
  [[nodiscard]] std::uint64_t share(int d) const { return cut(d + 1) - cut(d); }

  /// Rank r's keys before global position c: a prefix of its multisplit output.
  [[nodiscard]] std::uint64_t before(int r, std::uint64_t c) const {
    const auto rank = static_cast<std::size_t>(r);
    if (c >= total()) return rank_total_[rank];
    const std::size_t b = bucket_at(c);
    const std::size_t cell = b * counts_.size() + rank;
    const std::uint64_t segment = bucket_start_[b] + rank_before_[cell];
    const std::uint64_t inside = c > segment ? std::min(c - segment, counts_[rank][b]) : 0;
    return bucket_before_[cell] + inside;
  }
  /// What source rank r sends to destination d: [send_offset, send_offset + piece) of its output.
  [[nodiscard]] std::uint64_t send_offset(int r, int d) const { return before(r, cut(d)); }
  [[nodiscard]] std::uint64_t piece(int r, int d) const { return before(r, cut(d + 1)) - before(r, cut(d)); }
  /// Where destination d places source r's piece: after the pieces of the ranks below r.
  [[nodiscard]] std::uint64_t receive_offset(int r, int d) const {
    std::uint64_t offset = 0;
    for (int s = 0; s < r; ++s) offset += piece(s, d);
    return offset;
  }

  /// The bound of the balance: the most keys in one open bucket (even index).
  [[nodiscard]] std::uint64_t largest_open_bucket() const {
    std::uint64_t largest = 0;
    for (std::size_t b = 0; b < buckets(); b += 2) largest = std::max(largest, bucket_start_[b + 1] - bucket_start_[b]);
    return largest;
  }

 private:
  /// The non-empty bucket holding global position c < N.
  [[nodiscard]] std::size_t bucket_at(std::uint64_t c) const {
    const auto after = std::upper_bound(bucket_start_.begin(), bucket_start_.end(), c);
    return static_cast<std::size_t>(after - bucket_start_.begin()) - 1;
  }
  /// c itself inside a candidate's bucket (or at 0 and N); otherwise the nearer end of its open bucket
  /// (the lower on a tie). Nondecreasing in c, so the cuts are ordered.
  [[nodiscard]] std::uint64_t nearest_allowed(std::uint64_t c) const {
    if (c == 0 || c >= total()) return c;
    const std::size_t b = bucket_at(c);
    if (b % 2 == 1) return c;
    const std::uint64_t low = bucket_start_[b], high = bucket_start_[b + 1];
    return c - low <= high - c ? low : high;
  }

  std::vector<std::vector<std::uint64_t>> counts_;
  std::vector<std::uint64_t> bucket_start_;   ///< m + 1: global start of each bucket
  std::vector<std::uint64_t> rank_before_;    ///< [b][r]: keys of ranks < r in bucket b
  std::vector<std::uint64_t> bucket_before_;  ///< [b][r]: keys of rank r in buckets < b
  std::vector<std::uint64_t> rank_total_;
  std::vector<std::uint64_t> cuts_;
};

}  // namespace sluice::detail::dist
