// sluice/containers/slab_alloc.cuh: SlabAlloc, the warp-synchronous allocator of fixed 128-byte units
// (Ashkiani §5.5), as an owning pool (host: growth, counts, status) and a trivially copyable view for
// device code (the warp allocator, decoding, freeing).
//
//   sluice::slab_alloc pool(ctx, {.variant = sluice::slab_alloc_variant::light, .super_blocks = 2});
//   auto view = pool.ref();                               // pass by value to a kernel, then inside it:
//   sluice::slab_alloc::warp_allocator alloc(view);       //   all 32 lanes, registers of one warp
//   std::uint32_t a = alloc.allocate();                   //   same address in every lane, or
//                                                         //   slab_alloc::empty_address when exhausted
//   std::uint32_t b = alloc.allocate_each();              //   a unit for each lane (up to 32 a round trip)
//   auto* slab = view.unit(a);                            //   128 bytes, 0xFF bytes when taken
//   view.deallocate(a);                                   //   any lane; reset the unit to 0xFF first
//   pool.check_status(ctx);                               // host: throws if a kernel exhausted the pool
//
// Hierarchy: super blocks of N_M memory blocks of 1024 units; a unit is named by a 32-bit address
// [super block 8 | memory block 14 | unit 10] (detail/slab_alloc/address.hpp); a warp keeps one resident
// memory block and its 1024-bit bitmap in registers (detail/slab_alloc/device.cuh). Every free unit holds
// 0xFF bytes (an empty slab): the pool is made so, and deallocate's caller resets a unit before freeing it.
//
// Exhaustion: a warp that finds no free unit in the whole pool gets empty_address (never a wild pointer)
// and raises the pool's device-visible `exhausted` flag; check_status() (and the slab hash's next bulk
// call) throws sluice::out_of_memory for it and clears it. The device cannot grow the pool: the host does,
// between kernels (reserve()). A free of an address that is not the pool's, or of a free unit, writes
// nothing and raises a flag that check_status() reports as sluice::error.
//
// The pool's memory comes from the construction context's pool; that context must outlive it. A moved-from
// slab_alloc throws sluice::invalid_argument (parameter "*this") from every call but destruction and assignment.
#pragma once

#include <sluice/core/context.hpp>
#include <sluice/core/device_buffer.hpp>
#include <sluice/core/error.hpp>
#include <sluice/detail/slab_alloc/address.hpp>
#include <sluice/detail/slab_alloc/device.cuh>
#include <sluice/detail/slab_alloc/kernels.cuh>
#include <sluice/detail/slab_alloc/tuning.hpp>
#include <sluice/options/slab_alloc.hpp>

#include <algorithm>
#include <cstdint>
#include <source_location>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace sluice {

class slab_alloc {
 public:
  using ref_type = detail::slab_alloc::pool_view;
  using warp_allocator = detail::slab_alloc::warp_allocator;
  static constexpr std::uint32_t empty_address = detail::slab_alloc::empty_address;
  static constexpr std::uint32_t unit_bytes = detail::slab_alloc::unit_bytes;
  static constexpr std::uint32_t units_per_block = detail::slab_alloc::units_per_block;

  /// An empty, unusable pool (as a moved-from one): assign a constructed pool to it.
  slab_alloc() = default;

  /// `options.super_blocks` new super blocks (every unit free), on ctx's device and memory pool.
  slab_alloc(context& ctx, const slab_alloc_options& options = {})
      : ctx_(&ctx), options_(checked(options)), status_(ctx, 1) {
    auto device = ctx.activate();
    status_.fill_bytes(0);
    if (!light()) {
      table_ = device_buffer<unsigned char*>(ctx, detail::slab_alloc::max_super_blocks);
    }
    grow_to(ctx, options_.super_blocks, "slab_alloc");
  }

  slab_alloc(const slab_alloc&) = delete;
  slab_alloc& operator=(const slab_alloc&) = delete;
  slab_alloc(slab_alloc&& other) noexcept { *this = std::move(other); }
  slab_alloc& operator=(slab_alloc&& other) noexcept {
    if (this != &other) {
      ctx_ = std::exchange(other.ctx_, nullptr);
      options_ = other.options_;
      status_ = std::move(other.status_);
      pool_ = std::move(other.pool_);
      super_block_buffers_ = std::move(other.super_block_buffers_);
      table_ = std::move(other.table_);
      capacity_super_blocks_ = std::exchange(other.capacity_super_blocks_, 0);
      super_blocks_ = std::exchange(other.super_blocks_, 0);
    }
    return *this;
  }
  ~slab_alloc() = default;

