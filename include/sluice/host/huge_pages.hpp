// sluice/host/huge_pages.hpp: host buffers on 2 MiB pages (Eilers §2.3.2, §2.4, Fig. 2.4).
//
// Random accesses over a bucket array larger than the TLB's reach miss the TLB on almost every access
// (Eilers Table 2.1: a third of all loads for m ≥ 2^26 on a 4 KiB-page machine); 2 MiB pages map 512
// times more memory per entry and remove that third step of the slowdown. Linux offers them to ordinary
// allocations as transparent huge pages (THP) when /sys/kernel/mm/transparent_hugepage/enabled is
// "always" or "madvise"; this buffer maps anonymous memory aligned to the huge page size and asks for
// them with madvise(MADV_HUGEPAGE). Where that fails (no THP, "never", another OS) the buffer is an
// ordinary one and nothing is reported as an error: huge pages are a speed hint.
//
// Whether the kernel actually backed the buffer with huge pages is only visible afterwards, in the
// AnonHugePages field of the buffer's mapping in /proc/self/smaps: huge_page_backed_bytes() reads it
// (the benchmarks report it; docs/host.md quotes it).
//
//   sluice::host::huge_page_buffer<std::uint32_t> buckets(std::size_t{1} << 26);   // 256 MiB, uninitialised
//   std::fill(buckets.begin(), buckets.end(), 0u);                                  // first touch faults pages in
//   std::size_t huge = sluice::host::huge_page_backed_bytes(buckets.data(), buckets.size_bytes());
//
// Elements are not initialised (the types sluice stores in it are trivial); the memory is zero after
// mapping, as anonymous memory is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <new>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace sluice::host {

/// The huge page size this buffer aligns to (the x86-64 and arm64 4 KiB-granule PMD size).
inline constexpr std::size_t huge_page_size = std::size_t{2} << 20;

template <class T>
class huge_page_buffer {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_default_constructible_v<T>,
                "huge_page_buffer holds trivial element types (it does not run constructors)");

 public:
  huge_page_buffer() = default;

  /// `count` uninitialised elements; with `huge_pages` false an ordinary allocation (no advice).
  explicit huge_page_buffer(std::size_t count, bool huge_pages = true) : count_(count) {
    if (count == 0) return;
    if (count > max_count()) throw std::bad_alloc();
    bytes_ = round_up(count * sizeof(T), huge_pages ? huge_page_size : alignof(std::max_align_t));
    if (huge_pages) map_huge();
    if (!data_) allocate_plain();
  }

  huge_page_buffer(const huge_page_buffer&) = delete;
  huge_page_buffer& operator=(const huge_page_buffer&) = delete;
  huge_page_buffer(huge_page_buffer&& other) noexcept { swap(other); }
  huge_page_buffer& operator=(huge_page_buffer&& other) noexcept {
    huge_page_buffer(std::move(other)).swap(*this);
    return *this;
  }
  ~huge_page_buffer() { release(); }

  [[nodiscard]] T* data() const { return data_; }
  [[nodiscard]] std::size_t size() const { return count_; }
  [[nodiscard]] std::size_t size_bytes() const { return count_ * sizeof(T); }
  [[nodiscard]] std::span<T> span() const { return {data_, count_}; }
  [[nodiscard]] T* begin() const { return data_; }
  [[nodiscard]] T* end() const { return data_ + count_; }
  [[nodiscard]] T& operator[](std::size_t i) const { return data_[i]; }
  /// True when the memory was mapped and madvise(MADV_HUGEPAGE) accepted it (the kernel may still
  /// back it with small pages: see huge_page_backed_bytes).
  [[nodiscard]] bool advised() const { return mapped_; }

 private:
  static constexpr std::size_t max_count() { return (~std::size_t{0} - huge_page_size) / sizeof(T); }
  static std::size_t round_up(std::size_t bytes, std::size_t to) { return (bytes + to - 1) / to * to; }

  /// Maps bytes_ plus one huge page of slack, trims to a huge-page-aligned range, advises it.
  void map_huge() {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const std::size_t span = bytes_ + huge_page_size;
    void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return;
    const auto start = reinterpret_cast<std::uintptr_t>(raw);
    const std::uintptr_t aligned = (start + huge_page_size - 1) / huge_page_size * huge_page_size;
    if (aligned > start) munmap(raw, aligned - start);
    if (const std::uintptr_t tail = start + span - (aligned + bytes_); tail > 0)
      munmap(reinterpret_cast<void*>(aligned + bytes_), tail);
    data_ = reinterpret_cast<T*>(aligned);
    mapped_ = madvise(data_, bytes_, MADV_HUGEPAGE) == 0;
    unmap_ = true;
#endif
  }

  void allocate_plain() {
    data_ = static_cast<T*>(std::aligned_alloc(alignof(std::max_align_t), bytes_));
    if (!data_) throw std::bad_alloc();
  }

  void release() noexcept {
    if (!data_) return;
#if defined(__linux__)
    if (unmap_) {
      munmap(data_, bytes_);
      return;
    }
#endif
    std::free(data_);
  }

  void swap(huge_page_buffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
    std::swap(bytes_, other.bytes_);
    std::swap(mapped_, other.mapped_);
    std::swap(unmap_, other.unmap_);
  }

  T* data_ = nullptr;
  std::size_t count_ = 0;
  std::size_t bytes_ = 0;
  bool mapped_ = false;  ///< madvise accepted
  bool unmap_ = false;   ///< from mmap (else aligned_alloc)
};

/// Bytes of the mapping that contains `address` which the kernel backs with huge pages now (the
/// AnonHugePages field of /proc/self/smaps); 0 where that file cannot be read.
[[nodiscard]] inline std::size_t huge_page_backed_bytes(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  const auto target = reinterpret_cast<std::uintptr_t>(address);
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    // A mapping starts with "start-end perms ...": hex digits then '-'.
    if (const std::size_t dash = line.find('-'); dash != std::string::npos && dash > 0 &&
                                                  line.find_first_not_of("0123456789abcdef") == dash) {
      const std::uintptr_t start = std::stoull(line.substr(0, dash), nullptr, 16);
      const std::uintptr_t end = std::stoull(line.substr(dash + 1), nullptr, 16);
      inside = start <= target && target < end;
      continue;
    }
    if (inside && line.starts_with("AnonHugePages:")) {
      std::istringstream fields(line.substr(14));
      std::size_t kib = 0;
      fields >> kib;
      return kib << 10;
    }
  }
  return 0;
}

}  // namespace sluice::host
