// Benchmarks: the commutative multireduce (Eilers §4.4, Figs. 4.10, 4.11, 4.15, 4.16, Table 4.1) on the
// H100: 2^28 pairs of a u32 label and a u32 value, plus, every commutative strategy that takes m
// (per_bank_shared while one block's shared memory holds m counters, per_bank_multi_pass while it takes
// at most four passes, global_atomic_sets) and automatic, for m = 2^0 … 2^24 (--quick: 2^0, 2^5, 2^8, 2^12, 2^16, 2^20, 2^24)
// with uniform and all-equal labels (the seed's "random" and "degenerate"). At m = 2^20 and 2^24 also
// global_atomic_sets after the partial radix sort by the label's top 8 and 16 bits (Table 4.2; one and
// two onesweep digits), beside automatic and global_atomic_sets with the bits plan.hpp chooses (0 at
// 2^20, 8 at 2^24 on an H100: choose_partial_sort_bits, provisional until these rows are measured).
// Case names end in "m = 2^k", so `sluice bench --plot` draws ns per pair against m.
//
// Bytes: 8 per pair (label and value read once; the m outputs are negligible up to 2^24 · 4 bytes =
// 64 MiB, which is 3% of the input). Baseline in the same run: cub::DeviceHistogram::HistogramEven over
// the labels at the same bin count (a histogram: counts, no values, so 4 bytes per item of work against
// our 8), skipped where its temporary storage does not fit the device (it asks for gigabytes near 2^24
// bins), which the run says on stderr. Expected sums (and CUB's counts) come from one
// sluice::host::multireduce over 2^24 fine labels: uniform labels over 2^k buckets are the top k bits
// of the 2^24-range draw (data::scale_to_range), so each bucket's expected sum is a run of fine sums.
#include "harness/measure.hpp"

#include <sluice/data/generate.cuh>
#include <sluice/host/multireduce.hpp>
#include <sluice/multireduce.cuh>

#include <cub/device/device_histogram.cuh>

#include <string>
#include <vector>

