// sluice/options/select.hpp: the public types of select.cuh, beside it so that its dispatch
// (detail/select/dispatch.cuh) and the families built on it can name them without the entry points.
#pragma once

#include <cstdint>

namespace sluice {

/// The group of stable_partition_3way (Palik's <, =, > split). Values past `third` count as `third`.
enum class group3 : std::uint8_t { first = 0, second = 1, third = 2 };

}  // namespace sluice
