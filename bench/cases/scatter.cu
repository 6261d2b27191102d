// Benchmarks: gather and scatter of u32 values by u32 indices, identity and pseudo-random permutation,
// against thrust::gather / thrust::scatter on the same data; scatter's last_writer rows show what
// determinism costs (claim pass + write pass). Scatter runs automatic (plain "sluice::scatter") and each
// strategy by name, "[direct]" and "[partial_sort]" (Eilers §4.5.1: the pairs sorted by the index's top
// bits first, chosen bits; docs/perf-notes.md holds its prediction), each with both semantics.
// Bytes: values read + indices read + out written, 12 per element (random indices really move a
// 32-byte sector per 4-byte value, which the % of copy shows; the partial sort's passes are not counted).
// The permutation is a bijection of [0, 2^k) computed identically on host (oracle) and device (indices).
// The model column (docs/model.md) predicts gather and scatter's direct any_writer rows.
#include "harness/measure.hpp"

#include <sluice/core/launch.hpp>
#include <sluice/data/generate.cuh>
#include <sluice/scatter.cuh>

#include <thrust/execution_policy.h>
#include <thrust/gather.h>
#include <thrust/scatter.h>

#include <bit>
#include <string>

namespace {

using namespace sluice;

/// i ↦ a pseudo-random position of [0, 2^bits): affine maps with odd multipliers and xor-shifts, each a
/// bijection modulo 2^bits, so the whole is a permutation whose neighbours land far apart.
__host__ __device__ std::uint32_t permuted(std::uint32_t i, int bits) {
  const std::uint32_t mask = bits == 32 ? ~0u : (1u << bits) - 1;
  const int shift = bits / 2 + 1;
  auto mix = [&](std::uint32_t x, std::uint32_t odd_multiplier) {
    x = (x * odd_multiplier + 0x7F4A7C15u) & mask;
    return x ^ (x >> shift);
  };
  return mix(mix(mix(i, 0x9E3779B1u), 0x85EBCA77u), 0xC2B2AE3Du);
}

enum class index_pattern { identity, permutation };

std::string pattern_name(index_pattern p) { return p == index_pattern::identity ? "identity" : "random permutation"; }

__global__ void fill_indices_kernel(std::uint32_t* indices, std::size_t n, int bits, index_pattern p) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    indices[i] = p == index_pattern::identity ? static_cast<std::uint32_t>(i) : permuted(static_cast<std::uint32_t>(i), bits);
}

std::uint32_t host_index(index_pattern p, std::size_t i, int bits) {
  return p == index_pattern::identity ? static_cast<std::uint32_t>(i) : permuted(static_cast<std::uint32_t>(i), bits);
}

std::vector<std::size_t> sizes(const bench::case_context& session) {
  return session.quick() ? std::vector<std::size_t>{std::size_t{1} << 24, std::size_t{1} << 28}
                         : bench::powers_of_two(16, 28, 4);
}

/// The device arrays of one case: values, indices of the pattern (n a power of two), out.
struct operands {
  operands(context& ctx, std::size_t n, index_pattern p)
      : values(ctx, n), indices(ctx, n), out(ctx, n), spec{data::distribution::uniform, 0, 0.0, n} {
    data::generate(ctx, values.span(), spec);
    const unsigned grid = static_cast<unsigned>(detail::one_wave_grid(ctx, fill_indices_kernel, 256, detail::ceil_div(n, 256)));
    fill_indices_kernel<<<grid, 256, 0, ctx.stream()>>>(indices.data(), n, std::countr_zero(n), p);
    SLUICE_CHECK_LAUNCH();
  }
  device_buffer<std::uint32_t> values, indices, out;
  data::distribution_spec spec;
};

/// Runs `rows(d, work, verify)` at every size; `place(expected, values, i, bits)` puts the oracle's
/// share of element i into `expected` (values: the generated input, on the host).
template <class Place, class Rows>
void index_case(bench::case_context& session, const std::string& operation, index_pattern p, Place place, Rows rows) {
  auto& ctx = session.gpu();
  for (std::size_t n : sizes(session)) {
    operands d(ctx, n, p);
    const int bits = std::countr_zero(n);
    std::vector<std::uint32_t> expected(n);
    {
      const auto values = data::generate_host<std::uint32_t>(n, d.spec);
      for (std::size_t i = 0; i < n; ++i) place(expected, values, i, bits);
    }
    auto verify = [&] { return d.out.to_host() == expected; };
    const bench::work_description work{"scatter", operation + " " + pattern_name(p) + " u32", n,
                                       12.0 * static_cast<double>(n)};
    rows(d, work, verify);
  }
}

