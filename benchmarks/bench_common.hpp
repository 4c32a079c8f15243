// benchmarks/bench_common.hpp: what every claw benchmark shares: a deterministic uniform generator
// (qp_scenarios.hpp), wall-time measurement of the harness loop, and the STREAM-triad
// memory-bandwidth probe (roofline).
#pragma once

#include <benchmark/benchmark.h>

#include "qp_scenarios.hpp"  // claw_bench::Uniform

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace claw_bench {

/// a[i] = b[i] + s c[i]: two read streams, one write stream, 24 bytes per element (STREAM count).
/// noinline and the ClobberMemory() around each call keep the passes from being merged or elided.
__attribute__((noinline)) inline void triad(double* __restrict a, const double* __restrict b,
                                            const double* __restrict c, double s, std::size_t m) {
  for (std::size_t i = 0; i < m; ++i) a[i] = b[i] + s * c[i];
}

/// Three arrays totalling at least `bytes` (the last element count rounded up).
struct TriadArrays {
  explicit TriadArrays(std::size_t bytes)
      : m((bytes + 3 * sizeof(double) - 1) / (3 * sizeof(double))),
        a(m, 0.0),
        b(m, 1.0),
        c(m, 2.0) {}
  std::size_t probe_bytes() const { return 3 * m * sizeof(double); }
  void pass() {
    triad(a.data(), b.data(), c.data(), 3.0, m);
    benchmark::ClobberMemory();
  }
  std::size_t m;
  std::vector<double> a, b, c;
};

using Clock = std::chrono::steady_clock;

/// Runs the harness loop around body(); returns the wall time per iteration [s].
template <typename Body>
double timed_loop(benchmark::State& state, Body&& body) {
  const auto start = Clock::now();
  for (auto _ : state) body();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  return elapsed / static_cast<double>(std::max<benchmark::IterationCount>(state.iterations(), 1));
}

/// Median wall time [s] of one triad pass over `bytes` bytes, scaled to exactly `bytes`: 15 samples
/// of k back-to-back passes each (k so that a sample lasts >= 2 ms), after 3 warm-up passes. The
/// median discards the samples a concurrent process disturbed. Measured right before a batched
/// benchmark's timed loop, so a machine load slows both alike.
inline double triad_seconds_median(std::size_t bytes) {
  TriadArrays arrays(bytes);
  for (int i = 0; i < 3; ++i) arrays.pass();
  const auto t0 = Clock::now();
  arrays.pass();
  const double one_pass = std::chrono::duration<double>(Clock::now() - t0).count();
  const int passes = std::max(1, static_cast<int>(std::ceil(2e-3 / std::max(one_pass, 1e-9))));
  std::array<double, 15> samples{};
  for (double& sample : samples) {
    const auto start = Clock::now();
    for (int k = 0; k < passes; ++k) arrays.pass();
    sample = std::chrono::duration<double>(Clock::now() - start).count() / passes;
  }
  std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
  return samples[samples.size() / 2] * static_cast<double>(bytes) /
         static_cast<double>(arrays.probe_bytes());
}

/// Sets the roofline counters of a batched benchmark: ns_per_joint, roofline_ratio (its time per
/// update over the probe's time for the same bytes), probe_ns, bytes, GB_per_s.
inline void set_roofline_counters(benchmark::State& state, double seconds_per_update,
                                  double probe_seconds, std::size_t bytes, std::size_t joints) {
  state.counters["ns_per_joint"] = seconds_per_update * 1e9 / static_cast<double>(joints);
  state.counters["roofline_ratio"] = seconds_per_update / probe_seconds;
  state.counters["probe_ns"] = probe_seconds * 1e9;
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["GB_per_s"] = static_cast<double>(bytes) / seconds_per_update * 1e-9;
}

}  // namespace claw_bench
