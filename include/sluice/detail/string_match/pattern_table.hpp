// sluice/detail/string_match/pattern_table.hpp: the multi-pattern matcher's static hash table (beyond the
// seed: its §2.9 names dictionary matching as future work). Built once on the host; read by the host
// matcher and, through a view of device copies, by the GPU kernel; the lookup is one host-device
// function, so both find the same candidates.
//
// Keys. Let K = min(64/σ, tuning's 16, the longest pattern) characters. Pattern p is keyed by its first
// k_p = min(|p|, K) characters, packed σ bits each (DRK-WOM's exact packing: equal keys ⇔ equal
// prefixes). Patterns are grouped by k_p (at most K groups, usually one: every pattern at least K long);
// each group has an open-addressing table (linear probing, at most half full) from key to the list of
// its patterns, ascending by id. A text position r is looked up with the key of its first k characters
// for each group's k (one packed window of K characters serves every group), and each listed pattern is
// verified byte by byte beyond its key (a pattern of k_p characters is matched by its key alone). The
// lists of the groups are merged by id, so a position reports its patterns in ascending id.
//
// Patterns that are prefixes of each other share keys (when both reach K) or sit in different groups;
// either way each is listed and verified on its own.
//
// Before any probe, a position passes the prefix filter, a Bloom filter of 2^F bits and two probes: bits
// h1(x) and h2(x) set for the first c = min(shortest pattern, 4) characters x of every pattern (a byte
// each, little-endian; h1 is Fibonacci hashing, the top F bits of x·⌊2^32/φ⌋, h2 the top F bits of
// another odd multiple of x after an xor-shift), F = log2(prefixes) + 8 clamped to [10, 18]: at most 32
// KiB, about 2 bits in 256 set, so about 1 random position in 2^14 passes both probes (1 in 2^7 the
// first). A position whose prefix meets a clear bit starts no pattern; on text where the patterns are
// rare almost every position stops at the first probe, one load from shared memory.
#pragma once

#include <sluice/core/config.hpp>
#include <sluice/core/error.hpp>
#include <sluice/detail/string_match/fingerprint.hpp>
#include <sluice/detail/string_match/tuning.hpp>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::detail::string_match {

inline constexpr int max_key_groups = tuning::multi_max_key_chars;

struct table_group {
  int key_chars;          ///< k: the group's patterns are keyed by their first k characters
  uint32_t slot_begin;    ///< the group's slots: [slot_begin, slot_begin + slot_mask + 1)
  uint32_t slot_mask;     ///< slots − 1 (a power of two)
};

/// A key and its patterns ids[begin, end); begin == end: empty.
struct table_slot {
  unsigned long long key;
  uint32_t begin;
  uint32_t end;
};

/// Pointers into one pattern table (host or device memory).
struct pattern_table_view {
  const unsigned char* bytes;           ///< the patterns, concatenated
  const unsigned long long* offsets;    ///< pattern p: bytes[offsets[p], offsets[p] + lengths[p])
  const uint32_t* lengths;
  const table_group* groups;
  const table_slot* slots;
  const uint32_t* ids;
  const uint32_t* filter;   ///< the prefix filter: 2^filter_log2 bits
  uint32_t prefix_keep;     ///< the σ-bit mask in each of the low c bytes: a position's prefix, of 4 bytes
  int filter_log2;
  int group_count;
  int key_chars;  ///< K
  int sigma;
};

/// A 64-bit finaliser (SplitMix64's): keys that differ in a few low bits spread over the table.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr unsigned long long hash_key(unsigned long long x) {
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ull;
  x ^= x >> 27;
  x *= 0x81dadef4bc2dd44dull;
  return x ^ (x >> 33);
}

