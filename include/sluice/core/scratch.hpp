// sluice/core/scratch.hpp: temporary device memory for one call, from the context's stream-ordered
// pool, returned to it (stream-ordered) when the scope ends.
#pragma once

#include <sluice/core/context.hpp>

#include <cstddef>

namespace sluice::detail {

/// count elements of T from ctx's pool, neither copied nor moved.
template <class T>
class scratch {
 public:
  scratch(context& ctx, std::size_t count) : ctx_(ctx), data_(static_cast<T*>(ctx.allocate_bytes(count * sizeof(T)))) {}
  scratch(const scratch&) = delete;
  scratch& operator=(const scratch&) = delete;
  ~scratch() { ctx_.deallocate_bytes(data_); }
  [[nodiscard]] T* get() const { return data_; }

 private:
  context& ctx_;
  T* data_;
};

}  // namespace sluice::detail
