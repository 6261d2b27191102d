// sluice/host/detail/bucket_plan.hpp: the stable counting distribution shared by multisplit, every pass
// of the radix sort, and Eilers' partial sort for locality (Alg. 2.4 getOffsets + radix, Alg. 2.6).
//
// Given a bucket for each of n elements, a plan knows where each element goes so that the buckets come
// one after another and each bucket keeps its elements in input order (a stable sort by bucket):
//
//   1. count    each contiguous block of the input counts its elements per bucket (in parallel);
//   2. offsets  the counts are laid out bucket-major, block-minor: block b's elements of bucket k
//               start after every earlier bucket and after bucket k's elements of blocks 0..b−1;
//   3. visit    each block walks its elements in order and hands each one's destination to the caller
//               (in parallel): to move it (a distribution pass), or to read back from it (Alg. 2.6's
//               replay, which undoes the distribution without storing a permutation).
//
// An element whose bucket is ≥ buckets() is dropped: counted, never given a destination. The bucket
// function is called once per element in each of steps 1 and 3, so it must be pure.
//
// Cost: two reads of whatever the bucket function reads, plus the caller's moves; the table of
// per-block starts has blocks × buckets entries, which is why the block count shrinks as the bucket
// count grows (the table never exceeds about n entries).
#pragma once

#include <sluice/host/detail/parallel.hpp>

#include <cstddef>
#include <vector>

namespace sluice::host::detail {

class bucket_plan {
 public:
  /// bucket_of(i) → the bucket of element i, in [0, buckets), or anything ≥ buckets to drop it.
  template <class BucketOf>
  bucket_plan(std::size_t n, std::size_t buckets, const BucketOf& bucket_of)
      : blocks_(partition_blocks(n, std::max(parallel_grain, buckets), worker_count() * blocks_per_worker)),
        buckets_(buckets),
        starts_(blocks_.count * buckets, 0),
        offsets_(buckets + 1, 0),
        dropped_per_block_(blocks_.count, 0) {
    count(bucket_of);
    lay_out();
  }

  [[nodiscard]] std::size_t buckets() const { return buckets_; }
  /// Elements with a destination: the distributed range is [0, kept()).
  [[nodiscard]] std::size_t kept() const { return offsets_[buckets_]; }
  [[nodiscard]] std::size_t dropped() const {
    std::size_t total = 0;
    for (std::size_t d : dropped_per_block_) total += d;
    return total;
  }
  /// Bucket k occupies [bucket_begin(k), bucket_end(k)) of the distributed order.
  [[nodiscard]] std::size_t bucket_begin(std::size_t k) const { return offsets_[k]; }
  [[nodiscard]] std::size_t bucket_end(std::size_t k) const { return offsets_[k + 1]; }

  /// Calls kept(i, destination) for every element with a bucket and dropped(i) for the others, each
  /// block's elements in index order, blocks in parallel. bucket_of must be the constructor's.
  template <class BucketOf, class Kept, class Dropped>
  void visit(const BucketOf& bucket_of, const Kept& kept, const Dropped& dropped) const {
    parallel_for(blocks_.count, [&](std::size_t b) {
      std::vector<std::size_t> next(starts_.begin() + static_cast<std::ptrdiff_t>(b * buckets_),
                                    starts_.begin() + static_cast<std::ptrdiff_t>((b + 1) * buckets_));
      for (std::size_t i = blocks_.begin(b); i < blocks_.end(b); ++i) {
        const std::size_t k = bucket_of(i);
        if (k < buckets_) kept(i, next[k]++);
        else dropped(i);
      }
    });
  }

  /// visit() for callers that have nothing to do with dropped elements.
  template <class BucketOf, class Kept>
  void visit(const BucketOf& bucket_of, const Kept& kept) const {
    visit(bucket_of, kept, [](std::size_t) {});
  }

 private:
  template <class BucketOf>
  void count(const BucketOf& bucket_of) {
    parallel_for(blocks_.count, [&](std::size_t b) {
      std::size_t* row = starts_.data() + b * buckets_;
      std::size_t dropped = 0;
      for (std::size_t i = blocks_.begin(b); i < blocks_.end(b); ++i) {
        const std::size_t k = bucket_of(i);
        if (k < buckets_) ++row[k];
        else ++dropped;
      }
      dropped_per_block_[b] = dropped;
    });
  }

  /// Counts → starts, bucket-major then block-minor (the order that makes the distribution stable).
  void lay_out() {
    std::size_t running = 0;
    for (std::size_t k = 0; k < buckets_; ++k) {
      offsets_[k] = running;
      for (std::size_t b = 0; b < blocks_.count; ++b) {
        std::size_t& entry = starts_[b * buckets_ + k];
        const std::size_t count = entry;
        entry = running;
        running += count;
      }
    }
    offsets_[buckets_] = running;
  }

  block_partition blocks_;
  std::size_t buckets_;
  std::vector<std::size_t> starts_;   ///< blocks × buckets: the destination of block b's first element of bucket k
  std::vector<std::size_t> offsets_;  ///< buckets + 1
  std::vector<std::size_t> dropped_per_block_;
};

}  // namespace sluice::host::detail
