// sluice/core/context.hpp: the device, the stream and the stream-ordered memory pool every call runs on.
//
// Every sluice operation takes a `sluice::context&` and is asynchronous on its stream, like CUB.
// Temporary storage comes from the context's memory pool (cudaMallocFromPoolAsync), which keeps freed
// memory up to a release threshold so that repeated calls reuse it instead of going to the driver.
// There is no global state: several contexts (devices, streams) can be used side by side.
#pragma once

#include <sluice/core/device_properties.hpp>
#include <sluice/core/error.hpp>

#include <cstdint>
#include <limits>
#include <new>
#include <string>
#include <utility>

namespace sluice {

struct context_options {
  /// Bytes the pool keeps reserved after a synchronisation instead of returning them to the driver.
  /// The default keeps everything: temporary storage is allocated once and reused.
  std::uint64_t release_threshold = std::numeric_limits<std::uint64_t>::max();
  /// Use a pool of the context's own instead of the device's default pool. The default pool is shared
  /// with everything else in the process that allocates with cudaMallocAsync; its release threshold is
  /// only ever raised, never lowered, by a context.
  bool private_pool = false;
};

/// Number of usable CUDA devices, 0 where there is no driver or no device (never throws).
/// `reason`, when given, receives CUDA's explanation for 0.
inline int cuda_device_count(std::string* reason = nullptr) noexcept {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    if (reason) *reason = std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
    (void)cudaGetLastError();  // leave no sticky error behind for later calls
    return 0;
  }
  if (count == 0 && reason) *reason = "no CUDA device is present";
  return count;
}

class context {
 public:
  /// A context on `device` with a new non-blocking stream that it owns.
  explicit context(int device = 0, context_options options = {}) : device_(device) {
    scoped_device guard(device_);
    SLUICE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    owns_stream_ = true;
    init(options);
  }

  /// A context on `device` that runs on the caller's `stream` (not destroyed by the context).
  context(int device, cudaStream_t stream, context_options options = {}) : device_(device), stream_(stream) {
    scoped_device guard(device_);
    init(options);
  }

  context(const context&) = delete;
  context& operator=(const context&) = delete;
  context(context&&) = delete;
  context& operator=(context&&) = delete;

  ~context() {
    scoped_device guard(device_, std::nothrow);
    (void)cudaStreamSynchronize(stream_);
    if (owns_stream_) (void)cudaStreamDestroy(stream_);
    if (owns_pool_) (void)cudaMemPoolDestroy(pool_);
  }

  [[nodiscard]] int device() const noexcept { return device_; }
  [[nodiscard]] cudaStream_t stream() const noexcept { return stream_; }
  [[nodiscard]] cudaMemPool_t memory_pool() const noexcept { return pool_; }
  [[nodiscard]] const device_properties& properties() const noexcept { return properties_; }

  /// Blocks until all work queued on the context's stream has finished; rethrows its errors.
  void synchronize() const { SLUICE_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

  /// Stream-ordered allocation from the pool: usable by work queued after this call on the stream.
  [[nodiscard]] void* allocate_bytes(std::size_t bytes) {
    if (bytes == 0) return nullptr;
    void* pointer = nullptr;
    const cudaError_t status = cudaMallocFromPoolAsync(&pointer, bytes, pool_, stream_);
    // The size goes into the message: an out_of_memory says how much was asked for.
    if (status != cudaSuccess)
      detail::check_cuda(status, "cudaMallocFromPoolAsync of " + std::to_string(bytes) + " bytes");
    return pointer;
  }

  /// Stream-ordered release: the memory returns to the pool once queued work has finished with it.
  void deallocate_bytes(void* pointer) noexcept {
    if (pointer) (void)cudaFreeAsync(pointer, stream_);
  }

  /// Makes this context's device current for the lifetime of the guard (restores the previous one).
  class scoped_device {
   public:
    explicit scoped_device(int device) {
      SLUICE_CUDA_CHECK(cudaGetDevice(&previous_));
      if (previous_ != device) SLUICE_CUDA_CHECK(cudaSetDevice(device));
    }
    scoped_device(int device, std::nothrow_t) noexcept {
      if (cudaGetDevice(&previous_) == cudaSuccess && previous_ != device) (void)cudaSetDevice(device);
    }
    scoped_device(const scoped_device&) = delete;
    scoped_device& operator=(const scoped_device&) = delete;
    ~scoped_device() { (void)cudaSetDevice(previous_); }

   private:
    int previous_ = 0;
  };

  [[nodiscard]] scoped_device activate() const { return scoped_device(device_); }

 private:
  void init(const context_options& options) {
    properties_ = device_properties::query(device_);
    if (options.private_pool) {
      cudaMemPoolProps props{};
      props.allocType = cudaMemAllocationTypePinned;
      props.location.type = cudaMemLocationTypeDevice;
      props.location.id = device_;
      SLUICE_CUDA_CHECK(cudaMemPoolCreate(&pool_, &props));
      owns_pool_ = true;
      std::uint64_t threshold = options.release_threshold;
      SLUICE_CUDA_CHECK(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &threshold));
      return;
    }
    SLUICE_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool_, device_));
    std::uint64_t current = 0;
    SLUICE_CUDA_CHECK(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &current));
    if (current < options.release_threshold) {
      std::uint64_t threshold = options.release_threshold;
      SLUICE_CUDA_CHECK(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &threshold));
    }
  }

  int device_ = 0;
  cudaStream_t stream_ = nullptr;
  bool owns_stream_ = false;
  cudaMemPool_t pool_ = nullptr;
  bool owns_pool_ = false;
  device_properties properties_;
};

}  // namespace sluice
