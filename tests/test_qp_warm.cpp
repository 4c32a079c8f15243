// tests/test_qp_warm.cpp: bench_qp's warm scenario as a test: every warm-started answer is the cold
// optimum. Built twice: with the project's -ffp-contract=off and, as claw_tests_contracted, with
// -march=native -ffp-contract=fast (the fused multiply-adds a user's optimised build gets).
#include <catch2/catch.hpp>

#include <Eigen/Core>
#include <cmath>
#include <string>

#include "../benchmarks/qp_scenarios.hpp"
#include "claw/solvers/qp.hpp"

namespace {

using claw::Status;

/// Replays bench_qp's warm scenario at n = 7 with m rows (one warm-up lap, then `laps` laps of
/// every problem, each solve warm-started from that problem's previous active set) beside a cold
/// solve of the same QP: every warm answer is Ok and equals the cold one within 1e-9 relative.
template <int M>
void check_warm_scenario(int laps) {
  const claw_bench::WarmScenario scenario = claw_bench::make_warm_scenario(7, M);
  using Solver = claw::QpSolver<double, 7, 7, M>;
  std::vector<Solver> warm(scenario.problems.size());
  Solver cold;
  int solves = 0, mismatches = 0, failures = 0;
  double worst_x = 0, worst_f = 0;
  for (int lap = 0; lap <= laps; ++lap)
    for (std::size_t k = 0; k < scenario.problems.size(); ++k) {
      const claw_bench::Problem& p = scenario.problems[k];
      if (lap == 0) {
        REQUIRE(warm[k].set_hessian(p.q) == Status::Ok);
        REQUIRE(warm[k].set_constraints(p.a) == Status::Ok);
      }
      for (int s = 0; s < claw_bench::WarmScenario::kWarmSteps; ++s) {
        const auto& step =
            scenario.steps[k * claw_bench::WarmScenario::kWarmSteps + static_cast<std::size_t>(s)];
        const typename Solver::VectorN g = step.g, lb = p.lb, ub = p.ub;
        const typename Solver::VectorM lba = step.lba, uba = step.uba;
        const auto& w = warm[k].solve(g, lb, ub, lba, uba, warm[k].result().active_set);
        if (lap == 0) continue;  // the warm-up lap
        const auto& c = cold.solve(p.q, g, p.a, lb, ub, lba, uba);
        REQUIRE(c.status == Status::Ok);
        ++solves;
        if (w.status != Status::Ok) {
          ++failures;
          continue;
        }
        const double dx = (w.x - c.x).cwiseAbs().maxCoeff() / (1 + c.x.cwiseAbs().maxCoeff());
        const double df = std::fabs(w.objective - c.objective) / (1 + std::fabs(c.objective));
        worst_x = std::max(worst_x, dx);
        worst_f = std::max(worst_f, df);
        if (dx > 1e-9 || df > 1e-9) ++mismatches;
      }
    }
  INFO("m = " << M << ": " << solves << " warm solves, worst relative x error " << worst_x
              << ", objective " << worst_f);
  CHECK(solves == laps * 16 * 16);
  CHECK(failures == 0);
  CHECK(mismatches == 0);
}

#ifdef CLAW_TEST_CONTRACTED
#define CLAW_WARM_TEST_NAME(m) \
  "QP warm scenario (contracted floating point): every warm Ok is the cold optimum, m = " #m
#else
#define CLAW_WARM_TEST_NAME(m) "QP warm scenario: every warm Ok is the cold optimum, m = " #m
#endif

}  // namespace

TEST_CASE(CLAW_WARM_TEST_NAME(1), "[qp][warm]") { check_warm_scenario<1>(20); }
TEST_CASE(CLAW_WARM_TEST_NAME(4), "[qp][warm]") { check_warm_scenario<4>(20); }
TEST_CASE(CLAW_WARM_TEST_NAME(16), "[qp][warm]") { check_warm_scenario<16>(20); }
