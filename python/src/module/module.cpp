// _sluice: the nanobind module of the Python package `sluice` (docs/python.md). Host C++ only: every
// algorithm runs in libsluice_python_kernels behind api.hpp; this file turns Python arguments into its
// arrays, scalars and enums, allocates the outputs with the caller's library and maps its errors onto
// Python's exceptions.
#include "arrays.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>

#include <limits>
#include <string>
#include <string_view>

namespace sluice::python::module {
namespace {

using namespace nb::literals;

scalar to_scalar(nb::handle value, const char* function, const char* parameter) {
  if (PyBool_Check(value.ptr()) || PyLong_Check(value.ptr())) return scalar::of(nb::cast<std::int64_t>(value));
  if (PyFloat_Check(value.ptr())) return scalar::of(nb::cast<double>(value));
  if (nb::hasattr(value, "item")) return to_scalar(value.attr("item")(), function, parameter);  // 0-d arrays, numpy scalars
  raise(error_kind::type, "sluice." + std::string(function) + ": '" + parameter + "' must be a number");
}

std::optional<scalar> optional_scalar(nb::handle value, const char* function, const char* parameter) {
  if (value.is_none()) return std::nullopt;
  return to_scalar(value, function, parameter);
}

std::uint32_t bucket_count(std::int64_t m, const char* function) {
  if (m < 1 || m > std::int64_t{std::numeric_limits<std::uint32_t>::max()} - 1)
    raise(error_kind::value, "sluice." + std::string(function) + ": 'm' must be in [1, 2^32 - 2], got " + std::to_string(m));
  return static_cast<std::uint32_t>(m);
}

std::int64_t length(const argument& a) { return static_cast<std::int64_t>(a.view.size); }

// ---- reduce, scan ---------------------------------------------------------------------------------------

nb::object reduce(nb::handle x, std::string_view op, std::string_view algorithm, nb::handle out, nb::handle stream) {
  invocation inv("reduce", stream);
  const argument in = inv.input(x, "x");
  const argument result = inv.output(out, {}, in.view.type, "out");
  const operator_kind kind = parse_operator(op);
  const reduce_algorithm how = parse_reduce_algorithm(algorithm);
  {
    nb::gil_scoped_release unlocked;
    python::reduce(inv.context(), in.view, result.view, kind, how);
  }
  return result.object;
}

nb::object scan(bool inclusive, nb::handle x, std::string_view op, nb::handle init, std::string_view algorithm,
                nb::handle out, nb::handle stream) {
  const char* function = inclusive ? "inclusive_scan" : "exclusive_scan";
  invocation inv(function, stream);
  const argument in = inv.input(x, "x");
  const argument result = inv.output(out, in.shape, in.view.type, "out");
  const auto start = optional_scalar(init, function, "init");
  const operator_kind kind = parse_operator(op);
  const scan_algorithm how = parse_scan_algorithm(algorithm);
  {
    nb::gil_scoped_release unlocked;
    python::scan(inv.context(), in.view, result.view, inclusive, kind, start, how);
  }
  return result.object;
}

// ---- segmented ------------------------------------------------------------------------------------------

nb::object segmented_scan(bool inclusive, nb::handle values, nb::handle flags, nb::handle offsets, std::string_view op,
                          nb::handle init, std::string_view algorithm, nb::handle out, nb::handle stream) {
  const char* function = inclusive ? "segmented_inclusive_scan" : "segmented_exclusive_scan";
  invocation inv(function, stream);
  const argument v = inv.input(values, "values");
  const auto f = inv.optional_input(flags, "flags");
  const auto o = inv.optional_input(offsets, "offsets");
  const argument result = inv.output(out, v.shape, v.view.type, "out");
  const auto start = optional_scalar(init, function, "init");
  const operator_kind kind = parse_operator(op);
  const segmented_algorithm how = parse_segmented_algorithm(algorithm);
  {
    nb::gil_scoped_release unlocked;
    python::segmented_scan(inv.context(), v.view, f ? &f->view : nullptr, o ? &o->view : nullptr, result.view, inclusive,
                           kind, start, how);
  }
  return result.object;
}

nb::object segmented_reduce(nb::handle values, nb::handle flags, nb::handle offsets, std::string_view op,
                            nb::handle init, std::string_view algorithm, nb::handle stream) {
  const char* function = "segmented_reduce";
  invocation inv(function, stream);
  const argument v = inv.input(values, "values");
  const auto f = inv.optional_input(flags, "flags");
  const auto o = inv.optional_input(offsets, "offsets");
  // By flags the segments are counted on the device: room for one per element, trimmed after.
  const std::int64_t room = o ? std::max<std::int64_t>(length(*o) - 1, 0) : length(v);
  const argument result = inv.allocate({room}, v.view.type);
  const auto start = optional_scalar(init, function, "init");
  const operator_kind kind = parse_operator(op);
  const segmented_algorithm how = parse_segmented_algorithm(algorithm);
  std::size_t segments = 0;
  {
    nb::gil_scoped_release unlocked;
    segments = python::segmented_reduce(inv.context(), v.view, f ? &f->view : nullptr, o ? &o->view : nullptr,
                                        result.view, kind, start, how);
  }
  return o ? result.object : prefix(result, segments);
}

/// Head flags of the runs of equal keys, made on the device (the by-key forms run on them).
argument run_heads_of(invocation& inv, const argument& keys) {
  argument flags = inv.allocate({length(keys)}, dtype::uint8);
  nb::gil_scoped_release unlocked;
  python::run_heads(inv.context(), keys.view, flags.view);
  return flags;
}

nb::object scan_by_key(bool inclusive, nb::handle keys, nb::handle values, std::string_view op, nb::handle init,
                       nb::handle out, nb::handle stream) {
  const char* function = inclusive ? "inclusive_scan_by_key" : "exclusive_scan_by_key";
  invocation inv(function, stream);
  const argument k = inv.input(keys, "keys");
  const argument v = inv.input(values, "values");
  if (k.view.size != v.view.size)
    raise(error_kind::value, "sluice." + std::string(function) + ": 'values' must have one value per key");
  const argument result = inv.output(out, v.shape, v.view.type, "out");
  const auto start = optional_scalar(init, function, "init");
  const operator_kind kind = parse_operator(op);
  const argument heads = run_heads_of(inv, k);
  {
    nb::gil_scoped_release unlocked;
    python::segmented_scan(inv.context(), v.view, &heads.view, nullptr, result.view, inclusive, kind, start,
                           segmented_algorithm::automatic);
  }
  return result.object;
}

nb::tuple reduce_by_key(nb::handle keys, nb::handle values, std::string_view op, nb::handle stream) {
  const char* function = "reduce_by_key";
  invocation inv(function, stream);
  const argument k = inv.input(keys, "keys");
  const argument v = inv.input(values, "values");
  if (k.view.size != v.view.size)
    raise(error_kind::value, "sluice.reduce_by_key: 'values' must have one value per key");
  const operator_kind kind = parse_operator(op);
  const argument heads = run_heads_of(inv, k);
  const argument unique_keys = inv.allocate({length(k)}, k.view.type);
  const argument aggregates = inv.allocate({length(v)}, v.view.type);
  std::size_t runs = 0;
  {
    nb::gil_scoped_release unlocked;
    python::select_flagged(inv.context(), k.view, heads.view, unique_keys.view);
    runs = python::segmented_reduce(inv.context(), v.view, &heads.view, nullptr, aggregates.view, kind, std::nullopt,
                                    segmented_algorithm::automatic);
  }
  return nb::make_tuple(prefix(unique_keys, runs), prefix(aggregates, runs));
}

// ---- recurrence, select, transpose -----------------------------------------------------------------------

nb::object recurrence(bool max_plus, nb::handle a, nb::handle b, nb::handle out, nb::handle stream) {
  invocation inv(max_plus ? "max_plus_recurrence" : "first_order_linear_recurrence", stream);
  const argument ca = inv.input(a, "a");
  const argument cb = inv.input(b, "b");
  const argument x = inv.output(out, cb.shape, cb.view.type, "out");
  {
    nb::gil_scoped_release unlocked;
    python::recurrence(inv.context(), ca.view, cb.view, x.view, max_plus);
  }
  return x.object;
}

nb::object select_flagged(nb::handle x, nb::handle flags, nb::handle stream) {
  invocation inv("select_flagged", stream);
  const argument in = inv.input(x, "x");
  const argument f = inv.input(flags, "flags");
  const argument out = inv.allocate({length(in)}, in.view.type);
  std::size_t count = 0;
  {
    nb::gil_scoped_release unlocked;
    count = python::select_flagged(inv.context(), in.view, f.view, out.view);
  }
  return prefix(out, count);
}

nb::object select_if(nb::handle x, std::string_view cmp, nb::handle value, nb::handle stream) {
  invocation inv("select_if", stream);
  const argument in = inv.input(x, "x");
  const argument out = inv.allocate({length(in)}, in.view.type);
  const comparison how = parse_comparison(cmp);
  const scalar threshold = to_scalar(value, "select_if", "value");
  std::size_t count = 0;
  {
    nb::gil_scoped_release unlocked;
    count = python::select_if(inv.context(), in.view, out.view, how, threshold);
  }
  return prefix(out, count);
}

nb::object unique(nb::handle x, nb::handle stream) {
  invocation inv("unique", stream);
  const argument in = inv.input(x, "x");
  const argument out = inv.allocate({length(in)}, in.view.type);
  std::size_t count = 0;
  {
    nb::gil_scoped_release unlocked;
    count = python::unique(inv.context(), in.view, out.view);
  }
  return prefix(out, count);
}

nb::tuple stable_partition(nb::handle x, std::string_view cmp, nb::handle value, nb::handle out, nb::handle stream) {
  invocation inv("stable_partition", stream);
  const argument in = inv.input(x, "x");
  const argument result = inv.output(out, {length(in)}, in.view.type, "out");
  const comparison how = parse_comparison(cmp);
  const scalar threshold = to_scalar(value, "stable_partition", "value");
  std::size_t count = 0;
  {
    nb::gil_scoped_release unlocked;
    count = python::stable_partition(inv.context(), in.view, result.view, how, threshold);
  }
  return nb::make_tuple(result.object, count);
}

nb::tuple stable_partition_3way(nb::handle x, nb::handle pivot, nb::handle out, nb::handle stream) {
  invocation inv("stable_partition_3way", stream);
  const argument in = inv.input(x, "x");
  const argument result = inv.output(out, {length(in)}, in.view.type, "out");
  const scalar split = to_scalar(pivot, "stable_partition_3way", "pivot");
  std::pair<std::size_t, std::size_t> counts;
  {
    nb::gil_scoped_release unlocked;
    counts = python::stable_partition_3way(inv.context(), in.view, result.view, split);
  }
  return nb::make_tuple(result.object, counts.first, counts.second);
}

nb::object transpose(nb::handle x, std::string_view algorithm, nb::handle out, nb::handle stream) {
  invocation inv("transpose", stream);
  const argument in = inv.input(x, "x");
  if (in.shape.size() != 2) raise(error_kind::value, "sluice.transpose: 'x' must be 2-D (rows, cols)");
  const std::int64_t rows = in.shape[0], cols = in.shape[1];
  const argument result = inv.output(out, {cols, rows}, in.view.type, "out");
  const transpose_algorithm how = parse_transpose_algorithm(algorithm);
  {
    nb::gil_scoped_release unlocked;
    python::transpose(inv.context(), in.view, result.view, static_cast<std::size_t>(rows), static_cast<std::size_t>(cols),
                      how);
  }
  return reshaped(result, {cols, rows});
}

// ---- gather, scatter, multisplit -------------------------------------------------------------------------

nb::object gather(nb::handle values, nb::handle indices, bool strict, nb::handle out, nb::handle stream) {
  invocation inv("gather", stream);
  const argument v = inv.input(values, "values");
  const argument i = inv.input(indices, "indices");
  const argument result = inv.output(out, i.shape, v.view.type, "out");
  {
    nb::gil_scoped_release unlocked;
    python::gather(inv.context(), v.view, i.view, result.view, strict, false);
  }
  return result.object;
}

nb::object scatter(nb::handle values, nb::handle indices, nb::handle out, std::string_view semantics,
                   std::string_view algorithm, bool strict, nb::handle stream) {
  invocation inv("scatter", stream);
  const argument v = inv.input(values, "values");
  const argument i = inv.input(indices, "indices");
  const argument target = inv.input(out, "out");
  if (!target.object.is(out)) raise(error_kind::value, "sluice.scatter: 'out' must be contiguous (it is written)");
  const scatter_semantics who = parse_scatter_semantics(semantics);
  const scatter_algorithm how = parse_scatter_algorithm(algorithm);
  {
    nb::gil_scoped_release unlocked;
    python::scatter(inv.context(), v.view, i.view, target.view, who, how, strict, false);
  }
  return target.object;
}

nb::tuple multisplit(nb::handle keys, std::int64_t m, nb::handle values, std::string_view bucket, nb::handle delta,
                     int first_bit, int bits, nb::handle splitters, std::string_view algorithm, bool strict,
                     nb::handle stream) {
  const char* function = "multisplit";
  invocation inv(function, stream);
  const argument k = inv.input(keys, "keys");
  const auto v = inv.optional_input(values, "values");
  const auto s = inv.optional_input(splitters, "splitters");
  const std::uint32_t buckets = bucket_count(m, function);
  const argument out_keys = inv.allocate({length(k)}, k.view.type);
  const std::optional<argument> out_values =
      v ? std::optional<argument>(inv.allocate({length(*v)}, v->view.type)) : std::nullopt;
  const argument offsets = inv.allocate({m + 1}, dtype::int64);
  bucket_spec spec{.kind = parse_bucket(bucket), .delta = to_scalar(delta, function, "delta"), .first_bit = first_bit,
                   .bits = bits, .splitters = s ? &s->view : nullptr};
  const multisplit_algorithm how = parse_multisplit_algorithm(algorithm);
  {
    nb::gil_scoped_release unlocked;
    python::multisplit(inv.context(), k.view, v ? &v->view : nullptr, out_keys.view, out_values ? &out_values->view : nullptr,
                       buckets, spec, offsets.view, how, strict, false);
  }
  if (v) return nb::make_tuple(out_keys.object, out_values->object, offsets.object);
  return nb::make_tuple(out_keys.object, offsets.object);
}

// ---- sorting and searching -------------------------------------------------------------------------------

radix_sort_options sort_options(int begin_bit, int end_bit, bool descending, std::string_view algorithm) {
  return {.algorithm = parse_radix_sort_algorithm(algorithm), .begin_bit = begin_bit, .end_bit = end_bit,
          .descending = descending};
}

nb::object radix_sort(nb::handle keys, int begin_bit, int end_bit, bool descending, std::string_view algorithm,
                      nb::handle out, nb::handle stream) {
  invocation inv("radix_sort", stream);
  const argument k = inv.input(keys, "keys");
  const argument result = inv.output(out, k.shape, k.view.type, "out");
  const radix_sort_options options = sort_options(begin_bit, end_bit, descending, algorithm);
  {
    nb::gil_scoped_release unlocked;
    python::radix_sort(inv.context(), k.view, nullptr, result.view, nullptr, options);
  }
  return result.object;
}

nb::tuple radix_sort_pairs(nb::handle keys, nb::handle values, int begin_bit, int end_bit, bool descending,
                           std::string_view algorithm, nb::handle stream) {
  invocation inv("radix_sort_pairs", stream);
  const argument k = inv.input(keys, "keys");
  const argument v = inv.input(values, "values");
  const argument out_keys = inv.allocate(k.shape, k.view.type);
  const argument out_values = inv.allocate(v.shape, v.view.type);
  const radix_sort_options options = sort_options(begin_bit, end_bit, descending, algorithm);
  {
    nb::gil_scoped_release unlocked;
    python::radix_sort(inv.context(), k.view, &v.view, out_keys.view, &out_values.view, options);
  }
  return nb::make_tuple(out_keys.object, out_values.object);
}

nb::object argsort(nb::handle keys, bool descending, std::string_view algorithm, nb::handle stream) {
  invocation inv("argsort", stream);
  const argument k = inv.input(keys, "keys");
  const argument positions = inv.arange(length(k));
  const argument sorted = inv.allocate({length(k)}, k.view.type);
  const argument order = inv.allocate({length(k)}, dtype::int64);
  const radix_sort_options options = sort_options(0, -1, descending, algorithm);
  {
    nb::gil_scoped_release unlocked;
    python::radix_sort(inv.context(), k.view, &positions.view, sorted.view, &order.view, options);
  }
  return order.object;
}

nb::object merge_sort(nb::handle keys, nb::handle values, std::string_view algorithm, nb::handle stream) {
  invocation inv("merge_sort", stream);
  const argument k = inv.input(keys, "keys");
  const auto v = inv.optional_input(values, "values");
  const argument out_keys = inv.allocate(k.shape, k.view.type);
  const std::optional<argument> out_values =
      v ? std::optional<argument>(inv.allocate(v->shape, v->view.type)) : std::nullopt;
  const merge_sort_algorithm how = parse_merge_sort_algorithm(algorithm);
  {
    nb::gil_scoped_release unlocked;
    python::merge_sort(inv.context(), k.view, v ? &v->view : nullptr, out_keys.view,
                       out_values ? &out_values->view : nullptr, false, how);
  }
  if (v) return nb::make_tuple(out_keys.object, out_values->object);
  return out_keys.object;
}

nb::object search(bool upper, nb::handle sorted_keys, nb::handle queries, std::string_view algorithm,
                  bool queries_sorted, nb::handle out, nb::handle stream) {
  invocation inv(upper ? "upper_bound" : "lower_bound", stream);
  const argument k = inv.input(sorted_keys, "sorted_keys");
  const argument q = inv.input(queries, "queries");
  const argument result = inv.output(out, q.shape, dtype::int64, "out");
  const search_algorithm how = parse_search_algorithm(algorithm);
  {
    nb::gil_scoped_release unlocked;
    python::search(inv.context(), k.view, q.view, result.view, upper, how, queries_sorted);
  }
  return result.object;
}

// ---- histograms, multireduce, multiscan ------------------------------------------------------------------

/// The bins: out= (accumulated into when accumulate) or new: int64 counts, or the weights' dtype.
argument bins_of(invocation& inv, nb::handle out, std::int64_t m, const std::optional<argument>& weights) {
  return inv.output(out, {m}, weights ? weights->view.type : dtype::int64, "out");
}

nb::object histogram_even(nb::handle samples, std::int64_t bins, nb::handle lower, nb::handle upper, nb::handle weights,
                          std::string_view algorithm, bool accumulate, nb::handle out, nb::handle stream) {
  const char* function = "histogram_even";
  invocation inv(function, stream);
  const argument s = inv.input(samples, "samples");
  const auto w = inv.optional_input(weights, "weights");
  const argument result = bins_of(inv, out, bins, w);
  if (accumulate && out.is_none()) raise(error_kind::value, "sluice.histogram_even: accumulate needs out=");
  const scalar lo = to_scalar(lower, function, "lower"), hi = to_scalar(upper, function, "upper");
  const histogram_algorithm how = parse_histogram_algorithm(algorithm);
  {
    nb::gil_scoped_release unlocked;
    python::histogram_even(inv.context(), s.view, w ? &w->view : nullptr, result.view, lo, hi, how, accumulate);
  }
  return result.object;
}

nb::object histogram_range(nb::handle samples, nb::handle splitters, nb::handle weights, std::string_view algorithm,
                           bool accumulate, nb::handle out, nb::handle stream) {
  invocation inv("histogram_range", stream);
  const argument s = inv.input(samples, "samples");
  const argument l = inv.input(splitters, "splitters");
  const auto w = inv.optional_input(weights, "weights");
  const argument result = bins_of(inv, out, std::max<std::int64_t>(length(l) - 1, 0), w);
  if (accumulate && out.is_none()) raise(error_kind::value, "sluice.histogram_range: accumulate needs out=");
  const histogram_algorithm how = parse_histogram_algorithm(algorithm);
  {
    nb::gil_scoped_release unlocked;
    python::histogram_range(inv.context(), s.view, w ? &w->view : nullptr, l.view, result.view, how, accumulate);
  }
  return result.object;
}

nb::object bincount(nb::handle samples, std::int64_t m, nb::handle weights, std::string_view algorithm,
                    bool accumulate, nb::handle out, nb::handle stream) {
  invocation inv("bincount", stream);
  const argument s = inv.input(samples, "samples");
  const auto w = inv.optional_input(weights, "weights");
  const argument result = bins_of(inv, out, m, w);
  if (accumulate && out.is_none()) raise(error_kind::value, "sluice.bincount: accumulate needs out=");
  const histogram_algorithm how = parse_histogram_algorithm(algorithm);
  if (m > 0) {
    nb::gil_scoped_release unlocked;
    python::bincount(inv.context(), s.view, w ? &w->view : nullptr, result.view, how, accumulate);
  }
  return result.object;
}

nb::object multireduce(nb::handle labels, nb::handle values, std::int64_t m, std::string_view op,
                       std::string_view algorithm, bool accumulate, bool strict, bool deterministic, unsigned sets,
                       int partial_sort_bits, nb::handle out, nb::handle stream) {
  const char* function = "multireduce";
  invocation inv(function, stream);
  const argument l = inv.input(labels, "labels");
  const argument v = inv.input(values, "values");
  bucket_count(m, function);
  const argument result = inv.output(out, {m}, v.view.type, "out");
  if (accumulate && out.is_none()) raise(error_kind::value, "sluice.multireduce: accumulate needs out=");
  const operator_kind kind = parse_operator(op);
  if (kind == operator_kind::mean)
    raise(error_kind::value, "sluice.multireduce: 'mean' is composed by sluice.multireduce in Python (sum / count)");
  const multireduce_options options{.algorithm = parse_multireduce_algorithm(algorithm), .accumulate = accumulate,
                                    .strict = strict, .deterministic = deterministic, .sets = sets,
                                    .partial_sort_bits = partial_sort_bits};
  {
    nb::gil_scoped_release unlocked;
    python::multireduce(inv.context(), l.view, v.view, result.view, kind, options, false);
  }
  return result.object;
}

nb::object multiscan(bool inclusive, nb::handle labels, nb::handle values, std::int64_t m, std::string_view op,
                     bool totals, std::string_view algorithm, bool strict, nb::handle out, nb::handle stream) {
  const char* function = inclusive ? "multiscan_inclusive" : "multiscan_exclusive";
  invocation inv(function, stream);
  const argument l = inv.input(labels, "labels");
  const argument v = inv.input(values, "values");
  const std::uint32_t buckets = bucket_count(m, function);
  const argument result = inv.output(out, v.shape, v.view.type, "out");
  const std::optional<argument> sums = totals ? std::optional<argument>(inv.allocate({m}, v.view.type)) : std::nullopt;
  const operator_kind kind = parse_operator(op);
  const multiscan_algorithm how = parse_multiscan_algorithm(algorithm);
  {
    nb::gil_scoped_release unlocked;
    python::multiscan(inv.context(), l.view, v.view, result.view, buckets, inclusive, kind, sums ? &sums->view : nullptr,
                      how, strict, false);
  }
  if (sums) return nb::make_tuple(result.object, sums->object);
  return result.object;
}

nb::object multitag(nb::handle labels, std::int64_t m, bool counts, std::string_view algorithm, bool strict,
                    nb::handle stream) {
  invocation inv("multitag", stream);
  const argument l = inv.input(labels, "labels");
  const std::uint32_t buckets = bucket_count(m, "multitag");
  const argument rank = inv.allocate(l.shape, dtype::uint32);
  const std::optional<argument> tally = counts ? std::optional<argument>(inv.allocate({m}, dtype::int64)) : std::nullopt;
  const multiscan_algorithm how = parse_multiscan_algorithm(algorithm);
  {
    nb::gil_scoped_release unlocked;
    python::multitag(inv.context(), l.view, rank.view, buckets, tally ? &tally->view : nullptr, how, strict, false);
  }
  if (tally) return nb::make_tuple(rank.object, tally->object);
  return rank.object;
}

// ---- the device, timing ----------------------------------------------------------------------------------

nb::dict info(int device) {
  nb::dict out;
  std::string reason;
  const int devices = python::device_count(&reason);
  out["device_count"] = devices;
  if (devices == 0) {
    out["device"] = nb::none();
    out["reason"] = reason;
    return out;
  }
  const device_info d = python::info(device);
  out["device"] = d.device;
  out["name"] = d.name;
  out["compute_capability"] = nb::make_tuple(d.compute_capability / 10, d.compute_capability % 10);
  out["sm_count"] = d.sm_count;
  out["global_memory_bytes"] = d.global_memory_bytes;
  out["l2_cache_bytes"] = d.l2_cache_bytes;
  out["theoretical_bandwidth_gbps"] = d.theoretical_bandwidth / 1e9;
  out["cccl_version"] = std::to_string(d.cccl_version / 1000000) + "." + std::to_string(d.cccl_version / 1000 % 1000) +
                        "." + std::to_string(d.cccl_version % 1000);
  out["cuda_runtime_version"] = std::to_string(d.cuda_runtime_version / 1000) + "." +
                                std::to_string(d.cuda_runtime_version % 1000 / 10);
  return out;
}

void synchronize_stream(nb::handle x, nb::handle stream) {
  invocation inv("synchronize", stream);
  inv.input(x, "x");
  nb::gil_scoped_release unlocked;
  python::synchronize(inv.context());
}

double time_cpp_reduce(nb::handle x, nb::handle out, int repetitions, nb::handle stream) {
  invocation inv("time_cpp_reduce", stream);
  const argument in = inv.input(x, "x");
  const argument result = inv.input(out, "out");
  nb::gil_scoped_release unlocked;
  return python::time_cpp_reduce(inv.context(), in.view, result.view, repetitions);
}

}  // namespace
}  // namespace sluice::python::module

