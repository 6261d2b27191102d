// Benchmark: exact string matching (Ashkiani ch. 2), the seed's Tables 2.2–2.4 on this GPU: GB/s of
// text against the pattern length m for every strategy, σ = 1 and 8, n = 2^25 and 2^30 characters in
// GPU memory (quick: 2^25 and m = 8, 64, 1024); and one pass of multi_string_match over 1000 patterns
// of 8 to 64 characters against string_match run once per pattern.
//
// Text: uniform σ-bit characters (data::generate); the pattern is cut from the text at n/2, so it occurs
// at least once. Output: the count (the seed's rates exclude output too). Bytes: the text read once (n);
// the items are characters. crk and hrk run at n = 2^25 only (crk keeps 16 bytes a character of prefix
// products; hrk scans m − 1 halo characters a 1024-position block), as in the seed's Table 2.2, where
// they were 0.6 GB/s at best.
//
// Baseline: a naive matcher, thrust::count_if over the n − m + 1 positions comparing up to m bytes and
// stopping at the first difference (on random text it reads about one byte a position: a hard baseline
// for short patterns). Verification: every count against sluice::host::string_match on the same text
// regenerated on the host (data::generate_host), or the host pattern matcher for the multi-pattern case.
#include "harness/measure.hpp"

#include <sluice/data/generate.cuh>
#include <sluice/host/string_match.hpp>
#include <sluice/string_match.cuh>

#include <thrust/count.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>

#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace sluice;

/// Whether the pattern occurs at position r: the naive baseline's per-position test.
struct occurs_at {
  const unsigned char* text;
  const unsigned char* pattern;
  std::size_t m;
  __device__ bool operator()(std::size_t r) const {
    for (std::size_t i = 0; i < m; ++i)
      if (text[r + i] != pattern[i]) return false;
    return true;
  }
};

/// n σ-bit characters on the device and the same on the host.
struct text_data {
  text_data(context& ctx, std::size_t n, int sigma) : device(ctx, n) {
    const data::distribution_spec spec{data::distribution::uniform, std::uint64_t{1} << sigma, 0.0,
                                       static_cast<std::uint64_t>(100 + sigma)};
    data::generate(ctx, device.span(), spec);
    host = data::generate_host<unsigned char>(n, spec);
  }
  device_buffer<unsigned char> device;
  std::vector<unsigned char> host;
};

constexpr string_match_algorithm sweep_algorithms[] = {
    string_match_algorithm::automatic, string_match_algorithm::drk_wom32, string_match_algorithm::drk_wom64,
    string_match_algorithm::drk,       string_match_algorithm::drk_2s,    string_match_algorithm::crk_recurrence,
    string_match_algorithm::crk,       string_match_algorithm::hrk};

bool sweep_applies(string_match_algorithm a, std::size_t m, int sigma, std::size_t n) {
  const std::size_t bits = m * static_cast<std::size_t>(sigma);
  if (a == string_match_algorithm::drk_wom32) return bits <= 32;
  if (a == string_match_algorithm::drk_wom64) return bits <= 64;
  if (a == string_match_algorithm::crk || a == string_match_algorithm::hrk) return n <= (std::size_t{1} << 25);
  return true;
}

