// stream_distance: the host's straight loop (sluice::host::multireduce, naive, one thread) over u32 labels
// and values whose virtual distance is controlled: on some CPUs the loop's speed follows that distance
// (docs/host.md, docs/simulator.md "The streams' distance").
//   stream_distance bits    labels at the start of a mapping, values 2^28 (+ one bit 2^j) bytes further, m = 2^10
//   stream_distance move    the same physical pages of values moved by mremap between distances, then fresh
//                           pages at one distance
//   stream_distance placed  sluice simulate's placement (stream_pair: the labels' bytes rounded to a page
//                           + 480 KiB) against two std::vectors allocated one after the other, at n = 2^21,
//                           2^22, 2^24 and m = 2^10 … 2^16
// Built with the rest where TBB is found (bench/probes/CMakeLists.txt): build/release/bench/probes/stream_distance.
#include <sluice/core/operators.hpp>
#include <sluice/host/multireduce.hpp>
#include <oneapi/tbb/task_arena.h>
#include <sys/mman.h>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

using clk = std::chrono::steady_clock;
constexpr std::size_t MiB = std::size_t{1} << 20;
std::uint64_t state = 88172645463325252ull;
std::uint32_t next() { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return static_cast<std::uint32_t>(state); }
void fill(std::uint32_t* p, std::size_t n, std::uint32_t mod) { for (std::size_t i = 0; i < n; ++i) p[i] = next() % mod; }

/// ns per element: the median of 5 timed runs after a warm-up.
double loop_ns(const std::uint32_t* l, const std::uint32_t* v, std::size_t n, std::size_t m) {
  std::vector<std::uint32_t> out(m, 0);
  std::vector<double> t;
  tbb::task_arena one(1);
  one.execute([&] {
    for (int r = 0; r < 6; ++r) {
      const auto s = clk::now();
      sluice::host::multireduce<std::uint32_t, std::uint32_t>(std::span(l, n), std::span(v, n), std::span(out), sluice::plus{},
                                                              {.algorithm = sluice::host::multireduce_algo::naive});
      if (r) t.push_back(std::chrono::duration<double, std::nano>(clk::now() - s).count() / static_cast<double>(n));
    }
  });
  std::sort(t.begin(), t.end());
  return t[2];
}

std::uint8_t* reserve(std::size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) { std::perror("mmap"); std::exit(1); }
  return static_cast<std::uint8_t*>(p);
}

void bits() {
  constexpr std::size_t n = std::size_t{1} << 24, m = 1024;
  std::uint8_t* base = reserve(std::size_t{1} << 30);
  auto* labels = reinterpret_cast<std::uint32_t*>(base);
  fill(labels, n, m);
  for (int round = 0; round < 2; ++round) {
    std::printf("round %d (ns per element; values at labels + 2^28 + 2^j bytes):\n", round);
    for (int j = 5; j <= 27; ++j) {
      const std::size_t d = (std::size_t{1} << 28) + (j == 5 ? 0 : std::size_t{1} << j);
      auto* values = reinterpret_cast<std::uint32_t*>(base + d);
      fill(values, n, 1 << 16);
      if (j == 5) std::printf("  2^28      : %.2f %.2f\n", loop_ns(labels, values, n, m), loop_ns(labels, values, n, m));
      else std::printf("  2^28 + 2^%-2d: %.2f %.2f\n", j, loop_ns(labels, values, n, m), loop_ns(labels, values, n, m));
      std::fflush(stdout);
      madvise(values, n * 4, MADV_DONTNEED);
    }
  }
}

void move() {
  constexpr std::size_t n = std::size_t{1} << 24, m = 1024, bytes = n * 4;
  std::uint8_t* base = reserve(std::size_t{1} << 31);
  auto* labels = reinterpret_cast<std::uint32_t*>(base);
  fill(labels, n, m);
  auto fresh_at = [&](std::size_t off) {
    void* p = mmap(base + off, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    return static_cast<std::uint32_t*>(p);
  };
  std::size_t where = 80 * MiB;
  std::uint32_t* values = fresh_at(where);
  fill(values, n, 1 << 16);
  auto move_to = [&](std::size_t off) {  // through a parking place: mremap's ranges must not overlap
    void* park = mremap(values, bytes, bytes, MREMAP_MAYMOVE | MREMAP_FIXED, base + 1536 * MiB);
    void* p = park == MAP_FAILED ? MAP_FAILED : mremap(park, bytes, bytes, MREMAP_MAYMOVE | MREMAP_FIXED, base + off);
    if (p == MAP_FAILED) { std::perror("mremap"); std::exit(1); }
    values = static_cast<std::uint32_t*>(p);
    where = off;
  };
  const std::size_t distances[] = {80 * MiB, 256 * MiB, 65 * MiB, 512 * MiB, 80 * MiB, 256 * MiB};
  for (int round = 0; round < 2; ++round) {
    std::printf("round %d: the same pages moved to labels + d:", round);
    for (std::size_t d : distances) {
      if (d != where) move_to(d);
      std::printf(" %zu MiB %.2f;", d / MiB, loop_ns(labels, values, n, m));
      std::fflush(stdout);
    }
    std::printf("\n         fresh pages at labels + 256 MiB, four times:");
    for (int k = 0; k < 4; ++k) {
      munmap(values, bytes);
      values = fresh_at(where = 256 * MiB);
      fill(values, n, 1 << 16);
      std::printf(" %.2f", loop_ns(labels, values, n, m));
      std::fflush(stdout);
    }
    std::printf("\n");
  }
}

void placed() {
  constexpr std::size_t gap = std::size_t{15} << 15;  // sluice simulate's stream_gap
  for (int log2_n : {24, 22, 21}) {
    const std::size_t n = std::size_t{1} << log2_n, bytes = n * 4;
    const std::size_t distance = (bytes + 4095) / 4096 * 4096 + gap;
    std::vector<std::uint32_t> one(distance / 4 + n);
    std::uint32_t *pl = one.data(), *pv = one.data() + distance / 4;
    std::vector<std::uint32_t> vl(n), vv(n);
    const long apart = reinterpret_cast<const char*>(vl.data()) - reinterpret_cast<const char*>(vv.data());
    for (int log2_m : {10, 12, 14, 16}) {
      const std::size_t m = std::size_t{1} << log2_m;
      fill(pl, n, static_cast<std::uint32_t>(m)); fill(pv, n, 1 << 16);
      std::memcpy(vl.data(), pl, bytes); std::memcpy(vv.data(), pv, bytes);
      std::printf("n = 2^%d, m = 2^%d: placed (distance %zu KiB) %.2f %.2f | two vectors (%ld KiB apart) %.2f %.2f\n", log2_n, log2_m,
                  distance / 1024, loop_ns(pl, pv, n, m), loop_ns(pl, pv, n, m), apart / 1024, loop_ns(vl.data(), vv.data(), n, m),
                  loop_ns(vl.data(), vv.data(), n, m));
      std::fflush(stdout);
    }
  }
}

int main(int argc, char** argv) {
  const char* what = argc > 1 ? argv[1] : "bits";
  if (std::strcmp(what, "move") == 0) move();
  else if (std::strcmp(what, "placed") == 0) placed();
  else bits();
}