/// The prefix filter's first bit for a prefix (`four` characters from a position, a byte each,
/// little-endian, after `keep` dropped those past the prefix): the top `log2_bits` bits of x·⌊2^32/φ⌋.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr uint32_t first_prefix_bit(uint32_t prefix, int log2_bits) {
  return (prefix * 0x9E3779B1u) >> (32 - log2_bits);
}
/// The second bit: an xor-shift first, so that it does not follow the first bit's product.
[[nodiscard]] SLUICE_HOST_DEVICE constexpr uint32_t second_prefix_bit(uint32_t prefix, int log2_bits) {
  return ((prefix ^ (prefix >> 15)) * 0x2C1B3C6Du) >> (32 - log2_bits);
}
[[nodiscard]] SLUICE_HOST_DEVICE inline bool filter_has(const uint32_t* filter, uint32_t bit) {
  return ((filter[bit / 32] >> (bit % 32)) & 1u) != 0;
}

/// The prefix at text position r (the bytes `keep` names, masked by it); false where fewer are left.
[[nodiscard]] SLUICE_HOST_DEVICE inline bool prefix_at(const unsigned char* text, size_t n, size_t r, uint32_t keep,
                                                      uint32_t& prefix) {
  prefix = 0;
  for (int i = 0; i < 4 && (keep >> (8 * i)) != 0; ++i) {
    if (r + static_cast<size_t>(i) >= n) return false;
    prefix |= static_cast<uint32_t>(text[r + i]) << (8 * i);
  }
  prefix &= keep;
  return true;
}

/// Whether the prefix filter's second probe admits a prefix that passed the first (`filter` may be a
/// shared-memory copy of the table's).
[[nodiscard]] SLUICE_HOST_DEVICE inline bool second_probe_admits(const pattern_table_view& t, const uint32_t* filter,
                                                                uint32_t prefix) {
  return filter_has(filter, second_prefix_bit(prefix, t.filter_log2));
}

/// Whether the prefix filter admits text position r (false where fewer than the prefix's characters are
/// left: no pattern fits there). A filter only: for_each_pattern_at finds the same matches without it.
[[nodiscard]] SLUICE_HOST_DEVICE inline bool prefix_admits(const pattern_table_view& t, const uint32_t* filter,
                                                          const unsigned char* text, size_t n, size_t r) {
  uint32_t prefix = 0;
  return prefix_at(text, n, r, t.prefix_keep, prefix) && filter_has(filter, first_prefix_bit(prefix, t.filter_log2)) &&
         second_probe_admits(t, filter, prefix);
}
[[nodiscard]] SLUICE_HOST_DEVICE inline bool prefix_admits(const pattern_table_view& t, const unsigned char* text,
                                                          size_t n, size_t r) {
  return prefix_admits(t, t.filter, text, n, r);
}

/// The slot of `key` in group g, or an empty slot when no pattern has that key.
[[nodiscard]] SLUICE_HOST_DEVICE inline table_slot find_slot(const pattern_table_view& t, const table_group& g,
                                                             unsigned long long key) {
  for (unsigned long long h = hash_key(key);; ++h) {
    const table_slot s = t.slots[g.slot_begin + static_cast<uint32_t>(h & g.slot_mask)];
    if (s.begin == s.end || s.key == key) return s;
  }
}

