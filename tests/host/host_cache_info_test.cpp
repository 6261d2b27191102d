// Tests of sluice/host/cache_info.hpp (a fake sysfs cache folder, and what this machine reports) and
// sluice/host/huge_pages.hpp (allocation, alignment, the smaps reading), and of the partial sort's bit
// choice being derived from the reported caches.
#include <sluice/host/cache_info.hpp>
#include <sluice/host/detail/bucketed.hpp>
#include <sluice/host/huge_pages.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>

namespace {

namespace host = sluice::host;

void write(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file) << text << "\n";
}

/// A cache folder laid out as Linux's /sys/devices/system/cpu/cpu0/cache.
std::filesystem::path fake_sysfs() {
  const auto root = std::filesystem::temp_directory_path() / ("sluice_cache_info_" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  struct entry {
    const char *level, *type, *size, *ways, *shared;
  };
  const entry entries[] = {{"3", "Unified", "32768K", "16", "0-7"},
                           {"1", "Instruction", "32K", "8", "0"},
                           {"1", "Data", "48K", "12", "0"},
                           {"2", "Unified", "1024K", "16", "0"}};
  int index = 0;
  for (const entry& e : entries) {
    const auto folder = root / ("index" + std::to_string(index++));
    write(folder / "level", e.level);
    write(folder / "type", e.type);
    write(folder / "size", e.size);
    write(folder / "ways_of_associativity", e.ways);
    write(folder / "coherency_line_size", "64");
    write(folder / "shared_cpu_list", e.shared);
  }
  write(root / "uevent", "not a cache");
  return root;
}

TEST(HostCacheInfo, ReadsAFakeSysfsFolder) {
  const auto root = fake_sysfs();
  const host::cache_info info = host::read_cache_info(root);
  EXPECT_EQ(info.source, "sysfs");
  ASSERT_EQ(info.caches.size(), 4u);
  EXPECT_EQ(info.caches[0].level, 1);
  EXPECT_EQ(info.caches[0].type, host::cache_type::data);
  EXPECT_EQ(info.caches[0].size_bytes, 48u << 10);
  EXPECT_EQ(info.caches[0].associativity, 12u);
  EXPECT_EQ(info.caches[0].line_bytes, 64u);
  EXPECT_EQ(info.caches[1].type, host::cache_type::instruction);
  ASSERT_NE(info.data_cache(2), nullptr);
  EXPECT_EQ(info.data_cache(2)->size_bytes, 1u << 20);
  EXPECT_EQ(info.data_cache(3)->shared_by, 8u);
  EXPECT_EQ(info.largest_private_data_cache(), info.data_cache(2));
  EXPECT_EQ(info.last_level_cache(), info.data_cache(3));
  // 2^17 four-byte buckets fill half the 1 MiB L2: m = 2^26 needs 26 − 17 = 9 bits, m ≤ 2^17 none.
  EXPECT_EQ(host::detail::partial_sort_bits_for(std::size_t{1} << 26, 4, info), 9);
  EXPECT_EQ(host::detail::partial_sort_bits_for(std::size_t{1} << 17, 4, info), 0);
  EXPECT_EQ(host::detail::partial_sort_bits_for(std::size_t{1} << 40, 4, info), 12);  // capped: one pass
  EXPECT_EQ(host::detail::partial_sort_bits_for(std::size_t{1} << 26, 8, info), 10);
  std::filesystem::remove_all(root);
}

TEST(HostCacheInfo, FallsBackWhenSysfsIsMissing) {
  const host::cache_info info = host::read_cache_info("/nonexistent/sluice/cache");
  EXPECT_NE(info.source, "sysfs");
  if (info.source == "sysconf") {
    EXPECT_FALSE(info.caches.empty());
  }
}

TEST(HostCacheInfo, ThisMachine) {
  const host::cache_info& info = host::machine_cache_info();
  EXPECT_GE(info.page_bytes, 4096u);
#if defined(__linux__)
  ASSERT_NE(info.source, "none") << "Linux reports its caches in sysfs or through sysconf";
  ASSERT_NE(info.data_cache(1), nullptr);
  EXPECT_GT(info.data_cache(1)->size_bytes, 0u);
  for (std::size_t i = 1; i < info.caches.size(); ++i) EXPECT_LE(info.caches[i - 1].level, info.caches[i].level);
#endif
  for (const auto& t : info.tlbs) {
    EXPECT_GT(t.entries, 0u);
    EXPECT_GE(t.page_bytes, 4096u);
  }
}

TEST(HostHugePages, BufferIsUsableAlignedAndReported) {
  const std::size_t count = (std::size_t{8} << 20) / sizeof(std::uint32_t) + 3;  // 8 MiB and a bit
  host::huge_page_buffer<std::uint32_t> buffer(count);
  ASSERT_NE(buffer.data(), nullptr);
  EXPECT_EQ(buffer.size(), count);
  std::iota(buffer.begin(), buffer.end(), 0u);
  EXPECT_EQ(buffer[count - 1], count - 1);
  if (buffer.advised()) {
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer.data()) % host::huge_page_size, 0u);
    EXPECT_LE(host::huge_page_backed_bytes(buffer.data()), buffer.size_bytes() + host::huge_page_size);
  }
  host::huge_page_buffer<std::uint32_t> moved = std::move(buffer);
  EXPECT_EQ(moved[5], 5u);
  EXPECT_EQ(buffer.data(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from state is specified
  const host::huge_page_buffer<double> plain(1000, false);
  EXPECT_FALSE(plain.advised());
  EXPECT_EQ(host::huge_page_buffer<int>(0).size(), 0u);
}

}  // namespace
