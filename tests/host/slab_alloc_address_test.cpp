// Host tests of sluice/detail/slab_alloc/address.hpp (Ashkiani §5.5): the 32-bit address layout is a
// bijection on every 32-bit value and 0xFFFFFFFF is no unit of any pool; units and bitmaps of a super
// block tile it without overlap, 128-byte aligned, under 4 GB; resident changes stay in the pool, the
// hashed ones spread over it and the sweep visits every block exactly once; the bitmap's free-unit
// arithmetic on every pattern that matters.
#include <sluice/detail/slab_alloc/address.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <vector>

namespace {

namespace sa = sluice::detail::slab_alloc;

TEST(SlabAllocAddress, EveryFieldValueDecodesAndEncodesBack) {
  // Every super block and every memory block (with the units at their edges), then every unit (with the
  // other fields at theirs): 21 M addresses, each decoded to the fields it was made of.
  const std::uint32_t edge_units[] = {0, 1, 511, 1022, 1023};
  std::uint64_t mismatches = 0;
  for (std::uint32_t s = 0; s < 256; ++s)
    for (std::uint32_t b = 0; b < sa::max_blocks_per_super_block; ++b)
      for (std::uint32_t u : edge_units) {
        const sa::unit_location where{s, b, u};
        mismatches += !(sa::decode_address(sa::encode_address(where)) == where);
      }
  for (std::uint32_t u = 0; u < sa::units_per_block; ++u)
    for (std::uint32_t s : {0u, 1u, 254u, 255u})
      for (std::uint32_t b : {0u, 1u, 8191u, 16383u}) {
        const sa::unit_location where{s, b, u};
        mismatches += !(sa::decode_address(sa::encode_address(where)) == where);
      }
  EXPECT_EQ(mismatches, 0u);
  // The fields fill disjoint bits that cover the word: the layout is a bijection on all 2^32 values.
  EXPECT_EQ(sa::encode_address({255, 0, 0}) & sa::encode_address({0, 16383, 0}), 0u);
  EXPECT_EQ(sa::encode_address({0, 16383, 0}) & sa::encode_address({0, 0, 1023}), 0u);
  EXPECT_EQ(sa::encode_address({255, 16383, 1023}), 0xFFFFFFFFu);
  std::mt19937 random(1);
  for (int i = 0; i < 1000000; ++i) {
    const auto address = static_cast<std::uint32_t>(random());
    ASSERT_EQ(sa::encode_address(sa::decode_address(address)), address) << std::hex << address;
  }
}

TEST(SlabAllocAddress, FieldsAtTheirBoundaries) {
  EXPECT_EQ(sa::encode_address({0, 0, 0}), 0u);
  EXPECT_EQ(sa::encode_address({0, 0, 1023}), 1023u);
  EXPECT_EQ(sa::encode_address({0, 1, 0}), 1024u);
  EXPECT_EQ(sa::encode_address({0, 16383, 1023}), (1u << 24) - 1);
  EXPECT_EQ(sa::encode_address({1, 0, 0}), 1u << 24);
  EXPECT_EQ(sa::encode_address({254, 16383, 1023}), 0xFEFFFFFFu);
  EXPECT_EQ(sa::decode_address(0xFEFFFFFFu), (sa::unit_location{254, 16383, 1023}));
  EXPECT_EQ(sa::decode_address(sa::empty_address), (sa::unit_location{255, 16383, 1023}));
}

TEST(SlabAllocAddress, EmptyAddressIsNoUnitOfAnyPool) {
  for (std::uint32_t s : {1u, 2u, 254u, 255u})
    for (std::uint32_t m : {1u, 256u, 16384u}) EXPECT_FALSE(sa::is_unit_of(sa::empty_address, s, m)) << s << " " << m;
  EXPECT_TRUE(sa::is_unit_of(sa::encode_address({254, 16383, 1023}), 255, 16384));
  EXPECT_FALSE(sa::is_unit_of(sa::encode_address({2, 0, 0}), 2, 16));
  EXPECT_FALSE(sa::is_unit_of(sa::encode_address({0, 16, 0}), 2, 16));
  EXPECT_TRUE(sa::is_unit_of(sa::encode_address({1, 15, 1023}), 2, 16));
}

TEST(SlabAllocAddress, UnitsAndBitmapsTileTheSuperBlock) {
  for (std::uint32_t m : {1u, 2u, 3u, 256u, 16383u, 16384u}) {
    const std::uint64_t bytes = sa::super_block_bytes(m);
    EXPECT_LT(bytes, std::uint64_t{1} << 32) << "N_M = " << m << ": a super block must stay under 4 GB";
    EXPECT_EQ(bytes % 128, 0u);
    // The last unit ends where the first bitmap starts; the last bitmap ends at the super block's end.
    EXPECT_EQ(sa::unit_offset({0, m - 1, 1023}) + sa::unit_bytes, sa::bitmap_offset(m, 0)) << m;
    EXPECT_EQ(sa::bitmap_offset(m, m - 1) + sa::bitmap_bytes, bytes) << m;
  }
  // Every unit of a small super block at its own 128-byte-aligned offset, in order.
  const std::uint32_t m = 5;
  std::uint64_t expected = 0;
  for (std::uint32_t b = 0; b < m; ++b)
    for (std::uint32_t u = 0; u < sa::units_per_block; ++u, expected += sa::unit_bytes)
      ASSERT_EQ(sa::unit_offset({0, b, u}), expected) << "block " << b << ", unit " << u;
}

TEST(SlabAllocAddress, GlobalBlockNumbering) {
  const std::uint32_t m = 7;
  std::uint32_t expected = 0;
  for (std::uint32_t s = 0; s < 4; ++s)
    for (std::uint32_t b = 0; b < m; ++b) EXPECT_EQ(sa::global_block(s, b, m), expected++);
  EXPECT_EQ(sa::global_block(254, 16383, 16384), 255u * 16384u - 1);
}

TEST(SlabAllocAddress, ResidentBlocksStayInThePool) {
  for (std::uint32_t s : {1u, 2u, 3u, 32u, 255u})
    for (std::uint32_t m : {1u, 5u, 256u, 16384u})
      for (std::uint32_t warp : {0u, 1u, 77u, 123456u, 0xFFFFFFFFu})
        for (std::uint64_t first : {std::uint64_t{0}, std::uint64_t{5}, std::uint64_t{1} << 32})
          for (std::uint32_t attempt = 0; attempt < 100; ++attempt)
            ASSERT_LT(sa::resident_block(warp, first, attempt, 32, s, m), s * m)
                << "S = " << s << ", N_M = " << m << ", warp " << warp << ", attempt " << attempt;
}

TEST(SlabAllocAddress, SweepVisitsEveryBlockOnce) {
  // After the hashed changes, the attempts H … H + S·N_M − 1 of one allocation name every block exactly
  // once, for every warp and however many changes it made before.
  for (std::uint32_t hashed : {0u, 1u, 32u})
    for (std::uint32_t s : {1u, 2u, 3u, 7u})
      for (std::uint32_t m : {1u, 2u, 5u, 16u})
        for (std::uint32_t warp : {0u, 9u, 4097u}) {
          const std::uint32_t blocks = s * m;
          std::vector<int> seen(blocks, 0);
          const std::uint64_t first = warp * 3u;
          for (std::uint32_t j = 0; j < blocks; ++j) ++seen[sa::resident_block(warp, first, hashed + j, hashed, s, m)];
          for (std::uint32_t b = 0; b < blocks; ++b)
            ASSERT_EQ(seen[b], 1) << "block " << b << ", S = " << s << ", N_M = " << m << ", hashed " << hashed;
          EXPECT_EQ(sa::changes_to_exhaustion(hashed, s, m), hashed + blocks);
        }
}

TEST(SlabAllocAddress, HashedResidentBlocksSpreadOverThePool) {
  // The seed's evaluation pool (32 super blocks × 256 blocks): the first resident block of 2^16 warps
  // hits every super block and nearly every block, and no block takes more than a few times its share.
  const std::uint32_t s = 32, m = 256, warps = 1u << 16, blocks = s * m;
  std::vector<int> per_block(blocks, 0), per_super(s, 0);
  for (std::uint32_t w = 0; w < warps; ++w) {
    const std::uint32_t b = sa::resident_block(w, 0, 0, 32, s, m);
    ++per_block[b];
    ++per_super[b / m];
  }
  int empty = 0, most = 0;
  for (int c : per_block) {
    empty += c == 0;
    most = std::max(most, c);
  }
  // 8 warps a block on average: Poisson(8) leaves e^-8 ≈ 0.03% of blocks empty and rarely passes 24.
  EXPECT_LT(empty, 20);
  EXPECT_LE(most, 24);
  for (std::uint32_t i = 0; i < s; ++i) EXPECT_NEAR(per_super[i], warps / s, warps / s / 4) << "super block " << i;
  // Successive changes of one warp move it: 32 hashed changes land on at least 28 distinct blocks,
  // within one allocation and across allocations (the change count runs on).
  for (std::uint32_t w : {0u, 5u, 1000u}) {
    std::set<std::uint32_t> within, across;
    for (std::uint32_t c = 0; c < 32; ++c) {
      within.insert(sa::resident_block(w, 0, c, 32, s, m));
      across.insert(sa::resident_block(w, c, 0, 32, s, m));
    }
    EXPECT_GE(within.size(), 28u) << "warp " << w;
    EXPECT_EQ(within, across) << "the same probe sequence however the changes fall on allocations";
  }
}

std::uint32_t naive_lowest_free(std::uint32_t word) {
  for (std::uint32_t bit = 0; bit < 32; ++bit)
    if (((word >> bit) & 1u) == 0) return bit;
  return 32;
}

TEST(SlabAllocAddress, LowestFreeBit) {
  EXPECT_EQ(sa::lowest_free_bit(0u), 0u);
  EXPECT_EQ(sa::lowest_free_bit(0xFFFFFFFFu), 32u);
  EXPECT_EQ(sa::lowest_free_bit(0x7FFFFFFFu), 31u);
  for (std::uint32_t bit = 0; bit < 32; ++bit) {
    EXPECT_EQ(sa::lowest_free_bit(~(1u << bit)), bit);              // exactly one free unit
    EXPECT_EQ(sa::lowest_free_bit((1u << bit) - 1u), bit);          // the units below taken
  }
  for (std::uint32_t low = 0; low < (1u << 16); ++low)  // every pattern of each half, the other full
    for (std::uint32_t word : {low, 0xFFFF0000u | low, (low << 16) | 0xFFFFu, low << 16})
      ASSERT_EQ(sa::lowest_free_bit(word), naive_lowest_free(word)) << std::hex << word;
  std::mt19937 random(3);
  for (int i = 0; i < 100000; ++i) {
    const auto word = static_cast<std::uint32_t>(random() | random());  // mostly full words, as a busy block has
    ASSERT_EQ(sa::lowest_free_bit(word), naive_lowest_free(word)) << std::hex << word;
  }
}

TEST(SlabAllocAddress, BitmapWordsAndBitsOfEveryUnit) {
  for (std::uint32_t unit = 0; unit < sa::units_per_block; ++unit) {
    EXPECT_LT(sa::word_of_unit(unit), sa::bitmap_words);
    EXPECT_EQ(sa::unit_of_bit(sa::word_of_unit(unit), sa::bit_of_unit(unit)), unit);
  }
  EXPECT_EQ(sa::unit_of_bit(31, 31), 1023u);
}

TEST(SlabAllocAddress, CapacityArithmetic) {
  EXPECT_EQ(sa::pool_units(1, 1), 1024u);
  EXPECT_EQ(sa::pool_units(32, 256), 32u * 256u * 1024u);  // the seed's 1 GiB pool of 128-byte units
  EXPECT_EQ(sa::pool_units(32, 256) * sa::unit_bytes, std::uint64_t{1} << 30);
  EXPECT_EQ(sa::super_blocks_for(0, 4), 1u);
  EXPECT_EQ(sa::super_blocks_for(1, 4), 1u);
  EXPECT_EQ(sa::super_blocks_for(4096, 4), 1u);
  EXPECT_EQ(sa::super_blocks_for(4097, 4), 2u);
  EXPECT_EQ(sa::super_blocks_for(std::uint64_t{1} << 40, 16384), 65536u);
  // The largest pool: 255 super blocks of 2^14 blocks, every address below 0xFF000000.
  EXPECT_EQ(sa::pool_units(255, 16384), 255ull << 24);
}

}  // namespace
