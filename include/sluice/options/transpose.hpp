// sluice/options/transpose.hpp: the public option types of transpose.cuh, beside it so that its dispatch
// (detail/transpose/dispatch.cuh) and the families built on it can name them without the entry points.
#pragma once

#include <string_view>

namespace sluice {

enum class transpose_algorithm {
  automatic,     ///< a tuned kernel chosen by shape, element size and alignment
  naive,         ///< DTU element-wise: coalesced reads, writes `rows` elements apart
  tiled,         ///< DTU shared-memory tile[32][32]: coalesced both ways, 32-way bank conflicts on 4-byte columns
  tiled_padded,  ///< DTU tile[32][33]: the padding removes the bank conflicts
};

/// The enumerator's name ("tiled_padded"), for reports and errors; "?" for a value outside the enumeration.
[[nodiscard]] constexpr std::string_view to_string(transpose_algorithm algorithm) {
  switch (algorithm) {
    case transpose_algorithm::automatic: return "automatic";
    case transpose_algorithm::naive: return "naive";
    case transpose_algorithm::tiled: return "tiled";
    case transpose_algorithm::tiled_padded: return "tiled_padded";
  }
  return "?";
}

struct transpose_options {
  transpose_algorithm algorithm = transpose_algorithm::automatic;
};

}  // namespace sluice
