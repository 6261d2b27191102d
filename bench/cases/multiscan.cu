// Benchmarks of multiscan with a non-commutative operator (issue 5 target: m ≤ 256 at ≥ 3× the sort +
// scan-by-key + scatter-back baseline): 2^28 pairs of a u32 label and an affine<u32> value, the inclusive
// multiscan per bucket, labels uniform or all equal, m swept; and multitag at the same sizes. Baselines in
// the same run: the issue's, Thrust's stable_sort_by_key (all 32 bits, on copies) + gather +
// inclusive_scan_by_key + scatter back (Eilers §5.5's pipeline; "vs base" is against it), and the same
// pipeline with CUB's stable radix sort of (label, index) over the bits of m − 1 only and
// cub::DeviceScan::InclusiveScanByKey (fewer bits: faster than Thrust). Bytes:
// the pairs read once and the results written once (20 per pair; multitag 8).
// The research strategies (sequential, sheffler: never automatic's choice) run at 2^24 pairs, the quick
// size, in either mode, with the baseline again at that size: the thesis measured sheffler above 4 ns per
// pair, and sequential's global bucket sets leave a few dozen segments of dependent updates at m ≥ 2^20,
// so 2^28 pairs over 55 timed runs would take minutes per row.
#include "cases/ordered_inputs.hpp"

#include <sluice/multiscan.cuh>
#include <sluice/reference/multireduce.hpp>

#include <cub/device/device_scan.cuh>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>

#include <iterator>
#include <span>
#include <string>
#include <vector>

namespace {

using namespace sluice;
using bench::ordered::affine;

constexpr multiscan_algorithm strategies[] = {multiscan_algorithm::automatic, multiscan_algorithm::block_sort_segmented,
                                              multiscan_algorithm::global_sort_scan_by_key};
constexpr multiscan_algorithm research_strategies[] = {multiscan_algorithm::sequential, multiscan_algorithm::sheffler};
constexpr std::size_t research_pairs = std::size_t{1} << 24;

/// The subjects at the session's size: the research strategies join when that size is theirs.
std::vector<multiscan_algorithm> main_subjects(const bench::case_context& session) {
  std::vector<multiscan_algorithm> subjects(std::begin(strategies), std::end(strategies));
  if (bench::ordered::pair_count(session) <= research_pairs)
    subjects.insert(subjects.end(), std::begin(research_strategies), std::end(research_strategies));
  return subjects;
}

/// Whether the research strategies need cases of their own (the session's size is larger than theirs).
bool research_apart(const bench::case_context& session) { return bench::ordered::pair_count(session) > research_pairs; }

void multiscan_case(bench::case_context& session, std::uint32_t m, data::distribution d, std::size_t n,
                    std::span<const multiscan_algorithm> subjects) {
  auto& ctx = session.gpu();
  const auto in = bench::ordered::make_input(n, m, d);
  const auto expected = reference::multiscan_inclusive(std::span<const std::uint32_t>(in.labels),
                                                       std::span<const affine>(in.values), m, affine_compose{}, affine{1, 0});
  const device_buffer<std::uint32_t> labels(ctx, std::span<const std::uint32_t>(in.labels));
  const device_buffer<affine> values(ctx, std::span<const affine>(in.values));
  device_buffer<affine> out(ctx, n);
  const std::string name = "inclusive affine u32, m = " + std::to_string(m) + ", " + in.label_name;
  const bench::work_description work{"multiscan", name, n, 20.0 * static_cast<double>(n)};
  auto verify = [&] { return out.to_host() == expected.out; };
  for (const multiscan_algorithm algorithm : subjects) {
    if (algorithm == multiscan_algorithm::block_sort_segmented && !detail::multiscan::block_sort_fits<affine>(m)) continue;
    out.fill_bytes(0xA5);
    const auto resolved = detail::multiscan::resolve<affine>("bench", m, {.algorithm = algorithm});
    bench::measure(session, work.runs(algorithm, resolved), "sluice::multiscan_inclusive " + std::string(to_string(algorithm)), bench::role::subject,
                   true,
                   [&] { multiscan_inclusive(ctx, labels.span(), values.span(), out.span(), m, affine_compose{}, {}, nullptr, {.algorithm = algorithm}); },
                   verify);
  }
  device_buffer<std::uint32_t> indices(ctx, n), sorted_labels(ctx, n), sorted_indices(ctx, n);
  device_buffer<affine> gathered(ctx, n), scanned(ctx, n);
  out.fill_bytes(0xA5);
  // The issue's baseline, what a Thrust user writes (Eilers §5.5's pipeline): the labels copied (the sort
  // is in place) and sorted stably over all 32 bits with their indices, the values gathered, scanned by
  // key, scattered back. Measured first, so that "vs base" is against it.
  bench::measure(session, work, "thrust stable_sort_by_key + gather + inclusive_scan_by_key + scatter",
                 bench::role::baseline, true, [&] {
    const auto policy = thrust::cuda::par.on(ctx.stream());
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(sorted_labels.data(), labels.data(), n * sizeof(std::uint32_t),
                                      cudaMemcpyDeviceToDevice, ctx.stream()));
    thrust::sequence(policy, sorted_indices.data(), sorted_indices.data() + n, 0u);
    thrust::stable_sort_by_key(policy, sorted_labels.data(), sorted_labels.data() + n, sorted_indices.data());
    thrust::gather(policy, sorted_indices.data(), sorted_indices.data() + n, values.data(), gathered.data());
    thrust::inclusive_scan_by_key(policy, sorted_labels.data(), sorted_labels.data() + n, gathered.data(),
                                  scanned.data(), thrust::equal_to<std::uint32_t>{}, affine_compose{});
    thrust::scatter(policy, scanned.data(), scanned.data() + n, sorted_indices.data(), out.data());
  }, verify);
  thrust::sequence(thrust::cuda::par.on(ctx.stream()), indices.data(), indices.data() + n, 0u);
  bench::ordered::label_sort<std::uint32_t> sort(ctx, n, m);
  std::size_t temp_bytes = 0;
  SLUICE_CUDA_CHECK(cub::DeviceScan::InclusiveScanByKey(nullptr, temp_bytes, sorted_labels.data(), gathered.data(),
                                                        scanned.data(), affine_compose{}, n, cuda::std::equal_to<>{},
                                                        ctx.stream()));
  device_buffer<char> temp(ctx, temp_bytes);
  out.fill_bytes(0xA5);
  bench::measure(session, work, "cub SortPairs + gather + InclusiveScanByKey + scatter", bench::role::baseline, true, [&] {
    const auto policy = thrust::cuda::par.on(ctx.stream());
    sort(labels.data(), indices.data(), sorted_labels.data(), sorted_indices.data());
    thrust::gather(policy, sorted_indices.data(), sorted_indices.data() + n, values.data(), gathered.data());
    SLUICE_CUDA_CHECK(cub::DeviceScan::InclusiveScanByKey(temp.data(), temp_bytes, sorted_labels.data(), gathered.data(),
                                                          scanned.data(), affine_compose{}, n, cuda::std::equal_to<>{},
                                                          ctx.stream()));
    thrust::scatter(policy, scanned.data(), scanned.data() + n, sorted_indices.data(), out.data());
  }, verify);
}