/// Calls emit(id) for every pattern that occurs at text position r, ascending by id; returns their number.
/// `window` holds text[r, r + K) packed (characters past n as 0, which no key of a longer pattern needs:
/// a group is looked up only where its k characters exist). Callers skip the positions prefix_admits
/// refuses first; the answer is the same either way.
template <class Emit>
SLUICE_HOST_DEVICE uint32_t for_each_pattern_at(const pattern_table_view& t, const unsigned char* text, size_t n,
                                                size_t r, unsigned long long window, Emit&& emit) {
  const uint32_t mask = char_mask(t.sigma);
  uint32_t cursor[max_key_groups], end[max_key_groups];
  bool any = false;
  for (int g = 0; g < t.group_count; ++g) {
    cursor[g] = end[g] = 0;
    const table_group group = t.groups[g];
    if (n - r < static_cast<size_t>(group.key_chars)) continue;
    const unsigned long long key = window >> (t.sigma * (t.key_chars - group.key_chars));
    const table_slot s = find_slot(t, group, key);
    cursor[g] = s.begin;
    end[g] = s.end;
    any = any || s.begin != s.end;
  }
  uint32_t found = 0;
  if (!any) return found;
  for (;;) {  // merge the groups' lists by id
    int next = -1;
    for (int g = 0; g < t.group_count; ++g)
      if (cursor[g] != end[g] && (next < 0 || t.ids[cursor[g]] < t.ids[cursor[next]])) next = g;
    if (next < 0) return found;
    const uint32_t id = t.ids[cursor[next]++];
    const size_t length = t.lengths[id];
    if (n - r < length) continue;
    const unsigned char* p = t.bytes + t.offsets[id];
    size_t i = static_cast<size_t>(t.groups[next].key_chars);
    while (i < length && ((text[r + i] ^ p[i]) & mask) == 0) ++i;
    if (i == length) {
      emit(id);
      ++found;
    }
  }
}

// ---- the host-built table ---------------------------------------------------------------------------------

/// A pattern table in host memory; view() points into it.
struct pattern_table {
  std::vector<unsigned char> bytes;
  std::vector<unsigned long long> offsets;
  std::vector<uint32_t> lengths;
  std::vector<table_group> groups;
  std::vector<table_slot> slots;
  std::vector<uint32_t> ids;
  std::vector<uint32_t> filter;
  uint32_t prefix_keep = 0;
  int filter_log2 = 0;
  int key_chars = 0;
  int sigma = 8;
  std::size_t longest = 0;
  std::size_t shortest = 0;

  [[nodiscard]] pattern_table_view view() const {
    return {bytes.data(), offsets.data(), lengths.data(), groups.data(),  slots.data(),
            ids.data(),   filter.data(),  prefix_keep,    filter_log2,    static_cast<int>(groups.size()),
            key_chars,    sigma};
  }
};

/// Slots for `keys` keys: a power of two, at least keys·100/load percent.
[[nodiscard]] inline std::size_t table_slots_for(std::size_t keys) {
  std::size_t slots = 2;
  while (slots * static_cast<std::size_t>(tuning::multi_table_load_percent) < keys * 100) slots *= 2;
  return slots;
}

/// The prefix filter of `patterns` (their characters checked): the shape of the header's comment.
inline void build_prefix_filter(pattern_table& t, std::span<const std::string_view> patterns) {
  const int chars = static_cast<int>(std::min<std::size_t>(t.shortest, 4));
  t.prefix_keep = 0;
  for (int i = 0; i < chars; ++i) t.prefix_keep |= char_mask(t.sigma) << (8 * i);
  std::vector<uint32_t> prefixes;
  for (const std::string_view p : patterns) {
    uint32_t four = 0;
    for (int i = 0; i < chars; ++i) four |= static_cast<uint32_t>(static_cast<unsigned char>(p[i])) << (8 * i);
    prefixes.push_back(four);
  }
  std::sort(prefixes.begin(), prefixes.end());
  const auto distinct = static_cast<std::size_t>(std::unique(prefixes.begin(), prefixes.end()) - prefixes.begin());
  t.filter_log2 = tuning::multi_filter_min_log2;
  while (t.filter_log2 < tuning::multi_filter_max_log2 &&
         (std::size_t{1} << t.filter_log2) < (distinct << tuning::multi_filter_bits_per_prefix_log2))
    ++t.filter_log2;
  t.filter.assign(std::size_t{1} << (t.filter_log2 - 5), 0u);
  for (std::size_t i = 0; i < distinct; ++i) {
    const uint32_t first = first_prefix_bit(prefixes[i], t.filter_log2);
    const uint32_t second = second_prefix_bit(prefixes[i], t.filter_log2);
    t.filter[first / 32] |= 1u << (first % 32);
    t.filter[second / 32] |= 1u << (second % 32);
  }
}

