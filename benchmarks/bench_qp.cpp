// benchmarks/bench_qp.cpp: QpSolver solve time on random strictly convex QPs: n = 7 with m = 1..16
// general inequality rows plus box bounds (fixed sizes), and n = 50, m = 100 (dynamic); cold and
// warm-started.
//
// Scenarios (problem data drawn once, deterministic):
//  - cold: a pool of 64 different problems, one per call; each call installs Q (Cholesky) and A and
//    solves from the empty active set, as a controller whose Q changes every cycle would.
//  - warm: 16 problems (one solver each, Q and A installed once); every call moves one problem's g
//    and row bounds one step (of 16) around a smooth closed loop (g +- 1 per entry, bounds +- 0.1)
//    and solves warm-started from that solver's previous active set: the LCQP inner loop's pattern.
// Each call is also timed on its own (steady_clock, its overhead subtracted): the counters
// median_ns and p99_ns are the per-solve median and 99th percentile; iterations and active are
// per-solve means. Every solve must return Ok.
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "bench_common.hpp"
#include "claw/solvers/qp.hpp"
#include "qp_scenarios.hpp"

namespace {

constexpr int kPool = 64;
constexpr int kWarmProblems = claw_bench::WarmScenario::kWarmProblems;
constexpr int kWarmSteps = claw_bench::WarmScenario::kWarmSteps;

using claw_bench::make_problem;
using claw_bench::Problem;

/// Per-solve timings: median and 99th percentile, the clock's own overhead subtracted.
class SolveTimer {
 public:
  explicit SolveTimer(benchmark::State& state) {
    samples_.reserve(static_cast<std::size_t>(
        std::min<benchmark::IterationCount>(state.max_iterations, 1 << 22)));
    std::array<double, 101> overhead{};
    for (double& o : overhead) {
      const auto t0 = claw_bench::Clock::now();
      const auto t1 = claw_bench::Clock::now();
      o = std::chrono::duration<double>(t1 - t0).count();
    }
    std::nth_element(overhead.begin(), overhead.begin() + 50, overhead.end());
    overhead_ = overhead[50];
  }
  template <typename Body>
  void time(Body&& body) {
    const auto t0 = claw_bench::Clock::now();
    body();
    const auto t1 = claw_bench::Clock::now();
    if (samples_.size() < samples_.capacity())
      samples_.push_back(std::chrono::duration<double>(t1 - t0).count() - overhead_);
  }
  void report(benchmark::State& state) {
    if (samples_.empty()) return;
    const auto at = [&](double fraction) {
      auto k = static_cast<std::ptrdiff_t>(fraction * static_cast<double>(samples_.size() - 1));
      std::nth_element(samples_.begin(), samples_.begin() + k, samples_.end());
      return std::max(0.0, samples_[static_cast<std::size_t>(k)]) * 1e9;
    };
    state.counters["median_ns"] = at(0.5);
    state.counters["p99_ns"] = at(0.99);
  }

