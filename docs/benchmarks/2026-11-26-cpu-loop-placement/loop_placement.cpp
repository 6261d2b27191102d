// Scratch experiment of session 11 (docs/simulator.md, "The loop over 2^10 buckets on this host"), kept as
// evidence: the straight loop over 2^10 buckets at n = 2^24 on inputs of different histories and page sizes
// (`./a.out 1`, loop-1.txt), and a fresh mapping timed three times and after 3 s, long-lived inputs
// rewritten, the values copied into a fresh mapping (`./a.out 2`, loop-2.txt).
// Build: g++ -DSLUICE_HAVE_TBB -O3 -DNDEBUG -std=gnu++20 -I include -I /usr/local/cuda/include/cccl FILE -ltbb
#include <sluice/host/multireduce.hpp>
#include <sluice/core/operators.hpp>
#include <oneapi/tbb/task_arena.h>
#include <sys/mman.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <thread>
#include <vector>
using clk = std::chrono::steady_clock;
constexpr std::size_t n = std::size_t{1} << 24, m = 1024;
std::uint64_t state = 88172645463325252ull;
std::uint32_t next() { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return static_cast<std::uint32_t>(state); }
void fill(std::uint32_t* p, std::uint32_t mod) { for (std::size_t i = 0; i < n; ++i) p[i] = next() % mod; }
std::uint32_t* mapped(bool huge) {
  void* p = mmap(nullptr, n * 4, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (huge) madvise(p, n * 4, MADV_HUGEPAGE);
  return static_cast<std::uint32_t*>(p);
}
double time_loop(const std::uint32_t* l, const std::uint32_t* v) {
  std::vector<std::uint32_t> out(m, 0);
  double ns = 0;
  tbb::task_arena one(1);
  one.execute([&] {
    sluice::host::multireduce<std::uint32_t, std::uint32_t>(std::span(l, n), std::span(v, n), std::span(out), sluice::plus{},
        {.algorithm = sluice::host::multireduce_algo::naive});  // warm-up
    const auto t = clk::now();
    sluice::host::multireduce<std::uint32_t, std::uint32_t>(std::span(l, n), std::span(v, n), std::span(out), sluice::plus{},
        {.algorithm = sluice::host::multireduce_algo::naive});
    ns = std::chrono::duration<double, std::nano>(clk::now() - t).count() / n;
  });
  return ns;
}
void trash() {  // 256 MiB touched, as the calibration sweeps touch other memory
  static std::vector<std::uint64_t> big(std::size_t{32} << 20);
  for (auto& x : big) x += 1;
}
void experiment_1() {
  std::uint32_t* l4 = mapped(false); std::uint32_t* v4 = mapped(false); fill(l4, m); fill(v4, 1 << 16);
  std::uint32_t* l2 = mapped(true); std::uint32_t* v2 = mapped(true); fill(l2, m); fill(v2, 1 << 16);
  for (int round = 0; round < 5; ++round) {
    const double a = time_loop(l4, v4);
    trash();
    const double c = time_loop(l4, v4);
    std::uint32_t* fresh = mapped(false); fill(fresh, m);
    const double b = time_loop(fresh, v4);
    munmap(fresh, n * 4);
    trash();
    std::uint32_t* fresh2 = mapped(false); fill(fresh2, m);
    const double b2 = time_loop(fresh2, v4);
    munmap(fresh2, n * 4);
    const double d = time_loop(l2, v2);
    trash();
    const double d2 = time_loop(l2, v2);
    std::printf("round %d: 4K long-lived %.2f | after trash %.2f | fresh labels %.2f | trash+fresh %.2f | 2M long-lived %.2f | 2M after trash %.2f\n",
                round, a, c, b, b2, d, d2);
  }
}

void experiment_2() {
  std::uint32_t* l4 = mapped(false); std::uint32_t* v4 = mapped(false); fill(l4, m); fill(v4, 1 << 16);
  for (int round = 0; round < 4; ++round) {
    const double a = time_loop(l4, v4);
    std::uint32_t* fresh = mapped(false); fill(fresh, m);
    const double f1 = time_loop(fresh, v4), f2 = time_loop(fresh, v4), f3 = time_loop(fresh, v4);
    std::this_thread::sleep_for(std::chrono::seconds(3));
    const double f4 = time_loop(fresh, v4);
    munmap(fresh, n * 4);
    fill(l4, m);
    const double g = time_loop(l4, v4);
    std::uint32_t* vf = mapped(false); std::memcpy(vf, v4, n * 4);
    const double h = time_loop(l4, vf);
    munmap(vf, n * 4);
    std::printf("round %d: long-lived %.2f | fresh x3 %.2f %.2f %.2f, after 3 s %.2f | long-lived rewritten %.2f | + values copied fresh %.2f\n",
                round, a, f1, f2, f3, f4, g, h);
  }
}

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "2") == 0) experiment_2();
  else experiment_1();
}
