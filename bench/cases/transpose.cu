// Benchmarks: sluice::transpose (automatic and the three seed strategies) against cuBLAS's
// cublasSgeam (C = Aᵀ, the standard library way to transpose a float matrix) on the same data.
// Bytes: 2·rows·cols·sizeof(T) (every element read once and written once). Targets (issue): automatic
// at ≥ 85% of the copy bandwidth on 16384 × 16384 and 3·10^8 × 2 floats.
//
// --quick: those two shapes. Otherwise also square sizes 2^10 … 2^14, tall (rows × 2) and wide (2 × cols)
// sweeps, and a crossover study for the skinny limit of `automatic` (skinny_max_bytes in
// detail/transpose/tuning.hpp): the same 2^26 floats as (2^26 / k) × k for k = 4 … 128, through the
// skinny and the vector-tile kernels.
#include "harness/measure.hpp"

#include <sluice/data/generate.cuh>
#include <sluice/reference/transpose.hpp>
#include <sluice/transpose.cuh>

#include <cublas_v2.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace sluice;

struct matrix_shape {
  std::size_t rows;
  std::size_t cols;
};

const char* strategy_name(transpose_algorithm a) {
  switch (a) {
    case transpose_algorithm::automatic: return "sluice::transpose";
    case transpose_algorithm::naive: return "sluice [naive]";
    case transpose_algorithm::tiled: return "sluice [tiled]";
    case transpose_algorithm::tiled_padded: return "sluice [tiled_padded]";
  }
  return "?";
}

constexpr transpose_algorithm every_strategy[] = {transpose_algorithm::automatic, transpose_algorithm::naive,
                                                  transpose_algorithm::tiled, transpose_algorithm::tiled_padded};

void check_cublas(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) throw error(std::string(call) + " failed: " + cublasGetStatusString(status));
}

/// A cuBLAS handle on the context's stream.
class cublas_handle {
 public:
  explicit cublas_handle(context& ctx) {
    check_cublas(cublasCreate(&handle_), "cublasCreate");
    check_cublas(cublasSetStream(handle_, ctx.stream()), "cublasSetStream");
  }
  cublas_handle(const cublas_handle&) = delete;
  cublas_handle& operator=(const cublas_handle&) = delete;
  ~cublas_handle() { (void)cublasDestroy(handle_); }

  /// out = inᵀ. cuBLAS is column-major: the row-major rows × cols `in` is the column-major cols × rows
  /// A (lda = cols), and the row-major cols × rows `out` is the column-major rows × cols C = Aᵀ
  /// (ldc = rows). beta = 0 with B = C is cuBLAS's documented in-place form, so B adds no traffic.
  void transpose(const float* in, float* out, matrix_shape s) const {
    const float one = 1.0f;
    const float zero = 0.0f;
    const int rows = static_cast<int>(s.rows);
    const int cols = static_cast<int>(s.cols);
    check_cublas(cublasSgeam(handle_, CUBLAS_OP_T, CUBLAS_OP_N, rows, cols, &one, in, cols, &zero, out, rows, out, rows),
                 "cublasSgeam");
  }

 private:
  cublasHandle_t handle_ = nullptr;
};

/// One generated float matrix, its oracle transpose, and the output every implementation writes.
struct transpose_work {
  bench::work_description work;
  matrix_shape shape;
  device_buffer<float> in;
  device_buffer<float> out;
  std::vector<float> expected;

  transpose_work(context& ctx, const std::string& name, matrix_shape s)
      : work{"transpose", name, s.rows * s.cols, 2.0 * sizeof(float) * static_cast<double>(s.rows * s.cols)},
        shape(s), in(ctx, s.rows * s.cols), out(ctx, s.rows * s.cols) {
    work.model = model::problem{
        .family = "transpose", .algorithm = "", .n = s.rows * s.cols, .m = s.cols, .key_bytes = sizeof(float)};
    const data::distribution_spec spec{data::distribution::uniform, 0, 0.0, s.rows * 31 + s.cols};
    data::generate(ctx, in.span(), spec);
    expected = reference::transpose<float>(data::generate_host<float>(s.rows * s.cols, spec), s.rows, s.cols);
  }

  /// Times `run` on a poisoned output and verifies what the timed runs left; `as_run` is the row's work.
  void measure(bench::case_context& session, const bench::work_description& as_run, const std::string& implementation,
               bench::role kind, const std::function<void()>& run) {
    out.fill_bytes(0xA5);
    bench::measure(session, as_run, implementation, kind, true, run, [&] { return out.to_host() == expected; });
  }

