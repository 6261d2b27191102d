// src/model/calibrate/calibrate.cpp: the calibration's sweeps, tables and fits (see calibrate.hpp).
#include "model/calibrate/calibrate.hpp"

#include "model/calibrate/benchmarks.hpp"
#include "model/fit.hpp"
#include "model/report.hpp"

#include <cuda_occupancy.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <string>
#include <vector>

namespace sluice::model {

namespace {

using calibration::benchmark;

/// 32-bit integer lanes per SM by compute capability (the CUDA C Programming Guide's throughput table).
int cores_per_sm(int major, int minor) {
  switch (major) {
    case 7: return 64;
    case 8: return minor == 0 ? 64 : 128;
    case 9:
    case 10:
    case 11:
    case 12: return 128;
    default:
      throw invalid_argument("model calibrate", "device",
                             "has compute capability " + std::to_string(major) + "." + std::to_string(minor) +
                                 ", whose cores per SM src/model/calibrate/calibrate.cpp does not know");
  }
}

std::string version(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

int attribute(cudaDeviceAttr a, int device) {
  int value = 0;
  SLUICE_CUDA_CHECK(cudaDeviceGetAttribute(&value, a, device));
  return value;
}

/// Everything but the operation parameters, from the runtime.
device_profile describe(int device) {
  cudaDeviceProp prop{};
  SLUICE_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  device_profile p;
  p.name = prop.name;
  p.compute_capability = std::to_string(prop.major) + "." + std::to_string(prop.minor);
  int driver = 0, runtime = 0;
  SLUICE_CUDA_CHECK(cudaDriverGetVersion(&driver));
  SLUICE_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  p.driver = version(driver);
  p.runtime = version(runtime);
  p.memory_clock_hz = attribute(cudaDevAttrMemoryClockRate, device) * 1e3;
  p.memory_bus_bits = prop.memoryBusWidth;
  p.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);

  const cudaOccDeviceProp occupancy(prop);
  int register_unit = 0, sub_partitions = 0, shared_unit = 0, max_registers = 0;
  if (cudaOccRegAllocationGranularity(&register_unit, &occupancy) != CUDA_OCC_SUCCESS ||
      cudaOccSubPartitionsPerMultiprocessor(&sub_partitions, &occupancy) != CUDA_OCC_SUCCESS ||
      cudaOccSMemAllocationGranularity(&shared_unit, &occupancy) != CUDA_OCC_SUCCESS ||
      cudaOccRegAllocationMaxPerThread(&max_registers, &occupancy) != CUDA_OCC_SUCCESS)
    throw invalid_argument("model calibrate", "device", "is not one this toolkit's cuda_occupancy.h knows");
  device_limits& l = p.limits;
  l.sm_count = prop.multiProcessorCount;
  l.cores_per_sm = cores_per_sm(prop.major, prop.minor);
  l.warp_size = prop.warpSize;
  l.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  l.max_threads_per_block = prop.maxThreadsPerBlock;
  l.max_blocks_per_sm = prop.maxBlocksPerMultiProcessor;
  l.registers_per_sm = prop.regsPerMultiprocessor;
  l.registers_per_block = prop.regsPerBlock;
  l.max_registers_per_thread = max_registers;
  l.register_allocation_unit = register_unit;
  l.register_sub_partitions = sub_partitions;
  l.shared_memory_per_sm = prop.sharedMemPerMultiprocessor;
  l.shared_memory_per_block_optin = prop.sharedMemPerBlockOptin;
  l.shared_memory_reserved_per_block = prop.reservedSharedMemPerBlock;
  l.shared_allocation_unit = static_cast<std::size_t>(shared_unit);
  l.shared_banks = 32;
  return p;
}

calibration::sizes work_for(const device_profile& p, bool quick) {
  calibration::sizes work;
  std::size_t free = 0, total = 0;
  SLUICE_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  work.dram_words = std::size_t{1} << (quick ? 26 : 28);  // 256 MiB or 1 GiB an array: ≥ 5× a 50 MB L2
  while (work.dram_words > (std::size_t{1} << 20) && 2 * work.dram_words * 4 > free / 2) work.dram_words /= 2;
  // A quarter of the L2 an array at most (the two arrays stay resident): 2^21 words on an H100's 50 MB, which
  // holds one chunk of every grid but the largest (16 blocks an SM at ILP 8), whose point is skipped.
  work.l2_words = std::bit_floor(std::max<std::size_t>(p.l2_bytes / 16, 1024));
  work.l2_passes = static_cast<int>(std::max<std::size_t>(1, (std::size_t{1} << (quick ? 26 : 28)) / work.l2_words));
  work.steps = quick ? 1024 : 4096;
  work.atomic_steps = quick ? 64 : 256;
  work.gather_steps = quick ? 64 : 256;
  return work;
}

struct sweep_result {
  std::vector<sweep_point> points;
  double best_throughput = 0;  ///< operations per clock per core
};

/// Runs one benchmark over blocks × ILP, printing each point.
sweep_result sweep(calibration::benchmarks& b, benchmark which, const std::vector<int>& blocks,
                   const std::vector<int>& ilps, int repetitions, const device_profile& p, std::ostream& log) {
  const double cores = p.limits.cores();
  log << fmt::format("\n{}: blocks/SM  ILP       M     time (us)  ops/clk/core  cycles/op/core\n", to_string(which));
  sweep_result result;
  for (int ilp : ilps)
    for (int blocks_per_sm : blocks) {
      const double multiplicity = static_cast<double>(blocks_per_sm) * calibration::block_threads / p.limits.cores_per_sm * ilp;
      if (!b.fits(which, blocks_per_sm, ilp)) {
        log << fmt::format("{:>16} {:>4} {:>7.4g}   larger than the arrays (one grid chunk): skipped\n", blocks_per_sm,
                           ilp, multiplicity);
        continue;
      }
      const auto m = b.run(which, blocks_per_sm, ilp, repetitions);
      if (!m) {
        log << fmt::format("{:>16} {:>4} {:>7.4g}   not resident: skipped\n", blocks_per_sm, ilp, multiplicity);
        continue;
      }
      const double throughput = m->operations / (cores * p.clock_hz * m->seconds);
      log << fmt::format("{:>16} {:>4} {:>7.4g} {:>13.2f} {:>13.5g} {:>15.5g}\n", blocks_per_sm, ilp, multiplicity,
                         m->seconds * 1e6, throughput, 1 / throughput);
      log.flush();
      result.points.push_back({multiplicity, m->operations, m->seconds});
      result.best_throughput = std::max(result.best_throughput, throughput);
    }
  return result;
}

}  // namespace

device_profile calibrate(const calibrate_options& options, std::ostream& log) {
  SLUICE_CUDA_CHECK(cudaSetDevice(options.device));
  device_profile p = describe(options.device);
  const int repetitions = options.quick ? std::min(options.repetitions, 3) : options.repetitions;
  const calibration::sizes work = work_for(p, options.quick);
  calibration::benchmarks b(options.device, work);

  const double max_clock = attribute(cudaDevAttrClockRate, options.device) * 1e3;
  const double clock_before = b.clock_hz(3);
  p.clock_hz = clock_before;
  log << fmt::format("{} (cc {}), {} SMs × {} cores, driver {}, runtime {}\n", p.name, p.compute_capability,
                     p.limits.sm_count, p.limits.cores_per_sm, p.driver, p.runtime);
  log << fmt::format("SM clock under load {:.4f} GHz (maximum {:.4f} GHz); arrays: DRAM 2 × {} MiB, L2 2 × {} MiB "
                     "× {} passes; {} repetitions a point (median)\n",
                     clock_before / 1e9, max_clock / 1e9, work.dram_words * 4 >> 20, work.l2_words * 4 >> 20,
                     work.l2_passes, repetitions);

  const std::vector<int> blocks = options.quick ? std::vector<int>{1, 4, 16} : std::vector<int>{1, 2, 4, 8, 16};
  const std::vector<int> ilps = options.quick ? std::vector<int>{1, 4} : std::vector<int>{1, 2, 4, 8};
  const struct {
    op o;
    benchmark which;
  } measured[] = {{op::g, benchmark::dram_copy},       {op::l2, benchmark::l2_copy},
                  {op::s, benchmark::shared},          {op::r, benchmark::registers},
                  {op::y, benchmark::syncthreads},     {op::ag, benchmark::global_atomic},
                  {op::as, benchmark::shared_atomic},  {op::x, benchmark::shuffle},
                  {op::v, benchmark::ballot}};
  for (const auto& m : measured) {
    const bool ilp_applies = info(m.o).ilp;
    const sweep_result r = sweep(b, m.which, blocks, ilp_applies ? ilps : std::vector<int>{1}, repetitions, p, log);
    const op_fit fit = fit_op_cost(r.points, p.limits.cores(), p.clock_hz);
    p.ops[static_cast<std::size_t>(m.o)] = fit.cost;
    log << fmt::format("=> {} ({}): L = {:.4g} cycles, B = {:.4g} per clock per core, M* = L·B = {:.3g}; the knee "
                       "fits every point within {:.0f}%\n",
                       info(m.o).key, info(m.o).name, fit.cost.latency_cycles, fit.cost.bandwidth,
                       fit.cost.saturation(), 100 * fit.worst_error);
  }

  // A random read against a coalesced word: the best gather rate against B.
  const std::vector<int> full{calibration::max_blocks_per_sm};
  const std::vector<int> deep{4, 8};
  const double dram_reads = sweep(b, benchmark::dram_gather, full, deep, repetitions, p, log).best_throughput;
  const double l2_reads = sweep(b, benchmark::l2_gather, full, deep, repetitions, p, log).best_throughput;
  p.random_access_words = p.cost(op::g).bandwidth / dram_reads;
  p.l2_random_access_words = p.cost(op::l2).bandwidth / l2_reads;
  log << fmt::format("=> a random 4-byte read costs {:.3g} coalesced words of DRAM bandwidth, {:.3g} of L2\n",
                     p.random_access_words, p.l2_random_access_words);

  // L_sync: the same work in 1 … 256 launches.
  log << "\nlaunches: launches   time (us)\n";
  std::vector<double> counts, seconds;
  for (int launches : {1, 4, 16, 64, 256}) {
    counts.push_back(launches);
    seconds.push_back(b.launch_sequence_seconds(launches, repetitions));
    log << fmt::format("{:>18} {:>11.2f}\n", launches, seconds.back() * 1e6);
  }
  const double boundary = launch_slope_seconds(counts, seconds);
  p.sync_latency_cycles = std::max(boundary, 0.0) * p.clock_hz;
  const double synchronized = b.synchronized_launch_seconds(options.quick ? 100 : 1000);
  log << fmt::format("=> L_sync = {:.2f} us = {:.4g} cycles a kernel boundary (stream-ordered launches); an empty "
                     "launch with cudaStreamSynchronize after it takes {:.2f} us (the seed's DEVICESYNC, for "
                     "reference)\n",
                     boundary * 1e6, p.sync_latency_cycles, synchronized * 1e6);

  const double clock_after = b.clock_hz(3);
  log << fmt::format("SM clock under load after the sweeps {:.4f} GHz ({:+.1f}% against the start; the profile keeps "
                     "the start's)\n\n",
                     clock_after / 1e9, 100 * (clock_after / clock_before - 1));
  p.measured = options.measured;
  print_profile(log, p);
  return p;
}

}  // namespace sluice::model
