// tests/test_solver_regressions.cpp: LCQP and FLIQC inputs the fuzz targets (tests/fuzz) found, as
// regression tests; the QP ones are data (tests/data/regressions/qp, test_qp_regression_data.cpp).
#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>

#include "claw/filters/fliqc.hpp"
#include "claw/solvers/lcqp.hpp"
#include "claw/solvers/qp.hpp"
#include "support/lcqp_branches.hpp"
#include "support/solver_instances.hpp"

using claw::Status;

TEST_CASE("LCQP regression: a subnormal Q with contradictory rows is Infeasible, not x = inf",
          "[lcqp][regression]") {
  // n = 1, Q = 3.2e-319 (subnormal: not positive definite in double), x fixed at -1 by its bounds
  // while two equality rows ask -x = -1. Pins: no answer x = inf with Ok.
  claw::LcqpProblem<double> p(1, 2, 1);
  p.Q << 3.2e-319;
  p.g << -1.0;
  p.lb << -1.0;
  p.ub << -1.0;
  p.A << -1.0, -1.0;
  p.lbA << -1.0, -1.0;
  p.ubA << -1.0, -1.0;
  p.L << -1.0;
  p.R << -1.0;
  p.lbL << -1.0;
  p.ubL << -1.0;
  p.lbR << -1.0;
  p.ubR << -1.0;
  claw::LcqpSolver<double> solver;
  const auto& r = solver.solve(p);
  CHECK(r.status == Status::Infeasible);
  CHECK(r.x.allFinite());
}

TEST_CASE("LCQP regression: an Ok point always has a finite objective", "[lcqp][regression]") {
  // Finite data whose unique complementary point overflows: 1/2 x'Qx is +inf.
  claw::LcqpProblem<double> p(2, 1, 1);
  p.Q << 1e300, 0.0, 0.0, 1.0;
  p.A << 1.0, -1e200;  // x0 = 1e200 lambda
  p.lbA << 0.0;
  p.ubA << 0.0;
  p.L << 0.0, 1.0;  // lambda = x1
  p.R << 1.0, 0.0;  // w = x0 - 1e200
  p.lbR << 1e200;
  claw::LcqpSolver<double> solver;
  const auto& r = solver.solve(p);
  // Its only complementary point has an infinite objective: Ok is impossible; the answer is the
  // overflow or an honest cannot-decide, with the safe output x = 0.
  INFO("status " << claw::to_string(r.status));
  CHECK((r.status == Status::NumericalOverflow || r.status == Status::MaxIterations ||
         r.status == Status::Infeasible));
  CHECK(r.x.isZero(0.0));
}

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

/// An LCQP of fuzz_lcqp's moderate family: n = 4, L selects the variables in reverse order.
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

/// The fuzz_lcqp instance family of several tests below: rows A, R1 equal (or nearly) to
/// r0 (1, 1, 1, 1), R0, R2, R3 close to it, all held at the same rhs, L selecting the variables in
/// reverse order. With R0 held, A, R0 and R3 force x1 = x2 = 0 through rows 3e-5 apart (working
/// sets of kappa 1e7 to 1e9, multipliers of 5e13 at the node's vertex).
constexpr double kR0 = 0x1.159071b9677c3p-10;
constexpr double kRhs = 0x1.b1b1b1b1b1b2p-4;

claw::LcqpProblem<double> near_parallel_rows_lcqp(const Eigen::Matrix4d& q, double a00,
                                                  double ubr3 = 0x1.6e0eee0eee0efp+1) {
  claw::LcqpProblem<double> p = reverse_selector_lcqp(1);
  p.Q = q;
  p.g << -0x1.4e1ae7b4814e7p-8, 0x1.13f6d68632af6p-10, kR0, kR0;
  p.A.setConstant(kR0);
  p.A(0, 0) = a00;
  p.lbA << kRhs;
  p.ubA << kRhs;
  p.R.setConstant(kR0);
  p.R(0, 1) = -0x1.e239263926393p+9;
  p.R(0, 2) = 0x1.1eaf332a1471fp-10;
  p.R(2, 3) = 0x1.5af48e27c15b4p-7;
  p.R(3, 1) = 0x1.0dcdda9aa767bp-10;
  p.lbR.setConstant(kRhs);
  p.ubR(3) = ubr3;
  return p;
}

/// A symmetric 4 x 4 matrix from its upper triangle, row by row.
Eigen::Matrix4d symmetric4(double q00, double q01, double q02, double q03, double q11, double q12,
                           double q13, double q22, double q23, double q33) {
  Eigen::Matrix4d q;
  q << q00, q01, q02, q03, q01, q11, q12, q13, q02, q12, q22, q23, q03, q13, q23, q33;
  return q;
}

/// The best objective over the 2^m branch QPs (pair i on its L side or on its R side).
double best_branch(const claw::LcqpProblem<double>& p) {
  const auto branches = claw_test::solve_lcqp_branches(p);
  REQUIRE(branches.hessian_accepted);
  return branches.best_objective;
}

}  // namespace

