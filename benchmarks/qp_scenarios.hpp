// benchmarks/qp_scenarios.hpp: the deterministic QP problems of bench_qp (shared with the tests
// that check the same solves' answers): the splitmix64 uniform generator and make_problem.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace claw_bench {

/// Deterministic uniform numbers (splitmix64), identical on every platform and standard library.
class Uniform {
 public:
  explicit Uniform(std::uint64_t seed) : state_(seed) {}
  double operator()(double lo, double hi) {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    const double unit = static_cast<double>(z >> 11) * 0x1.0p-53;  // [0, 1)
    return lo + (hi - lo) * unit;
  }

 private:
  std::uint64_t state_;
};

struct Problem {
  Eigen::MatrixXd q, a;
  Eigen::VectorXd g, lb, ub, lba, uba;
};

/// Q = F F' + 0.1 n I; rows hold at a random x0 (a fifth of them tightly), one-sided or two-sided;
/// box x0 +- [0, 1]; g in [-2, 2]^n: for n = 7 about 4.5 (m = 1) to 5.6 (m = 16) constraints are
/// active at the solution, a mix of bounds and rows.
inline Problem make_problem(Uniform& uniform, int n, int m) {
  const double kInf = std::numeric_limits<double>::infinity();
  Problem p;
  Eigen::MatrixXd f(n, n);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) f(i, k) = uniform(-1, 1);
  p.q = f * f.transpose() + 0.1 * n * Eigen::MatrixXd::Identity(n, n);
  Eigen::VectorXd x0(n);
  p.g.resize(n);
  p.lb.resize(n);
  p.ub.resize(n);
  for (int i = 0; i < n; ++i) {
    x0(i) = uniform(-1, 1);
    p.g(i) = 2 * uniform(-1, 1);
    p.lb(i) = x0(i) - uniform(0, 1);
    p.ub(i) = x0(i) + uniform(0, 1);
  }
  p.a.resize(m, n);
  for (int i = 0; i < m; ++i)
    for (int k = 0; k < n; ++k) p.a(i, k) = uniform(-1, 1);
  const Eigen::VectorXd ax0 = p.a * x0;
  p.lba.resize(m);
  p.uba.resize(m);
  for (int i = 0; i < m; ++i) {
    const double tight = uniform(0, 1) < 0.2 ? 0.0 : uniform(0, 1);
    const double kind = uniform(0, 3);
    p.lba(i) = kind < 2 ? ax0(i) - tight : -kInf;
    p.uba(i) = kind >= 1 ? ax0(i) + (kind < 2 ? uniform(0, 1) : tight) : kInf;
  }
  return p;
}

/// bench_qp's warm scenario: kWarmProblems problems of n variables and m rows (seeded by m), each
/// moved one step (of kWarmSteps) per solve around a closed loop: g(phase) = g + cos(phase) dg1 +
/// sin(phase) dg2 (dg entries in [-1, 1]) and the row bounds shifted by cos(phase) db1 +
/// sin(phase) db2 (db entries in [-0.1, 0.1]). steps[k * kWarmSteps + s] is problem k at step s.
struct WarmScenario {
  static constexpr int kWarmProblems = 16;
  static constexpr int kWarmSteps = 16;
  struct Step {
    Eigen::VectorXd g, lba, uba;
  };
  std::vector<Problem> problems;
  std::vector<Step> steps;
};

inline WarmScenario make_warm_scenario(int n, int m) {
  constexpr double kPi = 3.14159265358979323846;
  Uniform uniform(0x3A93ULL + static_cast<std::uint64_t>(m));
  WarmScenario w;
  std::vector<Eigen::VectorXd> dg1, dg2, db1, db2;
  for (int k = 0; k < WarmScenario::kWarmProblems; ++k) {
    w.problems.push_back(make_problem(uniform, n, m));
    dg1.push_back(Eigen::VectorXd::NullaryExpr(n, [&] { return uniform(-1, 1); }));
    dg2.push_back(Eigen::VectorXd::NullaryExpr(n, [&] { return uniform(-1, 1); }));
    db1.push_back(Eigen::VectorXd::NullaryExpr(m, [&] { return 0.1 * uniform(-1, 1); }));
    db2.push_back(Eigen::VectorXd::NullaryExpr(m, [&] { return 0.1 * uniform(-1, 1); }));
  }
  for (int k = 0; k < WarmScenario::kWarmProblems; ++k)
    for (int s = 0; s < WarmScenario::kWarmSteps; ++s) {
      const double phase = 2 * kPi * s / WarmScenario::kWarmSteps;
      const auto kk = static_cast<std::size_t>(k);
      const Problem& p = w.problems[kk];
      const Eigen::VectorXd shift = std::cos(phase) * db1[kk] + std::sin(phase) * db2[kk];
      w.steps.push_back({p.g + std::cos(phase) * dg1[kk] + std::sin(phase) * dg2[kk], p.lba + shift,
                         p.uba + shift});
    }
  return w;
}

}  // namespace claw_bench
