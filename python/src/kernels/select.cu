// libsluice_python_kernels: stream compaction and stable partitions (sluice/select.cuh; CPU: the sequential
// oracles of sluice/reference/select.hpp, reference speed). select_flagged moves bits (one instantiation
// per element size); the predicates are comparisons with a scalar chosen at run time (one instantiation
// per dtype); unique compares values.
#include "common.hpp"

#include <sluice/reference/select.hpp>
#include <sluice/select.cuh>

#include <algorithm>
#include <vector>

namespace sluice::python {

namespace {
/// x cmp value, the comparison picked at run time (uniform across a launch: no divergence).
template <class T>
struct compare_to {
  comparison cmp;
  T value;
  SLUICE_HOST_DEVICE bool operator()(const T& x) const {
    switch (cmp) {
      case comparison::lt: return x < value;
      case comparison::le: return x <= value;
      case comparison::gt: return x > value;
      case comparison::ge: return x >= value;
      case comparison::eq: return x == value;
      case comparison::ne: return x != value;
    }
    return false;
  }
};

/// Palik's three-way split around a pivot: below, equal, the rest (above, and NaN).
template <class T>
struct around_pivot {
  T pivot;
  SLUICE_HOST_DEVICE group3 operator()(const T& x) const {
    return x < pivot ? group3::first : x == pivot ? group3::second : group3::third;
  }
};

template <class T>
std::size_t copy_out(const std::vector<T>& from, const array& out) {
  std::copy_n(from.begin(), std::min(from.size(), out.size), host_span<T>(out).begin());
  return from.size();
}
}  // namespace

std::size_t select_flagged(const call& c, const array& in, const array& flags, const array& out) {
  return guarded([&] {
    require_type(out, in.type, "select_flagged", "out");
    require_width(flags, 1, "select_flagged", "flags");
    return visit_width(in.type, "select_flagged", "in", [&]<class W>(type_tag<W>) -> std::size_t {
      if (c.on_host())
        return copy_out(reference::select_flagged(host_span<const W>(in), host_span<const std::uint8_t>(flags)), out);
      context& ctx = context_for(c);
      count_slot count(ctx);
      sluice::select_flagged(ctx, device_span<const W>(in), device_span<const std::uint8_t>(flags), device_span<W>(out),
                             count.get());
      return count.read();
    });
  });
}

std::size_t select_if(const call& c, const array& in, const array& out, comparison cmp, scalar value) {
  return guarded([&] {
    require_type(out, in.type, "select_if", "out");
    return visit(numeric_types{}, in.type, "select_if", "in", [&]<class T>(type_tag<T>) -> std::size_t {
      const compare_to<T> pred{cmp, scalar_as<T>(value)};
      if (c.on_host()) return copy_out(reference::select_if(host_span<const T>(in), pred), out);
      context& ctx = context_for(c);
      count_slot count(ctx);
      sluice::select_if(ctx, device_span<const T>(in), device_span<T>(out), count.get(), pred);
      return count.read();
    });
  });
}

std::size_t unique(const call& c, const array& in, const array& out) {
  return guarded([&] {
    require_type(out, in.type, "unique", "out");
    return visit(numeric_types{}, in.type, "unique", "in", [&]<class T>(type_tag<T>) -> std::size_t {
      if (c.on_host()) return copy_out(reference::unique(host_span<const T>(in)), out);
      context& ctx = context_for(c);
      count_slot count(ctx);
      sluice::unique(ctx, device_span<const T>(in), device_span<T>(out), count.get());
      return count.read();
    });
  });
}

std::size_t stable_partition(const call& c, const array& in, const array& out, comparison cmp, scalar value) {
  return guarded([&] {
    require_type(out, in.type, "stable_partition", "out");
    return visit(numeric_types{}, in.type, "stable_partition", "in", [&]<class T>(type_tag<T>) -> std::size_t {
      const compare_to<T> pred{cmp, scalar_as<T>(value)};
      if (c.on_host()) {
        const auto result = reference::stable_partition(host_span<const T>(in), pred);
        if (out.size != in.size) throw invalid_argument("stable_partition", "out", "must have as many elements as in");
        copy_out(result.out, out);
        return result.selected;
      }
      context& ctx = context_for(c);
      count_slot count(ctx);
      sluice::stable_partition(ctx, device_span<const T>(in), device_span<T>(out), count.get(), pred);
      return count.read();
    });
  });
}

std::pair<std::size_t, std::size_t> stable_partition_3way(const call& c, const array& in, const array& out,
                                                           scalar pivot) {
  return guarded([&] {
    require_type(out, in.type, "stable_partition_3way", "out");
    return visit(numeric_types{}, in.type, "stable_partition_3way", "in",
                 [&]<class T>(type_tag<T>) -> std::pair<std::size_t, std::size_t> {
                   const around_pivot<T> classify{scalar_as<T>(pivot)};
                   if (c.on_host()) {
                     const auto result = reference::stable_partition_3way(
                         host_span<const T>(in), [&](const T& x) { return static_cast<int>(classify(x)); });
                     if (out.size != in.size)
                       throw invalid_argument("stable_partition_3way", "out", "must have as many elements as in");
                     copy_out(result.out, out);
                     return {result.first, result.second};
                   }
                   context& ctx = context_for(c);
                   auto* counts = static_cast<std::size_t*>(ctx.allocate_bytes(2 * sizeof(std::size_t)));
                   const auto release = [&] { ctx.deallocate_bytes(counts); };
                   try {
                     sluice::stable_partition_3way(ctx, device_span<const T>(in), device_span<T>(out), counts,
                                                   classify);
                     const std::size_t first = read_count(ctx, counts), second = read_count(ctx, counts + 1);
                     release();
                     return {first, second};
                   } catch (...) {
                     release();
                     throw;
                   }
                 });
  });
}

}  // namespace sluice::python