void multitag_case(bench::case_context& session, std::uint32_t m, data::distribution d, std::size_t n,
                   std::span<const multiscan_algorithm> subjects) {
  auto& ctx = session.gpu();
  const auto host = data::generate_host<std::uint32_t>(n, {d, m, 0.0, m});
  const auto expected = reference::multitag(std::span<const std::uint32_t>(host), m);
  const device_buffer<std::uint32_t> labels(ctx, std::span<const std::uint32_t>(host));
  device_buffer<std::uint32_t> rank(ctx, n);
  const std::string name = std::string("multitag u32, m = ") + std::to_string(m) +
                           (d == data::distribution::all_equal ? ", all equal" : ", uniform");
  const bench::work_description work{"multiscan", name, n, 8.0 * static_cast<double>(n)};
  for (const multiscan_algorithm algorithm : subjects) {
    if (algorithm == multiscan_algorithm::block_sort_segmented && !detail::multiscan::block_sort_fits<std::uint64_t>(m))
      continue;
    rank.fill_bytes(0xA5);
    const auto resolved = detail::multiscan::resolve<std::uint64_t>("bench", m, {.algorithm = algorithm});
    bench::measure(session, work.runs(algorithm, resolved), "sluice::multitag " + std::string(to_string(algorithm)),
                   bench::role::subject, true,
                   [&] { multitag(ctx, labels.span(), rank.span(), m, {}, nullptr, {.algorithm = algorithm}); },
                   [&] { return rank.to_host() == expected.rank; });
  }
}

}  // namespace

/// The sweep in two cases, so that each fits one device call at 2^28 pairs in full mode (about 35 s per
/// (m, distribution) there: 55 timed runs of five rows, the oracle and the checks): the issue's target
/// range and the block sort's (m ≤ 4096), then the large m.
constexpr std::uint32_t small_bucket_limit = 4096;

void multiscan_sweep(bench::case_context& session, bool small) {
  const auto subjects = main_subjects(session);
  for (const std::uint32_t m : bench::ordered::bucket_sweep(session))
    if ((m <= small_bucket_limit) == small)
      for (const data::distribution d : {data::distribution::uniform, data::distribution::all_equal})
        multiscan_case(session, m, d, bench::ordered::pair_count(session), subjects);
}

SLUICE_BENCH_CASE("multiscan", "inclusive affine u32, m swept to 4096", gpu) { multiscan_sweep(session, true); }
SLUICE_BENCH_CASE("multiscan", "inclusive affine u32, m swept from 2^16", gpu) { multiscan_sweep(session, false); }

SLUICE_BENCH_CASE("multiscan", "multitag u32, m swept", gpu) {
  const auto subjects = main_subjects(session);
  for (const std::uint32_t m : bench::ordered::bucket_sweep(session))
    for (const data::distribution d : {data::distribution::uniform, data::distribution::all_equal})
      multitag_case(session, m, d, bench::ordered::pair_count(session), subjects);
}

SLUICE_BENCH_CASE("multiscan", "inclusive affine u32, research strategies at 2^24, m swept", gpu) {
  if (!research_apart(session)) return;  // they ran in the case above
  for (const std::uint32_t m : bench::ordered::bucket_sweep(session))
    for (const data::distribution d : {data::distribution::uniform, data::distribution::all_equal})
      multiscan_case(session, m, d, research_pairs, research_strategies);
}

SLUICE_BENCH_CASE("multiscan", "multitag u32, research strategies at 2^24, m swept", gpu) {
  if (!research_apart(session)) return;
  for (const std::uint32_t m : bench::ordered::bucket_sweep(session))
    for (const data::distribution d : {data::distribution::uniform, data::distribution::all_equal})
      multitag_case(session, m, d, research_pairs, research_strategies);
}