/// Builds the table of `patterns` (σ-bit characters); bad patterns are invalid_argument("patterns") with
/// the index of the first bad pattern.
[[nodiscard]] inline pattern_table build_pattern_table(const char* function, std::span<const std::string_view> patterns,
                                                       int sigma) {
  if (sigma < 1 || sigma > 8)
    throw invalid_argument(function, "options.alphabet_bits", "is " + std::to_string(sigma) + ": a character has 1 to 8 bits");
  if (patterns.empty()) throw invalid_argument(function, "patterns", "is empty: there is nothing to match");
  if (patterns.size() > 0xFFFFFFFFu) throw invalid_argument(function, "patterns", "has more than 2^32 − 1 patterns");
  pattern_table t;
  t.sigma = sigma;
  const auto mask = static_cast<unsigned char>(char_mask(sigma));
  for (std::size_t p = 0; p < patterns.size(); ++p) {
    const std::string_view s = patterns[p];
    if (s.empty()) throw invalid_argument(function, "patterns", "has an empty pattern (every position would match)", p);
    for (std::size_t i = 0; i < s.size(); ++i)
      if ((static_cast<unsigned char>(s[i]) & ~mask) != 0)
        throw invalid_argument(function, "patterns",
                               "has a character outside the alphabet of " + std::to_string(sigma) +
                                   "-bit characters (at character " + std::to_string(i) + " of the pattern)",
                               p);
    t.offsets.push_back(t.bytes.size());
    t.lengths.push_back(static_cast<uint32_t>(s.size()));
    t.bytes.insert(t.bytes.end(), s.begin(), s.end());
    t.longest = std::max(t.longest, s.size());
    t.shortest = p == 0 ? s.size() : std::min(t.shortest, s.size());
  }
  if (t.longest > 0xFFFFFFFFu) throw invalid_argument(function, "patterns", "has a pattern of 2^32 characters or more");
  t.key_chars = static_cast<int>(std::min<std::size_t>(
      t.longest, static_cast<std::size_t>(std::min(64 / sigma, static_cast<int>(tuning::multi_max_key_chars)))));

  build_prefix_filter(t, patterns);

  // Per group (key length), key → ids; ids ascend because patterns are visited in order.
  std::map<int, std::map<unsigned long long, std::vector<uint32_t>>> by_group;
  for (std::size_t p = 0; p < patterns.size(); ++p) {
    const int k = static_cast<int>(std::min<std::size_t>(patterns[p].size(), static_cast<std::size_t>(t.key_chars)));
    const auto* chars = reinterpret_cast<const unsigned char*>(patterns[p].data());
    by_group[k][pack_chars<unsigned long long>(chars, k, sigma)].push_back(static_cast<uint32_t>(p));
  }
  for (const auto& [k, keys] : by_group) {
    const std::size_t slots = table_slots_for(keys.size());
    const table_group g{k, static_cast<uint32_t>(t.slots.size()), static_cast<uint32_t>(slots - 1)};
    t.slots.resize(t.slots.size() + slots, table_slot{0, 0, 0});
    for (const auto& [key, ids] : keys) {
      unsigned long long h = hash_key(key);
      while (t.slots[g.slot_begin + (h & g.slot_mask)].begin != t.slots[g.slot_begin + (h & g.slot_mask)].end) ++h;
      const auto begin = static_cast<uint32_t>(t.ids.size());
      t.ids.insert(t.ids.end(), ids.begin(), ids.end());
      t.slots[g.slot_begin + (h & g.slot_mask)] = {key, begin, static_cast<uint32_t>(t.ids.size())};
    }
    t.groups.push_back(g);
  }
  return t;
}

}  // namespace sluice::detail::string_match
