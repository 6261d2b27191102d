// sluice/core/device_buffer.hpp: an owning, move-only array in device memory from a context's pool.
//
// Allocation and release are stream-ordered on the context's stream, so a buffer is cheap to create
// and destroy around a call. The context must outlive its buffers. Copies and fills make the context's
// device current while they are queued, so a buffer of any device works from any current device.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/error.hpp>

#include <cuda/std/span>

#include <cstddef>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace sluice {

template <class T>
class device_buffer {
  static_assert(std::is_trivially_copyable_v<T>, "device_buffer holds trivially copyable element types");

 public:
  using value_type = T;

  device_buffer() = default;

  /// `size` uninitialised elements.
  device_buffer(context& ctx, std::size_t size)
      : ctx_(&ctx), data_(static_cast<T*>(ctx.allocate_bytes(size * sizeof(T)))), size_(size) {}

  /// A copy of host data (stream-ordered; the host range may be reused as soon as this returns).
  device_buffer(context& ctx, std::span<const T> host) : device_buffer(ctx, host.size()) { copy_from_host(host); }

  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& other) noexcept
      : ctx_(other.ctx_), data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  device_buffer& operator=(device_buffer&& other) noexcept {
    if (this != &other) {
      release();
      ctx_ = other.ctx_;
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  ~device_buffer() { release(); }

  [[nodiscard]] T* data() noexcept { return data_; }
  [[nodiscard]] const T* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t size_bytes() const noexcept { return size_ * sizeof(T); }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] cuda::std::span<T> span() noexcept { return {data_, size_}; }
  [[nodiscard]] cuda::std::span<const T> span() const noexcept { return {data_, size_}; }
  [[nodiscard]] context& ctx() const noexcept { return *ctx_; }

  /// Keeps the first `size` ≤ size() elements, without reallocating: the whole allocation returns to the
  /// pool with the buffer. A caller that allocates more than it will keep, so that the pool's blocks
  /// fit one another from call to call, hands out the part it filled.
  void truncate(std::size_t size) {
    if (size > size_)
      throw invalid_argument("device_buffer::truncate", "size",
                             "is " + std::to_string(size) + " but the buffer has " + std::to_string(size_) + " elements");
    size_ = size;
  }

  void copy_from_host(std::span<const T> host) {
    if (host.size() != size_)
      throw invalid_argument("device_buffer::copy_from_host", "host",
                             "has " + std::to_string(host.size()) + " elements but the buffer has " +
                                 std::to_string(size_));
    if (size_ == 0) return;
    auto device = ctx_->activate();
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(data_, host.data(), size_bytes(), cudaMemcpyHostToDevice, ctx_->stream()));
  }

  /// Copies to the host and waits for the stream, so the result reflects all work queued before.
  [[nodiscard]] std::vector<T> to_host() const {
    std::vector<T> host(size_);
    if (size_ == 0) return host;
    auto device = ctx_->activate();
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(host.data(), data_, size_bytes(), cudaMemcpyDeviceToHost, ctx_->stream()));
    ctx_->synchronize();
    return host;
  }

  /// Sets every byte to `byte` (stream-ordered). Tests and benchmarks poison outputs with it.
  void fill_bytes(unsigned char byte) {
    if (size_ == 0) return;
    auto device = ctx_->activate();
    SLUICE_CUDA_CHECK(cudaMemsetAsync(data_, byte, size_bytes(), ctx_->stream()));
  }

 private:
  void release() noexcept {
    if (data_) ctx_->deallocate_bytes(data_);
    data_ = nullptr;
    size_ = 0;
  }

  context* ctx_ = nullptr;
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace sluice
