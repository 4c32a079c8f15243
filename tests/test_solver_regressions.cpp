// tests/test_solver_regressions.cpp: FliqcFilter inputs as regression tests, and two LCQPs that pin
// the LCQP test reference (tests/support/lcqp_branches.hpp) itself.
// The QP and LCQP inputs are data: tests/data/regressions/{qp,lcqp}, run by
// test_qp_regression_data.cpp and test_lcqp_regression_data.cpp.
#include <catch2/catch.hpp>
#include <limits>

#include "claw/filters/fliqc.hpp"
#include "claw/solvers/lcqp.hpp"
#include "support/lcqp_branches.hpp"
#include "support/solver_instances.hpp"

using claw::Status;

TEST_CASE("FLIQC regression: the least-violation fallback stays within the velocity bounds",
          "[fliqc][regression]") {
  // A huge violation t: a QP tolerance relative to |t| would admit a qdot outside its box. Pins:
  // the fallback's qdot stays within q_dot_max.
  claw::FliqcSettings<double> s;
  s.q_dot_max = 0.5;
  s.fallback = claw::FliqcFallback::LeastViolation;
  s.enable_nullspace_projector_in_A = false;
  claw::FliqcFilter<double, 3, 3, 2> filter;
  REQUIRE(filter.configure(s) == Status::Ok);
  Eigen::Matrix<double, 3, 1> guide(0.4, -0.3, 0.2);
  Eigen::Matrix<double, 6, 3> jacobian = Eigen::Matrix<double, 6, 3>::Identity();
  Eigen::Matrix<double, 1, 1> psi;
  psi << -1e30;  // hopelessly inside
  Eigen::Matrix<double, 1, 3> p(1.0, -2.0, 0.5);
  const auto& r = filter.filter(guide, jacobian, psi, p);
  REQUIRE(r.status == Status::Infeasible);
  REQUIRE(r.fallback_applied);
  CHECK(r.qdot.cwiseAbs().maxCoeff() <= 0.5);
  // A moderate violation: the best the box allows, qdot_j = 0.5 sign(P_j).
  psi << -0.5;
  const auto& moderate = filter.filter(guide, jacobian, psi, p);
  REQUIRE(moderate.status == Status::Infeasible);
  CHECK(moderate.qdot(0) == Approx(0.5));
  CHECK(moderate.qdot(1) == Approx(-0.5));
  CHECK(moderate.qdot(2) == Approx(0.5));
}

TEST_CASE("FLIQC regression: float, a horizon so long that dt P overflows its squared norm",
          "[fliqc][regression]") {
  // dt = 3.4e38 in float: |dt P|^2 overflows, which would make the row tolerance +inf. Pins: a
  // violated distance row is never Ok.
  claw::FliqcSettings<float> s;
  s.dt = 3.4e38f;
  s.eps = -0.9375f;
  s.active_threshold = std::numeric_limits<float>::infinity();
  claw::FliqcFilter<float, 2, 2, 3> filter;
  REQUIRE(filter.configure(s) == Status::Ok);
  Eigen::Matrix<float, 2, 1> guide(1.0f, 750.0f);
  Eigen::Matrix<float, 6, 2> jacobian = Eigen::Matrix<float, 6, 2>::Zero();
  jacobian(0, 0) = 1.0f;
  Eigen::Matrix<float, 1, 1> psi;
  psi << -0.02f;
  Eigen::Matrix<float, 1, 2> p(-0.001f, -0.001f);
  const auto& r = filter.filter(guide, jacobian, psi, p);
  REQUIRE(r.qdot.allFinite());
  if (r.status == Status::Ok && r.solved) {
    const float lhs = psi(0) - s.eps + s.dt * p.dot(r.qdot);
    const float scale = s.dt * p.stableNorm() * (1.0f + r.qdot.cwiseAbs().maxCoeff());
    CHECK(lhs >= -1e-3f * scale);
  }
}

namespace {

/// An LCQP of n = 4 variables and four pairs whose L selects the variables in reverse order
/// (L_i x = x_(3-i) >= 0), with `rows` rows of A; x free, L x and R x unbounded above.
claw::LcqpProblem<double> reverse_selector_lcqp(int rows) {
  claw::LcqpProblem<double> p(4, rows, 4);
  p.L.setZero();
  for (int i = 0; i < 4; ++i) p.L(i, 3 - i) = 1.0;
  p.lbL.setZero();
  p.ubL.setConstant(std::numeric_limits<double>::infinity());
  p.lb.setConstant(-std::numeric_limits<double>::infinity());
  p.ub.setConstant(std::numeric_limits<double>::infinity());
  p.ubR.setConstant(std::numeric_limits<double>::infinity());
  return p;
}

/// kR0 = 1.0588e-3: rows kR0 (1, 1, 1, 1) (some entries changed) held at kRhs = 0.10588, which is
/// 100 kR0 up to rounding, ask sum x >= 100 or sum x = 100.
constexpr double kR0 = 0x1.159071b9677c3p-10;
constexpr double kRhs = 0x1.b1b1b1b1b1b2p-4;

/// A symmetric 4 x 4 matrix from its upper triangle, row by row.
Eigen::Matrix4d symmetric4(double q00, double q01, double q02, double q03, double q11, double q12,
                           double q13, double q22, double q23, double q33) {
  Eigen::Matrix4d q;
  q << q00, q01, q02, q03, q01, q11, q12, q13, q02, q12, q22, q23, q03, q13, q23, q33;
  return q;
}

}  // namespace