TEST_CASE(
    "LCQP regression: branch and bound does not prune the optimum's branch (node QP rounding)",
    "[lcqp][regression]") {
  // Two instances whose R rows are nearly equal (entries 1.06e-3 and a few outliers): a node QP
  // over a nearly dependent working set must not call its node infeasible, since that subtree holds
  // the optimum (branches of 3123.85 and 5000.236; the next best, 6250.11 and 5000.479). Pins the
  // QP's conditioning-aware dependence test and the refinement of x.
  const double r0 = 0x1.159071b9677c3p-10, rhs = 0x1.b1b1b1b1b1b2p-4;
  claw::LcqpSolver<double> solver;
  auto settings = solver.settings();
  settings.max_pairs_for_branch_and_bound = 24;
  {
    claw::LcqpProblem<double> p = reverse_selector_lcqp(0);
    p.Q << 0x1.40000c7818d4fp+0, -0x1.1664a57b7a1f6p-12, -0x1.1664a57b7a1f6p-12,
        -0x1.08b090d4064a2p-11, -0x1.1664a57b7a1f6p-12, 0x1.000012cf1e79bp+0, 0x1.2cf1e79b5d0c6p-20,
        0x1.166f342aa1c58p-12, -0x1.1664a57b7a1f6p-12, 0x1.2cf1e79b5d0c6p-20, 0x1.000012cf1e79bp+0,
        0x1.166f342aa1c58p-12, -0x1.08b090d4064a2p-11, 0x1.166f342aa1c58p-12, 0x1.166f342aa1c58p-12,
        0x1.40000dbed0cf1p+0;
    p.g.setConstant(r0);
    p.R.setConstant(r0);
    p.R(3, 1) = 0x1.153e85e25cecdp-10;
    p.R(3, 2) = -0x1.2e16f0a64ccf5p-7;
    p.ub(2) = 0x1.06c6c6c6c6c6cp+3;
    p.lbR.setConstant(rhs);
    settings.use_monotone_path = true;
    REQUIRE(solver.set_settings(settings) == Status::Ok);
    const auto& r = solver.solve(p);
    const double best = best_branch(p);
    CHECK(best == Approx(3123.8456965948).epsilon(1e-9));
    REQUIRE(r.status == Status::Ok);
    CHECK(r.objective <= best + 1e-6 * best);
  }
  {
    const auto p = near_parallel_rows_lcqp(
        symmetric4(0x1.00000d6941bcp+0, 0x1.a15e6de81ed66p-16, 0x1.2dc604fec6eb1p-18,
                   0x1.60c7528cdb776p-21, 0x1.00a3e39050911p+0, 0x1.63a8e8c942e79p-16,
                   0x1.13489f0727e8p-13, 0x1.0004e3d0d2b07p+0, -0x1.2f927302f1d83p-16,
                   0x1.0001b40a376eep+0),
        0x1.0a48b85d333ecp-10);
    settings.use_monotone_path = false;
    REQUIRE(solver.set_settings(settings) == Status::Ok);
    const auto& r = solver.solve(p);
    const double best = best_branch(p);
    CHECK(best == Approx(5000.2358309816).epsilon(1e-9));
    REQUIRE(r.status == Status::Ok);
    CHECK(r.objective <= best + 1e-6 * best);
  }
}

TEST_CASE("LCQP regression: at a scale where no QP answer can be verified, nothing is certified",
          "[lcqp][regression]") {
  // x ~ 1.25e9, objective 1.9e18. At a relaxation node every free pair is complementary within
  // the feasibility threshold (1e-9 (1 + ||x||) = 1.25 here), yet pair 0's L side polishes to
  // 1.94975e18 and its R side to 1.94787e18, 1e-3 lower. Pins the rule: a leaf closes its node
  // only when the polished branch meets the node's bound within the prune tolerance; otherwise the
  // node branches, and no answer above the better side is certified.
  const double inf = std::numeric_limits<double>::infinity();
  claw::LcqpProblem<double> p(4, 0, 3);
  p.Q << 0x1.7fd581cf494dcp+0, -0x1.b79246ee6fe38p-6, -0x1.174fea831db65p-2, -0x1.b378a70a396ep-6,
      -0x1.b79246ee6fe38p-6, 0x1p+1, 0x1.8147ae147ae14p-1, 0x1.7fdf3b645a1cbp-1,
      -0x1.174fea831db65p-2, 0x1.8147ae147ae14p-1, 0x1.c001a36e2eb1cp+0, 0x1.0126e978d4fdfp-1,
      -0x1.b378a70a396ep-6, 0x1.7fdf3b645a1cbp-1, 0x1.0126e978d4fdfp-1, 0x1.c0000431bde83p+0;
  const double k = 0x1.0624dd2f1a9fcp-10, six = 0x1.8f0f0f0f0f0f1p+2;
  p.g << k, -0x1.04957f76c724ep-10, -k, -0x1.0610623957fbfp-10;
  p.L << -0x1.f4p+9, -k, -k, -k, six, six, six, six, six, 0x1.3f3f3f3f3f3f4p-1, 0x1.f969f969f96ap-3,
      -0x1.1c79547954795p+8;
  p.R << -k, 0x1.d403d403d403ep-1, -k, -0x1.05b438e76c1aap-10, six, 0x1.8ee70ee70ee71p+2, six, six,
      0x1.6009600960098p-3, 1.0, 1.0, 1.0;
  p.lb << -0x1.bffe3ffe3ffe4p+2, -0x1.85a5a5a5a5a5bp+2, -0x1.c141414141414p+2, -inf;
  p.ub << 0x1.bffe3ffe3ffe4p+2, inf, inf, inf;
  p.lbL << 0x1.6169616961698p-3, 0.0, 0.0;
  p.ubL << 0x1.8e8f0e8f0e8f2p+1, inf, inf;
  p.lbR << 0x1.6969696969698p-3, 0x1.3f3f3f3f3f3f4p-1, 1.0;
  p.ubR << 0x1.36f3b6f3b6f3cp+2, inf, inf;
  claw::LcqpSolver<double> solver;
  auto settings = solver.settings();
  settings.use_monotone_path = false;
  settings.max_pairs_for_branch_and_bound = 24;
  REQUIRE(solver.set_settings(settings) == Status::Ok);
  const auto& r = solver.solve(p);
  // At ||x|| = 1.25e9 the rows' rounding exceeds the Ok tolerance 1e-9 (1 + |b|): no branch answer
  // can be verified in double, so the LCQP has no verified answer either.
  CHECK((r.status == Status::IllConditioned || r.status == Status::MaxIterations));  // undecided
  CHECK_FALSE(r.certified_global);
}

