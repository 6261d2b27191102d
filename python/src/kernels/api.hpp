// sluice/python/api.hpp: the type-erased C++ API of libsluice_python_kernels, the library that holds every
// instantiation the Python module calls. Plain C++ (no CUDA or Python headers), so that the nanobind module
// `_sluice` compiles as host C++ against any Python and links the prebuilt library.
//
// An array is a contiguous run of elements: pointer, dtype, length and device (−1: host memory). A call
// names the device and the stream (cudaStream_t as an integer) it runs on; device −1 runs the CPU
// backend (sluice/host/) or, for families it lacks, the sequential oracles (sluice/reference/). Every
// GPU function is asynchronous on the call's stream, except those documented to read a count back
// (they synchronise that stream, never the device). Operators and strategies are enums parsed from
// their C++ names by parse_* (api.cu, the one place that knows the names).
//
// Errors leave as sluice::python::error with a kind the module maps to a Python exception:
// sluice::invalid_argument → value (message kept, with the index), out_of_memory → memory, other CUDA
// errors → runtime, an unsupported dtype → type (naming the supported ones).
#pragma once

#include <sluice/options/histogram.hpp>
#include <sluice/options/merge_sort.hpp>
#include <sluice/options/multireduce.hpp>
#include <sluice/options/multiscan.hpp>
#include <sluice/options/multisplit.hpp>
#include <sluice/options/radix_sort.hpp>
#include <sluice/options/reduce.hpp>
#include <sluice/options/scan.hpp>
#include <sluice/options/scatter.hpp>
#include <sluice/options/search.hpp>
#include <sluice/options/segmented.hpp>
#include <sluice/options/transpose.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace sluice::python {

// ---- arrays, calls, errors ------------------------------------------------------------------------------

enum class dtype : std::uint8_t { bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, float64 };

[[nodiscard]] std::string_view name(dtype type);
[[nodiscard]] std::size_t itemsize(dtype type);

struct array {
  void* data = nullptr;
  std::size_t size = 0;
  dtype type = dtype::float32;
  int device = -1;  ///< CUDA device ordinal; −1: host memory
};

struct call {
  int device = -1;             ///< −1: the CPU backend
  std::uintptr_t stream = 0;   ///< cudaStream_t of the device work
  [[nodiscard]] bool on_host() const { return device < 0; }
};

enum class error_kind { value, type, memory, runtime };