TEST_CASE("LCQP test support: the branch reference allows for violations that carry no multiplier",
          "[lcqp][regression]") {
  // Pins the test reference (claw_test::LcqpBranches::certified_ceiling) at the exact optimum.
  // The LCQP's feasible set is one vertex: x3 = 0, A x = b and R x = lbR (objective
  // 5004.379164416, in rational arithmetic). The branch with R held has its QP optimum at
  // x3 = -2.8e-11 (exact), within QpSolver's threshold of x3 >= 0, which stays out of W with no
  // multiplier: 5004.3497. Moved inward by twice that miss, the QP can answer the same point; the
  // move is doubled until the point holds x3 >= 0 exactly.
  claw::LcqpProblem<double> p = reverse_selector_lcqp(2);
  p.L.conservativeResize(1, 4);
  p.L << 0, 0, 0, 1;
  for (auto* v : {&p.lbL, &p.ubL, &p.lbR, &p.ubR}) v->conservativeResize(1);
  p.R.conservativeResize(1, 4);
  p.Q = symmetric4(0x1.e3b450f950ea4p+17, 0x1.8e1ebdfd42aacp+4, -0x1.a60c626a82026p-3,
                   0x1.44bdba6597acap+0, 0x1.00a3e39050911p+0, -0x1.b6d78d098c31p-18,
                   0x1.09a00ad60bcd7p-13, 0x1.003104957247cp+0, -0x1.0d5709606d0b2p-16,
                   0x1.00007b12d0f7bp+0);
  p.g << kR0, kR0, -0x1.933f03e2daed1p-11, 0x1.0f0f0f0f0f0f4p+0;
  p.A << 0x1.47a3d6fffff5cp-7, 0x1.a78787878787dp+6, kR0, kR0, 0x1.15b967a4ecc3ep-10, kR0, kR0,
      0x1.52d2d2d2d2d31p+3;
  p.lbA << -0x1.4dcb4dcb4dcb5p-1, kRhs;
  p.ubA = p.lbA;
  p.R.setConstant(kR0);
  p.lbL << 0.0;
  p.ubL << std::numeric_limits<double>::infinity();
  p.lbR << kRhs;
  p.ubR << std::numeric_limits<double>::infinity();
  claw::LcqpSolver<double> solver;
  const auto& r = solver.solve(p);
  REQUIRE(r.status == Status::Ok);
  REQUIRE(r.certified_global);
  CHECK(r.objective == Approx(5004.379164416).epsilon(1e-10));
  const Eigen::VectorXd x = r.x;
  const auto branches = claw_test::solve_lcqp_branches(p, &x);
  CHECK(branches.best_objective < 5004.35);  // the branch QP within its tolerance
  CHECK(branches.certified_ceiling >= 5004.379164416 * (1.0 - 1e-10));
}

TEST_CASE("LCQP test support: a branch point within 1e-12 of an empty set is not clearly feasible",
          "[lcqp][regression]") {
  // A = R_3 up to 3e-5 in x2's entry, both held at the same rhs: every point with A x = b and
  // R_3 x >= lbR_3, R_1 x >= lbR_1, R_0 x >= lbR_0 has x1 <= -3.65 (a Farkas combination with
  // multipliers of 4.8e12, checked in rational arithmetic), so with x1 >= 0 the LCQP is infeasible,
  // and LcqpSolver says so. A branch QP answers Ok with primal residual 7.6e-13 (R_3 missed by that
  // much is worth 3.65 of x1). Pins the harness's rule: a branch is clearly feasible only when its
  // point is feasible to rounding, or it stays feasible with its inequalities moved inward by
  // 1e-9 (1 + ||x||).
  claw::LcqpProblem<double> p = reverse_selector_lcqp(1);
  p.Q = symmetric4(0x1.00000ff6ca73ep+0, -0x1.0ef2efc5d95eep-24, -0x1.1e11aa50e8566p-24,
                   0x1.7ecdf05110519p-16, 0x1.000010a9a468ap+0, 0x1.0b84115d6f324p-20,
                   0x1.717a8a9101f1bp-16, 0x1.000010c6f7a0bp+0, 0x1.71740c9c1baeep-16,
                   0x1.00a328c9fb318p+0);
  p.g << kR0, kR0, 0x1.5af48e27c15b4p-7, kR0;
  p.A.setConstant(kR0);
  p.lbA << kRhs;
  p.ubA << kRhs;
  p.R.setConstant(kR0);
  p.R(0, 1) = 0x1.bc5bd907e1396p-14;
  p.R(0, 3) = 0x1.0f0f0f0f0f0f4p+0;
  p.R(1, 2) = 0x1.0f0f0f0f0f0f4p+0;
  p.R(1, 3) = 0x1.136779cde0348p-10;
  p.R(3, 2) = 0x1.0dcdda9aa767bp-10;
  p.lbR << 0x1.bff1bff1bff2p-4, kRhs, -0x1.8e518e518e518p-4, kRhs;
  p.ubL(2) = 0x1.259e259e259e2p+1;
  claw::LcqpSolver<double> solver;
  const auto& r = solver.solve(p);
  // Infeasible in exact arithmetic, but a branch point violates R_3 by only 7.6e-13: a point within
  // the QP's Ok tolerance exists, so no certificate can prove infeasibility at that tolerance, and
  // no branch answer is verified either: neither Ok nor Infeasible is provable.
  CHECK((r.status == Status::IllConditioned || r.status == Status::MaxIterations));  // undecided
  const auto branches = claw_test::solve_lcqp_branches(p);
  CHECK(branches.best_objective < 5000.0);  // branch QPs within their tolerance: Ok
  CHECK_FALSE(branches.clearly_feasible);
}
