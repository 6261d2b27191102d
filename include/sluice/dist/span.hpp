// sluice/dist/span.hpp: distributed arrays. A distributed_span names the part of a global array that each
// rank of this process holds (one part per local rank, in the communicator's local order: one part with
// one process per GPU) and, where known, the global offsets of every rank's part: the global array is the
// parts of ranks 0, 1, … concatenated, so rank r's element i is global element offsets[r] + i.
// dist::describe(comm, span) fills the offsets (an all-gather of the sizes); the outputs of the
// distributed calls (distributed_buffer) come with theirs.
#pragma once

#include <sluice/core/device_buffer.hpp>
#include <sluice/core/error.hpp>

#include <cuda/std/span>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace sluice::dist {

template <class T>
class distributed_span {
 public:
  distributed_span() = default;
  /// One process per GPU: this rank's part.
  distributed_span(cuda::std::span<T> part) : parts_{part} {}  // NOLINT: implicit, as a span is
  /// One part per local rank of the communicator.
  explicit distributed_span(std::vector<cuda::std::span<T>> parts, std::vector<std::uint64_t> offsets = {})
      : parts_(std::move(parts)), offsets_(std::move(offsets)) {}
  /// A span of T converts to a span of const T.
  template <class U>
    requires(std::is_same_v<const U, T> && !std::is_same_v<U, T>)
  distributed_span(const distributed_span<U>& other) : offsets_(other.offsets()) {  // NOLINT: as a span
    for (const auto& p : other.parts()) parts_.emplace_back(p.data(), p.size());
  }

  [[nodiscard]] const std::vector<cuda::std::span<T>>& parts() const { return parts_; }
  [[nodiscard]] cuda::std::span<T> part(std::size_t local = 0) const { return parts_.at(local); }
  [[nodiscard]] std::size_t local_count() const { return parts_.size(); }

  /// The world's offsets (world size + 1 entries), or empty where not described.
  [[nodiscard]] const std::vector<std::uint64_t>& offsets() const { return offsets_; }
  [[nodiscard]] std::uint64_t global_size() const { return offsets_.empty() ? 0 : offsets_.back(); }
  [[nodiscard]] std::uint64_t global_offset(int rank) const { return offsets_.at(static_cast<std::size_t>(rank)); }

 private:
  std::vector<cuda::std::span<T>> parts_;
  std::vector<std::uint64_t> offsets_;
};

/// The owning form: one device_buffer per local rank (on that rank's context) and the world's offsets.
template <class T>
class distributed_buffer {
 public:
  distributed_buffer() = default;
  distributed_buffer(std::vector<device_buffer<T>> parts, std::vector<std::uint64_t> offsets)
      : parts_(std::move(parts)), offsets_(std::move(offsets)) {}

  [[nodiscard]] device_buffer<T>& part(std::size_t local = 0) { return parts_.at(local); }
  [[nodiscard]] const device_buffer<T>& part(std::size_t local = 0) const { return parts_.at(local); }
  [[nodiscard]] std::size_t local_count() const { return parts_.size(); }
  [[nodiscard]] const std::vector<std::uint64_t>& offsets() const { return offsets_; }
  [[nodiscard]] std::uint64_t global_size() const { return offsets_.empty() ? 0 : offsets_.back(); }
  [[nodiscard]] std::uint64_t global_offset(int rank) const { return offsets_.at(static_cast<std::size_t>(rank)); }

  [[nodiscard]] distributed_span<T> span() {
    std::vector<cuda::std::span<T>> views;
    for (auto& p : parts_) views.push_back(p.span());
    return distributed_span<T>(std::move(views), offsets_);
  }
  [[nodiscard]] distributed_span<const T> span() const {
    std::vector<cuda::std::span<const T>> views;
    for (const auto& p : parts_) views.push_back(p.span());
    return distributed_span<const T>(std::move(views), offsets_);
  }

 private:
  std::vector<device_buffer<T>> parts_;
  std::vector<std::uint64_t> offsets_;
};

}  // namespace sluice::dist
