// sluice/host/cache_info.hpp: the memory hierarchy this machine reports: cache levels, TLBs, page sizes.
//
// Eilers §2.2–2.4 shows the sequential multireduce slowing down in steps, each where the buckets stop
// fitting one level of the hierarchy (L1, L2, then the TLB's reach), and fixes it by partially sorting
// the input by the top bits of the label so that the buckets in use fit a cache level. The number of
// bits therefore depends on the machine's caches, which are read here, never assumed:
//
//   caches     /sys/devices/system/cpu/cpu0/cache/index*/{level,type,size,ways_of_associativity,
//              coherency_line_size,shared_cpu_list} (Linux); where that folder is missing, glibc's
//              sysconf(_SC_LEVEL{1,2,3,4}_*CACHE_*). sysfs wins because it is what the kernel was told
//              (a guest's sysconf can report caches its host has: docs/perf-notes.md).
//   pages      sysconf(_SC_PAGESIZE); the transparent huge page size from
//              /sys/kernel/mm/transparent_hugepage/hpage_pmd_size (0 where THP is absent).
//   TLBs       CPUID 0x80000005 (L1) and 0x80000006 (L2) on x86, where AMD reports entries and ways for
//              4 KiB and 2 MiB pages; other CPUs (and Intel, which leaves those fields zero) give none.
//
//   const auto& hierarchy = sluice::host::machine_cache_info();       // read once per process
//   if (const auto* l2 = hierarchy.data_cache(2)) use(l2->size_bytes);
//
// Reading costs a few file reads; machine_cache_info() caches the result, read_cache_info(folder)
// reads afresh (tests point it at a fake sysfs folder).
#pragma once

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#if defined(__linux__)
#include <unistd.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace sluice::host {

enum class cache_type { data, instruction, unified };

struct cache_level {
  int level = 0;
  cache_type type = cache_type::unified;
  std::size_t size_bytes = 0;
  std::size_t line_bytes = 0;
  unsigned associativity = 0;  ///< ways; 0 when unknown or fully associative
  unsigned shared_by = 1;      ///< logical CPUs sharing one instance (1: private to a core; 0: unknown)
};

struct tlb_level {
  int level = 0;
  cache_type type = cache_type::data;  ///< data or instruction
  std::size_t page_bytes = 0;          ///< the page size these entries map
  unsigned entries = 0;
  unsigned associativity = 0;          ///< ways; 0 when fully associative or unknown
};

struct cache_info {
  std::vector<cache_level> caches;  ///< by level; at one level, data before instruction before unified
  std::vector<tlb_level> tlbs;      ///< by level, then data before instruction, then page size
  std::size_t page_bytes = 4096;
  std::size_t huge_page_bytes = 0;  ///< transparent huge pages; 0: not offered
  std::string source = "none";      ///< "sysfs", "sysconf" or "none": where the cache levels came from

  /// The cache that holds data at `level` (its data or unified cache), or null.
  [[nodiscard]] const cache_level* data_cache(int level) const {
    for (const auto& c : caches)
      if (c.level == level && c.type != cache_type::instruction) return &c;
    return nullptr;
  }

  /// The largest data cache that one core has to itself (shared_by == 1), or null. The partial sort
  /// of the multireduce sizes its bucket groups for it: each thread works on one group at a time.
  [[nodiscard]] const cache_level* largest_private_data_cache() const {
    const cache_level* best = nullptr;
    for (const auto& c : caches)
      if (c.type != cache_type::instruction && c.shared_by == 1 && (!best || c.size_bytes > best->size_bytes)) best = &c;
    return best;
  }

  /// The highest-level data cache, or null.
  [[nodiscard]] const cache_level* last_level_cache() const {
    const cache_level* last = nullptr;
    for (const auto& c : caches)
      if (c.type != cache_type::instruction && (!last || c.level >= last->level)) last = &c;
    return last;
  }
};

