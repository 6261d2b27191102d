// Benchmarks: sluice's histograms (automatic: the warp ballots of Ashkiani §3.7.3, Table 3.11, the
// per-bank shared counters and global atomic sets of Eilers §4.4) against cub::DeviceHistogram on the
// same 2^28 u32 samples, uniform over [0, 2^20), for m = 2 … 2^24 bins: even bins over [0, 2^20)
// against HistogramEven, and range bins (s_0 = 0, s_m = 2^20, m − 1 random splitters between, as in
// the seed) against HistogramRange. CUB's rows are skipped (said on stderr) where its temporary storage
// does not fit the device. Bytes: the samples read once (the counts are negligible up to 2^20 bins;
// at 2^24 the 64 MiB of counters are 6% of the samples).
// Expected counts come from sluice::host::histogram (the CPU backend on all cores).
#include "harness/measure.hpp"

#include <sluice/data/generate.cuh>
#include <sluice/histogram.cuh>
#include <sluice/host/histogram.hpp>

#include <cub/device/device_histogram.cuh>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace sluice;

constexpr std::size_t samples_count = std::size_t{1} << 28;
constexpr std::uint32_t sample_range = 1u << 20;

/// Bin counts of the warp ballots (2 … 256), of the per-bank shared counters (past 256 up to 4096) and
/// of the global atomic sets (2^20, 2^24; more bins than sample values there: bins of width < 1).
std::vector<std::uint32_t> bin_counts(const bench::case_context& session) {
  return session.quick() ? std::vector<std::uint32_t>{2, 32, 256, 4096, 1u << 20, 1u << 24}
                         : std::vector<std::uint32_t>{2,    4,    8,    16,   32,      64,      128,    256,
                                                      512,  1024, 2048, 4096, 1u << 16, 1u << 20, 1u << 24};
}

/// s_0 = 0 < s_1 < … < s_m = sample_range, the inner ones drawn at random.
std::vector<std::uint32_t> random_splitters(std::uint32_t m, std::uint64_t seed) {
  std::vector<std::uint32_t> levels{0, sample_range};
  for (std::uint64_t draw = 0; levels.size() < m + 1; ++draw) {
    for (std::uint32_t x : data::generate_host<std::uint32_t>(m, {data::distribution::uniform, sample_range, 0.0,
                                                                  seed + draw}))
      if (x != 0) levels.push_back(x);
    std::sort(levels.begin(), levels.end());
    levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
    levels.resize(std::min<std::size_t>(levels.size(), m + 1));
    levels.back() = sample_range;
  }
  return levels;
}

/// The samples on the device and on the host (for the expected counts).
struct samples {
  device_buffer<std::uint32_t> device;
  std::vector<std::uint32_t> host;
};

/// Samples uniform over [0, range) (range 0: every u32, as the anchors' CUB run, ../shared/anchors).
samples uniform_samples(context& ctx, std::uint64_t seed, std::uint64_t range = sample_range) {
  const data::distribution_spec spec{data::distribution::uniform, range, 0.0, seed};
  samples s{device_buffer<std::uint32_t>(ctx, samples_count), data::generate_host<std::uint32_t>(samples_count, spec)};
  data::generate(ctx, s.device.span(), spec);
  return s;
}

template <class Binning>
std::vector<unsigned> expected_counts(const std::vector<std::uint32_t>& host, const Binning& binning) {
  std::vector<std::uint64_t> counts(binning.bins());
  host::histogram<std::uint32_t>(host, counts, binning);
  return {counts.begin(), counts.end()};
}

/// A sluice row's place in a sweep of the histogram's strategies (empty strategy: none).
struct sweep_tag {
  std::string strategy;
  std::string work{};  ///< the name the sweep shares (empty: the row's own)
};