  /// The device view: decode, deallocate, and the warp allocator's pool. Valid until the next reserve()
  /// (the light variant's array may move when it grows).
  [[nodiscard]] ref_type ref() const {
    require_usable("slab_alloc::ref");
    ref_type view;
    view.base = pool_.empty() ? nullptr : const_cast<unsigned char*>(pool_.data());
    view.super_block_table = table_.data();
    view.stride = detail::slab_alloc::super_block_bytes(options_.blocks_per_super_block);
    view.super_blocks = super_blocks_;
    view.blocks_per_super_block = options_.blocks_per_super_block;
    view.status = const_cast<std::uint32_t*>(status_.data());
    view.light = light();
    return view;
  }

  /// Units the pool holds now.
  [[nodiscard]] std::uint64_t capacity() const {
    require_usable("slab_alloc::capacity");
    return detail::slab_alloc::pool_units(super_blocks_, options_.blocks_per_super_block);
  }
  /// Units the pool may grow to (max_super_blocks super blocks).
  [[nodiscard]] std::uint64_t max_capacity() const {
    require_usable("slab_alloc::max_capacity");
    return detail::slab_alloc::pool_units(options_.max_super_blocks, options_.blocks_per_super_block);
  }
  [[nodiscard]] std::uint32_t super_blocks() const { return super_blocks_; }
  [[nodiscard]] const slab_alloc_options& options() const { return options_; }
  /// Device bytes the pool holds (light: its array's capacity, which may run ahead of capacity()).
  [[nodiscard]] std::uint64_t memory_bytes() const {
    return std::uint64_t{light() ? capacity_super_blocks_ : super_blocks_} *
           detail::slab_alloc::super_block_bytes(options_.blocks_per_super_block);
  }

  /// Units taken now: a popcount of every bitmap, then a wait for the stream.
  [[nodiscard]] std::uint64_t units_in_use(context& ctx) const {
    require_usable("slab_alloc::units_in_use");
    device_buffer<unsigned long long> count(ctx, 1);
    count.fill_bytes(0);
    count_units_into(ctx, count.data());
    return count.to_host()[0];
  }

  /// Adds the units in use to *out (device memory), stream-ordered: for callers that read it back with
  /// other figures in one copy.
  void count_units_into(context& ctx, unsigned long long* out) const {
    auto device = ctx.activate();
    detail::slab_alloc::count_units(ctx, ref(), out);
  }

  /// Grows the pool (whole super blocks) until it holds at least `units` units; never shrinks. Throws
  /// sluice::out_of_memory, the pool unchanged, when that needs more than max_super_blocks super blocks
  /// or the device has not the memory.
  void reserve(context& ctx, std::uint64_t units) {
    require_usable("slab_alloc::reserve");
    const std::uint64_t needed = detail::slab_alloc::super_blocks_for(units, options_.blocks_per_super_block);
    if (needed > options_.max_super_blocks)
      detail::throw_cuda_error(cudaErrorMemoryAllocation,
                               "slab_alloc::reserve of " + std::to_string(units) + " units (" +
                                   std::to_string(needed) + " super blocks of " +
                                   std::to_string(options_.blocks_per_super_block) +
                                   " memory blocks; options.max_super_blocks is " +
                                   std::to_string(options_.max_super_blocks) + ")",
                               std::source_location::current());
    if (needed > super_blocks_) grow_to(ctx, static_cast<std::uint32_t>(needed), "slab_alloc::reserve");
  }

  /// Every unit free and empty again (the units' bytes rewritten: O(capacity)).
  void reset(context& ctx) {
    require_usable("slab_alloc::reset");
    auto device = ctx.activate();
    for (std::uint32_t s = 0; s < super_blocks_; ++s)
      detail::slab_alloc::make_new_super_block(ctx, super_block_base(s), options_.blocks_per_super_block);
  }

  /// The status word's flags, as the device left them, cleared (a wait for the stream).
  [[nodiscard]] std::uint32_t take_status(context& ctx) {
    require_usable("slab_alloc::take_status");
    std::uint32_t flags = 0;
    SLUICE_CUDA_CHECK(cudaMemcpyAsync(&flags, status_.data(), sizeof(flags), cudaMemcpyDeviceToHost, ctx.stream()));
    ctx.synchronize();
    if (flags != 0) SLUICE_CUDA_CHECK(cudaMemsetAsync(status_.data(), 0, sizeof(flags), ctx.stream()));
    return flags;
  }

  /// The device status word (flags of detail::slab_alloc::status_bit): for callers that read it back with
  /// other figures in one copy, and clear it with clear_status().
  [[nodiscard]] const std::uint32_t* status_word() const { return status_.data(); }
  void clear_status(context& ctx) {
    auto device = ctx.activate();
    SLUICE_CUDA_CHECK(cudaMemsetAsync(status_.data(), 0, sizeof(std::uint32_t), ctx.stream()));
  }

  /// Throws for what device code reported since the last check, and clears it: sluice::out_of_memory
  /// for exhaustion, sluice::error for a bad or double free. The pool's contents are unchanged.
  void check_status(context& ctx) { throw_for(take_status(ctx), "slab_alloc"); }