void gather_case(bench::case_context& session, index_pattern p) {
  auto& ctx = session.gpu();
  auto place = [p](std::vector<std::uint32_t>& expected, const std::vector<std::uint32_t>& values, std::size_t i,
                   int bits) { expected[i] = values[host_index(p, i, bits)]; };
  index_case(session, "gather", p, place, [&](operands& d, const bench::work_description& work, auto& verify) {
    const std::size_t n = work.items;
    d.out.fill_bytes(0xA5);
    bench::work_description modelled = work;
    modelled.model = model::problem{.family = "gather", .algorithm = "direct", .n = n, .key_bytes = 4, .value_bytes = 4,
                                    .random_indices = p != index_pattern::identity};
    bench::measure(session, modelled, "sluice::gather", bench::role::subject, true,
                   [&] { gather(ctx, d.values.span(), d.indices.span(), d.out.span()); }, verify);
    d.out.fill_bytes(0xA5);
    bench::measure(session, work, "thrust::gather", bench::role::baseline, true, [&] {
      thrust::gather(thrust::cuda::par_nosync.on(ctx.stream()), d.indices.data(), d.indices.data() + n, d.values.data(),
                     d.out.data());
    }, verify);
  });
}

/// "sluice::scatter", "sluice::scatter [last_writer]", "sluice::scatter [partial_sort, last_writer]", …
std::string scatter_row(scatter_algorithm algorithm, scatter_semantics semantics) {
  std::string tags = algorithm == scatter_algorithm::automatic ? "" : std::string(to_string(algorithm));
  if (semantics == scatter_semantics::last_writer) tags += tags.empty() ? "last_writer" : ", last_writer";
  return tags.empty() ? "sluice::scatter" : "sluice::scatter [" + tags + "]";
}

void scatter_case(bench::case_context& session, index_pattern p) {
  auto& ctx = session.gpu();
  auto place = [p](std::vector<std::uint32_t>& expected, const std::vector<std::uint32_t>& values, std::size_t i,
                   int bits) { expected[host_index(p, i, bits)] = values[i]; };
  index_case(session, "scatter", p, place, [&](operands& d, const bench::work_description& work, auto& verify) {
    const std::size_t n = work.items;
    for (auto algorithm : {scatter_algorithm::automatic, scatter_algorithm::direct, scatter_algorithm::partial_sort})
      for (auto semantics : {scatter_semantics::any_writer, scatter_semantics::last_writer}) {
        d.out.fill_bytes(0xA5);
        const std::string sweep =
            work.name + (semantics == scatter_semantics::last_writer ? ", last_writer" : ", any_writer");
        const auto resolved = detail::scatter::resolve({.semantics = semantics, .algorithm = algorithm});
        bench::work_description row = work.runs(algorithm, resolved, sweep);
        row.model = model::problem{.family = "scatter", .algorithm = std::string(to_string(resolved)), .n = n,
                                   .key_bytes = 4, .value_bytes = 4, .random_indices = p != index_pattern::identity,
                                   .last_writer = semantics == scatter_semantics::last_writer};
        bench::measure(session, row, scatter_row(algorithm, semantics), bench::role::subject, true, [&] {
          scatter(ctx, d.values.span(), d.indices.span(), d.out.span(), nullptr,
                  {.semantics = semantics, .algorithm = algorithm});
        }, verify);
      }
    d.out.fill_bytes(0xA5);
    bench::measure(session, work, "thrust::scatter", bench::role::baseline, true, [&] {
      thrust::scatter(thrust::cuda::par_nosync.on(ctx.stream()), d.values.data(), d.values.data() + n, d.indices.data(),
                      d.out.data());
    }, verify);
  });
}

}  // namespace

SLUICE_BENCH_CASE("scatter", "gather identity u32", gpu) { gather_case(session, index_pattern::identity); }
SLUICE_BENCH_CASE("scatter", "gather random permutation u32", gpu) { gather_case(session, index_pattern::permutation); }
SLUICE_BENCH_CASE("scatter", "scatter identity u32", gpu) { scatter_case(session, index_pattern::identity); }
SLUICE_BENCH_CASE("scatter", "scatter random permutation u32", gpu) { scatter_case(session, index_pattern::permutation); }