namespace detail::cache_probe {

inline std::optional<std::string> read_line(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return line;
}

/// "48K", "32M", "1024" (bytes) → bytes; nullopt when it is not a number.
inline std::optional<std::size_t> parse_size(const std::string& text) {
  std::size_t used = 0;
  unsigned long long value = 0;
  try {
    value = std::stoull(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  const std::string unit = text.substr(used);
  if (unit.empty()) return static_cast<std::size_t>(value);
  if (unit == "K") return static_cast<std::size_t>(value) << 10;
  if (unit == "M") return static_cast<std::size_t>(value) << 20;
  if (unit == "G") return static_cast<std::size_t>(value) << 30;
  return std::nullopt;
}

/// The number of CPUs in a list such as "0-3,8,10-11".
inline unsigned count_cpus(const std::string& list) {
  unsigned count = 0;
  std::size_t start = 0;
  while (start < list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string item = list.substr(start, comma - start);
    const std::size_t dash = item.find('-');
    try {
      if (dash == std::string::npos) count += 1;
      else count += static_cast<unsigned>(std::stoul(item.substr(dash + 1)) - std::stoul(item.substr(0, dash)) + 1);
    } catch (const std::exception&) {
      // an unreadable item counts as nothing; shared_by stays at least 1 below
    }
    start = comma + 1;
  }
  return std::max(count, 1u);
}

inline std::optional<cache_type> parse_type(const std::string& text) {
  if (text == "Data") return cache_type::data;
  if (text == "Instruction") return cache_type::instruction;
  if (text == "Unified") return cache_type::unified;
  return std::nullopt;
}

/// One index* folder of sysfs; nullopt when its level, type or size cannot be read.
inline std::optional<cache_level> read_sysfs_index(const std::filesystem::path& folder) {
  const auto level = read_line(folder / "level");
  const auto type = read_line(folder / "type");
  const auto size = read_line(folder / "size");
  if (!level || !type || !size) return std::nullopt;
  const auto parsed_type = parse_type(*type);
  const auto bytes = parse_size(*size);
  if (!parsed_type || !bytes) return std::nullopt;
  cache_level c;
  try {
    c.level = std::stoi(*level);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  c.type = *parsed_type;
  c.size_bytes = *bytes;
  if (const auto line = read_line(folder / "coherency_line_size")) c.line_bytes = parse_size(*line).value_or(0);
  if (const auto ways = read_line(folder / "ways_of_associativity"))
    c.associativity = static_cast<unsigned>(parse_size(*ways).value_or(0));
  if (const auto shared = read_line(folder / "shared_cpu_list")) c.shared_by = count_cpus(*shared);
  return c;
}

inline std::vector<cache_level> read_sysfs(const std::filesystem::path& cache_folder) {
  std::vector<cache_level> caches;
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator(cache_folder, ignored))
    if (entry.path().filename().string().starts_with("index"))
      if (auto c = read_sysfs_index(entry.path())) caches.push_back(*c);
  return caches;
}

inline std::vector<cache_level> read_sysconf() {
  std::vector<cache_level> caches;
#if defined(_SC_LEVEL1_DCACHE_SIZE)
  struct probe {
    int level;
    cache_type type;
    int size, line, ways;
  };
  const probe probes[] = {
      {1, cache_type::data, _SC_LEVEL1_DCACHE_SIZE, _SC_LEVEL1_DCACHE_LINESIZE, _SC_LEVEL1_DCACHE_ASSOC},
      {1, cache_type::instruction, _SC_LEVEL1_ICACHE_SIZE, _SC_LEVEL1_ICACHE_LINESIZE, _SC_LEVEL1_ICACHE_ASSOC},
      {2, cache_type::unified, _SC_LEVEL2_CACHE_SIZE, _SC_LEVEL2_CACHE_LINESIZE, _SC_LEVEL2_CACHE_ASSOC},
      {3, cache_type::unified, _SC_LEVEL3_CACHE_SIZE, _SC_LEVEL3_CACHE_LINESIZE, _SC_LEVEL3_CACHE_ASSOC},
      {4, cache_type::unified, _SC_LEVEL4_CACHE_SIZE, _SC_LEVEL4_CACHE_LINESIZE, _SC_LEVEL4_CACHE_ASSOC},
  };
  for (const probe& p : probes) {
    const long size = sysconf(p.size);
    if (size <= 0) continue;
    cache_level c;
    c.level = p.level;
    c.type = p.type;
    c.size_bytes = static_cast<std::size_t>(size);
    c.line_bytes = static_cast<std::size_t>(std::max(sysconf(p.line), 0L));
    c.associativity = static_cast<unsigned>(std::max(sysconf(p.ways), 0L));
    c.shared_by = p.level >= 3 ? 0u : 1u;  // sysconf does not say; L1 and L2 are per core on every CPU we know
    caches.push_back(c);
  }
#endif
  return caches;
}

inline void sort_levels(std::vector<cache_level>& caches) {
  std::sort(caches.begin(), caches.end(), [](const cache_level& a, const cache_level& b) {
    return a.level != b.level ? a.level < b.level : static_cast<int>(a.type) < static_cast<int>(b.type);
  });
}

#if defined(__x86_64__) || defined(__i386__)
/// AMD's 4-bit associativity code of the L2 TLB fields (CPUID 0x80000006); 0 = fully associative.
inline unsigned l2_tlb_ways(unsigned code) {
  constexpr unsigned ways[16] = {0, 1, 2, 3, 4, 6, 8, 0, 16, 0, 32, 48, 64, 96, 128, 0};
  return ways[code & 0xF];
}

/// One CPUID register of AMD's TLB leaves: data entries in the high half, instruction in the low.
inline void add_tlb_pair(std::vector<tlb_level>& tlbs, int level, std::size_t page_bytes, unsigned reg) {
  unsigned data_entries = 0, data_ways = 0, code_entries = 0, code_ways = 0;
  if (level == 1) {
    data_ways = reg >> 24, data_entries = (reg >> 16) & 0xFF, code_ways = (reg >> 8) & 0xFF, code_entries = reg & 0xFF;
    data_ways = data_ways == 0xFF ? 0 : data_ways;  // 0xFF: fully associative
    code_ways = code_ways == 0xFF ? 0 : code_ways;
  } else {
    data_ways = l2_tlb_ways(reg >> 28), data_entries = (reg >> 16) & 0xFFF;
    code_ways = l2_tlb_ways((reg >> 12) & 0xF), code_entries = reg & 0xFFF;
  }
  if (data_entries) tlbs.push_back({level, cache_type::data, page_bytes, data_entries, data_ways});
  if (code_entries) tlbs.push_back({level, cache_type::instruction, page_bytes, code_entries, code_ways});
}
#endif

inline std::vector<tlb_level> read_tlbs() {
  std::vector<tlb_level> tlbs;
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) || eax < 0x80000006u) return tlbs;
  constexpr std::size_t small = std::size_t{4} << 10, large = std::size_t{2} << 20;
  for (int level : {1, 2}) {
    __get_cpuid(level == 1 ? 0x80000005u : 0x80000006u, &eax, &ebx, &ecx, &edx);
    add_tlb_pair(tlbs, level, small, ebx);  // EBX: 4 KiB pages; EAX: 2 MiB (and 4 MiB) pages
    add_tlb_pair(tlbs, level, large, eax);
  }
#endif
  return tlbs;
}

}  // namespace detail::cache_probe

/// Reads the machine's hierarchy now; `cache_folder` is the sysfs cache folder of one CPU.
[[nodiscard]] inline cache_info read_cache_info(
    const std::filesystem::path& cache_folder = "/sys/devices/system/cpu/cpu0/cache") {
  namespace probe = detail::cache_probe;
  cache_info info;
  info.caches = probe::read_sysfs(cache_folder);
  info.source = "sysfs";
  if (info.caches.empty()) {
    info.caches = probe::read_sysconf();
    info.source = info.caches.empty() ? "none" : "sysconf";
  }
  probe::sort_levels(info.caches);
  info.tlbs = probe::read_tlbs();
#if defined(__linux__)
  if (const long page = sysconf(_SC_PAGESIZE); page > 0) info.page_bytes = static_cast<std::size_t>(page);
  if (const auto huge = probe::read_line("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size"))
    info.huge_page_bytes = probe::parse_size(*huge).value_or(0);
#endif
  return info;
}

/// The machine's hierarchy, read on first use and kept for the process (thread-safe).
[[nodiscard]] inline const cache_info& machine_cache_info() {
  static const cache_info info = read_cache_info();
  return info;
}

}  // namespace sluice::host