namespace {

/// Branch and bound on `p` (every pair, monotone path on): Ok, and a certified answer must not be
/// above the tolerance-aware best branch (claw_test::LcqpBranches::certified_ceiling, which
/// `ceiling` gives to 1e-6); an uncertified answer claims no global optimum and is not compared.
/// Whether the answer is certified depends on the rounding of the node QPs (build flags, ISA).
void check_branch_and_bound(const claw::LcqpProblem<double>& p, double ceiling) {
  claw::LcqpSolver<double> solver;
  auto settings = solver.settings();
  settings.max_pairs_for_branch_and_bound = 24;
  settings.use_monotone_path = true;
  REQUIRE(solver.set_settings(settings) == Status::Ok);
  const auto& r = solver.solve(p);
  const Eigen::VectorXd x = r.x;
  const auto branches = claw_test::solve_lcqp_branches(p, &x);
  REQUIRE(branches.hessian_accepted);
  CHECK(branches.certified_ceiling == Approx(ceiling).epsilon(1e-6));
  REQUIRE(r.status == Status::Ok);
  INFO("certified " << r.certified_global << ", objective " << r.objective);
  if (r.certified_global)
    CHECK(r.objective <= branches.certified_ceiling + 1e-6 * branches.certified_ceiling);
}

}  // namespace

TEST_CASE(
    "LCQP regression: a warm node QP that fails is solved again cold before its subtree is pruned",
    "[lcqp][regression]") {
  // The node QP with pair 0 on its R side, warm-started from the root's active set, can reach the
  // working set {A, R0, R3} (kappa 2.4e9), where x2 >= 0 is in W's span and x's rounding violates
  // it by 6.4e-6, beyond the infeasibility threshold 5.1e-8. The cold solve of the same QP is Ok
  // (2499.8328), and that subtree holds the optimum (a branch gives 2499.8331). Pins: a warm node
  // failure is solved again cold before the subtree is pruned, so nothing near 2499.9035 is
  // certified.
  const auto p = near_parallel_rows_lcqp(
      symmetric4(0x1.00000d5f30134p+0, 0x1.a1596b30224ccp-16, 0x1.2db1fdbf5f9e3p-18,
                 0x1.5bee9c018afbp-21, 0x1.00a3e39050911p+0, 0x1.63a8e8c942e79p-16,
                 0x1.1346fe8f936b8p-13, 0x1.0004e3d0d2b07p+0, -0x1.2f9f7464a2a31p-16,
                 0x1.0001b384bb82ap+0),
      kR0);
  check_branch_and_bound(p, 2499.8331);
}

TEST_CASE("LCQP regression: branch and bound goes on past a node QP missed by x's rounding over W",
          "[lcqp][regression]") {
  // The family above. Its node QP with pair 0 on its R side (x2 >= 0 in the span of
  // W = {A, R0, R3}, kappa 2.4e9, missed by x's rounding; never Infeasible) is the input of
  // tests/data/regressions/qp/dependent_constraint_missed_by_rounding_over_working_set.json.
  // Branch and bound explores past it: Ok, and a certified answer no worse than the best branch.
  const auto p = near_parallel_rows_lcqp(
      symmetric4(0x1.00000d5f30134p+0, 0x1.a199e8bc0abdep-16, 0x1.2db1fdbf5f9e3p-18,
                 -0x1.1622467a59bbcp-23, 0x1.00a3e30e4a142p+0, 0x1.682a7b03aea18p-16,
                 0x1.117bc2dba00f9p-13, 0x1.0004e3d0d2b07p+0, -0x1.3ca0d6156d7e2p-16,
                 0x1.00015727d9d38p+0),
      kR0, std::numeric_limits<double>::infinity());
  check_branch_and_bound(p, 2499.8242660499);
}

TEST_CASE("LCQP regression: a node QP answer Ok far from stationary is not a node bound",
          "[lcqp][regression]") {
  // The family above, node QP with pair 0 on its R side, warm-started: a vertex that is not the
  // minimiser (stationarity residual 768 beside gradients of 100, objective 37294) must not close
  // the node; the subtree holds a branch of 4412.48. Pins: such a node answer is repeated cold and
  // is a bound only when settled; here the cold answer is not settled either, so the LCQP answer
  // is not certified, and never certified at 4999.49.
  auto p = near_parallel_rows_lcqp(
      symmetric4(0x1.00000d5f30134p+0, 0x1.a199e8bc0abdep-16, 0x1.2db1fdbf5f9e3p-18,
                 0x1.4dbcaeb8e7fa5p-10, 0x1.00a3e30e4a142p+0, 0x1.682a7b03aea18p-16,
                 0x1.050691c764a03p-3, 0x1.0004e3d0d2b07p+0, 0x1.48d2dc72c6172p-10,
                 0x1.dfd748cecfb29p+2),
      kR0, std::numeric_limits<double>::infinity());
  p.R(2, 2) = 0x1.1501150115015p-10;
  check_branch_and_bound(p, 4412.4796991906);
}

