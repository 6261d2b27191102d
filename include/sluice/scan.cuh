// sluice/scan.cuh: device-wide inclusive and exclusive scans (all-prefix-sums) with any associative
// operator.
//
//   inclusive_scan: out[i] = in[0] ⊕ … ⊕ in[i]                 (with init: init ⊕ in[0] ⊕ … ⊕ in[i])
//   exclusive_scan: out[0] = init, out[i] = init ⊕ in[0] ⊕ … ⊕ in[i−1]
//
// Operands are always combined in index order, so non-commutative operators (affine maps, matrix
// products) give the sequential oracle's bits. In place (out == in) is allowed; partially overlapping
// ranges are not. Asynchronous on the context's stream.
//
//   sluice::inclusive_scan(ctx, in.span(), out.span(), sluice::plus{});
//   sluice::exclusive_scan(ctx, in.span(), out.span(), 0u, sluice::plus{});
//
// Strategies (scan_options::algorithm): decoupled_look_back (the default: one pass, 2n·sizeof(T)
// bytes), reduce_then_scan (three phases, 3n), brent_kung and hillis_steele (the seeds' textbook
// scans, for study). See docs/scan.md.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/span.hpp>
#include <sluice/detail/scan/dispatch.cuh>
#include <sluice/options/scan.hpp>

#include <cuda/std/span>

#include <concepts>
#include <cstddef>
#include <type_traits>

namespace sluice {

/// out[i] = in[0] ⊕ … ⊕ in[i].
template <class In, std::size_t InExtent, class T, std::size_t OutExtent, class Op>
  requires std::same_as<std::remove_const_t<In>, T>
void inclusive_scan(context& ctx, cuda::std::span<In, InExtent> in, cuda::std::span<T, OutExtent> out, Op op,
                    const scan_options& options = {}) {
  detail::scan::dispatch<detail::scan::scan_kind::inclusive, false>(ctx, "inclusive_scan", detail::as_const_span(in),
                                                                    cuda::std::span<T>(out), T{}, op, options);
}

/// out[i] = init ⊕ in[0] ⊕ … ⊕ in[i].
template <class In, std::size_t InExtent, class T, std::size_t OutExtent, class Op>
  requires std::same_as<std::remove_const_t<In>, T>
void inclusive_scan(context& ctx, cuda::std::span<In, InExtent> in, cuda::std::span<T, OutExtent> out, Op op, T init,
                    const scan_options& options = {}) {
  detail::scan::dispatch<detail::scan::scan_kind::inclusive, true>(ctx, "inclusive_scan", detail::as_const_span(in),
                                                                   cuda::std::span<T>(out), init, op, options);
}

/// out[0] = init, out[i] = init ⊕ in[0] ⊕ … ⊕ in[i−1].
template <class In, std::size_t InExtent, class T, std::size_t OutExtent, class Op>
  requires std::same_as<std::remove_const_t<In>, T>
void exclusive_scan(context& ctx, cuda::std::span<In, InExtent> in, cuda::std::span<T, OutExtent> out, T init, Op op,
                    const scan_options& options = {}) {
  detail::scan::dispatch<detail::scan::scan_kind::exclusive, true>(ctx, "exclusive_scan", detail::as_const_span(in),
                                                                   cuda::std::span<T>(out), init, op, options);
}

}  // namespace sluice