/// Times sluice's call (subject) and CUB's (baseline, its temporary storage sized first) on `bins`.
/// `sweep`: the sluice row as one of a strategy sweep (its strategy and the work the sweep shares); the
/// histogram's automatic choice depends on the binning's internals, so its `took` stays empty.
/// `model`: the problem of the sluice row as the model reads it (none: the row's strategy has no counts).
template <class SluiceRun, class CubRun>
void compare(bench::case_context& session, const std::string& name, device_buffer<unsigned>& bins,
             const std::vector<unsigned>& expected, const char* cub_name, SluiceRun sluice_run, CubRun cub_run,
             std::size_t sample_bytes = 4, const sweep_tag& sweep = {},
             const std::optional<model::problem>& model = std::nullopt) {
  bench::work_description work{"histogram", name, samples_count,
                               static_cast<double>(sample_bytes) * static_cast<double>(samples_count)};
  work.model = model;
  auto verify = [&] { return bins.to_host() == expected; };
  bins.fill_bytes(0xA5);
  const bench::work_description subject =
      sweep.strategy.empty() ? work : work.runs_strategy(sweep.strategy, "", sweep.work);
  bench::measure(session, subject, "sluice::" + name.substr(0, name.find(' ')), bench::role::subject, true, sluice_run,
                 verify);
  std::size_t temp_bytes = 0;
  cub_run(nullptr, temp_bytes);
  if (!bench::cub_histogram_runs(expected.size(), temp_bytes, std::string(cub_name) + " for " + name)) return;
  device_buffer<char> temp(session.gpu(), temp_bytes);
  bins.fill_bytes(0xA5);
  bench::measure(session, work, cub_name, bench::role::baseline, true, [&] { cub_run(temp.data(), temp_bytes); },
                 verify);
}

/// compare() for even bins over [0, upper) of the u32 samples: sluice's histogram_even with `options`
/// against cub::DeviceHistogram::HistogramEven over the same bins.
void compare_even(bench::case_context& session, const std::string& name, const samples& s,
                  device_buffer<unsigned>& bins, const std::vector<unsigned>& expected, std::uint32_t upper,
                  const histogram_options& options = {}, const sweep_tag& sweep = {}) {
  auto& ctx = session.gpu();
  const auto m = static_cast<std::uint32_t>(bins.size());
  compare(session, name, bins, expected, "cub::DeviceHistogram::HistogramEven",
          [&] { histogram_even(ctx, s.device.span(), bins.span(), 0u, upper, options); },
          [&](void* temp, std::size_t& bytes) {
            SLUICE_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(temp, bytes, s.device.data(), bins.data(),
                                                                  static_cast<int>(m + 1), 0u, upper,
                                                                  static_cast<int>(samples_count), ctx.stream()));
          },
          4, sweep);
}

}  // namespace

SLUICE_BENCH_CASE("histogram", "histogram_even 2^28 u32", gpu) {
  auto& ctx = session.gpu();
  const samples s = uniform_samples(ctx, 337);
  for (std::uint32_t m : bin_counts(session)) {
    device_buffer<unsigned> bins(ctx, m);
    const auto expected = expected_counts(s.host, host::even_bins<std::uint32_t>(0, sample_range, m));
    compare_even(session, "histogram_even m=" + std::to_string(m), s, bins, expected, sample_range, {}, {"automatic"});
  }
}

// The issue's baseline figures (CUB 0.72-0.79 TB/s at 32-256 bins) are the anchors' run: samples over
// every u32 and even bins over [0, 2^32 − 1). CUB is much slower there than over [0, 2^20), so both rows.
SLUICE_BENCH_CASE("histogram", "histogram_even 2^28 u32 full range", gpu) {
  auto& ctx = session.gpu();
  const samples s = uniform_samples(ctx, 339, 0);
  constexpr std::uint32_t upper = 0xFFFFFFFFu;
  for (std::uint32_t m : bin_counts(session)) {
    device_buffer<unsigned> bins(ctx, m);
    const auto expected = expected_counts(s.host, host::even_bins<std::uint32_t>(0, upper, m));
    compare_even(session, "histogram_even full range m=" + std::to_string(m), s, bins, expected, upper, {},
                 {"automatic"});
  }
}

SLUICE_BENCH_CASE("histogram", "histogram_range 2^28 u32", gpu) {
  auto& ctx = session.gpu();
  const samples s = uniform_samples(ctx, 338);
  const int n = static_cast<int>(samples_count);
  for (std::uint32_t m : bin_counts(session)) {
    if (m > sample_range / 4) continue;  // m + 1 distinct splitters need a wider sample range
    const auto levels = random_splitters(m, 1000 + m);
    const device_buffer<std::uint32_t> d_levels(ctx, std::span<const std::uint32_t>(levels));
    device_buffer<unsigned> bins(ctx, m);
    const auto expected =
        expected_counts(s.host, host::range_bins<std::uint32_t>(std::span<const std::uint32_t>(levels)));
    compare(session, "histogram_range m=" + std::to_string(m), bins, expected, "cub::DeviceHistogram::HistogramRange",
            [&] { histogram_range(ctx, s.device.span(), d_levels.span(), bins.span()); },
            [&](void* temp, std::size_t& bytes) {
              SLUICE_CUDA_CHECK(cub::DeviceHistogram::HistogramRange(temp, bytes, s.device.data(), bins.data(),
                                                                     static_cast<int>(m + 1), d_levels.data(), n,
                                                                     ctx.stream()));
            });
  }
}