namespace {

/// n = 4, two pairs of general rows; L_0 and R_0 are 4.4e-10
/// apart in angle in the metric of Q (Q_ii from 1 to 2.5e5), L_0 an equality.
claw::LcqpProblem<double> near_parallel_pair_lcqp() {
  claw::LcqpProblem<double> p(4, 0, 2);
  p.Q = symmetric4(0x1.a3515e85746a2p+4, 0x1.59440e5fbdc2ep+1, -0x1.c1233f2d308b4p-2,
                   0x1.363c97a39cc81p+11, 0x1.30037194bf255p+17, -0x1.16758beba9336p+5,
                   0x1.eda69a8f0d3f3p+7, 0x1.03ff48b318ec1p+0, -0x1.5e02a93004a01p+5,
                   0x1.e0bbcb429ee74p+17);
  p.g << -0x1.999999999999ap-4, -0x1.b56275627562bp+5, -0x1.0624dd2f1a9fcp-10,
      -0x1.22eb22eb22eb2p-1;
  const double k = -0x1.0624dd2f1a9fcp-10;  // -0.001
  p.L << k, k, 0x1.e450505050504p+9, -0x1.01fbe34391581p-10, k, 0x1.aa05c29937558p-13, -0x1.f4p+9,
      -0x1.f4p+9;
  p.R << k, k, 0x1.a5e399e399e3bp+9, -0x1.3d98cae8aa242p-11, k, 0x1.0e6b8d6568883p-12,
      0x1.fc03fc03fc04p-1, 0x1.882cd82cd82cep+6;
  const double inf = std::numeric_limits<double>::infinity();
  p.lb.setConstant(-inf);
  p.ub.setConstant(inf);
  p.lbL << 0x1.d403d403d403ep-1, -0x1.6cf16cf16cf18p-4;
  p.ubL << 0x1.d403d403d403ep-1, 0x1.1096109610962p+0;
  p.lbR << -0x1.fc03fc03fc04p-1, 0x1.d4f7d4f7d4f7ep-1;
  p.ubR << 0x1.76b176b176b14p-2, inf;
  return p;
}

}  // namespace

TEST_CASE(
    "LCQP regression: a relaxation that needs a nearly dependent row as a direction is not pruned "
    "as Infeasible",
    "[lcqp][regression]") {
  // Branch and bound's root QP is the input of
  // tests/data/regressions/qp/row_dependent_within_rounding_allowance.json: Ok or IllConditioned,
  // never Infeasible, although a row is dependent on W only within W's rounding allowance. The
  // LCQP (its branch with L_1 held is feasible) is never Infeasible; a certified answer is the best
  // branch.
  const auto p = near_parallel_pair_lcqp();
  claw::LcqpSolver<double> solver;
  const auto& r = solver.solve(p);
  CHECK(r.status != Status::Infeasible);
  if (r.status == Status::Ok && r.certified_global)
    CHECK(r.objective == Approx(best_branch(p)).epsilon(1e-9));
}

namespace {

/// fuzz_lcqp's moderate family, n = 4: L selects x3, x2; two equalities fix x0, x1 in terms of
/// them, and at lambda = 0 (x = (0, 0.1, 0, 0)) both R rows sit exactly on their bound: c = 0 in
/// exact arithmetic, S singular (x2, x3 can grow together), so the LCP's solution is not unique.
claw::LcqpProblem<double> degenerate_monotone_lcqp(const Eigen::Matrix4d& q, double a00) {
  claw::LcqpProblem<double> p(4, 2, 2);
  p.Q = q;
  p.g << 0x1.7574a8a7dbdb4p-7, 0x1.74a7db0e4174dp-7, 0x1.d1d1d1d1d1d2p-4, 0x1.6969696969698p-3;
  const double a = 0x1.8f0f0f0f0f0f1p+2, b = 0x1.3f3f3f3f3f3f4p-1;  // 6.235, 0.6235
  p.A << a00, a, a, a, a, a, 0x1.98a2e050f4cbep-8, 0x1.646b946b946bap+7;
  p.lbA << b, b;
  p.ubA << b, b;
  p.L << 0, 0, 0, 1, 0, 0, 1, 0;
  p.R << 0x1.86a55daf9b204p-12, a, a, a, a, a, a, a;
  const double inf = std::numeric_limits<double>::infinity();
  p.lb.setConstant(-inf);
  p.ub.setConstant(inf);
  p.lbL.setZero();
  p.ubL.setConstant(inf);
  p.lbR << b, b;
  p.ubR.setConstant(inf);
  return p;
}

/// Solves p with the default LcqpSolver: Ok, certified, at the best branch's objective (1e-9),
/// and below `below` (a non-optimal complementary point's objective).
void check_certified_at_best_branch(const claw::LcqpProblem<double>& p, double below) {
  claw::LcqpSolver<double> solver;
  const auto& r = solver.solve(p);
  REQUIRE(r.status == Status::Ok);
  CHECK(r.certified_global);
  CHECK(r.objective == Approx(best_branch(p)).epsilon(1e-9));
  CHECK(r.objective < below);
}

}  // namespace

TEST_CASE(
    "LCQP regression: the monotone path's ray on a rounding-level c is not a proof of "
    "infeasibility",
    "[lcqp][regression]") {
  // c is zero up to rounding (computed slightly negative), where Lemke's method can end in a ray.
  // Pins the rule: a ray proves infeasibility only when it persists with w >= -t (and c within its
  // rounding is 0 first); branch and bound finds the optimum, 0.0086643 with lambda =
  // (3.9e-5, 1.1e-3), below the lambda = 0 point's 0.0086657.
  const auto p = degenerate_monotone_lcqp(
      symmetric4(0x1.01f21d75b02cfp+0, 0x1.f79482c4dcce6p-5, 0x1.ce91101b7ab0cp-5,
                 -0x1.0080e906639c2p-14, 0x1.817477396cfe6p+0, 0x1.cdae30fe8f306p-2,
                 -0x1.25033670ccfd2p-11, 0x1.bda0ac317fad9p+0, -0x1.d9d9e8929494cp-12,
                 0x1.0000107db14bap+0),
      0x1.6969696969698p-3);
  check_certified_at_best_branch(p, 0.0086650);  // the lambda = 0 point is not the optimum
}