NB_MODULE(_sluice, module_) {
  namespace nb = nanobind;
  namespace mod = sluice::python::module;
  namespace sp = sluice::python;
  using namespace nb::literals;
  module_.doc() = "sluice's compiled bindings; use the package `sluice` (docs/python.md)";

  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const sp::error& e) {
      switch (e.kind()) {
        case sp::error_kind::value: PyErr_SetString(PyExc_ValueError, e.what()); break;
        case sp::error_kind::type: PyErr_SetString(PyExc_TypeError, e.what()); break;
        case sp::error_kind::memory: PyErr_SetString(PyExc_MemoryError, e.what()); break;
        case sp::error_kind::runtime: PyErr_SetString(PyExc_RuntimeError, e.what()); break;
      }
    }
  });

  const auto none = nb::none();
  module_.def("reduce", &mod::reduce, "x"_a, "op"_a = "sum", nb::kw_only(), "algorithm"_a = "automatic", "out"_a = none,
        "stream"_a = none, "0-d array: op over every element (sum, prod, min, max).");
  module_.def("inclusive_scan", [](nb::handle x, std::string_view op, nb::handle init, std::string_view algorithm, nb::handle out,
                             nb::handle stream) { return mod::scan(true, x, op, init, algorithm, out, stream); },
        "x"_a, "op"_a = "sum", nb::kw_only(), "init"_a = none, "algorithm"_a = "automatic", "out"_a = none,
        "stream"_a = none);
  module_.def("exclusive_scan", [](nb::handle x, std::string_view op, nb::handle init, std::string_view algorithm, nb::handle out,
                             nb::handle stream) { return mod::scan(false, x, op, init, algorithm, out, stream); },
        "x"_a, "op"_a = "sum", nb::kw_only(), "init"_a = none, "algorithm"_a = "automatic", "out"_a = none,
        "stream"_a = none);
  module_.def("segmented_inclusive_scan",
        [](nb::handle values, nb::handle flags, nb::handle offsets, std::string_view op, std::string_view algorithm,
           nb::handle out, nb::handle stream) {
          return mod::segmented_scan(true, values, flags, offsets, op, nb::none(), algorithm, out, stream);
        },
        "values"_a, nb::kw_only(), "flags"_a = none, "offsets"_a = none, "op"_a = "sum", "algorithm"_a = "automatic",
        "out"_a = none, "stream"_a = none);
  module_.def("segmented_exclusive_scan",
        [](nb::handle values, nb::handle flags, nb::handle offsets, std::string_view op, nb::handle init,
           std::string_view algorithm, nb::handle out, nb::handle stream) {
          return mod::segmented_scan(false, values, flags, offsets, op, init, algorithm, out, stream);
        },
        "values"_a, nb::kw_only(), "flags"_a = none, "offsets"_a = none, "op"_a = "sum", "init"_a = none,
        "algorithm"_a = "automatic", "out"_a = none, "stream"_a = none);
  module_.def("segmented_reduce", &mod::segmented_reduce, "values"_a, nb::kw_only(), "flags"_a = none, "offsets"_a = none,
        "op"_a = "sum", "init"_a = none, "algorithm"_a = "automatic", "stream"_a = none);
  module_.def("inclusive_scan_by_key",
        [](nb::handle keys, nb::handle values, std::string_view op, nb::handle out, nb::handle stream) {
          return mod::scan_by_key(true, keys, values, op, nb::none(), out, stream);
        },
        "keys"_a, "values"_a, "op"_a = "sum", nb::kw_only(), "out"_a = none, "stream"_a = none);
  module_.def("exclusive_scan_by_key",
        [](nb::handle keys, nb::handle values, std::string_view op, nb::handle init, nb::handle out, nb::handle stream) {
          return mod::scan_by_key(false, keys, values, op, init, out, stream);
        },
        "keys"_a, "values"_a, "op"_a = "sum", nb::kw_only(), "init"_a = none, "out"_a = none, "stream"_a = none);
  module_.def("reduce_by_key", &mod::reduce_by_key, "keys"_a, "values"_a, "op"_a = "sum", nb::kw_only(), "stream"_a = none);
  module_.def("first_order_linear_recurrence",
        [](nb::handle a, nb::handle b, nb::handle out, nb::handle stream) { return mod::recurrence(false, a, b, out, stream); },
        "a"_a, "b"_a, nb::kw_only(), "out"_a = none, "stream"_a = none);
  module_.def("max_plus_recurrence",
        [](nb::handle a, nb::handle b, nb::handle out, nb::handle stream) { return mod::recurrence(true, a, b, out, stream); },
        "a"_a, "b"_a, nb::kw_only(), "out"_a = none, "stream"_a = none);
  module_.def("select_flagged", &mod::select_flagged, "x"_a, "flags"_a, nb::kw_only(), "stream"_a = none);
  module_.def("select_if", &mod::select_if, "x"_a, "cmp"_a, "value"_a, nb::kw_only(), "stream"_a = none);
  module_.def("unique", &mod::unique, "x"_a, nb::kw_only(), "stream"_a = none);
  module_.def("stable_partition", &mod::stable_partition, "x"_a, "cmp"_a, "value"_a, nb::kw_only(), "out"_a = none,
        "stream"_a = none);
  module_.def("stable_partition_3way", &mod::stable_partition_3way, "x"_a, "pivot"_a, nb::kw_only(), "out"_a = none,
        "stream"_a = none);
  module_.def("transpose", &mod::transpose, "x"_a, nb::kw_only(), "algorithm"_a = "automatic", "out"_a = none,
        "stream"_a = none);
  module_.def("gather", &mod::gather, "values"_a, "indices"_a, nb::kw_only(), "strict"_a = false, "out"_a = none,
        "stream"_a = none);
  module_.def("scatter", &mod::scatter, "values"_a, "indices"_a, "out"_a, nb::kw_only(), "semantics"_a = "any_writer",
        "algorithm"_a = "automatic", "strict"_a = false, "stream"_a = none);
  module_.def("multisplit", &mod::multisplit, "keys"_a, "m"_a, nb::kw_only(), "values"_a = none, "bucket"_a = "identity",
        "delta"_a = 1, "first_bit"_a = 0, "bits"_a = 0, "splitters"_a = none, "algorithm"_a = "automatic",
        "strict"_a = false, "stream"_a = none);
  module_.def("radix_sort", &mod::radix_sort, "keys"_a, nb::kw_only(), "begin_bit"_a = 0, "end_bit"_a = -1,
        "descending"_a = false, "algorithm"_a = "automatic", "out"_a = none, "stream"_a = none);
  module_.def("radix_sort_pairs", &mod::radix_sort_pairs, "keys"_a, "values"_a, nb::kw_only(), "begin_bit"_a = 0,
        "end_bit"_a = -1, "descending"_a = false, "algorithm"_a = "automatic", "stream"_a = none);
  module_.def("argsort", &mod::argsort, "keys"_a, nb::kw_only(), "descending"_a = false, "algorithm"_a = "automatic",
        "stream"_a = none);
  module_.def("merge_sort", &mod::merge_sort, "keys"_a, "values"_a = none, nb::kw_only(), "algorithm"_a = "automatic",
        "stream"_a = none);
  module_.def("lower_bound",
        [](nb::handle k, nb::handle q, std::string_view algorithm, bool queries_sorted, nb::handle out,
           nb::handle stream) { return mod::search(false, k, q, algorithm, queries_sorted, out, stream); },
        "sorted_keys"_a, "queries"_a, nb::kw_only(), "algorithm"_a = "automatic",
        "queries_sorted"_a = false, "out"_a = none, "stream"_a = none);
  module_.def("upper_bound",
        [](nb::handle k, nb::handle q, std::string_view algorithm, bool queries_sorted, nb::handle out,
           nb::handle stream) { return mod::search(true, k, q, algorithm, queries_sorted, out, stream); },
        "sorted_keys"_a, "queries"_a, nb::kw_only(), "algorithm"_a = "automatic",
        "queries_sorted"_a = false, "out"_a = none, "stream"_a = none);
  module_.def("histogram_even", &mod::histogram_even, "samples"_a, "bins"_a, "lower"_a, "upper"_a, nb::kw_only(),
        "weights"_a = none, "algorithm"_a = "automatic", "accumulate"_a = false, "out"_a = none, "stream"_a = none);
  module_.def("histogram_range", &mod::histogram_range, "samples"_a, "splitters"_a, nb::kw_only(), "weights"_a = none,
        "algorithm"_a = "automatic", "accumulate"_a = false, "out"_a = none, "stream"_a = none);
  module_.def("bincount", &mod::bincount, "samples"_a, "m"_a, nb::kw_only(), "weights"_a = none, "algorithm"_a = "automatic",
        "accumulate"_a = false, "out"_a = none, "stream"_a = none);
  module_.def("multireduce", &mod::multireduce, "labels"_a, "values"_a, "m"_a, "op"_a = "sum", nb::kw_only(),
        "algorithm"_a = "automatic", "accumulate"_a = false, "strict"_a = false, "deterministic"_a = false,
        "sets"_a = 0u, "partial_sort_bits"_a = -1, "out"_a = none, "stream"_a = none);
  module_.def("multiscan_inclusive",
        [](nb::handle l, nb::handle v, std::int64_t m, std::string_view op, bool totals, std::string_view algorithm,
           bool strict, nb::handle out, nb::handle stream) {
          return mod::multiscan(true, l, v, m, op, totals, algorithm, strict, out, stream);
        },
        "labels"_a, "values"_a, "m"_a, "op"_a = "sum", nb::kw_only(), "totals"_a = false, "algorithm"_a = "automatic",
        "strict"_a = false, "out"_a = none, "stream"_a = none);
  module_.def("multiscan_exclusive",
        [](nb::handle l, nb::handle v, std::int64_t m, std::string_view op, bool totals, std::string_view algorithm,
           bool strict, nb::handle out, nb::handle stream) {
          return mod::multiscan(false, l, v, m, op, totals, algorithm, strict, out, stream);
        },
        "labels"_a, "values"_a, "m"_a, "op"_a = "sum", nb::kw_only(), "totals"_a = false, "algorithm"_a = "automatic",
        "strict"_a = false, "out"_a = none, "stream"_a = none);
  module_.def("multitag", &mod::multitag, "labels"_a, "m"_a, nb::kw_only(), "counts"_a = false, "algorithm"_a = "automatic",
        "strict"_a = false, "stream"_a = none);
  module_.def("info", &mod::info, "device"_a = 0);
  module_.def("device_count", [] { return sp::device_count(); });
  module_.def("synchronize", &mod::synchronize_stream, "x"_a, nb::kw_only(), "stream"_a = none,
        "Waits for the stream a call on x would use (explicit, else x's library's current stream).");
  module_.def("_time_cpp_reduce", &mod::time_cpp_reduce, "x"_a, "out"_a, "repetitions"_a = 1000, nb::kw_only(),
        "stream"_a = none);
}