class error : public std::runtime_error {
 public:
  error(error_kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  [[nodiscard]] error_kind kind() const noexcept { return kind_; }

 private:
  error_kind kind_;
};

/// A scalar argument (init, lower, upper, threshold): held as the widest of each kind, converted to the
/// array's dtype by the callee.
struct scalar {
  enum class kind : std::uint8_t { integer, floating } held = kind::integer;
  std::int64_t integer = 0;
  double floating = 0;
  static scalar of(std::int64_t v) { return {kind::integer, v, static_cast<double>(v)}; }
  static scalar of(double v) { return {kind::floating, static_cast<std::int64_t>(v), v}; }
};

// ---- names ------------------------------------------------------------------------------------------------

/// The operators of the reductions and scans by name: sum (alias plus), prod, min, max, and (bit_and),
/// or (bit_or), xor (bit_xor), mean (multireduce only).
enum class operator_kind { sum, prod, min, max, bit_and, bit_or, bit_xor, mean };

/// Comparisons of select_if / stable_partition against a scalar: lt, le, gt, ge, eq, ne.
enum class comparison { lt, le, gt, ge, eq, ne };

/// multisplit's bucket identifiers (options/multisplit.hpp, buckets::): identity, delta, bit_field, splitters.
enum class bucket_kind { identity, delta, bit_field, splitters };

operator_kind parse_operator(std::string_view name);
comparison parse_comparison(std::string_view name);
bucket_kind parse_bucket(std::string_view name);
reduce_algorithm parse_reduce_algorithm(std::string_view name);
scan_algorithm parse_scan_algorithm(std::string_view name);
segmented_algorithm parse_segmented_algorithm(std::string_view name);
transpose_algorithm parse_transpose_algorithm(std::string_view name);
scatter_algorithm parse_scatter_algorithm(std::string_view name);
scatter_semantics parse_scatter_semantics(std::string_view name);
multisplit_algorithm parse_multisplit_algorithm(std::string_view name);
radix_sort_algorithm parse_radix_sort_algorithm(std::string_view name);
histogram_algorithm parse_histogram_algorithm(std::string_view name);
multireduce_algorithm parse_multireduce_algorithm(std::string_view name);
multiscan_algorithm parse_multiscan_algorithm(std::string_view name);
merge_sort_algorithm parse_merge_sort_algorithm(std::string_view name);
search_algorithm parse_search_algorithm(std::string_view name);

// ---- the device ---------------------------------------------------------------------------------------------

struct device_info {
  int device = -1;
  std::string name;
  int compute_capability = 0;  ///< major·10 + minor
  int sm_count = 0;
  std::size_t global_memory_bytes = 0;
  std::size_t l2_cache_bytes = 0;
  double theoretical_bandwidth = 0;  ///< bytes/s from the memory clock and bus width
  int cccl_version = 0;              ///< CCCL_VERSION the library was built with (MMMmmmppp)
  int cuda_runtime_version = 0;
};

/// Number of CUDA devices; 0 (and `reason`) where there is no driver or device.
int device_count(std::string* reason = nullptr);
device_info info(int device);
/// The device of a pointer (−1: host memory, pageable or pinned); managed memory reports its device.
int pointer_device(const void* pointer);
/// Blocks until the call's stream has finished its work (for timing and tests).
void synchronize(const call& c);
/// The time of one tiny sluice::reduce call (n elements of float32 in device memory, on c's stream) as a
/// C++ caller sees it, median over `repetitions` calls, in seconds: the baseline of the binding overhead.
double time_cpp_reduce(const call& c, const array& in, const array& out, int repetitions);

// ---- the families (sluice/<family>.cuh; N-D arrays arrive flattened) -----------------------------------

/// out[0] = identity(op) ⊕ in[0] ⊕ … (op: sum, prod, min, max).
void reduce(const call& c, const array& in, const array& out, operator_kind op, reduce_algorithm algorithm);

/// Inclusive or exclusive scan (op: sum, prod, min, max); init defaults to the identity.
void scan(const call& c, const array& in, const array& out, bool inclusive, operator_kind op,
          std::optional<scalar> init, scan_algorithm algorithm);

/// Segmented scans: segments by head flags (1-byte, nonzero = head) or by offsets (uint64/int64,
/// segments + 1 entries); op: sum, min, max.
void segmented_scan(const call& c, const array& values, const array* flags, const array* offsets, const array& out,
                    bool inclusive, operator_kind op, std::optional<scalar> init, segmented_algorithm algorithm);
/// Segmented reduce; by flags, returns the number of segments (reads it back: synchronises the stream);
/// by offsets, returns offsets.size − 1 without synchronising.
std::size_t segmented_reduce(const call& c, const array& values, const array* flags, const array* offsets,
                             const array& out, operator_kind op, std::optional<scalar> init,
                             segmented_algorithm algorithm);
/// Head flags of the runs of equal keys (4- or 8-byte integer keys): flags[i] = i == 0 || k[i] != k[i−1].
void run_heads(const call& c, const array& keys, const array& flags);

/// x_i = a_i·x_{i−1} + b_i (linear) or max(x_{i−1} + a_i, b_i) (max_plus), x_0 = b_0.
void recurrence(const call& c, const array& a, const array& b, const array& x, bool max_plus);

/// select_flagged / select_if / unique: writes the selected elements to out's front, returns how many
/// (reads the count back: synchronises the stream).
std::size_t select_flagged(const call& c, const array& in, const array& flags, const array& out);
std::size_t select_if(const call& c, const array& in, const array& out, comparison cmp, scalar value);
std::size_t unique(const call& c, const array& in, const array& out);
/// Stable partition (x cmp value first); returns the count of the first group (synchronises).
std::size_t stable_partition(const call& c, const array& in, const array& out, comparison cmp, scalar value);
/// Three-way partition: x < pivot, x == pivot, x > pivot; returns the first two groups' sizes (synchronises).
std::pair<std::size_t, std::size_t> stable_partition_3way(const call& c, const array& in, const array& out,
                                                           scalar pivot);

void transpose(const call& c, const array& in, const array& out, std::size_t rows, std::size_t cols,
               transpose_algorithm algorithm);

/// gather: out[i] = values[indices[i]]; scatter: out[indices[i]] = values[i]. Returns the number of
/// skipped (out-of-range) indices when count_skipped (synchronises), else 0.
std::size_t gather(const call& c, const array& values, const array& indices, const array& out, bool strict,
                   bool count_skipped);
std::size_t scatter(const call& c, const array& values, const array& indices, const array& out,
                    scatter_semantics semantics, scatter_algorithm algorithm, bool strict, bool count_skipped);

/// Stable multisplit into m buckets by a bucket identifier; offsets (uint64, m + 1) always written.
/// Returns the dropped count (synchronises only when count_dropped).
struct bucket_spec {
  bucket_kind kind = bucket_kind::identity;
  scalar delta = scalar::of(std::int64_t{1});
  int first_bit = 0;
  int bits = 0;
  const array* splitters = nullptr;
};
std::size_t multisplit(const call& c, const array& keys, const array* values, const array& out_keys,
                       const array* out_values, std::uint32_t m, const bucket_spec& bucket, const array& offsets,
                       multisplit_algorithm algorithm, bool strict, bool count_dropped);

void radix_sort(const call& c, const array& keys, const array* values, const array& out_keys, const array* out_values,
                const radix_sort_options& options);
void merge_sort(const call& c, const array& keys, const array* values, const array& out_keys, const array* out_values,
                bool descending, merge_sort_algorithm algorithm);

/// lower_bound / upper_bound of each query in sorted_keys; out int32 or int64.
void search(const call& c, const array& sorted_keys, const array& queries, const array& out, bool upper,
            search_algorithm algorithm, bool queries_sorted);

/// Histograms (bins int32/int64 counters, or weights' dtype when weighted): even bins over [lower, upper),
/// range bins by splitters, or one bin per integer value (bincount: bin = sample, samples outside [0, m)
/// not counted).
void histogram_even(const call& c, const array& samples, const array* weights, const array& bins, scalar lower,
                    scalar upper, histogram_algorithm algorithm, bool accumulate);
void histogram_range(const call& c, const array& samples, const array* weights, const array& splitters,
                     const array& bins, histogram_algorithm algorithm, bool accumulate);
void bincount(const call& c, const array& samples, const array* weights, const array& bins,
              histogram_algorithm algorithm, bool accumulate);

/// out[k] = ⊕ of the values labelled k (m = out.size; op: sum, prod, min, max, and, or, xor; the
/// module composes mean from sum and bincount). Returns the dropped count (synchronises only when
/// count_dropped). On the host, options.algorithm and deterministic do not apply (the CPU backend's
/// automatic strategy runs).
std::size_t multireduce(const call& c, const array& labels, const array& values, const array& out, operator_kind op,
                        const multireduce_options& options, bool count_dropped);

/// Inclusive or exclusive multiscan (op: sum, prod, min, max) into out; totals (m entries) optional.
std::size_t multiscan(const call& c, const array& labels, const array& values, const array& out, std::uint32_t m,
                      bool inclusive, operator_kind op, const array* totals, multiscan_algorithm algorithm,
                      bool strict, bool count_dropped);
/// rank[i] (uint32) = earlier elements with the same label; counts (uint64, m) optional.
std::size_t multitag(const call& c, const array& labels, const array& rank, std::uint32_t m, const array* counts,
                     multiscan_algorithm algorithm, bool strict, bool count_dropped);

}  // namespace sluice::python
