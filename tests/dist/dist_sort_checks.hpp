// tests/dist/dist_sort_checks.hpp: the checks of every distributed sort test: the ranks' outputs
// concatenated equal the oracle's stable sort and the one-GPU radix_sort of the whole input (on the first
// GPU) bit for bit; the offsets describe the parts; every share is within the stated tolerance of N/P
// (docs/dist.md, "Balance") at sizes where it applies, and exact for runs of equal keys.
#pragma once

#include "dist/dist_test.hpp"

#include <sluice/data/distributions.hpp>
#include <sluice/radix_sort.cuh>
#include <sluice/reference/radix_sort.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace sluice::testing {

/// Elements compared by their bytes (NaNs, −0.0 and struct values exactly).
template <class T>
std::vector<std::vector<unsigned char>> bytes_of(const std::vector<T>& values) {
  std::vector<std::vector<unsigned char>> bytes(values.size(), std::vector<unsigned char>(sizeof(T)));
  for (std::size_t i = 0; i < values.size(); ++i) std::memcpy(bytes[i].data(), &values[i], sizeof(T));
  return bytes;
}

template <class T>
::testing::AssertionResult same_bytes(const std::vector<T>& got, const std::vector<T>& expected) {
  if (got.size() != expected.size())
    return ::testing::AssertionFailure() << "size " << got.size() << ", expected " << expected.size();
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &expected[i], sizeof(T)) != 0)
      return ::testing::AssertionFailure() << "first difference at global index " << i;
  return ::testing::AssertionSuccess();
}

/// The tolerance docs/dist.md states for a share (fraction of N/P), for inputs of at least 2^20 keys.
inline double stated_tolerance(int world) { return world <= 2 ? 0.015 : world <= 4 ? 0.03 : 0.05; }
inline constexpr std::size_t balance_min_size = std::size_t{1} << 20;

/// Generated keys with the type's extremes planted (floats spread over both signs and magnitudes).
template <class K>
std::vector<K> sort_keys(data::distribution shape, std::size_t n, std::uint64_t seed) {
  const bool zipf = shape == data::distribution::zipf;
  const std::uint64_t range = zipf ? (sizeof(K) == 1 ? 256 : std::uint64_t{1} << 16) : 0;  // zipf is table-driven
  auto keys = data::generate_host<K>(n, {shape, range, zipf ? 1.1 : 3.0, seed});
  if (shape == data::distribution::all_equal) return keys;
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_floating_point_v<K>) keys[i] = (i % 2 ? -1 : 1) * std::ldexp(keys[i], static_cast<int>(i % 61) - 30);
    if (i % 97 == 5) keys[i] = std::numeric_limits<K>::max();
    if (i % 89 == 7) keys[i] = std::numeric_limits<K>::lowest();
  }
  return keys;
}

template <class K>
std::string describe_case(const std::string& what, std::size_t n, deal_layout l, const dist::sort_options& o) {
  return what + " n=" + std::to_string(n) + " deal=" + name(l) + " bits [" + std::to_string(o.local.begin_bit) +
         ", " + std::to_string(o.local.end_bit) + ")" + (o.local.descending ? " descending" : "") +
         " splitter_words=" + std::to_string(o.splitter_words) + " key bytes=" + std::to_string(sizeof(K));
}

/// Checks the shares of a distributed output: the offsets are its parts' sizes, and they are balanced.
template <class K>
void check_shares(const dist::distributed_buffer<K>& out, std::size_t n, bool balance, const std::string& what) {
  const int world = suite_communicator()->world_size();
  ASSERT_EQ(out.offsets().size(), static_cast<std::size_t>(world) + 1) << what;
  EXPECT_EQ(out.global_size(), n) << what;
  for (std::size_t i = 0; i < out.local_count(); ++i) {
    const int r = suite_communicator()->rank(i);
    EXPECT_EQ(out.part(i).size(), out.offsets()[static_cast<std::size_t>(r) + 1] - out.offsets()[static_cast<std::size_t>(r)])
        << what << " rank " << r;
  }
  if (!balance || world > 8) return;
  const double ideal = static_cast<double>(n) / world;
  for (int r = 0; r < world; ++r) {
    const double share = static_cast<double>(out.offsets()[static_cast<std::size_t>(r) + 1] - out.offsets()[static_cast<std::size_t>(r)]);
    EXPECT_LE(std::abs(share - ideal), stated_tolerance(world) * ideal + 1) << what << " rank " << r << " share " << share;
  }
}

