// bench/cases/host_measure.hpp: measure() for the host cases whose single run takes up to seconds.
//
// bench::measure times with the session's policy (full: 5 warm-ups and 50 repetitions), which suits
// millisecond kernels; a sweep of sequential multireduce over 2^26 elements at 2^26 buckets takes about
// a second per run, so the host sweeps use a lighter policy with the same time → verify → record steps.
#pragma once

#include "harness/measure.hpp"
#include "harness/timing.hpp"

#include <functional>
#include <string>

namespace sluice::bench {

/// Host runs of up to a few seconds: full 1 warm-up + 5 timed (the median of five), quick 1 + 3.
inline timing_policy long_host_policy(const case_context& session) {
  return session.quick() ? timing_policy{1, 3} : timing_policy{1, 5};
}

/// measure() with an explicit timing policy, for host work.
inline void measure_host(case_context& session, const work_description& work, const std::string& implementation,
                         role kind, timing_policy policy, const std::function<void()>& run,
                         const std::function<bool()>& verify) {
  if (!session.runs(implementation, kind)) return;
  record_verified(session, work, implementation, kind, false, time_host(run, policy), verify);
}

}  // namespace sluice::bench