 private:
  std::vector<double> samples_;
  double overhead_ = 0;
};

template <int N, int M>
using Solver = claw::QpSolver<double, N, N, M>;

/// Means of the iterations and active constraints per solve; flags any status other than Ok.
struct SolveStats {
  template <typename Result>
  void add(const Result& r) {
    all_ok &= r.status == claw::Status::Ok;
    iterations += r.iterations;
    active += static_cast<double>(r.active_set.active_count());
    solves += 1;
  }
  void report(benchmark::State& state, SolveTimer& timer) const {
    if (!all_ok) state.SkipWithError("QpSolver::solve did not return Status::Ok");
    timer.report(state);
    state.counters["iterations"] = iterations / std::max(solves, 1.0);
    state.counters["active"] = active / std::max(solves, 1.0);
  }
  bool all_ok = true;
  double iterations = 0, active = 0, solves = 0;
};

/// Fixed-size copies of a problem (so the solve reads fixed-size inputs, as firmware would).
template <int N, int M>
struct FixedProblem {
  Eigen::Matrix<double, N, N> q;
  Eigen::Matrix<double, M, N> a;
  Eigen::Matrix<double, N, 1> g, lb, ub;
  Eigen::Matrix<double, M, 1> lba, uba;
  explicit FixedProblem(const Problem& p)
      : q(p.q), a(p.a), g(p.g), lb(p.lb), ub(p.ub), lba(p.lba), uba(p.uba) {}
};

template <int N, int M>
void bm_cold(benchmark::State& state, Eigen::Index n, Eigen::Index m) {
  using P = typename std::conditional<N == claw::Dynamic, Problem, FixedProblem<N, M>>::type;
  claw_bench::Uniform uniform(0x9E5EEDULL + static_cast<std::uint64_t>(m));
  std::vector<P> pool;
  for (int k = 0; k < kPool; ++k)
    pool.emplace_back(make_problem(uniform, static_cast<int>(n), static_cast<int>(m)));
  Solver<N, M> solver(n, m);
  SolveTimer timer(state);
  SolveStats stats;
  std::size_t next = 0;
  claw_bench::timed_loop(state, [&] {
    const P& p = pool[next];
    next = (next + 1) % pool.size();
    timer.time([&] {
      const auto& r = solver.solve(p.q, p.g, p.a, p.lb, p.ub, p.lba, p.uba);
      benchmark::DoNotOptimize(r.x.data());
    });
    stats.add(solver.result());
  });
  stats.report(state, timer);
}

template <int N, int M>
void bm_warm(benchmark::State& state, Eigen::Index n, Eigen::Index m) {
  const claw_bench::WarmScenario scenario =
      claw_bench::make_warm_scenario(static_cast<int>(n), static_cast<int>(m));
  std::vector<Solver<N, M>> solvers;
  for (const Problem& p : scenario.problems) {
    solvers.emplace_back(n, m);
    if (solvers.back().set_hessian(p.q) != claw::Status::Ok ||
        solvers.back().set_constraints(p.a) != claw::Status::Ok) {
      state.SkipWithError("set_hessian / set_constraints failed");
      return;
    }
  }
  // The g and bounds of every step, as the solver's own vector types.
  struct Step {
    typename Solver<N, M>::VectorN g;
    typename Solver<N, M>::VectorM lba, uba;
  };
  std::vector<Step> steps;
  for (const auto& s : scenario.steps) steps.push_back({s.g, s.lba, s.uba});
  std::vector<const Problem*> tracks;
  for (const Problem& p : scenario.problems) tracks.push_back(&p);
  std::vector<typename Solver<N, M>::VectorN> lbs, ubs;
  for (const Problem* t : tracks) {
    lbs.emplace_back(t->lb);
    ubs.emplace_back(t->ub);
  }
  // One lap of every track first, so that each solver starts from its own previous active set.
  for (int k = 0; k < kWarmProblems; ++k)
    for (int s = 0; s < kWarmSteps; ++s) {
      const Step& st = steps[static_cast<std::size_t>(k * kWarmSteps + s)];
      auto& solver = solvers[static_cast<std::size_t>(k)];
      // Warm-up: only the active set it leaves in solver.result() is used.
      static_cast<void>(solver.solve(st.g, lbs[static_cast<std::size_t>(k)],
                                     ubs[static_cast<std::size_t>(k)], st.lba, st.uba,
                                     solver.result().active_set));
    }
  SolveTimer timer(state);
  SolveStats stats;
  int problem = 0, step = 0;
  claw_bench::timed_loop(state, [&] {
    const auto k = static_cast<std::size_t>(problem);
    const Step& st = steps[k * kWarmSteps + static_cast<std::size_t>(step)];
    auto& solver = solvers[k];
    timer.time([&] {
      const auto& r =
          solver.solve(st.g, lbs[k], ubs[k], st.lba, st.uba, solver.result().active_set);
      benchmark::DoNotOptimize(r.x.data());
    });
    stats.add(solver.result());
    if (++problem == kWarmProblems) {
      problem = 0;
      step = (step + 1) % kWarmSteps;
    }
  });
  stats.report(state, timer);
}

template <int M>
void BM_Qp_N7_cold(benchmark::State& state) {
  bm_cold<7, M>(state, 7, M);
}
template <int M>
void BM_Qp_N7_warm(benchmark::State& state) {
  bm_warm<7, M>(state, 7, M);
}
void BM_Qp_N50_M100_dynamic_cold(benchmark::State& state) {
  bm_cold<claw::Dynamic, claw::Dynamic>(state, 50, 100);
}
void BM_Qp_N50_M100_dynamic_warm(benchmark::State& state) {
  bm_warm<claw::Dynamic, claw::Dynamic>(state, 50, 100);
}

BENCHMARK_TEMPLATE(BM_Qp_N7_cold, 1)->Unit(benchmark::kNanosecond);
BENCHMARK_TEMPLATE(BM_Qp_N7_cold, 2)->Unit(benchmark::kNanosecond);
BENCHMARK_TEMPLATE(BM_Qp_N7_cold, 4)->Unit(benchmark::kNanosecond);
BENCHMARK_TEMPLATE(BM_Qp_N7_cold, 8)->Unit(benchmark::kNanosecond);
BENCHMARK_TEMPLATE(BM_Qp_N7_cold, 16)->Unit(benchmark::kNanosecond);
BENCHMARK_TEMPLATE(BM_Qp_N7_warm, 1)->Unit(benchmark::kNanosecond);
BENCHMARK_TEMPLATE(BM_Qp_N7_warm, 2)->Unit(benchmark::kNanosecond);
BENCHMARK_TEMPLATE(BM_Qp_N7_warm, 4)->Unit(benchmark::kNanosecond);
BENCHMARK_TEMPLATE(BM_Qp_N7_warm, 8)->Unit(benchmark::kNanosecond);
BENCHMARK_TEMPLATE(BM_Qp_N7_warm, 16)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_Qp_N50_M100_dynamic_cold)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Qp_N50_M100_dynamic_warm)->Unit(benchmark::kMicrosecond);

}  // namespace
