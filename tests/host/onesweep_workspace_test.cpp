// Host tests of a caller-owned onesweep workspace's layout (detail/onesweep/workspace.hpp), exhaustively
// over small sorts: the starts, tile counters and per-pass status arrays are disjoint, aligned and inside
// the block for every index onesweep_sort forms (starts (q·passes + p)·digits + d, counter q·passes + p,
// status p·status_words + tile·digits + d, every portion's tiles), and the size grows with n, so that a
// workspace planned for a capacity serves every smaller sort (radix_sort's workspace_storage_bytes).
#include <sluice/detail/onesweep/workspace.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <string>

namespace {

namespace os = sluice::detail::onesweep;

TEST(OnesweepWorkspace, RegionsAreDisjointAlignedAndHoldEveryIndex) {
  for (std::size_t tile : {1u, 3u, 8u})
    for (std::size_t portion_tiles : {1u, 2u, 5u})
      for (int passes = 1; passes <= 8; ++passes)
        for (int digits : {1, 4, 256})
          for (std::size_t n = 1; n <= 64; ++n) {
            const std::size_t portion = tile * portion_tiles;
            const os::workspace_layout l = os::plan_workspace(n, passes, tile, portion, digits);
            const std::size_t portions = (n + portion - 1) / portion;
            const auto p = static_cast<std::size_t>(passes);
            const auto d = static_cast<std::size_t>(digits);
            const auto where = [&] {
              return "n " + std::to_string(n) + ", tile " + std::to_string(tile) + ", portion " +
                     std::to_string(portion) + ", passes " + std::to_string(passes) + ", digits " +
                     std::to_string(digits);
            };
            // starts [0, tile_counters): every (q, pass, digit), 8-byte words from offset 0
            ASSERT_EQ(l.tile_counters % sizeof(unsigned long long), 0u) << where();
            ASSERT_GE(l.tile_counters, ((portions - 1) * p + (p - 1)) * d * 8 + d * 8) << where();
            // tile counters [tile_counters, status): every (q, pass)
            ASSERT_EQ(l.status % sizeof(unsigned), 0u) << where();
            ASSERT_GE(l.status, l.tile_counters + ((portions - 1) * p + (p - 1)) * 4 + 4) << where();
            // status: every pass's array holds every portion's tiles
            for (std::size_t q = 0; q < portions; ++q) {
              const std::size_t count = n - q * portion < portion ? n - q * portion : portion;
              ASSERT_LE((count + tile - 1) / tile * d, l.status_words) << where() << ", portion " << q;
            }
            ASSERT_EQ(l.bytes, l.status + p * l.status_words * 4) << where();
            // no slack: exactly the three regions
            ASSERT_EQ(l.tile_counters, portions * p * d * 8) << where();
            ASSERT_EQ(l.status - l.tile_counters, portions * p * 4) << where();
          }
}

TEST(OnesweepWorkspace, GrowsWithN) {
  for (std::size_t tile : {1u, 7u})
    for (std::size_t portion_tiles : {1u, 3u})
      for (int passes : {1, 4, 8}) {
        std::size_t previous = 0;
        for (std::size_t n = 1; n <= 200; ++n) {
          const std::size_t bytes = os::plan_workspace(n, passes, tile, tile * portion_tiles, 256).bytes;
          ASSERT_GE(bytes, previous) << "n " << n << ", tile " << tile << ", passes " << passes;
          previous = bytes;
        }
      }
}

TEST(OnesweepWorkspace, OnePortionOfAnLsmBatch) {
  // 2^16 u32 keys, 4 passes, a tile of 3840, one portion: 8 KiB of starts, 16 B of counters, 18 tiles × 256
  // status words a pass.
  const std::size_t portion = (std::size_t{1} << 30) / 3840 * 3840;
  const os::workspace_layout l = os::plan_workspace(std::size_t{1} << 16, 4, 3840, portion, 256);
  EXPECT_EQ(l.tile_counters, 4u * 256 * 8);
  EXPECT_EQ(l.status, 4u * 256 * 8 + 16);
  EXPECT_EQ(l.status_words, 18u * 256);
  EXPECT_EQ(l.bytes, l.status + 4u * 18 * 256 * 4);
}

}  // namespace
