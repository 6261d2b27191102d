// sluice/block/tile_shape.hpp: the shape of a tile processed by one thread block: Threads threads
// holding Items consecutive elements each (blocked arrangement). Which shapes a family launches is its
// tuning table's to say (detail/<family>/tuning.hpp).
#pragma once

namespace sluice::block {

template <int Threads, int Items>
struct tile_shape {
  static constexpr int threads = Threads;
  static constexpr int items = Items;
  static constexpr int tile = Threads * Items;
};

/// 256 threads with about 64 bytes of elements each: four 16-byte loads in flight per thread. The shared
/// default that the reduce and scan tuning tables name.
template <class T>
using default_tile_shape = tile_shape<256, (sizeof(T) >= 16 ? 4 : 64 / static_cast<int>(sizeof(T)))>;

}  // namespace sluice::block