namespace {

using namespace sluice;

constexpr std::size_t pairs = std::size_t{1} << 28;
constexpr int fine_bits = 24;

std::vector<int> log_bucket_counts(const bench::case_context& session) {
  if (session.quick()) return {0, 5, 8, 12, 16, 20, 24};
  std::vector<int> all;
  for (int k = 0; k <= fine_bits; ++k) all.push_back(k);
  return all;
}

/// A bucket's sum and count: the expected multireduce and the expected CUB histogram in one host pass.
struct sum_count {
  std::uint32_t sum;
  std::uint32_t count;
};
struct sum_count_op {
  template <class T>
  static constexpr T identity() { return T{0, 0}; }
  sum_count operator()(const sum_count& a, const sum_count& b) const { return {a.sum + b.sum, a.count + b.count}; }
};

data::distribution_spec label_spec(data::distribution d, std::uint32_t m) { return {d, m, 0.0, 2024}; }
const data::distribution_spec value_spec{data::distribution::uniform, 0, 0.0, 2025};

/// Sums and counts per fine label (uniform over 2^24), from which every m = 2^k is read off.
std::vector<sum_count> fine_totals() {
  const auto labels = data::generate_host<std::uint32_t>(pairs, label_spec(data::distribution::uniform, 1u << fine_bits));
  const auto values = data::generate_host<std::uint32_t>(pairs, value_spec);
  std::vector<sum_count> items(pairs);
  for (std::size_t i = 0; i < pairs; ++i) items[i] = {values[i], 1};
  std::vector<sum_count> fine(std::size_t{1} << fine_bits);
  host::multireduce(std::span<const std::uint32_t>(labels), std::span<const sum_count>(items), std::span(fine),
                    sum_count_op{});
  return fine;
}

/// The expected sums and counts at m = 2^k for uniform labels (runs of fine totals) or all-equal ones
/// (everything in the generator's one label).
void expected_at(const std::vector<sum_count>& fine, data::distribution d, int k, std::vector<unsigned>& sums,
                 std::vector<int>& counts) {
  const std::uint32_t m = 1u << k;
  sums.assign(m, 0);
  counts.assign(m, 0);
  if (d == data::distribution::all_equal) {
    const std::uint32_t label =
        static_cast<std::uint32_t>(data::sampler<std::uint32_t>(label_spec(d, m), pairs).host_view()(0));
    for (const sum_count& f : fine) {
      sums[label] += f.sum;
      counts[label] += static_cast<int>(f.count);
    }
    return;
  }
  for (std::size_t b = 0; b < fine.size(); ++b) {
    sums[b >> (fine_bits - k)] += fine[b].sum;
    counts[b >> (fine_bits - k)] += static_cast<int>(fine[b].count);
  }
}

/// The commutative strategies that take m u32 buckets here, and automatic.
std::vector<multireduce_algorithm> strategies_for(context& ctx, std::uint32_t m) {
  namespace mr = detail::multireduce;
  std::vector<multireduce_algorithm> all{multireduce_algorithm::automatic};
  if (m <= mr::per_bank_capacity(sizeof(std::uint32_t), mr::device_shared_budget(ctx, 0)))
    all.push_back(multireduce_algorithm::per_bank_shared);
  if (mr::multi_pass_count(m, sizeof(std::uint32_t), mr::device_shared_budget(ctx, 0)) <= 4)
    all.push_back(multireduce_algorithm::per_bank_multi_pass);
  all.push_back(multireduce_algorithm::global_atomic_sets);
  return all;
}

/// The strategy a plan runs, as the rows name it ("global_atomic_sets + partial sort 8 bits").
std::string strategy_name(const detail::multireduce::plan& plan) {
  std::string name(to_string(plan.algorithm));
  if (plan.algorithm == multireduce_algorithm::global_atomic_sets && plan.partial_sort_bits > 0)
    name += " + partial sort " + std::to_string(plan.partial_sort_bits) + " bits";
  return name;
}

/// The partial sort bits measured at 2^k buckets: one and two radix digits at m = 2^20 and 2^24.
std::vector<int> partial_sort_bits_measured(int k) {
  return k == 20 || k == 24 ? std::vector<int>{8, 16} : std::vector<int>{};
}

void sweep(bench::case_context& session, data::distribution d) {
  auto& ctx = session.gpu();
  static const std::vector<sum_count> fine = fine_totals();
  device_buffer<std::uint32_t> labels(ctx, pairs), values(ctx, pairs);
  data::generate(ctx, values.span(), value_spec);
  for (int k : log_bucket_counts(session)) {
    const std::uint32_t m = 1u << k;
    data::generate(ctx, labels.span(), label_spec(d, m));
    std::vector<unsigned> sums;
    std::vector<int> counts;
    expected_at(fine, d, k, sums, counts);
    const bench::work_description work{"multireduce",
                                       "plus u32 " + std::string(data::to_string(d)) + ", m = 2^" + std::to_string(k),
                                       pairs, 8.0 * static_cast<double>(pairs)};
    device_buffer<unsigned> out(ctx, m);
    auto subject = [&](const std::string& name, const multireduce_options& options) {
      out.fill_bytes(0xA5);
      const std::string resolved = strategy_name(detail::multireduce::resolve<std::uint32_t, plus>(ctx, "bench", m, pairs, options));
      bench::measure(session, work.runs_strategy(options.algorithm == multireduce_algorithm::automatic ? "automatic" : name, resolved),
                     "sluice::multireduce " + name, bench::role::subject, true,
                     [&] { multireduce(ctx, labels.span(), values.span(), out.span(), plus{}, nullptr, options); },
                     [&] { return out.to_host() == sums; });
    };
    for (multireduce_algorithm a : strategies_for(ctx, m)) subject(std::string(to_string(a)), {.algorithm = a});
    for (int bits : partial_sort_bits_measured(k))
      subject("global_atomic_sets + partial sort " + std::to_string(bits) + " bits",
              {.algorithm = multireduce_algorithm::global_atomic_sets, .partial_sort_bits = bits});
    device_buffer<int> histogram(ctx, m);
    auto cub_run = [&](void* temp, std::size_t& bytes) {
      SLUICE_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(temp, bytes, labels.data(), histogram.data(),
                                                            static_cast<int>(m + 1), 0u, m, static_cast<int>(pairs),
                                                            ctx.stream()));
    };
    std::size_t temp_bytes = 0;
    cub_run(nullptr, temp_bytes);
    if (!bench::cub_histogram_runs(m, temp_bytes, "cub::DeviceHistogram::HistogramEven at m = 2^" + std::to_string(k)))
      continue;
    device_buffer<char> temp(ctx, temp_bytes);
    histogram.fill_bytes(0xA5);
    bench::measure(session, work, "cub::DeviceHistogram::HistogramEven (counts only)", bench::role::baseline, true,
                   [&] { cub_run(temp.data(), temp_bytes); }, [&] { return histogram.to_host() == counts; });
  }
}

}  // namespace

SLUICE_BENCH_CASE("multireduce", "plus u32 uniform, m = 2^0 ... 2^24", gpu) { sweep(session, data::distribution::uniform); }

SLUICE_BENCH_CASE("multireduce", "plus u32 all_equal, m = 2^0 ... 2^24", gpu) {
  sweep(session, data::distribution::all_equal);
}