void sweep(bench::case_context& session, int sigma) {
  auto& ctx = session.gpu();
  const std::vector<std::size_t> sizes =
      session.quick() ? std::vector<std::size_t>{std::size_t{1} << 25} : std::vector<std::size_t>{std::size_t{1} << 25, std::size_t{1} << 30};
  const std::vector<std::size_t> lengths = session.quick() ? std::vector<std::size_t>{8, 64, 1024}
                                                           : std::vector<std::size_t>{4, 8, 16, 32, 64, 256, 1024};
  device_buffer<std::size_t> count(ctx, 1);
  for (std::size_t n : sizes) {
    const text_data text(ctx, n, sigma);
    for (std::size_t m : lengths) {
      const std::size_t at = n / 2;
      const std::vector<unsigned char> host_pattern(text.host.begin() + static_cast<std::ptrdiff_t>(at),
                                                    text.host.begin() + static_cast<std::ptrdiff_t>(at + m));
      const device_buffer<unsigned char> pattern(ctx, std::span<const unsigned char>(host_pattern));
      const std::size_t expected = host::fixed_string_searcher(host_pattern).for_each(text.host, [](std::size_t) {});
      const std::string name = "count σ=" + std::to_string(sigma) + " m=" + std::to_string(m);
      const bench::work_description work{"string_match", name, n, static_cast<double>(n)};
      auto verify = [&] { return count.to_host()[0] == expected; };
      for (auto a : sweep_algorithms) {
        if (!sweep_applies(a, m, sigma, n)) continue;
        const string_match_options options{.algorithm = a, .alphabet_bits = sigma, .check_alphabet = false};
        count.fill_bytes(0xA5);
        const auto resolved = detail::string_match::make_plan("bench", m, options).algorithm;
        bench::measure(session, work.runs(a, resolved), "sluice [" + std::string(to_string(a)) + "]",
                       bench::role::subject, true,
                       [&] { string_match(ctx, text.device.span(), pattern.span(), match_count{count.data()}, options); },
                       verify);
      }
      count.fill_bytes(0xA5);
      const occurs_at test{text.device.data(), pattern.data(), m};
      bench::measure(session, work, "thrust::count_if (naive)", bench::role::baseline, true, [&] {
        const auto c = thrust::count_if(thrust::cuda::par.on(ctx.stream()), thrust::counting_iterator<std::size_t>(0),
                                        thrust::counting_iterator<std::size_t>(n - m + 1), test);
        SLUICE_CUDA_CHECK(cudaMemcpyAsync(count.data(), &c, sizeof(std::size_t), cudaMemcpyHostToDevice, ctx.stream()));
      }, verify);
    }
  }
}

}  // namespace

SLUICE_BENCH_CASE("string_match", "sweep of m, binary alphabet", gpu) { sweep(session, 1); }

SLUICE_BENCH_CASE("string_match", "sweep of m, 8-bit alphabet", gpu) { sweep(session, 8); }

// multi_string_match: 1000 patterns of 8 to 64 characters (half cut from the text, half random) in one
// pass, against string_match once per pattern (the baseline), σ = 8, n = 2^28 (quick 2^25). Both count.
SLUICE_BENCH_CASE("string_match", "1000 patterns, one pass", gpu) {
  auto& ctx = session.gpu();
  const std::size_t n = session.quick() ? std::size_t{1} << 25 : std::size_t{1} << 28;
  const text_data text(ctx, n, 8);
  std::mt19937_64 rng(7);
  std::vector<std::string> owned;
  for (int p = 0; p < 1000; ++p) {
    const std::size_t length = 8 + rng() % 57;
    std::string s(length, '\0');
    const std::size_t at = rng() % (n - length);
    for (std::size_t i = 0; i < length; ++i)
      s[i] = static_cast<char>(p % 2 ? text.host[at + i] : static_cast<unsigned char>(rng()));
    owned.push_back(std::move(s));
  }
  const std::vector<std::string_view> patterns(owned.begin(), owned.end());
  const std::size_t expected = host::pattern_matcher(patterns).for_each(text.host, [](std::size_t, std::uint32_t) {});
  const pattern_set set(ctx, patterns);
  std::vector<device_buffer<unsigned char>> one_by_one;
  for (auto p : patterns) one_by_one.emplace_back(ctx, std::span<const unsigned char>(reinterpret_cast<const unsigned char*>(p.data()), p.size()));
  device_buffer<std::size_t> count(ctx, 1), counts(ctx, patterns.size());
  const bench::work_description work{"string_match", "1000 patterns of 8-64 characters", n, static_cast<double>(n)};

  count.fill_bytes(0xA5);
  bench::measure(session, work, "sluice::multi_string_match", bench::role::subject, true,
                 [&] { multi_string_match(ctx, text.device.span(), set, cuda::std::span<string_match_hit>{}, count.data()); },
                 [&] { return count.to_host()[0] == expected; });
  counts.fill_bytes(0xA5);
  bench::measure(session, work, "sluice::string_match once per pattern", bench::role::baseline, true, [&] {
    for (std::size_t p = 0; p < one_by_one.size(); ++p)
      string_match(ctx, text.device.span(), one_by_one[p].span(), match_count{counts.data() + p});
  }, [&] {
    std::size_t total = 0;
    for (std::size_t c : counts.to_host()) total += c;
    return total == expected;
  });
}