  /// The kernel a strategy runs on this shape: automatic's tuned choice, or the strategy itself.
  [[nodiscard]] std::string kernel_of(transpose_algorithm a) const {
    if (a != transpose_algorithm::automatic) return std::string(to_string(a));
    switch (detail::transpose::choose(in.data(), out.data(), shape.rows, shape.cols)) {
      case detail::transpose::tuned_kernel::copy: return "copy";
      case detail::transpose::tuned_kernel::skinny: return "skinny";
      case detail::transpose::tuned_kernel::vector_tiled: return "vector_tiled";
      case detail::transpose::tuned_kernel::scalar_tiled: return "scalar_tiled";
    }
    return "?";
  }
};

/// Every strategy (subjects) and cuBLAS (baseline) on one shape.
void compare_strategies(bench::case_context& session, const std::string& name, matrix_shape s) {
  auto& ctx = session.gpu();
  transpose_work w(ctx, name, s);
  for (transpose_algorithm a : every_strategy)
    w.measure(session, w.work.runs_strategy(std::string(to_string(a)), w.kernel_of(a)).running(w.kernel_of(a)),
              strategy_name(a),
              bench::role::subject, [&] { transpose(ctx, w.in.span(), w.out.span(), s.rows, s.cols, {a}); });
  const cublas_handle cublas(ctx);
  w.measure(session, w.work, "cublasSgeam", bench::role::baseline,
            [&] { cublas.transpose(w.in.data(), w.out.data(), s); });
}

std::vector<std::size_t> sizes(const bench::case_context& session, std::vector<std::size_t> quick,
                               std::vector<std::size_t> full) {
  return session.quick() ? std::move(quick) : std::move(full);
}

constexpr std::size_t target_tall_rows = 300'000'000;

}  // namespace

SLUICE_BENCH_CASE("transpose", "f32 square", gpu) {
  for (std::size_t n : sizes(session, {std::size_t{1} << 14}, bench::powers_of_two(10, 14, 1)))
    compare_strategies(session, "f32 square", {n, n});
}

SLUICE_BENCH_CASE("transpose", "f32 tall (rows x 2)", gpu) {
  for (std::size_t rows : sizes(session, {target_tall_rows}, {std::size_t{1} << 20, std::size_t{1} << 24, target_tall_rows}))
    compare_strategies(session, "f32 tall (rows x 2)", {rows, 2});
}

SLUICE_BENCH_CASE("transpose", "f32 wide (2 x cols)", gpu) {
  for (std::size_t cols : sizes(session, {}, {std::size_t{1} << 20, std::size_t{1} << 24, target_tall_rows}))
    compare_strategies(session, "f32 wide (2 x cols)", {2, cols});
}

// Where should `automatic` switch from the skinny path to the tile? Both kernels on the same data.
SLUICE_BENCH_CASE("transpose", "f32 skinny crossover", gpu) {
  if (session.quick()) return;
  auto& ctx = session.gpu();
  const std::size_t n = std::size_t{1} << 26;
  for (std::size_t k = 4; k <= 128; k *= 2) {
    const matrix_shape s{n / k, k};
    transpose_work w(ctx, "f32 " + std::to_string(s.rows) + " x " + std::to_string(k), s);
    // The kernels see elements as words of their size, as sluice::transpose passes them.
    const auto* in = reinterpret_cast<const std::uint32_t*>(w.in.data());
    auto* out = reinterpret_cast<std::uint32_t*>(w.out.data());
    const std::string automatic_kernel = w.kernel_of(transpose_algorithm::automatic);
    w.measure(session, w.work.runs_strategy("automatic", automatic_kernel).running(automatic_kernel),
              "sluice::transpose", bench::role::subject, [&] { transpose(ctx, w.in.span(), w.out.span(), s.rows, s.cols); });
    w.measure(session, w.work.runs_strategy("skinny", "skinny").running("skinny"), "sluice [skinny kernel]",
              bench::role::subject, [&] { detail::transpose::skinny(ctx, in, out, s.rows, s.cols); });
    w.measure(session, w.work.runs_strategy("vector_tiled", "vector_tiled").running("vector_tiled"),
              "sluice [vector tile kernel]", bench::role::subject,
              [&] { detail::transpose::vector_tiled(ctx, in, out, s.rows, s.cols); });
  }
}