TEST_CASE("LCQP regression: the monotone path does not certify a solution made unique by rounding",
          "[lcqp][regression]") {
  // (1) The family above with c = +1e-17: scaled by |c|_inf, the rounding would become an LCP with
  // c = O(1) whose unique solution lambda = 0 (0.0086657) is not the optimum (0.0086643). Pins the
  // rule: c within 64 n eps of its size is 0.
  const auto p = degenerate_monotone_lcqp(
      symmetric4(0x1.01f21d75b02cfp+0, 0x1.f79482c4dcce6p-5, 0x1.ce91101b7ab0cp-5,
                 -0x1.007cf15395d5p-14, 0x1.817477396cfe6p+0, 0x1.cdae30fe8f306p-2,
                 -0x1.229b9625a761ep-11, 0x1.bda0ac317fad9p+0, -0x1.d9dbbc60f2366p-12,
                 0x1.00000f6307c9ep+0),
      0x1.6639663966398p-3);
  check_certified_at_best_branch(p, 0.0086650);
  // (2) Three equalities leave the line x = (0, 0, 100 - lambda, lambda), along which R x is
  // constant: M = 0 in exact arithmetic (1e-17 computed) and every lambda >= 0 is complementary.
  // Lemke's point lambda = 127.5 (objective 8504.6) is not the optimum, lambda = 50 (2501.4).
  // Pins the rule: an entry of M within sqrt(eps) of its size makes the path not applicable.
  claw::LcqpProblem<double> line(4, 3, 1);
  line.Q = symmetric4(0x1.00a3e037af9bbp+0, 0x1.a1596b30224ccp-16, 0x1.a158ab27645a2p-16,
                      0x1.a160fc3a66a46p-16, 0x1.000010b7d108ap+0, 0x1.0b7117571a3a4p-20,
                      0x1.0bf5d70e6eb4ep-20, 0x1.000010b65204fp+0, 0x1.0be9c80064242p-20,
                      0x1.000010c6f7a0bp+0);
  line.g << -0x1.041a9db4374ddp-10, -0x1.0624dd2f1a9fcp-10, 0x1.19a119a119a13p-6,
      0x1.5af48e27c15b4p-7;
  const double k = kR0, e = -0x1.4e1ae7b4814e7p-8;  // 1.06e-3, -5.1e-3
  line.A << -0x1.97d7d7d7d7d83p+5, e, k, k, -0x1.73db0d74a70e7p-7, e, k, k, e, k, k, k;
  line.lbA.setConstant(kRhs);
  line.ubA.setConstant(kRhs);
  line.L << 0, 0, 0, 1;
  line.R << kRhs, 0x1.ec13ec13ec13ep-1, k, k;
  const double inf = std::numeric_limits<double>::infinity();
  line.lb.setConstant(-inf);
  line.ub.setConstant(inf);
  line.lbL << 0.0;
  line.ubL << inf;
  line.lbR << kRhs;
  line.ubR << inf;
  check_certified_at_best_branch(line, 2502.0);
}

TEST_CASE(
    "LCQP regression: a node QP whose proof of infeasibility rests on a rounding-level direction "
    "leaves the node unexplored",
    "[lcqp][regression]") {
  // L selects the variables in reverse order, R_0 mixes -964 with 1e-3 entries; x = (0, 0, 0, 100)
  // is feasible (objective 5000.2), while a node QP over a working set of kappa 1e7 (multipliers of
  // 2e15) misses x2 >= 0 by 4e-4. Pins: the answer may be MaxIterations (an IllConditioned node is
  // not explored) but never Infeasible, and an Ok one is no worse than the best branch.
  claw::LcqpProblem<double> p = near_parallel_rows_lcqp(
      symmetric4(0x1.00000d5f30134p+0, 0x1.a199e8bc0abdep-16, 0x1.2db1fdbf5f9e3p-18,
                 0x1.1db85db443d2bp-19, 0x1.00a3e30e4a142p+0, 0x1.682a7b03aea18p-16,
                 0x1.1017e9495cfb6p-13, 0x1.0004e3d0d2b07p+0, 0x1.17c2790d11a3cp-17,
                 0x1.00014bad9a8ecp+0),
      0x1.15a4ecaf2a2p-10, std::numeric_limits<double>::infinity());
  p.g.setConstant(kR0);  // the family's instance, but for g and R_1, R_2, R_3
  p.R(1, 1) = 0x1.153e85e25cecdp-10;
  p.R(2, 3) = 1.0;
  p.R.row(3).setOnes();
  p.lbR(2) = 1.0;
  p.ubL(3) = 0x1.61e1e1e1e1e1ep+1;
  claw::LcqpSolver<double> solver;
  const auto& r = solver.solve(p);
  const auto branches = claw_test::solve_lcqp_branches(p);
  REQUIRE(branches.clearly_feasible);
  // Expected: Ok no worse than the best branch, or MaxIterations (an unexplored node) with x = 0.
  INFO("status " << claw::to_string(r.status));
  REQUIRE((r.status == Status::Ok || r.status == Status::MaxIterations));
  if (r.status == Status::Ok) {
    CHECK(r.objective <= branches.best_objective * (1.0 + 1e-9));
  } else {
    CHECK(r.x.isZero(0.0));
  }
}

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

