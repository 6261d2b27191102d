// src/model/calibrate/kernel_registers.hpp: the registers a thread of every kernel `sluice model`
// describes, read with cudaFuncGetAttributes from the kernels compiled into this binary (the
// instantiations the dispatches launch for the bench's types: u32, u64, u32/u32 pairs, the 16-byte
// struct; GPU-MMS for u32 keys and u32/u32 pairs; the search layouts for u32 keys), keyed as
// families.hpp names them. Needs a GPU.
#pragma once

#include "model/families.hpp"

namespace sluice::model {

[[nodiscard]] register_table compiled_registers();

}  // namespace sluice::model