  /// The exception for a set of status flags (none: returns).
  static void throw_for(std::uint32_t flags, const std::string& who,
                        const std::source_location& where = std::source_location::current()) {
    using namespace detail::slab_alloc;
    if (flags & (bad_free | double_free))
      throw error("sluice::" + who + ": device code freed " +
                  std::string(flags & bad_free ? "an address outside the pool" : "") +
                  std::string((flags & bad_free) && (flags & double_free) ? " and " : "") +
                  std::string(flags & double_free ? "a unit that was already free" : "") + " (nothing was written)");
    if (flags & exhausted)
      detail::throw_cuda_error(cudaErrorMemoryAllocation,
                               who + ": a device allocation found the slab pool exhausted (that operation failed and "
                                     "changed nothing; reserve more units)",
                               where);
  }

 private:
  [[nodiscard]] bool light() const { return options_.variant == slab_alloc_variant::light; }

  void require_usable(const char* function) const {
    if (ctx_ == nullptr)
      throw invalid_argument(function, "*this", "is a moved-from or default-constructed slab_alloc");
  }

  static slab_alloc_options checked(slab_alloc_options options) {
    using namespace detail::slab_alloc;
    if (options.blocks_per_super_block == 0) options.blocks_per_super_block = tuning::blocks_per_super_block;
    if (options.blocks_per_super_block > max_blocks_per_super_block)
      throw invalid_argument("slab_alloc", "options.blocks_per_super_block",
                             "is " + std::to_string(options.blocks_per_super_block) + ": at most 16384 (14 bits)");
    if (options.max_super_blocks == 0 || options.max_super_blocks > max_super_blocks)
      throw invalid_argument("slab_alloc", "options.max_super_blocks",
                             "is " + std::to_string(options.max_super_blocks) + ": 1 … 255 (8 bits)");
    if (options.super_blocks == 0 || options.super_blocks > options.max_super_blocks)
      throw invalid_argument("slab_alloc", "options.super_blocks",
                             "is " + std::to_string(options.super_blocks) + ": 1 … options.max_super_blocks (" +
                                 std::to_string(options.max_super_blocks) + ")");
    if (options.variant != slab_alloc_variant::light && options.variant != slab_alloc_variant::regular)
      throw invalid_argument("slab_alloc", "options.variant", "is not a slab_alloc_variant");
    return options;
  }

  [[nodiscard]] unsigned char* super_block_base(std::uint32_t s) {
    return light() ? pool_.data() + s * detail::slab_alloc::super_block_bytes(options_.blocks_per_super_block)
                   : super_block_buffers_[s].data();
  }

  /// `count` super blocks in use, the new ones made new; light: the array reallocated (at least doubled)
  /// and copied when it is too small. Nothing changes when an allocation fails.
  void grow_to(context& ctx, std::uint32_t count, const char* function) {
    using namespace detail::slab_alloc;
    auto device = ctx.activate();
    const std::uint64_t bytes = super_block_bytes(options_.blocks_per_super_block);
    detail::naming_out_of_memory(function, to_string(options_.variant), [&] {
      if (light() && count > capacity_super_blocks_) {
        const std::uint32_t capacity =
            std::min(options_.max_super_blocks, std::max(count, 2 * capacity_super_blocks_));
        device_buffer<unsigned char> larger(ctx, std::uint64_t{capacity} * bytes);
        if (super_blocks_ != 0)
          SLUICE_CUDA_CHECK(cudaMemcpyAsync(larger.data(), pool_.data(), std::uint64_t{super_blocks_} * bytes,
                                            cudaMemcpyDeviceToDevice, ctx.stream()));
        pool_ = std::move(larger);
        capacity_super_blocks_ = capacity;
      }
      if (!light() && count > super_block_buffers_.size()) {
        while (super_block_buffers_.size() < count) super_block_buffers_.emplace_back(ctx, bytes);
        std::vector<unsigned char*> bases(max_super_blocks, nullptr);
        for (std::size_t i = 0; i < super_block_buffers_.size(); ++i) bases[i] = super_block_buffers_[i].data();
        table_.copy_from_host(bases);  // pageable source: staged before the call returns
      }
    });
    for (std::uint32_t s = super_blocks_; s < count; ++s)
      make_new_super_block(ctx, super_block_base(s), options_.blocks_per_super_block);
    super_blocks_ = count;
  }

  context* ctx_ = nullptr;
  slab_alloc_options options_{};
  device_buffer<std::uint32_t> status_;
  device_buffer<unsigned char> pool_;                               ///< light
  std::vector<device_buffer<unsigned char>> super_block_buffers_;  ///< regular
  device_buffer<unsigned char*> table_;                             ///< regular: max_super_blocks entries
  std::uint32_t capacity_super_blocks_ = 0;                         ///< light: super blocks pool_ holds
  std::uint32_t super_blocks_ = 0;                                  ///< in use
};

}  // namespace sluice