/// The sort of `host` dealt by `l`, against the oracle and the one-GPU sort.
template <class K>
void check_sort_keys(const std::vector<K>& host, deal_layout l, const dist::sort_options& options,
                     const std::string& what, bool balance) {
  dist::communicator& comm = *suite_communicator();
  const std::string where = describe_case<K>(what, host.size(), l, options);
  const auto parts = scatter_to_ranks(comm, host, deal(host.size(), comm.world_size(), l));
  const dist::distributed_buffer<K> sorted = dist::radix_sort(comm, view(parts), options);
  const std::vector<K> got = gather_to_host(sorted);
  const int end = options.local.end_bit == -1 ? reference::radix_key_bits<K> : options.local.end_bit;
  const std::vector<K> expected =
      reference::radix_sort_keys(std::span<const K>(host), options.local.begin_bit, end, options.local.descending);
  EXPECT_TRUE(same_bytes(got, expected)) << where << " (against the oracle)";
  context& first = comm.ctx(0);
  const device_buffer<K> whole(first, std::span<const K>(host));
  device_buffer<K> one_gpu(first, host.size());
  radix_sort(first, whole.span(), one_gpu.span(), options.local);
  EXPECT_TRUE(same_bytes(got, one_gpu.to_host())) << where << " (against the one-GPU radix_sort)";
  check_shares(sorted, host.size(), balance && host.size() >= balance_min_size, where);
}

/// The sort of pairs whose values are their global index (stability), against the oracle.
template <class K, class V>
void check_sort_pairs(const std::vector<K>& host, deal_layout l, const dist::sort_options& options,
                      const std::string& what) {
  dist::communicator& comm = *suite_communicator();
  const std::string where = describe_case<K>(what, host.size(), l, options) + " value bytes=" + std::to_string(sizeof(V));
  std::vector<V> values(host.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::memset(&values[i], 0, sizeof(V));
    const std::uint64_t index = i;
    std::memcpy(&values[i], &index, std::min(sizeof(V), sizeof(index)));
  }
  const auto offsets = deal(host.size(), comm.world_size(), l);
  const auto key_parts = scatter_to_ranks(comm, host, offsets);
  const auto value_parts = scatter_to_ranks(comm, values, offsets);
  const auto sorted = dist::radix_sort_pairs(comm, view(key_parts), view(value_parts), options);
  const int end = options.local.end_bit == -1 ? reference::radix_key_bits<K> : options.local.end_bit;
  const auto expected = reference::radix_sort_pairs(std::span<const K>(host), std::span<const V>(values),
                                                    options.local.begin_bit, end, options.local.descending);
  EXPECT_TRUE(same_bytes(gather_to_host(sorted.keys), expected.keys)) << where << " keys";
  EXPECT_TRUE(same_bytes(gather_to_host(sorted.values), expected.values)) << where << " values";
  EXPECT_EQ(sorted.values.offsets(), sorted.keys.offsets()) << where;
  check_shares(sorted.keys, host.size(), false, where);
}

inline const std::vector<deal_layout> all_deals{deal_layout::even, deal_layout::empty_ranks, deal_layout::one_rank_all,
                                                deal_layout::uneven};

/// The keys-only matrix of one key type: every distribution and deal at small sizes, the large sizes
/// for the distributions that test the balance.
template <class K>
void sort_matrix(const std::string& type) {
  using data::distribution;
  const std::size_t large = under_sanitizer() ? std::size_t{1} << 14 : (std::size_t{1} << 21) + 7;
  for (distribution shape : {distribution::uniform, distribution::zipf, distribution::all_equal, distribution::sorted,
                             distribution::reverse, distribution::few_used})
    for (deal_layout l : all_deals) {
      for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{33}, std::size_t{100003}})
        check_sort_keys(sort_keys<K>(shape, n, n + 1), l, {}, type + " " + std::string(data::to_string(shape)), false);
      const bool balance = shape == distribution::uniform || shape == distribution::zipf || shape == distribution::all_equal;
      if (balance && (l == deal_layout::even || l == deal_layout::one_rank_all))
        check_sort_keys(sort_keys<K>(shape, large, 3), l, {}, type + " " + std::string(data::to_string(shape)), true);
    }
}

}  // namespace sluice::testing