/// The 256 values of a byte, one bin each.
struct byte_bin {
  __host__ __device__ int operator()(std::uint8_t x) const { return x; }
};

// The 1-byte strategies (BankTRISH, Eilers §4.5.2; byte_counts; sort_based) against HistogramEven on
// 2^28 uniform bytes, every byte value its own bin (CUB: 257 levels over [0, 256)). Each strategy is a
// row of its own, against the same CUB baseline. Then automatic on all-equal bytes (an image's flat
// regions: one bin takes every sample).
SLUICE_BENCH_CASE("histogram", "histogram 2^28 u8 m=256", gpu) {
  auto& ctx = session.gpu();
  for (auto shape : {data::distribution::uniform, data::distribution::all_equal}) {
    const bool uniform = shape == data::distribution::uniform;
    const auto host_bytes = data::generate_host<std::uint8_t>(samples_count, {shape, 0, 0.0, 341});
    const device_buffer<std::uint8_t> bytes(ctx, std::span<const std::uint8_t>(host_bytes));
    std::vector<unsigned> expected(256, 0);
    for (std::uint8_t x : host_bytes) ++expected[x];
    const int n = static_cast<int>(samples_count);
    device_buffer<unsigned> bins(ctx, 256);
    std::vector<std::pair<histogram_algorithm, const char*>> strategies{{histogram_algorithm::automatic, "automatic"}};
    if (uniform)
      strategies.insert(strategies.begin(), {{histogram_algorithm::bank_trish, "bank_trish"},
                                             {histogram_algorithm::byte_counts, "byte_counts"},
                                             {histogram_algorithm::sort_based, "sort_based"}});
    for (auto [algorithm, label] : strategies)
      compare(session, std::string("histogram u8 ") + (uniform ? "" : "all-equal ") + label + " m=256", bins,
              expected, "cub::DeviceHistogram::HistogramEven",
              [&] { histogram(ctx, bytes.span(), bins.span(), byte_bin{}, {.algorithm = algorithm}); },
              [&](void* temp, std::size_t& bytes_needed) {
                SLUICE_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(temp, bytes_needed, bytes.data(), bins.data(),
                                                                      257, 0, 256, n, ctx.stream()));
              },
              1, uniform ? sweep_tag{label, "histogram u8 m=256"} : sweep_tag{},
              // automatic counts unweighted 1-byte samples by value (byte_counts)
              model::problem{.family = "histogram",
                             .algorithm = algorithm == histogram_algorithm::automatic ? "byte_counts" : label,
                             .n = samples_count, .m = 256, .key_bytes = 1});
  }
}

// sort_based (a radix sort of the bin ids) on the u32 samples of the first case, against HistogramEven.
SLUICE_BENCH_CASE("histogram", "histogram_even 2^28 u32 sort_based", gpu) {
  auto& ctx = session.gpu();
  const samples s = uniform_samples(ctx, 337);
  for (std::uint32_t m : {256u, 1u << 20}) {
    device_buffer<unsigned> bins(ctx, m);
    const auto expected = expected_counts(s.host, host::even_bins<std::uint32_t>(0, sample_range, m));
    compare_even(session, "histogram_even sort_based m=" + std::to_string(m), s, bins, expected, sample_range,
                 {.algorithm = histogram_algorithm::sort_based}, {"sort_based", "histogram_even m=" + std::to_string(m)});
  }
}

// coarse_bins (DTU report ch. 6: the bin ids multisplit by coarse bin, then one kernel counting each
// block's tile in privatised shared counters, a coarse bin at a time) past what one block's shared memory
// holds, against HistogramEven. Samples over every u32 and bins over [0, 2^32 − 1), as in the full range
// case, so that every bin receives samples (over [0, 2^20) only one bin in 16 would at 2^24 bins).
SLUICE_BENCH_CASE("histogram", "histogram_even 2^28 u32 full range coarse_bins", gpu) {
  auto& ctx = session.gpu();
  const samples s = uniform_samples(ctx, 339, 0);
  constexpr std::uint32_t upper = 0xFFFFFFFFu;
  for (std::uint32_t m : {1u << 16, 1u << 20, 1u << 24}) {
    device_buffer<unsigned> bins(ctx, m);
    const auto expected = expected_counts(s.host, host::even_bins<std::uint32_t>(0, upper, m));
    compare_even(session, "histogram_even full range coarse_bins m=" + std::to_string(m), s, bins, expected, upper,
                 {.algorithm = histogram_algorithm::coarse_bins},
                 {"coarse_bins", "histogram_even full range m=" + std::to_string(m)});
  }
}