TEST_CASE("LCQP regression: a node QP missing a row by the rounding of W's combination is no proof",
          "[lcqp][regression]") {
  // The near-parallel-rows family: its node QP with pair 0 on its R side holds x = (0, 0, 0, 100);
  // x2 >= 0 is dependent on W = {A, R_1, R_0, L_3} through a combination of 2.3e13 and missed by
  // its rounding (that QP, never Infeasible, is the input of
  // tests/data/regressions/qp/dependent_constraint_missed_by_large_combination.json). The LCQP is
  // never Infeasible, and a certified answer is no worse than the best branch.
  claw::LcqpProblem<double> p = near_parallel_rows_lcqp(
      symmetric4(0x1.00000d639869p+0, 0x1.a195b6f9f0ce5p-16, 0x1.2da136b6f7dfdp-18,
                 0x1.9e64e4c43befp-6, 0x1.00a3e30e4a142p+0, 0x1.682a7b03aea18p-16,
                 -0x1.921d408be660ep-6, 0x1.0004e3d0d2b07p+0, 0x1.cf3fb554f2542p-2,
                 0x1.5a718a047c5b6p+11),
      0x1.15a4ecaf2a2p-10, std::numeric_limits<double>::infinity());
  p.g.setConstant(kR0);
  p.R(1, 1) = 0x1.153e85e25cecdp-10;
  p.R(2, 3) = 1.0;
  p.R.row(3).setOnes();
  p.lbR(2) = 1.0;
  p.lbR(3) = 0x1.b131b131b132p-4;
  p.ubL(3) = 0x1.61e1e1e1e1e1ep+1;
  claw::LcqpSolver<double> solver;
  const auto& s = solver.solve(p);
  CHECK(s.status != Status::Infeasible);
  if (s.status == Status::Ok && s.certified_global)
    CHECK(s.objective <= best_branch(p) * (1.0 + 1e-9));
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

TEST_CASE("LCQP regression: the monotone path equilibrates its LCP before Lemke's method",
          "[lcqp][regression]") {
  // L selects x3, x2, x1, x0; R rows r (1, 1, 1, 1) with r = 858.8
  // (pairs 0-2) and kR0 = 0.00106 (pair 3). Every feasible x has sum x >= kRhs / kR0 = 100, so
  // pairs 0-2 sit on their L side and the feasible set is the single point x = (100, 0, 0, 0).
  // M = S D with d = 1 at the first pair gives S a diagonal from 858.8 to 1.3e-9, where Lemke's
  // method can end on a ray. Pins: with E S E (unit diagonal) it solves in two pivots, never
  // Infeasible.
  claw::LcqpProblem<double> p = reverse_selector_lcqp(0);
  p.Q.setIdentity();
  p.g.setZero();
  const double r = 0x1.ad69696969697p+9, lbr = 0x1.b7b7b7b7b7b7cp-1;
  p.R.topRows(3).setConstant(r);
  p.R.row(3).setConstant(kR0);
  p.lbR << lbr, lbr, kRhs, kRhs;
  claw::LcqpSolver<double> solver;
  const auto& result = solver.solve(p);
  REQUIRE(result.status == Status::Ok);
  CHECK(result.certified_global);
  CHECK(result.path == claw::LcqpPath::Monotone);
  const double x0 = kRhs / kR0;  // 100 up to the rounding of the data
  CHECK(result.x(0) == Approx(x0).epsilon(1e-12));
  CHECK(result.x.tail(3).cwiseAbs().maxCoeff() <= 1e-12 * x0);
  CHECK(result.objective == Approx(0.5 * x0 * x0).epsilon(1e-12));
  // The same LCQP through branch and bound agrees.
  auto settings = solver.settings();
  settings.use_monotone_path = false;
  REQUIRE(solver.set_settings(settings) == Status::Ok);
  const auto& bnb = solver.solve(p);
  REQUIRE(bnb.status == Status::Ok);
  CHECK(bnb.objective == Approx(0.5 * x0 * x0).epsilon(1e-12));
}

TEST_CASE(
    "LCQP regression: at a scale where no QP answer can be verified (||x|| = 1.6e10), nothing is "
    "certified",
    "[lcqp][regression]") {
  // R1 and R2 are the same row, -623.5 (1, 1, 1, 1), held at -1 and -0.62 in every branch with
  // pair 1 on its R side: that branch is empty. At the LCQP's scale, ||x|| = 1.6e10, QpSolver's
  // tolerance 1e-9 (1 + ||x||) along the unit normal lets its point miss them (by 1.75 once moved
  // inward) and answer Ok, at a value 6e-6 below the clean branches'. Pins the reference's rule: a
  // moved point must meet the branch's equalities to rounding, so the reference is not below the
  // certified optimum.
  claw::LcqpProblem<double> p(4, 0, 3);
  p.Q = symmetric4(0x1.be04fe3bb3f72p+0, 0x1.dcc26f0db5d99p+7, -0x1.9995f1928fbc3p+0,
                   -0x1.313a41a72761ep+2, 0x1.ca2082186d8e9p+17, -0x1.bd40873b25b73p-3,
                   -0x1.82faad7f5223ep+10, 0x1.686397393c55fp+3, 0x1.4736b90f73111p+3,
                   0x1.fa55169aae1dap+4);
  p.g << -0x1.05d29f6c3905dp-4, -0x1.f3d8efd8efd8fp+9, -0x1.0624dd2f1a9fcp-10,
      0x1.aa05c29937558p-13;
  const double a = -0x1.37c3c3c3c3c3cp+9, s = -0x1.0624dd2f1a9fcp-10;  // -623.5, -0.001
  p.L << 0x1.146155ea8d364p-11, 0x1.f7d2dd331ebc5p-11, -0x1.999999999999ap-4,
      -0x1.0428f3c6a5f3bp-10,            //
      a, 1.0, -0x1.3863ec63ec63fp+9, a,  //
      a, a, a, a;
  p.R << s, -0x1.05ac07b85172bp-10, s, s, a, a, a, a, a, a, a, a;
  const double inf = std::numeric_limits<double>::infinity();
  p.lb << -0x1.7030303030303p+2, -0x1.2ffceffceffcfp+2, -inf, -inf;
  const double b = -0x1.3f3f3f3f3f3f4p-1;  // -0.6235
  p.lbL << -1.0, -1.0, b;
  p.ubL << inf, -0x1.ebffebffebfffp-1, 0x1.10b190b190b19p+1;
  p.lbR << 0x1.d403d403d403ep-1, -1.0, b;
  p.ubR << 0x1.da02da02da02ep+0, -0x1.e1e1e1e1e1e2p-5, inf;
  REQUIRE(p.R.row(1) == p.R.row(2));
  REQUIRE(p.lbR(1) != p.lbR(2));
  claw::LcqpSolver<double> solver;
  const auto& r = solver.solve(p);
  // At ||x|| = 1.6e10 the rows' own rounding (eps |a|'|x| ~ 1e-5) exceeds the Ok tolerance
  // 1e-9 (1 + |b|) along the unit normal: no answer can be verified in double, and none is
  // returned as one.
  CHECK((r.status == Status::IllConditioned || r.status == Status::MaxIterations));  // undecided
  CHECK_FALSE(r.certified_global);
}

TEST_CASE(
    "LCQP regression: the monotone path counts a pair as degenerate within the rounding of R x - "
    "lbR",
    "[lcqp][regression]") {
  // The degenerate_monotone_lcqp family with a second equality
  // 62.35 x0 + 6.235 x1 + 0.0062 x2 + 178.2 x3 = 0.8735. The first equality makes w = R x - lbR =
  // (-0.176, 6.06) x0: w >= 0 only at x0 = 0, where w = 0 and lambda = (x3, x2) runs along a
  // segment (S has rank 1). c = (-7e-4, 0.024) is a difference of terms of 0.65, so Lemke's
  // w_1 = 0 comes out 2.5e-13 (scaled), above the pivot-rounding tolerance 4e-14; lambda =
  // (0.00145, 0) (0.0086894) is not the optimum, 0.0074777. Pins the rule: I0 (and a guess's
  // strictness test) allows for c's rounding.
  auto p = degenerate_monotone_lcqp(
      symmetric4(0x1.01f219780bf9p+0, 0x1.f7cfc46661e26p-5, -0x1.e55b13e7d4f11p+4,
                 -0x1.02feeff15c7d1p-14, 0x1.817477396cfe6p+0, -0x1.f3152289e0c13p+7,
                 -0x1.0dbbb6fc851a9p-11, 0x1.e82a5a689ba54p+17, 0x1.ff0ec34fa2785p-3,
                 0x1.00000d94a34c9p+0),
      0x1.6969696969698p-3);
  p.A(1, 0) = 0x1.f2d2d2d2d2d2dp+5;
  p.lbA(1) = p.ubA(1) = 0x1.bf3fbf3fbf3fcp-1;
  check_certified_at_best_branch(p, 0.0086);
  // A guess naming that point's sides (pair 0 on R, pair 1 on L) is not verified as unique either.
  claw::LcqpSolver<double> solver;
  Eigen::Matrix<std::int8_t, 2, 1> guess(1, 0);
  const auto& guessed = solver.solve(p, guess);
  REQUIRE(guessed.status == Status::Ok);
  CHECK(guessed.objective == Approx(best_branch(p)).epsilon(1e-9));
  CHECK(guessed.objective < 0.0086);
}

TEST_CASE(
    "LCQP regression: the monotone path's uniqueness test allows for the error of its symmetric S",
    "[lcqp][regression]") {
  // Review: M = S D is detected with d consistent to 1e-9 and S is then averaged with
  // its transpose, so S is known only to that asymmetry. Here L = I, M = R = S0 + eps a b' with S0
  // PSD of rank 2 and R v = 0 exactly (S0 v = 0, b'v = 0, v = (1, 1, -1)); lbR = R (1, 1, 2), so
  // every lambda = (1, 1, 2) + t v, t in [-1, 2], is complementary with w = 0. The averaged S is
  // nonsingular by about eps, and for eps from 1e-12 to 3e-10 the path certified t = 1,
  // x = (0, 0, 3), objective 4.5. The optimum is t = -1/3, x = (2/3, 2/3, 7/3), objective 23/6.
  const Eigen::Vector3d u1(1, -1, 0), u2(1, 1, 2), a(0.3, -0.7, 0.2), b(1, 0, 1), lambda(1, 1, 2);
  const Eigen::Matrix3d s0 = u1 * u1.transpose() + 0.5 * u2 * u2.transpose();
  for (const double eps : {1e-12, 1e-11, 1e-10, 3e-10}) {
    CAPTURE(eps);
    claw::LcqpProblem<double> p(3, 0, 3);
    p.Q.setIdentity();
    p.g << 1, 0, 0;
    p.L.setIdentity();
    p.R = s0 + eps * a * b.transpose();
    p.lbR = p.R * lambda;
    check_certified_at_best_branch(p, 4.4);
    claw::LcqpSolver<double> solver;
    CHECK(solver.solve(p).objective == Approx(23.0 / 6.0).epsilon(1e-9));
  }
}

namespace {

/// Pairs whose rows L2 = R2 coincide, and an L0 whose x2 and
/// x3 coefficients differ by 6.1e-8 of 0.001: with pairs 0 and 2 on their L side, L0 x = -1,
/// L2 x = -0.62 and R1 x >= 0.38 hold only at x3 = -x2 = 9.8e6 (objective 5.0e18).
claw::LcqpProblem<double> far_vertex_lcqp() {
  claw::LcqpProblem<double> p(4, 0, 3);
  p.Q << 0x1.00001084e7f0bp+0, -0x1.f06ddae9f2927p-3, 0x1.4d05b90f419edp-3, 0x1.5f6dc097060abp-6,
      -0x1.f06ddae9f2927p-3, 0x1.ca2082186d8e9p+17, -0x1.2ef21bac1663ap+17, -0x1.4719430a0c4a5p+4,
      0x1.4d05b90f419edp-3, -0x1.2ef21bac1663ap+17, 0x1.90c305174ac3fp+16, -0x1.18cf48057c105p+1,
      0x1.5f6dc097060abp-6, -0x1.4719430a0c4a5p+4, -0x1.18cf48057c105p+1, 0x1.cc51bc483d7cdp+10;
  p.g << 0x1.14a8c2bd3d9e9p-7, 0x1.716a316a316a5p+4, -0x1.0624dd2f1a9fcp-10, 0x1.aa05c29937558p-13;
  p.L << 0x1.146155ea8d364p-11, -0x1.f29c869c869c8p+9, -0x1.0624dd2f1a9fcp-10,
      -0x1.0620c4978d4bdp-10, -0x1.f4p+9, -0x1.37c3c3c3c3c3cp+9, -0x1.37c3c3c3c3c3cp+9,
      -0x1.37c3c3c3c3c3cp+9, -0x1.37c3c3c3c3c3cp+9, -0x1.37c3c3c3c3c3cp+9, -0x1.37c3c3c3c3c3cp+9,
      -0x1.37c3c3c3c3c3cp+9;
  p.R << 0x1.eb89168b22d4ep-11, -0x1.1a9ecccbdb21ep-11, -0x1.0624dd2f1a9fcp-10,
      -0x1.0624dd2f1a9fcp-10, -0x1.3f3f3f3f3f3f4p-1, -0x1.46e8b373f7098p-11, -0x1.37c3c3c3c3c3cp+9,
      -0x1.37c3c3c3c3c3cp+9, -0x1.37c3c3c3c3c3cp+9, -0x1.37c3c3c3c3c3cp+9, -0x1.37c3c3c3c3c3cp+9,
      -0x1.37c3c3c3c3c3cp+9;
  const double inf = std::numeric_limits<double>::infinity();
  p.lb.setConstant(-inf);
  p.ub << 0x1.01c801c801c8p-1, inf, inf, inf;
  p.lbL << -0x1p+0, -0x1.3f3f3f3f3f3f4p-1, -0x1.3f3f3f3f3f3f4p-1;
  p.ubL << inf, 0x1.c289c289c28ap-3, 0x1.8383838383838p+0;
  p.lbR << -0x1p+0, 0x1.8185818581858p-2, -0x1.3f3f3f3f3f3f4p-1;
  p.ubR << inf, 0x1.5152515251525p+0, 0x1.4545454545454p-2;
  return p;
}

}  // namespace

TEST_CASE("LCQP regression: a node QP row dependent within dependence_tolerance prunes nothing",
          "[lcqp][regression]") {
  // L0's normal leaves the span of the working set's at a sine of 2e-13 in Q's metric: below
  // dependence_tolerance (1000 eps), well above W's rounding. The node QP with pairs 0 and 2 on
  // their L side is never Infeasible, and its branch with pair 1 held too is at 5.0e18
  // (tests/data/regressions/qp/row_dependent_within_dependence_tolerance.json): branch and bound
  // keeps that branch, so the LCQP is never Infeasible and certifies nothing above it.
  const auto p = far_vertex_lcqp();
  claw::LcqpSolver<double> solver;
  const auto& r = solver.solve(p);
  CHECK(r.status != Status::Infeasible);
  CHECK_FALSE((r.certified_global && r.objective > 5.04e18));
}

TEST_CASE("LCQP regression: an equality held out of W by its rounding allowance is no proof",
          "[lcqp][regression]") {
  // Four equality rows -0.001 (1, 1, 1, 1) but for one entry each, and two ranges whose lower
  // bounds hold exactly at the only point, x = (1000, 0, 0, 0). The root QP (rows L, R), where a
  // row within W's rounding allowance 16 eps kappa is held out as dependent, is never Infeasible
  // (tests/data/regressions/qp/equality_held_out_by_rounding_allowance.json); nor is the LCQP.
  Eigen::Matrix4d q;
  q << 0x1.1842b39d150b2p+0, -0x1.4b7c1542bfe88p-13, -0x1.538240063c5ap-13, 0x1.45d20f48f5bfdp-13,
      -0x1.4b7c1542bfe88p-13, 0x1.0000302277e9dp+0, 0x1.28035c8460ef2p-19, 0x1.2213ea9257a47p-21,
      -0x1.538240063c5ap-13, 0x1.28035c8460ef2p-19, 0x1.00019d9001691p+0, 0x1.04066dd2ba47p-19,
      0x1.45d20f48f5bfdp-13, 0x1.2213ea9257a47p-21, 0x1.04066dd2ba47p-19, 0x1.00000b26c9a8p+0;
  const double k = -0x1.0624dd2f1a9fcp-10;  // -0.001
  const double a = -0x1.061eb84bc6a1dp-10, b = -0x1.0622d0e353f5cp-10;
  claw::LcqpProblem<double> p(4, 0, 3);
  p.Q = q;
  p.g << k, k, 0x1.4bca00035813cp-11, k;
  p.lb.setConstant(-claw::infinity<double>());
  p.ub.setConstant(claw::infinity<double>());
  p.L << k, a, -0.1, k, k, k, k, k, k, k, b, k;
  p.R << k, k, k, b, k, k, k, -1000.0, k, k, k, k;
  p.lbL.setConstant(-1.0);
  p.ubL.setConstant(-1.0);
  p.lbR.setConstant(-1.0);
  p.ubR << -1.0, -0x1.ffebffebffecp-1, 4.0;
  // The point (1000, 0, 0, 0) meets every row to rounding: the LCQP is feasible.
  const Eigen::Vector4d x_star(1000.0, 0.0, 0.0, 0.0);
  for (int i = 0; i < 3; ++i) {
    CHECK(p.L.row(i).dot(x_star) == Approx(-1.0).margin(1e-12));
    CHECK(p.R.row(i).dot(x_star) >= -1.0 - 1e-12);
    CHECK(p.R.row(i).dot(x_star) <= p.ubR(i) + 1e-12);
  }
  claw::LcqpSolver<double> solver;
  const auto& r = solver.solve(p);
  INFO("LCQP: " << claw::to_string(r.status) << (r.certified_global ? ", certified" : ""));
  CHECK(r.status != Status::Infeasible);
}
