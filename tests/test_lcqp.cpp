// tests/test_lcqp.cpp: solvers/lcqp.hpp against closed forms solved by hand, against brute-force
// enumeration of every branch (each pair fixed on one side, one convex QP per branch) on random
// nonconvex LCQPs for each path (monotone, branch and bound, penalty homotopy), warm start, float,
// sizes, refusals, regularisation, allocation-free solves for every status, residuals and the
// stationarity type.
#include <catch2/catch.hpp>

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "claw/solvers/lcqp.hpp"
#include "claw/solvers/qp.hpp"
#include "support/alloc_counter.hpp"
#include "support/infinity.hpp"
#include "support/lcqp_reference.hpp"
#include "support/solver_instances.hpp"

using claw::LcqpPath;
using claw::LcqpStationarity;
using claw::Status;
using claw_test::lcqp_objective;
using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using Problem = claw::LcqpProblem<double>;
using Solver = claw::LcqpSolver<double>;
// The one bounded (inline storage) configuration the tests use: every problem below fits.
using BoundedSolver = claw::LcqpSolver<double, 10, 5, 4>;
using Settings = claw::LcqpSettings<double>;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// --- independent evaluation of a point ---------------------------------------------------------

/// Largest violation of any bound or row (box, A, L and R, both sides), from the data alone.
double primal_violation(const Problem& p, const VectorXd& x) {
  double v = 0.0;
  auto one = [&v](double value, double lo, double hi) {
    v = std::max({v, lo - value, value - hi});
  };
  for (Index i = 0; i < x.size(); ++i) one(x(i), p.lb(i), p.ub(i));
  const VectorXd ax = p.A * x, lx = p.L * x, rx = p.R * x;
  for (Index i = 0; i < ax.size(); ++i) one(ax(i), p.lbA(i), p.ubA(i));
  for (Index i = 0; i < lx.size(); ++i) {
    one(lx(i), p.lbL(i), p.ubL(i));
    one(rx(i), p.lbR(i), p.ubR(i));
  }
  return v;
}

/// max_i |min(L_i x - lbL_i, R_i x - lbR_i)|.
double natural_residual(const Problem& p, const VectorXd& x) {
  double v = 0.0;
  const VectorXd lx = p.L * x - p.lbL, rx = p.R * x - p.lbR;
  for (Index i = 0; i < lx.size(); ++i) v = std::max(v, std::abs(std::min(lx(i), rx(i))));
  return v;
}

double scale_of(const VectorXd& x) { return 1.0 + x.lpNorm<Eigen::Infinity>(); }

bool same_objective(double a, double b, double rel) {
  return std::abs(a - b) <= rel * std::max(1.0, std::abs(b));
}

/// Everything an Ok result promises, recomputed here: feasible and complementary within `tol`
/// (1 + |x|_inf), the objective and the residuals as reported, and `active` consistent with x.
template <typename Result>
void check_ok_point(const Problem& p, const Result& r, double tol = 1e-9) {
  REQUIRE(r.status == Status::Ok);
  const VectorXd x = r.x.template cast<double>();
  REQUIRE(x.size() == p.num_variables());
  const double primal = primal_violation(p, x), comp = natural_residual(p, x);
  CHECK(primal <= tol * scale_of(x));
  CHECK(comp <= tol * scale_of(x));
  CHECK(std::abs(double(r.residuals.primal) - primal) <= 1e-12 * scale_of(x));
  CHECK(std::abs(double(r.residuals.complementarity) - comp) <= 1e-12 * scale_of(x));
  CHECK(same_objective(double(r.objective), lcqp_objective(p, x), 1e-12));
  REQUIRE(r.active.size() == p.num_pairs());
  const VectorXd lx = p.L * x - p.lbL, rx = p.R * x - p.lbR;
  for (Index i = 0; i < p.num_pairs(); ++i) {
    const int side = r.active(i);
    INFO("pair " << i << " side " << side << " L " << lx(i) << " R " << rx(i));
    CHECK((side == 0 || side == 1 || side == 2));
    if (side == 0 || side == 2) CHECK(std::abs(lx(i)) <= 1e-8 * scale_of(x) * p.L.row(i).norm());
    if (side == 1 || side == 2) CHECK(std::abs(rx(i)) <= 1e-8 * scale_of(x) * p.R.row(i).norm());
  }
}

template <typename Result>
void check_refused(const Result& r, Status expected) {
  CHECK(r.status == expected);
  CHECK(r.x.isZero(0.0));
  CHECK(r.path == LcqpPath::None);
  CHECK_FALSE(r.certified_global);
}

// --- brute force ---------------------------------------------------------------------------------

/// The global optimum by enumeration: for each of the 2^m branches (pair i fixed on its L side,
/// L_i x = lbL_i and lbR_i <= R_i x <= ubR_i, or on its R side), one strictly convex QP.
struct Enumeration {
  bool feasible = false;
  double objective = kInf;
  VectorXd x;
  int feasible_branches = 0;
};

Enumeration enumerate(const Problem& p) {
  const Index n = p.num_variables(), nc = p.num_constraints(), m = p.num_pairs();
  MatrixXd rows(nc + 2 * m, n);
  rows.topRows(nc) = p.A;
  rows.middleRows(nc, m) = p.L;
  rows.bottomRows(m) = p.R;
  VectorXd lo(nc + 2 * m), hi(nc + 2 * m);
  lo.head(nc) = p.lbA;
  hi.head(nc) = p.ubA;
  claw::QpSolverXd qp(n, nc + 2 * m);
  Enumeration e;
  for (long mask = 0; mask < (1L << m); ++mask) {
    for (Index i = 0; i < m; ++i) {
      const bool l_side = ((mask >> i) & 1) == 0;
      lo(nc + i) = p.lbL(i);
      hi(nc + i) = l_side ? p.lbL(i) : p.ubL(i);
      lo(nc + m + i) = p.lbR(i);
      hi(nc + m + i) = l_side ? p.ubR(i) : p.lbR(i);
    }
    const auto& r = qp.solve(p.Q, p.g, rows, p.lb, p.ub, lo, hi);
    REQUIRE((r.status == Status::Ok || r.status == Status::Infeasible));
    if (r.status != Status::Ok) continue;
    ++e.feasible_branches;
    const double f = lcqp_objective(p, r.x);
    if (!e.feasible || f < e.objective) {
      e.feasible = true;
      e.objective = f;
      e.x = r.x;
    }
  }
  return e;
}

// --- problem generators
// ----------------------------------------------------------------------------

/// min 1/2 |x - a|^2 over x in R^2 with 0 <= x1 perp x2 >= 0.
Problem two_variable(double a1, double a2) {
  Problem p(2, 0, 1);
  p.Q.setIdentity();
  p.g << -a1, -a2;
  p.L << 1, 0;
  p.R << 0, 1;
  return p;
}

/// Rows and box that hold at x0: lbA_i = a_i'x0 - U(0, 1), ubA_i = +inf or a_i'x0 + U(0, 1), and
/// each bound of x_j at 0.5 + U(0, 1) from x0_j with probability 1/2 (else infinite).
void hold_at(std::mt19937& rng, const VectorXd& x0, Problem& p) {
  std::uniform_real_distribution<double> s(0.0, 1.0);
  const VectorXd ax = p.A * x0;
  for (Index i = 0; i < p.num_constraints(); ++i) {
    p.lbA(i) = ax(i) - s(rng);
    p.ubA(i) = s(rng) < 0.5 ? kInf : ax(i) + s(rng);
  }
  for (Index i = 0; i < p.num_variables(); ++i) {
    if (s(rng) < 0.5) p.lb(i) = x0(i) - 0.5 - s(rng);
    if (s(rng) < 0.5) p.ub(i) = x0(i) + 0.5 + s(rng);
  }
}

/// A random LCQP with Q = B'B + I, dense A, L, R rows, feasible by construction at a random x0
/// (each pair tight on a random side there, the other side with slack); some rows, bounds and upper
/// pair bounds are two-sided.
Problem random_lcqp(std::mt19937& rng, int n, int nc, int m) {
  std::uniform_real_distribution<double> u(-1.0, 1.0), s(0.0, 1.0);
  Problem p(n, nc, m);
  const MatrixXd b = MatrixXd::NullaryExpr(n, n, [&] { return u(rng); });
  p.Q = b.transpose() * b + MatrixXd::Identity(n, n);
  p.g = VectorXd::NullaryExpr(n, [&] { return 3.0 * u(rng); });
  const VectorXd x0 = VectorXd::NullaryExpr(n, [&] { return u(rng); });
  p.A = MatrixXd::NullaryExpr(nc, n, [&] { return u(rng); });
  hold_at(rng, x0, p);
  p.L = MatrixXd::NullaryExpr(m, n, [&] { return u(rng); });
  p.R = MatrixXd::NullaryExpr(m, n, [&] { return u(rng); });
  const VectorXd lx = p.L * x0, rx = p.R * x0;
  for (int i = 0; i < m; ++i) {
    const bool l_tight = s(rng) < 0.5;
    p.lbL(i) = lx(i) - (l_tight ? 0.0 : s(rng));
    p.lbR(i) = rx(i) - (l_tight ? s(rng) : 0.0);
    if (s(rng) < 0.3) p.ubL(i) = lx(i) + 0.5 + s(rng);
    if (s(rng) < 0.3) p.ubR(i) = rx(i) + 0.5 + s(rng);
  }
  return p;
}

/// A FLIQC-like LCQP: x = [y (ny); lambda (m)], equality rows y - B lambda = c with
/// B = N P' D (N = I - v v'/|v|^2 a projector, D positive diagonal), L = [0, diag(l_scale)]
/// selecting lambda (lbL = l_offset), R = [dt P, 0] with lbR = -d: the gap dt P y + d >= 0 perp
/// lambda. The other side is w = dt P c + d - ... + dt P N P' D lambda: S = dt P N P' is PSD.
/// `active_share` of the contacts start violated at lambda = 0. `duplicate` copies contact 0
/// into contact 1 (then lambda_0 + lambda_1 is all that is determined).
Problem fliqc_like(std::mt19937& rng, int ny, int m, bool duplicate = false, double l_scale = 1.0,
                   double l_offset = 0.0) {
  std::uniform_real_distribution<double> u(-1.0, 1.0), s(0.0, 1.0);
  const double dt = 0.1;
  MatrixXd pm = MatrixXd::NullaryExpr(m, ny, [&] { return u(rng); });
  VectorXd dvec = VectorXd::NullaryExpr(m, [&] { return 0.5 + 1.5 * s(rng); });
  if (duplicate) {
    pm.row(1) = pm.row(0);
    dvec(1) = dvec(0);
  }
  const VectorXd v = VectorXd::NullaryExpr(ny, [&] { return u(rng); });
  const MatrixXd nm = MatrixXd::Identity(ny, ny) - v * v.transpose() / v.squaredNorm();
  const MatrixXd bm = nm * pm.transpose() * dvec.asDiagonal();
  const VectorXd c = VectorXd::NullaryExpr(ny, [&] { return 2.0 * u(rng); });
  VectorXd d = -dt * pm * c;
  for (int i = 0; i < m; ++i) d(i) += 0.5 * u(rng);  // about half violated at lambda = 0
  if (duplicate) d(1) = d(0) = -dt * pm.row(0).dot(c) - 0.3 - 0.2 * s(rng);  // active
  Problem p(ny + m, ny, m);
  p.Q.setIdentity();
  p.Q.bottomRightCorner(m, m) *= 1e-2;
  p.g.head(ny) = -c - VectorXd::NullaryExpr(ny, [&] { return 0.3 * u(rng); });
  p.A.leftCols(ny).setIdentity();
  p.A.rightCols(m) = -bm;
  p.lbA = c;
  p.ubA = c;
  p.L.rightCols(m) = l_scale * MatrixXd::Identity(m, m);
  p.lbL.setConstant(l_offset);
  p.R.leftCols(ny) = dt * pm;
  p.lbR = -d;
  return p;
}

/// The same LCQP with the two sides of every pair exchanged.
Problem swap_sides(Problem p) {
  p.L.swap(p.R);
  p.lbL.swap(p.lbR);
  p.ubL.swap(p.ubR);
  return p;
}

/// Two contacts pushing in opposite directions, both violated: the LCP in lambda is
/// w = (-1, -1) + S lambda with S = dt |p|^2 [1 -1; -1 1] (PSD), infeasible (w1 + w2 = -2).
Problem opposing_contacts() {
  const int ny = 3, m = 2;
  const double dt = 0.1;
  Problem p(ny + m, ny, m);
  const VectorXd pv = (VectorXd(3) << 1.0, 0.5, -0.25).finished();
  MatrixXd pm(m, ny);
  pm.row(0) = pv.transpose();
  pm.row(1) = -pv.transpose();
  const VectorXd c = (VectorXd(3) << 0.3, -0.2, 0.1).finished();
  p.Q.setIdentity();
  p.A.leftCols(ny).setIdentity();
  p.A.rightCols(m) = -pm.transpose();
  p.lbA = c;
  p.ubA = c;
  p.L.rightCols(m).setIdentity();
  p.R.leftCols(ny) = dt * pm;
  p.lbR = dt * pm * c + VectorXd::Ones(m);  // w(0) = dt P c - lbR = -1
  return p;
}

/// Homotopy trap: x1 perp x2 >= 0, x2 <= 2, x1 + x2 >= 2.5, min 1/2 |x - (0.6, 5)|^2. The
/// relaxation's point (0.6, 2) is closer to the L side, whose branch (x1 = 0, x2 >= 2.5 > 2) is
/// infeasible; the only feasible branch gives (2.5, 0).
Problem homotopy_trap() {
  Problem p(2, 1, 1);
  p.Q.setIdentity();
  p.g << -0.6, -5.0;
  p.ub(1) = 2.0;
  p.A << 1, 1;
  p.lbA(0) = 2.5;
  p.L << 1, 0;
  p.R << 0, 1;
  return p;
}

/// to = from.cast<S>() for each (to, from) pair of the arguments.
template <typename S>
void cast_pairs() {}
template <typename S, typename To, typename From, typename... Rest>
void cast_pairs(To& to, const From& from, Rest&&... rest) {
  to = from.template cast<S>();
  cast_pairs<S>(std::forward<Rest>(rest)...);
}

/// p in another problem type (float, bounded sizes).
template <typename Target>
Target convert(const Problem& p) {
  Target t(p.num_variables(), p.num_constraints(), p.num_pairs());
  cast_pairs<typename Target::Scalar>(t.Q, p.Q, t.g, p.g, t.lb, p.lb, t.ub, p.ub, t.A, p.A, t.lbA,
                                      p.lbA, t.ubA, p.ubA, t.L, p.L, t.R, p.R, t.lbL, p.lbL, t.ubL,
                                      p.ubL, t.lbR, p.lbR, t.ubR, p.ubR);
  return t;
}

Settings homotopy_settings() {
  Settings s;
  s.max_pairs_for_branch_and_bound = 0;
  return s;
}

}  // namespace

// === closed forms
// ====================================================================================

TEST_CASE("LCQP: LcqpProblem::resize sets zero matrices, lbL = lbR = 0 and no other bound",
          "[lcqp]") {
  Problem p(3, 2, 1);
  CHECK(p.num_variables() == 3);
  CHECK(p.num_constraints() == 2);
  CHECK(p.num_pairs() == 1);
  CHECK(p.Q.isZero(0.0));
  CHECK(p.A.isZero(0.0));
  CHECK(p.L.isZero(0.0));
  CHECK(p.R.isZero(0.0));
  CHECK(p.g.isZero(0.0));
  CHECK(p.lbL(0) == 0.0);
  CHECK(p.lbR(0) == 0.0);
  CHECK(p.ubL(0) == kInf);
  CHECK(p.ubR(0) == kInf);
  CHECK((p.lb.array() == -kInf).all());
  CHECK((p.ub.array() == kInf).all());
  CHECK((p.lbA.array() == -kInf).all());
  CHECK((p.ubA.array() == kInf).all());
  CHECK(std::string(claw::to_string(LcqpStationarity::S)) == "S");
  CHECK(std::string(claw::to_string(LcqpStationarity::W)) == "W");
  CHECK(std::string(claw::to_string(LcqpStationarity::Unknown)) == "unknown");
}

TEST_CASE("LCQP: min 1/2|x - a|^2 with x1 perp x2 picks the better branch", "[lcqp]") {
  Solver solver;
  struct Case {
    double a1, a2, x1, x2;
    int side;
  };
  // Branches: x1 = 0 gives (0, max(a2, 0)), x2 = 0 gives (max(a1, 0), 0); the closer one wins.
  for (const Case& c : {Case{2, 1, 2, 0, 1}, Case{-1, 3, 0, 3, 0}, Case{0.5, 0.75, 0, 0.75, 0},
                        Case{4, -2, 4, 0, 1}}) {
    INFO("a = (" << c.a1 << ", " << c.a2 << ")");
    const Problem p = two_variable(c.a1, c.a2);
    const auto& r = solver.solve(p);
    check_ok_point(p, r);
    CHECK(r.x(0) == Approx(c.x1).margin(1e-12));
    CHECK(r.x(1) == Approx(c.x2).margin(1e-12));
    CHECK(r.objective == Approx(0.5 * (c.x1 * c.x1 + c.x2 * c.x2) - c.a1 * c.x1 - c.a2 * c.x2));
    CHECK(r.active(0) == c.side);
    CHECK(r.certified_global);
    CHECK(r.path == LcqpPath::BranchAndBound);
    CHECK(r.residuals.stationarity <= 1e-12);
  }
}

TEST_CASE("LCQP: an equality row and a binding box bound (hand solution)", "[lcqp]") {
  // min 1/2|x - (2, 1, 0)|^2, x1 + x2 + x3 = 1, -0.25 <= x3 <= 0.5, x1 perp x2.
  // Branch x1 = 0: x = (0, 1, 0), 1/2 d^2 = 2. Branch x2 = 0: x1 = 1 - x3, the unconstrained
  // x3 = -0.5 is clipped to -0.25: x = (1.25, 0, -0.25), 1/2 d^2 = 0.8125 (the optimum).
  Problem p(3, 1, 1);
  p.Q.setIdentity();
  p.g << -2, -1, 0;
  p.A << 1, 1, 1;
  p.lbA(0) = p.ubA(0) = 1.0;
  p.lb(2) = -0.25;
  p.ub(2) = 0.5;
  p.L << 1, 0, 0;
  p.R << 0, 1, 0;
  Solver solver;
  const auto& r = solver.solve(p);
  check_ok_point(p, r);
  CHECK((r.x - Eigen::Vector3d(1.25, 0.0, -0.25)).lpNorm<Eigen::Infinity>() <= 1e-12);
  CHECK(r.objective == Approx(0.8125 - 0.5 * 5.0));
  CHECK(r.active(0) == 1);
  CHECK(r.certified_global);
}

TEST_CASE("LCQP: nonzero lbL / lbR shift the pair", "[lcqp]") {
  // 0 <= 2 x1 - 2 perp x2 + 2 >= 0 (x1 >= 1, x2 >= -2), min 1/2|x - (3, 1)|^2.
  // Branch x1 = 1: (1, 1), 1/2 d^2 = 2; branch x2 = -2: (3, -2), 4.5.
  Problem p = two_variable(3.0, 1.0);
  p.L << 2, 0;
  p.lbL(0) = 2.0;
  p.lbR(0) = -2.0;
  Solver solver;
  const auto& r = solver.solve(p);
  check_ok_point(p, r);
  CHECK(r.x(0) == Approx(1.0).epsilon(1e-12));
  CHECK(r.x(1) == Approx(1.0).epsilon(1e-12));
  CHECK(r.active(0) == 0);
  // With a = (3, -1): branch x1 = 1 gives (1, -1), 2; branch x2 = -2 gives (3, -2), 0.5.
  p.g << -3, 1;
  const auto& r2 = solver.solve(p);
  check_ok_point(p, r2);
  CHECK(r2.x(0) == Approx(3.0).epsilon(1e-12));
  CHECK(r2.x(1) == Approx(-2.0).epsilon(1e-12));
  CHECK(r2.active(0) == 1);
}

TEST_CASE("LCQP: upper bounds ubL / ubR bind", "[lcqp]") {
  // 0 <= x1 <= 1.5 perp 0 <= x2 <= 0.5, min 1/2|x - (2, 1)|^2.
  // Branch x1 = 0: (0, 0.5), 1/2 d^2 = 2.125; branch x2 = 0: (1.5, 0), 0.625.
  Problem p = two_variable(2.0, 1.0);
  p.ubL(0) = 1.5;
  p.ubR(0) = 0.5;
  Solver solver;
  const auto& r = solver.solve(p);
  check_ok_point(p, r);
  CHECK(r.x(0) == Approx(1.5).epsilon(1e-12));
  CHECK(r.x(1) == Approx(0.0).margin(1e-12));
  CHECK(r.objective == Approx(0.625 - 2.5));
  // Tighter ubL: 0 <= x1 <= 0.25; branch x2 = 0 now gives (0.25, 0), 1/2 (1.75^2 + 1) = 2.03125,
  // which loses to (0, 0.5), 2.125? No: 2.03125 < 2.125, still the R branch.
  p.ubL(0) = 0.25;
  const auto& r2 = solver.solve(p);
  check_ok_point(p, r2);
  CHECK(r2.x(0) == Approx(0.25).epsilon(1e-12));
  CHECK(r2.objective == Approx(2.03125 - 2.5));
  // ubL = 0.1: (0.1, 0) gives 1/2 (1.9^2 + 1) = 2.305 > 2.125: the L branch (0, 0.5) wins.
  p.ubL(0) = 0.1;
  const auto& r3 = solver.solve(p);
  check_ok_point(p, r3);
  CHECK(r3.x(0) == Approx(0.0).margin(1e-12));
  CHECK(r3.x(1) == Approx(0.5).epsilon(1e-12));
}

TEST_CASE("LCQP: bounds that force both sides positive are certified Infeasible", "[lcqp]") {
  // x1 >= 1 and x2 >= 1 with x1 perp x2.
  Problem p = two_variable(0.0, 0.0);
  p.lb << 1, 1;
  for (const Settings& s : {Settings{}, homotopy_settings()}) {
    Solver solver;
    REQUIRE(solver.set_settings(s) == Status::Ok);
    const auto& r = solver.solve(p);
    INFO("max_pairs_for_branch_and_bound " << s.max_pairs_for_branch_and_bound);
    if (s.max_pairs_for_branch_and_bound > 0) {
      CHECK(r.status == Status::Infeasible);
      CHECK(r.certified_global);
      CHECK(r.path == LcqpPath::BranchAndBound);
      CHECK(r.x.isZero(0.0));
      CHECK(r.nodes >= 3);  // the root and both children
    } else {
      // The homotopy cannot prove it (its relaxation is feasible): never Ok.
      CHECK(r.status == Status::MaxIterations);
      CHECK_FALSE(r.certified_global);
      CHECK(r.x.isZero(0.0));
    }
  }
  CHECK_FALSE(enumerate(p).feasible);
}

TEST_CASE("LCQP homotopy: a non-complementary point is never Ok (loose phi tolerance)", "[lcqp]") {
  // x1 >= 0.01 and x2 >= 0.01 with x1 perp x2: no complementary point. The homotopy stops at
  // (0.01, 0.01), where phi = x1 x2 = 1e-4 passes complementarity_tolerance = 1e-3, and polishing
  // on the closer side (x1 = 0) is infeasible. That point's natural residual min(x1, x2) = 0.01 is
  // far above feasibility_tolerance (1 + |x|) = 1.01e-9: not Ok, but MaxIterations.
  Problem p = two_variable(0.0, 0.0);
  p.lb << 0.01, 0.01;
  Settings s = homotopy_settings();
  s.complementarity_tolerance = 1e-3;
  Solver solver;
  REQUIRE(solver.set_settings(s) == Status::Ok);
  const auto& r = solver.solve(p);
  CHECK(r.status == Status::MaxIterations);
  CHECK(r.path == LcqpPath::PenaltyHomotopy);
  CHECK_FALSE(r.certified_global);
  CHECK(r.x.isZero(0.0));
  CHECK_FALSE(enumerate(p).feasible);
}

TEST_CASE("LCQP: m = 0 is the plain QP", "[lcqp]") {
  std::mt19937 rng(31);
  Solver solver;
  claw::QpSolverXd qp(6, 3);
  for (int trial = 0; trial < 10; ++trial) {
    const Problem p = random_lcqp(rng, 6, 3, 0);
    const auto& q = qp.solve(p.Q, p.g, p.A, p.lb, p.ub, p.lbA, p.ubA);
    REQUIRE(q.status == Status::Ok);
    const auto& r = solver.solve(p);
    check_ok_point(p, r);
    CHECK((r.x - q.x).lpNorm<Eigen::Infinity>() <= 1e-10 * scale_of(q.x));
    CHECK(r.objective == Approx(q.objective).epsilon(1e-12));
    CHECK(r.certified_global);
  }
}

// === paths against enumeration
// ===========================================================================

TEST_CASE("LCQP branch and bound: random nonconvex LCQPs reach the enumerated global optimum",
          "[lcqp]") {
  std::mt19937 rng(101);
  Solver solver;
  int feasible = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const int m = 1 + trial % 8;
    const int n = 2 + static_cast<int>(rng() % 11);  // m > n too
    const int nc = static_cast<int>(rng() % 4);
    const Problem p = random_lcqp(rng, n, nc, m);
    const Enumeration e = enumerate(p);
    REQUIRE(e.feasible);  // feasible by construction
    ++feasible;
    const auto& r = solver.solve(p);
    INFO("trial " << trial << " n " << n << " nc " << nc << " m " << m << " nodes " << r.nodes);
    check_ok_point(p, r);
    CHECK(r.path == LcqpPath::BranchAndBound);
    CHECK(r.certified_global);
    CHECK(same_objective(r.objective, e.objective, 1e-8));
    CHECK(r.residuals.stationarity <= 1e-8 * scale_of(r.x));
    CHECK(r.stationarity != LcqpStationarity::Unknown);
    CHECK(r.nodes <= 2 * (1L << m));
  }
  CHECK(feasible == 40);
}

TEST_CASE(
    "LCQP branch and bound: degenerate pairs, scaled rows and biactive optima match the "
    "enumeration",
    "[lcqp]") {
  std::mt19937 rng(111);
  std::uniform_real_distribution<double> u(-1.0, 1.0), s(0.0, 1.0);
  Solver solver;
  for (int trial = 0; trial < 30; ++trial) {
    const int m = 2 + trial % 5;
    const int n = 3 + trial % 6;
    Problem p = random_lcqp(rng, n, trial % 3, m);
    // Rows scaled over four decades.
    for (Index i = 0; i < p.num_constraints(); ++i) {
      const double f = std::pow(10.0, 2.0 * u(rng));
      p.A.row(i) *= f;
      p.lbA(i) *= f;
      p.ubA(i) *= f;
    }
    for (Index i = 0; i < m; ++i) {
      const double fl = std::pow(10.0, 2.0 * u(rng)), fr = std::pow(10.0, 2.0 * u(rng));
      p.L.row(i) *= fl;
      p.lbL(i) *= fl;
      p.ubL(i) *= fl;
      p.R.row(i) *= fr;
      p.lbR(i) *= fr;
      p.ubR(i) *= fr;
    }
    // One degenerate pair per problem, by kind.
    switch (trial % 5) {
      case 0:  // L = 0 with lbL < 0: the L side is never active, R must be.
        p.L.row(0).setZero();
        p.lbL(0) = -1.0;
        p.ubL(0) = kInf;
        break;
      case 1:  // L = 0 with lbL = 0: the pair always holds.
        p.L.row(0).setZero();
        p.lbL(0) = 0.0;
        p.ubL(0) = kInf;
        break;
      case 2:  // L = -R with zero offsets: R x = 0 on every feasible point.
        p.L.row(0) = -p.R.row(0);
        p.lbL(0) = p.lbR(0) = 0.0;
        p.ubL(0) = p.ubR(0) = kInf;
        break;
      case 3:  // Two identical pairs.
        p.L.row(1) = p.L.row(0);
        p.R.row(1) = p.R.row(0);
        p.lbL(1) = p.lbL(0);
        p.lbR(1) = p.lbR(0);
        p.ubL(1) = p.ubL(0);
        p.ubR(1) = p.ubR(0);
        break;
      default: {  // A biactive optimum: x0 with both sides of every pair tight, g = -Q x0 + small.
        const VectorXd x0 = VectorXd::NullaryExpr(n, [&] { return u(rng); });
        p.lbL = p.L * x0;
        p.lbR = p.R * x0;
        p.ubL.setConstant(kInf);
        p.ubR.setConstant(kInf);
        p.lb.setConstant(-kInf);
        p.ub.setConstant(kInf);
        p.lbA = p.A * x0 - VectorXd::Constant(p.num_constraints(), 1.0);
        p.ubA.setConstant(kInf);
        p.g = -p.Q * x0 + 0.1 * VectorXd::NullaryExpr(n, [&] { return u(rng); });
        break;
      }
    }
    const Enumeration e = enumerate(p);
    const auto& r = solver.solve(p);
    INFO("trial " << trial << " n " << n << " m " << m << " kind " << trial % 5);
    if (!e.feasible) {
      CHECK(r.status == Status::Infeasible);
      continue;
    }
    REQUIRE(r.status == Status::Ok);
    // Rows of norm up to 100: tolerances in the rows' units.
    double row_scale = 1.0;
    for (Index i = 0; i < p.num_constraints(); ++i)
      row_scale = std::max(row_scale, p.A.row(i).norm());
    for (Index i = 0; i < m; ++i)
      row_scale = std::max({row_scale, p.L.row(i).norm(), p.R.row(i).norm()});
    CHECK(primal_violation(p, r.x) <= 1e-9 * row_scale * scale_of(r.x));
    CHECK(natural_residual(p, r.x) <= 1e-9 * row_scale * scale_of(r.x));
    CHECK(r.certified_global);
    CHECK(same_objective(r.objective, e.objective, 1e-8));
  }
}

TEST_CASE("LCQP penalty homotopy: random nonconvex LCQPs give feasible complementary local points",
          "[lcqp]") {
  // n > m here: with m >= n the random pairs leave isolated feasible points that a local method
  // cannot be expected to reach. Even so the homotopy may stop at a non-complementary stationary
  // point of the penalty (the penalty cap): MaxIterations, allowed by the contract (about 2% of
  // such problems in a 400-problem sweep; none among these 40).
  std::mt19937 rng(102);
  Solver solver;
  REQUIRE(solver.set_settings(homotopy_settings()) == Status::Ok);
  int global = 0, stopped = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const int m = 1 + trial % 8;
    const int n = std::min(12, m + 1 + static_cast<int>(rng() % 5));
    const int nc = static_cast<int>(rng() % 4);
    const Problem p = random_lcqp(rng, n, nc, m);
    const Enumeration e = enumerate(p);
    const auto& r = solver.solve(p);
    INFO("trial " << trial << " n " << n << " nc " << nc << " m " << m << " status "
                  << claw::to_string(r.status) << " iterations " << r.homotopy_iterations);
    if (r.status == Status::MaxIterations) {
      ++stopped;
      CHECK(r.x.isZero(0.0));
      CHECK_FALSE(r.certified_global);
      continue;
    }
    check_ok_point(p, r);
    CHECK(r.path == LcqpPath::PenaltyHomotopy);
    CHECK_FALSE(r.certified_global);
    CHECK(r.objective >= e.objective - 1e-8 * std::max(1.0, std::abs(e.objective)));
    CHECK(r.penalty >= Settings{}.initial_penalty);
    CHECK(r.homotopy_iterations >= 1);
    global += same_objective(r.objective, e.objective, 1e-8) ? 1 : 0;
  }
  // A local method, but on these small problems it mostly finds the global optimum.
  CHECK(stopped <= 2);
  CHECK(global >= 30);
}

TEST_CASE("LCQP monotone path: FLIQC-like problems are certified and match the enumeration",
          "[lcqp]") {
  std::mt19937 rng(202);
  Solver solver, bnb;
  Settings no_monotone;
  no_monotone.use_monotone_path = false;
  REQUIRE(bnb.set_settings(no_monotone) == Status::Ok);
  int with_contacts = 0;
  for (int trial = 0; trial < 30; ++trial) {
    const int m = 1 + trial % 5;
    const int ny = std::min(12 - m, m + 1 + static_cast<int>(rng() % 4));
    const double l_scale = trial % 3 == 0 ? 2.5 : 1.0;
    const double l_offset = trial % 4 == 1 ? 0.2 : 0.0;
    const Problem p = fliqc_like(rng, ny, m, false, l_scale, l_offset);
    const Enumeration e = enumerate(p);
    REQUIRE(e.feasible);
    const auto& r = solver.solve(p);
    INFO("trial " << trial << " ny " << ny << " m " << m << " pivots " << r.lemke_pivots);
    check_ok_point(p, r);
    CHECK(r.path == LcqpPath::Monotone);
    CHECK(r.certified_global);
    CHECK((r.x - e.x).lpNorm<Eigen::Infinity>() <= 1e-8 * scale_of(e.x));
    CHECK(same_objective(r.objective, e.objective, 1e-10));
    CHECK(r.qp_solves == 0);
    CHECK(r.stationarity == LcqpStationarity::Unknown);
    CHECK(r.residuals.stationarity == kInf);
    with_contacts += r.lemke_pivots > 0 ? 1 : 0;
    // Branch and bound on the same problem: the same point.
    const VectorXd x = r.x;
    const auto& b = bnb.solve(p);
    check_ok_point(p, b);
    CHECK(b.path == LcqpPath::BranchAndBound);
    CHECK(b.certified_global);
    CHECK((b.x - x).lpNorm<Eigen::Infinity>() <= 1e-8 * scale_of(x));
  }
  CHECK(with_contacts >= 15);
}

TEST_CASE("LCQP: one side selects, the other side's M is not S D: the enumerated optimum",
          "[lcqp]") {
  // x = [y; lambda], y = b + E lambda (equalities), L selects lambda, R random: w = c + M lambda
  // with M = R_y E + R_lambda arbitrary. Where M_ij M_ji < 0 (or M_ii <= 0) no positive diagonal D
  // makes M D^-1 symmetric semidefinite, so the LCP is not monotone and the monotone path must
  // not claim the optimum: every certified answer equals the enumeration, on whatever path.
  std::mt19937 rng(20261207);
  std::normal_distribution<double> normal(0.0, 1.0);
  Solver solver;
  int monotone = 0, other = 0, infeasible = 0;
  for (int trial = 0; trial < 1000; ++trial) {
    const int ny = 1 + trial % 4, m = 2 + (trial / 4) % 3, n = ny + m;
    Problem p(n, ny, m);
    p.Q.setIdentity();
    for (int j = 0; j < n; ++j) p.g(j) = normal(rng);
    p.A.leftCols(ny).setIdentity();
    for (int i = 0; i < ny; ++i) {
      for (int j = 0; j < m; ++j) p.A(i, ny + j) = normal(rng);
      p.lbA(i) = p.ubA(i) = normal(rng);
    }
    for (int i = 0; i < m; ++i) {
      p.L(i, ny + i) = 1.0;
      for (int j = 0; j < n; ++j) p.R(i, j) = normal(rng);
      p.lbR(i) = normal(rng);
    }
    p.lb.setConstant(-10.0);
    p.ub.setConstant(10.0);
    const Enumeration e = enumerate(p);
    const auto& r = solver.solve(p);
    INFO("trial " << trial << " ny " << ny << " m " << m << " path " << static_cast<int>(r.path));
    REQUIRE(r.certified_global);
    if (!e.feasible) {
      CHECK(r.status == Status::Infeasible);
      ++infeasible;
      continue;
    }
    REQUIRE(r.status == Status::Ok);
    check_ok_point(p, r);
    CHECK(same_objective(r.objective, e.objective, 1e-8));
    (r.path == LcqpPath::Monotone ? monotone : other) += 1;
  }
  // Most of these LCPs are not monotone (branch and bound decides them); some are, and a share
  // of the problems is infeasible.
  CHECK(other >= 300);
  CHECK(monotone >= 5);
  CHECK(infeasible >= 30);
}

TEST_CASE(
    "LCQP monotone path: duplicated contacts (lambda not unique) fall through to branch and "
    "bound",
    "[lcqp]") {
  std::mt19937 rng(303);
  Solver solver;
  for (int trial = 0; trial < 10; ++trial) {
    const int m = 2 + trial % 3;
    const Problem p = fliqc_like(rng, m + 2, m, true);
    const Enumeration e = enumerate(p);
    REQUIRE(e.feasible);
    const auto& r = solver.solve(p);
    INFO("trial " << trial << " m " << m);
    check_ok_point(p, r);
    CHECK(r.path == LcqpPath::BranchAndBound);
    CHECK(r.certified_global);
    CHECK(same_objective(r.objective, e.objective, 1e-8));
    // The duplicated contact is active: both its multipliers carry the force, split evenly by the
    // lambda regularisation (equal D).
    const Index ny = m + 2;
    CHECK(r.x(ny) == Approx(r.x(ny + 1)).epsilon(1e-6));
    CHECK(r.x(ny) > 1e-6);
  }
}

// Regression (lcqp.hpp, monotone path; fixed by a degeneracy threshold relative to 1 + m |z|):
// contacts 0 and 1 are identical (same R row, same column of B), so
// only lambda_0 + lambda_1 is determined and the path must fall through (or return the optimal
// split). Lemke ends with z_1 basic and w_0 basic at a rounding-level value above the absolute
// threshold 64 eps used to collect the degenerate pairs I0, so pair 0 is left out of I0, S[I0, I0]
// is nonsingular, and the point lambda = (0, 544.707, 655.600) is returned as Ok, path Monotone,
// certified_global = true, objective 5315.54; the global optimum (enumeration, and branch and
// bound with use_monotone_path = false) is lambda = (272.354, 272.354, 655.600), objective 4573.78.
TEST_CASE("LCQP monotone path: a duplicated contact with large forces is not certified wrongly",
          "[lcqp][regression]") {
  const int ny = 3, m = 3;
  Problem p(ny + m, ny, m);
  MatrixXd a_lambda(ny, m), ry(m, ny);
  a_lambda << 0.47683950398121006, 0.47683950398121006, -0.39767566806816135,  //
      -1.0250604398618255, -1.0250604398618255, 0.84539305483905647,           //
      0.0028731204139482041, 0.0028731204139482041, -0.090521573658714757;
  ry << -0.07787975555443058, 0.090840505563513085, 0.0011737337616638532,  //
      -0.07787975555443058, 0.090840505563513085, 0.0011737337616638532,    //
      0.097245767592316318, -0.037911240502908478, 0.0040411796097607148;
  p.Q.setIdentity();
  p.Q.bottomRightCorner(m, m) *= 1e-2;
  p.g.head(ny) << 0.62998303040950998, -1.0444792545266024, 0.44433122698528466;
  p.A.leftCols(ny).setIdentity();
  p.A.rightCols(m) = a_lambda;
  p.lbA << -0.89330885297509588, 1.3170163561480184, -0.36501539812823558;
  p.ubA = p.lbA;
  p.L.rightCols(m).setIdentity();
  p.R.leftCols(ny) = ry;
  p.lbR << 0.55450924084084485, 0.55450924084084485, 0.034233668160391112;
  const Enumeration e = enumerate(p);
  REQUIRE(e.feasible);
  CHECK(e.objective == Approx(4573.78).epsilon(1e-5));
  Settings no_monotone;
  no_monotone.use_monotone_path = false;
  Solver bnb;
  REQUIRE(bnb.set_settings(no_monotone) == Status::Ok);
  CHECK(same_objective(bnb.solve(p).objective, e.objective, 1e-8));
  Solver solver;
  const auto& r = solver.solve(p);
  check_ok_point(p, r);
  INFO("path " << static_cast<int>(r.path) << " x " << r.x.transpose());
  CHECK(same_objective(r.objective, e.objective, 1e-8));
}

TEST_CASE("LCQP monotone path: the R side selecting, c = 0, a single pair of any sign", "[lcqp]") {
  std::mt19937 rng(252);
  Solver solver;
  // Sides exchanged: R selects lambda.
  for (int trial = 0; trial < 10; ++trial) {
    const Problem p = swap_sides(fliqc_like(rng, 4 + trial % 3, 1 + trial % 4));
    const Enumeration e = enumerate(p);
    REQUIRE(e.feasible);
    const auto& r = solver.solve(p);
    INFO("swapped trial " << trial);
    check_ok_point(p, r);
    CHECK(r.path == LcqpPath::Monotone);
    CHECK(r.certified_global);
    CHECK((r.x - e.x).lpNorm<Eigen::Infinity>() <= 1e-8 * scale_of(e.x));
  }
  // c = 0 (every gap exactly zero at lambda = 0): lambda = 0 is the unique solution, x = 0.
  {
    Problem p = fliqc_like(rng, 5, 3);
    p.lbA.setZero();
    p.ubA.setZero();
    p.lbR.setZero();
    const auto& r = solver.solve(p);
    check_ok_point(p, r);
    CHECK(r.path == LcqpPath::Monotone);
    CHECK(r.x.isZero(0.0));
    CHECK(r.active.isConstant(2));
    CHECK(same_objective(r.objective, enumerate(p).objective, 1e-12));
  }
  // One pair (M is a scalar, symmetric): x1 selected by L, x2 = x1 + b by an equality row, R = x2
  // (+ or -): M = +1 is monotone (certified point), M = -1 is not (falls through) -- both global.
  for (double sign : {1.0, -1.0}) {
    for (double b : {-1.0, 0.5}) {
      Problem p(2, 1, 1);
      p.Q.setIdentity();
      p.g << -1.0, 0.3;
      p.A << -1, 1;
      p.lbA(0) = p.ubA(0) = b;
      p.L << 1, 0;
      p.R << 0, sign;
      const Enumeration e = enumerate(p);
      const auto& r = solver.solve(p);
      INFO("sign " << sign << " b " << b);
      if (!e.feasible) {
        CHECK(r.status == Status::Infeasible);
        continue;
      }
      check_ok_point(p, r);
      CHECK(r.certified_global);
      CHECK(r.path == (sign > 0 ? LcqpPath::Monotone : LcqpPath::BranchAndBound));
      CHECK(same_objective(r.objective, e.objective, 1e-10));
    }
  }
}

/// Two pairs whose LCP is w = c + E lambda, c = b - r: x = [y; lambda], y = b + E lambda (two
/// equality rows [I | -E]), L selects lambda, R y >= r.
Problem two_pair_lcp(const Eigen::Matrix2d& e, const Eigen::Vector2d& b, const Eigen::Vector2d& r,
                     const Eigen::Vector4d& g) {
  Problem p(4, 2, 2);
  p.Q.setIdentity();
  p.g = g;
  p.A.leftCols(2).setIdentity();
  p.A.rightCols(2) = -e;
  p.lbA = b;
  p.ubA = b;
  p.L.rightCols(2).setIdentity();
  p.R.leftCols(2).setIdentity();
  p.lbR = r;
  return p;
}

TEST_CASE("LCQP monotone path: one or two pairs solved over the bases, P-matrices only", "[lcqp]") {
  std::mt19937 rng(707);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Solver solver;
  // E = [1 3; 0 1] is a P-matrix but not S D with S symmetric: the complementary point is unique
  // and certified on the monotone path without Lemke, for every sign pattern of c.
  Eigen::Matrix2d p_matrix;
  p_matrix << 1.0, 3.0, 0.0, 1.0;
  // E = [1 2; 2 1] is indefinite (det -3): c = (-1, -1) has two complementary points,
  // lambda = (1, 0) and (0, 1), so only the enumeration of branches may decide.
  Eigen::Matrix2d indefinite;
  indefinite << 1.0, 2.0, 2.0, 1.0;
  for (int trial = 0; trial < 40; ++trial) {
    const Eigen::Vector2d b(u(rng), u(rng)), r(u(rng), u(rng));
    const Eigen::Vector4d g(u(rng), u(rng), u(rng), u(rng));
    const bool positive = trial % 2 == 0;
    const Problem p = two_pair_lcp(positive ? p_matrix : indefinite, b, r, g);
    const Enumeration e = enumerate(p);
    REQUIRE(e.feasible);
    const auto& res = solver.solve(p);
    INFO("trial " << trial);
    check_ok_point(p, res);
    CHECK(res.certified_global);
    CHECK(same_objective(res.objective, e.objective, 1e-10));
    CHECK((res.x - e.x).lpNorm<Eigen::Infinity>() <= 1e-8 * scale_of(e.x));
    if (positive) {
      CHECK(res.path == LcqpPath::Monotone);
      CHECK(res.lemke_pivots == 0);
    } else {
      CHECK(res.path == LcqpPath::BranchAndBound);
    }
  }
  const Problem p = two_pair_lcp(p_matrix, Eigen::Vector2d(-0.5, 0.2), Eigen::Vector2d(0.3, 0.4),
                                 Eigen::Vector4d(0.1, -0.2, 0.3, 0.0));
  // The closed form's point is used only when its error bound, carried to x and so to the rows of
  // A, L and R, is within half the acceptance margin: at feasibility_tolerance 1e-12 it is not
  // (about 1e-11 here), and the nonsymmetric M leaves the problem to branch and bound.
  {
    Settings tight;
    tight.feasibility_tolerance = 1e-12;
    Solver strict;
    REQUIRE(strict.set_settings(tight) == Status::Ok);
    CHECK(strict.solve(p).path != LcqpPath::Monotone);
  }
  // Swapped sides (R selects lambda): the same point on the monotone path.
  const auto& direct = solver.solve(p);
  REQUIRE(direct.status == Status::Ok);
  const VectorXd x = direct.x;
  const auto& swapped = solver.solve(swap_sides(p));
  check_ok_point(swap_sides(p), swapped);
  CHECK(swapped.path == LcqpPath::Monotone);
  CHECK((swapped.x - x).lpNorm<Eigen::Infinity>() <= 1e-14);
}

TEST_CASE("LCQP monotone path: infeasibility by Lemke's ray and by a violated bound", "[lcqp]") {
  Solver solver;
  {
    const Problem p = opposing_contacts();
    CHECK_FALSE(enumerate(p).feasible);
    const auto& r = solver.solve(p);
    CHECK(r.status == Status::Infeasible);
    CHECK(r.path == LcqpPath::Monotone);
    CHECK(r.certified_global);
    CHECK(r.lemke_pivots >= 1);
    CHECK(r.x.isZero(0.0));
  }
  std::mt19937 rng(404);
  for (int trial = 0; trial < 5; ++trial) {
    Problem p = fliqc_like(rng, 5, 3);
    const auto& r0 = solver.solve(p);
    REQUIRE(r0.status == Status::Ok);
    REQUIRE(r0.path == LcqpPath::Monotone);
    const VectorXd x0 = r0.x;
    // The unique complementary point violates a new upper bound on y_0: nothing is feasible.
    p.ub(0) = x0(0) - 0.1;
    CHECK_FALSE(enumerate(p).feasible);
    const auto& r = solver.solve(p);
    CHECK(r.status == Status::Infeasible);
    CHECK(r.path == LcqpPath::Monotone);
    CHECK(r.certified_global);
    CHECK(r.x.isZero(0.0));
    // An upper bound on an active contact's lambda below its unique value: Infeasible too.
    Index active = -1;
    for (Index i = 0; i < 3; ++i)
      if (x0(5 + i) > 1e-3) active = i;
    if (active >= 0) {
      Problem q = p;
      q.ub(0) = kInf;
      q.ubL(active) = 0.5 * x0(5 + active);
      CHECK_FALSE(enumerate(q).feasible);
      const auto& rl = solver.solve(q);
      CHECK(rl.status == Status::Infeasible);
      CHECK(rl.path == LcqpPath::Monotone);
    }
    // Slack by 0.1 instead: still the same point.
    p.ub(0) = x0(0) + 0.1;
    const auto& r2 = solver.solve(p);
    REQUIRE(r2.status == Status::Ok);
    CHECK((r2.x - x0).lpNorm<Eigen::Infinity>() <= 1e-12 * scale_of(x0));
  }
}

TEST_CASE("LCQP penalty homotopy: an infeasible relaxation is certified Infeasible", "[lcqp]") {
  // x1, x2 >= 0 from the pair, x1 + x2 <= -1.
  Problem p(2, 1, 1);
  p.Q.setIdentity();
  p.A << 1, 1;
  p.ubA(0) = -1.0;
  p.L << 1, 0;
  p.R << 0, 1;
  for (const Settings& s : {Settings{}, homotopy_settings()}) {
    Solver solver;
    REQUIRE(solver.set_settings(s) == Status::Ok);
    const auto& r = solver.solve(p);
    CHECK(r.status == Status::Infeasible);
    CHECK(r.certified_global);
    CHECK(r.path == (s.max_pairs_for_branch_and_bound == 0 ? LcqpPath::PenaltyHomotopy
                                                           : LcqpPath::BranchAndBound));
    CHECK(r.x.isZero(0.0));
  }
}

namespace {

/// Solves p under settings s and checks what MaxIterations promises (nothing proved, x = 0).
const Solver::Result& solve_stopped(Solver& solver, const Problem& p, const Settings& s) {
  REQUIRE(solver.set_settings(s) == Status::Ok);
  const auto& r = solver.solve(p);
  CHECK(r.status == Status::MaxIterations);
  CHECK_FALSE(r.certified_global);
  CHECK(r.x.isZero(0.0));
  return r;
}

}  // namespace

TEST_CASE("LCQP caps: max_nodes and max_iterations stop without a point (MaxIterations)",
          "[lcqp]") {
  {
    // The root relaxation (x = a = (2, 1)) is not complementary: one node is not enough.
    const Problem p = two_variable(2.0, 1.0);
    Settings s;
    s.max_nodes = 1;
    Solver solver;
    CHECK(solve_stopped(solver, p, s).nodes == 1);
    // Three nodes: root and both children, the answer (2, 0) certified.
    s.max_nodes = 3;
    REQUIRE(solver.set_settings(s) == Status::Ok);
    const auto& r3 = solver.solve(p);
    REQUIRE(r3.status == Status::Ok);
    CHECK(r3.x(0) == Approx(2.0));
    CHECK(r3.certified_global);
  }
  {
    // Stopped at once, the homotopy polishes the relaxation's point on its closer side, whose
    // branch is infeasible.
    const Problem p = homotopy_trap();
    const Enumeration e = enumerate(p);
    REQUIRE(e.feasible);
    CHECK(e.x(0) == Approx(2.5));
    Settings s = homotopy_settings();
    s.max_iterations = 0;
    Solver solver;
    CHECK(solve_stopped(solver, p, s).homotopy_iterations == 1);
    // Branch and bound finds the only feasible branch.
    Solver bnb;
    const auto& b = bnb.solve(p);
    check_ok_point(p, b);
    CHECK(b.x(0) == Approx(2.5).epsilon(1e-12));
    CHECK(b.x(1) == Approx(0.0).margin(1e-12));
  }
}

TEST_CASE("LCQP branch and bound: loose QP tolerances, same certified optimum", "[lcqp]") {
  // n = 4, m = 3 (a random_lcqp instance). With QpSettings::dependence_tolerance = 0.3 a node QP
  // warm-started from its parent ends at a point that is not its minimiser: stationarity residual
  // ||Qx + g - A'lambda - mu||_inf = 1.6 beside ||Qx + g||_inf = 2.8. The QP's own verification
  // refuses that point at the default stationarity_tolerance; at 0.5 it answers Ok. Either way the
  // point is no node bound (its residual is not small beside ||Qx + g||): branch and bound solves
  // the node again cold, and the answer is the one of the default tolerances, the best of the
  // 2^3 branch QPs (0.72040042317261), certified.
  Problem p(4, 0, 3);
  p.Q << 0x1.2baaab5a5ab34p+1, -0x1.f967d24e338dbp-1, 0x1.26eb4ea531328p+0, -0x1.bfc365673d191p-2,
      -0x1.f967d24e338dbp-1, 0x1.79c28af54cbe3p+1, -0x1.dcb91438146e2p-2, 0x1.70507735074fep+0,
      0x1.26eb4ea531328p+0, -0x1.dcb91438146e2p-2, 0x1.22f75f1f09dc7p+1, 0x1.d325baa29dde4p-3,
      -0x1.bfc365673d191p-2, 0x1.70507735074fep+0, 0x1.d325baa29dde4p-3, 0x1.52198bf48b82fp+1;
  p.g << -0x1.3fb8778b52356p+1, -0x1.386f2a9540852p+1, -0x1.0213730400192p+1, -0x1.4935416ed7c8p-4;
  p.lb << -0x1.7a29f69f40c4ap-2, -kInf, -0x1.7b34b77294757p+0, -0x1.d92ec1032548p-4;
  p.ub << kInf, 0x1.a3d4fdfd79e54p-2, 0x1.2bb197b4725ddp-1, kInf;
  p.L << 0x1.f72d81959af48p-3, 0x1.8def05c33d5fp-1, 0x1.57c94c9631c82p-1, -0x1.5506094daa7cep-1,
      -0x1.d972ec158fa69p-1, 0x1.90d25234ef9cp-4, -0x1.e28b4920e2f54p-1, -0x1.cbda303071877p-1,
      0x1.b8eeadb0e9888p-3, -0x1.6622d4da1e02p-6, 0x1.6800e4e999f3p-1, -0x1.6246deaecb49ep-1;
  p.R << 0x1.fcc7d64c822c2p-1, -0x1.af0fa72aed798p-1, -0x1.ed145a3631c46p-2, -0x1.081a4393d67b6p-1,
      -0x1.03396b658c87p-4, -0x1.0d992aee009bcp-3, -0x1.ad94136d37f9p-1, 0x1.4ee16e682d9bep-1,
      0x1.05562f7aab16ep-1, -0x1.96da78d318542p-2, -0x1.81583d3979954p-3, -0x1.c703c782b413p-1;
  p.lbL << -0x1.00d11e0086d82p+1, -0x1.562d90fda9d28p+0, -0x1.437696c7ab903p+0;
  p.ubL << -0x1.ef62576a53d8ep-1, kInf, kInf;
  p.lbR << 0x1.9588904724891p+0, 0x1.535cfecfd939ap+0, 0x1.26e59fedc9952p-3;
  const Enumeration e = enumerate(p);
  REQUIRE(e.feasible);
  CHECK(e.objective == Approx(0.72040042317261).epsilon(1e-12));
  for (const double stationarity_tolerance : {Settings{}.qp.stationarity_tolerance, 0.5}) {
    INFO("QP stationarity_tolerance " << stationarity_tolerance);
    Settings s;
    s.qp.dependence_tolerance = 0.3;
    s.qp.stationarity_tolerance = stationarity_tolerance;
    Solver solver;
    REQUIRE(solver.set_settings(s) == Status::Ok);
    const auto& r = solver.solve(p);
    check_ok_point(p, r);
    CHECK(r.path == LcqpPath::BranchAndBound);
    CHECK(r.certified_global);
    CHECK(same_objective(r.objective, e.objective, 1e-10));
    CHECK((r.x - e.x).lpNorm<Eigen::Infinity>() <= 1e-8);
  }
}

TEST_CASE("LCQP branch and bound, loose QP tolerances: no certified answer above the optimum",
          "[lcqp]") {
  // QpSettings::stationarity_tolerance = 0.5 and dependence_tolerance = 0.3: node QPs answer Ok
  // at points that are not their minimisers, which branch and bound must not take as node bounds
  // (a bound above the node's minimum prunes the branch that holds the optimum). Random LCQPs with
  // Q, g and x spread over decades, nearly dependent rows and pairs. A certified answer may lie
  // below the default settings' certified optimum (a point within the feasibility tolerance of
  // another branch), never above it by more than the prune tolerance.
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> u(-1.0, 1.0), s(0.0, 1.0);
  Settings b_and_b, loose;
  b_and_b.use_monotone_path = false;
  loose.use_monotone_path = false;
  loose.qp.stationarity_tolerance = 0.5;
  loose.qp.dependence_tolerance = 0.3;
  Solver exact, solver;
  REQUIRE(exact.set_settings(b_and_b) == Status::Ok);
  REQUIRE(solver.set_settings(loose) == Status::Ok);
  auto spread = [&](Index rows, Index cols) {
    return MatrixXd::NullaryExpr(rows, cols, [&] { return u(rng); });
  };
  int compared = 0;
  for (int t = 0; t < 1000; ++t) {
    const int m = 1 + t % 6, n = 2 + (t / 6) % 8, nc = (t / 48) % 5;
    Problem p(n, nc, m);
    const MatrixXd b = spread(n, n);
    const double q_scale = std::pow(10.0, 3.0 * u(rng));
    p.Q = b.transpose() * b * q_scale + MatrixXd::Identity(n, n);
    const double g_scale = std::pow(10.0, 3.0 * u(rng));
    for (int i = 0; i < n; ++i) p.g(i) = g_scale * u(rng);
    const VectorXd x0 = VectorXd::NullaryExpr(n, [&] {
      const double value = u(rng);  // drawn first, then its decade (a fixed order)
      return value * std::pow(10.0, 2.0 * u(rng));
    });
    p.A = spread(nc, n);
    for (int i = 1; i < nc; ++i)
      if (s(rng) < 0.5) p.A.row(i) = p.A.row(0) + 1e-5 * spread(1, n);
    hold_at(rng, x0, p);
    p.L = spread(m, n);
    p.R = spread(m, n);
    for (int i = 0; i < m; ++i)
      if (s(rng) < 0.3) p.R.row(i) = p.L.row(i) + 1e-5 * spread(1, n);
    if (m > 1 && s(rng) < 0.3) p.L.row(1) = p.L.row(0) + 1e-6 * spread(1, n);
    const VectorXd lx = p.L * x0, rx = p.R * x0;
    for (int i = 0; i < m; ++i) {
      const bool l_tight = s(rng) < 0.5;
      p.lbL(i) = lx(i) - (l_tight ? 0.0 : s(rng));
      p.lbR(i) = rx(i) - (l_tight ? s(rng) : 0.0);
    }
    const auto reference = exact.solve(p);
    const auto& r = solver.solve(p);
    if (!(r.certified_global && r.status == Status::Ok && reference.certified_global &&
          reference.status == Status::Ok))
      continue;
    ++compared;
    INFO("trial " << t << " n " << n << " nc " << nc << " m " << m);
    const double allowance =
        b_and_b.prune_tolerance * std::max(1.0, std::fabs(reference.objective));
    CHECK(r.objective <= reference.objective + allowance);
  }
  CHECK(compared >= 250);
}

// === warm start, float, sizes
// ================================================================================

TEST_CASE("LCQP warm start: right, wrong and wrong-sized guesses give the same point", "[lcqp]") {
  std::mt19937 rng(505);
  Solver solver, cold;
  int accepted = 0;
  for (int trial = 0; trial < 20; ++trial) {
    const int m = 1 + trial % 5;
    Problem p = fliqc_like(rng, m + 3, m);
    const auto& r0 = solver.solve(p);
    REQUIRE(r0.status == Status::Ok);
    const VectorXd x = r0.x;
    const Eigen::Matrix<std::int8_t, Eigen::Dynamic, 1> right = r0.active;
    const int cold_pivots = r0.lemke_pivots;
    INFO("trial " << trial << " active " << right.cast<int>().transpose());
    // Right guess: the same point, and no Lemke pivot when the solution is strictly complementary.
    const auto& r1 = solver.solve(p, right);
    REQUIRE(r1.status == Status::Ok);
    CHECK((r1.x - x).lpNorm<Eigen::Infinity>() <= 1e-12 * scale_of(x));
    CHECK(r1.path == LcqpPath::Monotone);
    if ((right.array() != 2).all() && cold_pivots > 0) {
      CHECK(r1.lemke_pivots == 0);
      ++accepted;
    }
    // Wrong guesses: flipped sides, all biactive, all L, all R.
    Eigen::Matrix<std::int8_t, Eigen::Dynamic, 1> wrong = right;
    for (Index i = 0; i < m; ++i) wrong(i) = static_cast<std::int8_t>(right(i) == 0 ? 1 : 0);
    for (int fill = -1; fill <= 2; ++fill) {
      if (fill >= 0) wrong.setConstant(static_cast<std::int8_t>(fill));
      const auto& r2 = solver.solve(p, wrong);
      REQUIRE(r2.status == Status::Ok);
      CHECK((r2.x - x).lpNorm<Eigen::Infinity>() <= 1e-10 * scale_of(x));
    }
    const Eigen::Matrix<std::int8_t, Eigen::Dynamic, 1> wrong_size =
        Eigen::Matrix<std::int8_t, Eigen::Dynamic, 1>::Zero(m + 1);
    CHECK((solver.solve(p, wrong_size).x - x).lpNorm<Eigen::Infinity>() <= 1e-12 * scale_of(x));
    // The next control cycle: a slightly moved target, warm-started from the last sides.
    p.lbA.array() += 1e-3;
    p.ubA = p.lbA;
    const Eigen::Matrix<std::int8_t, Eigen::Dynamic, 1> last = solver.solve(p, right).active;
    const VectorXd warm = solver.result().x;
    const auto& c = cold.solve(p);
    REQUIRE(c.status == Status::Ok);
    CHECK((warm - c.x).lpNorm<Eigen::Infinity>() <= 1e-10 * scale_of(c.x));
    CHECK(last == c.active);
  }
  CHECK(accepted >= 5);
  // Branch and bound ignores the guess: the same point.
  const Problem p = random_lcqp(rng, 8, 2, 4);
  const VectorXd x = solver.solve(p).x;
  const auto& r = solver.solve(p, Eigen::Matrix<std::int8_t, 4, 1>::Constant(1));
  REQUIRE(r.status == Status::Ok);
  CHECK(r.path == LcqpPath::BranchAndBound);
  CHECK((r.x - x).lpNorm<Eigen::Infinity>() <= 1e-12 * scale_of(x));
}

TEST_CASE("LCQP float: LcqpSolver<float, 12, 6, 6> matches the double answer", "[lcqp]") {
  using FloatSolver = claw::LcqpSolver<float, 12, 6, 6>;
  std::mt19937 rng(606);
  std::vector<Problem> problems = {two_variable(2.0, 1.0), two_variable(-1.0, 3.0)};
  for (int i = 0; i < 4; ++i) problems.push_back(fliqc_like(rng, 6, 1 + i));
  for (int i = 0; i < 4; ++i) problems.push_back(random_lcqp(rng, 8, 2, 2 + i));
  FloatSolver fsolver;
  Solver dsolver;
  for (std::size_t k = 0; k < problems.size(); ++k) {
    const Problem& p = problems[k];
    const auto& d = dsolver.solve(p);
    REQUIRE(d.status == Status::Ok);
    const auto& f = fsolver.solve(convert<FloatSolver::Problem>(p));
    INFO("problem " << k);
    REQUIRE(f.status == Status::Ok);
    CHECK(f.path == d.path);
    CHECK(f.certified_global);
    CHECK((f.x.cast<double>() - d.x).lpNorm<Eigen::Infinity>() <= 1e-4 * scale_of(d.x));
    CHECK(std::abs(double(f.objective) - d.objective) <=
          1e-4 * std::max(1.0, std::abs(d.objective)));
  }
}

TEMPLATE_TEST_CASE(
    "LCQP: a pair with a zero L row (complementary everywhere) gives the QP's "
    "answer in float as in double",
    "[lcqp][float]", float, double) {
  // min 1/2 |x|^2 - x0 - x1 with 0 >= 0 perp x1 >= 0: the pair holds for every x, so the answer
  // is the QP's: x = (1, 1), objective -1 (the other branch, x1 = 0, gives -1/2).
  claw::LcqpProblem<TestType> p(2, 0, 1);
  p.Q.setIdentity();
  p.g << TestType(-1), TestType(-1);
  p.R(0, 1) = TestType(1);
  claw::LcqpSolver<TestType> solver;
  const auto& r = solver.solve(p);
  REQUIRE(r.status == Status::Ok);
  CHECK(r.x(0) == Approx(1.0).margin(1e-5));
  CHECK(r.x(1) == Approx(1.0).margin(1e-5));
  CHECK(r.objective == Approx(-1.0).margin(1e-5));
}

TEST_CASE("LCQP sizes: a bounded solver takes every size within its bounds, a dynamic one any",
          "[lcqp]") {
  // LcqpSolver<double, 10, 5, 4> solves LcqpProblem<double, 10, 5, 4>, whose storage cannot hold a
  // larger problem: its SizeMismatch above the bounds is not reachable from outside. Inconsistent
  // sizes within the bounds are.
  using Bounded = BoundedSolver;
  std::mt19937 rng(707);
  Bounded bounded;
  Solver dynamic;
  for (const auto& size :
       {std::array<int, 3>{10, 4, 4}, {2, 0, 1}, {7, 1, 3}, {1, 0, 0}, {10, 4, 4}, {10, 5, 4}}) {
    const Problem p = random_lcqp(rng, size[0], size[1], size[2]);
    const Enumeration e = enumerate(p);
    REQUIRE(e.feasible);
    INFO("n " << size[0] << " nc " << size[1] << " m " << size[2]);
    const auto& b = bounded.solve(convert<Bounded::Problem>(p));
    check_ok_point(p, b);
    CHECK(b.certified_global);
    CHECK(same_objective(b.objective, e.objective, 1e-8));
    const auto& d = dynamic.solve(p);
    check_ok_point(p, d);
    CHECK(same_objective(d.objective, e.objective, 1e-8));
  }
  for (const auto& size : {std::array<int, 3>{12, 3, 8}, {5, 2, 2}, {9, 0, 6}, {12, 3, 8}}) {
    const Problem p = random_lcqp(rng, size[0], size[1], size[2]);
    const Enumeration e = enumerate(p);
    REQUIRE(e.feasible);
    INFO("n " << size[0] << " nc " << size[1] << " m " << size[2]);
    const auto& d = dynamic.solve(p);
    check_ok_point(p, d);
    CHECK(d.certified_global);
    CHECK(same_objective(d.objective, e.objective, 1e-8));
  }
  Bounded::Problem b = convert<Bounded::Problem>(two_variable(2.0, 1.0));
  b.R.resize(0, 2);
  check_refused(bounded.solve(b), Status::SizeMismatch);
}

// === refusals, regularisation, settings
// ======================================================================

TEST_CASE("LCQP bad input: NaN / Inf, inconsistent bounds and sizes are refused, x = 0", "[lcqp]") {
  // A valid base problem with every array present (n = 3, nc = 1, m = 1).
  Problem base(3, 1, 1);
  base.Q.setIdentity();
  base.g << -2, -1, 0;
  base.A << 1, 1, 1;
  base.lbA(0) = -5.0;
  base.ubA(0) = 5.0;
  base.lb.setConstant(-4.0);
  base.ub.setConstant(4.0);
  base.L << 1, 0, 0;
  base.R << 0, 1, 0;
  base.ubL(0) = 3.0;
  base.ubR(0) = 3.0;
  Solver solver;
  BoundedSolver bounded;
  using BoundedProblem = BoundedSolver::Problem;
  REQUIRE(solver.solve(base).status == Status::Ok);
  REQUIRE(solver.result().x(0) == Approx(2.0));
  auto expect = [&](const Problem& p, Status status, const char* what) {
    INFO(what);
    check_refused(solver.solve(p), status);
    // The bounded problem type holds the same data when only values are wrong.
    if (status != Status::SizeMismatch)
      check_refused(bounded.solve(convert<BoundedProblem>(p)), status);
    // The solver recovers on the next valid problem.
    REQUIRE(solver.solve(base).status == Status::Ok);
    CHECK(solver.result().x(0) == Approx(2.0));
  };
  // One entry of every array; `data`: must be finite (the others are bounds that may be infinite
  // on their own side; lbL and lbR never).
  struct Entry {
    const char* name;
    double& (*at)(Problem&);
    bool data;
  };
  const Entry entries[] = {
      {"Q", [](Problem& q) -> double& { return q.Q(1, 0); }, true},
      {"g", [](Problem& q) -> double& { return q.g(2); }, true},
      {"A", [](Problem& q) -> double& { return q.A(0, 1); }, true},
      {"L", [](Problem& q) -> double& { return q.L(0, 2); }, true},
      {"R", [](Problem& q) -> double& { return q.R(0, 0); }, true},
      {"lbL", [](Problem& q) -> double& { return q.lbL(0); }, true},
      {"lbR", [](Problem& q) -> double& { return q.lbR(0); }, true},
      {"lbA", [](Problem& q) -> double& { return q.lbA(0); }, false},
      {"ubA", [](Problem& q) -> double& { return q.ubA(0); }, false},
      {"lb", [](Problem& q) -> double& { return q.lb(1); }, false},
      {"ub", [](Problem& q) -> double& { return q.ub(2); }, false},
      {"ubL", [](Problem& q) -> double& { return q.ubL(0); }, false},
      {"ubR", [](Problem& q) -> double& { return q.ubR(0); }, false},
  };
  for (const Entry& entry : entries) {
    for (double bad : {kNaN, kInf, -kInf}) {
      if (!entry.data && !std::isnan(bad)) continue;
      Problem p = base;
      entry.at(p) = bad;
      INFO("value " << bad);
      expect(p, Status::NonFiniteInput, entry.name);
    }
  }
  // Inconsistent bounds.
  {
    Problem p = base;
    p.lb(1) = 5.0;
    expect(p, Status::InvalidBounds, "lb > ub");
    p = base, p.lbA(0) = 6.0, expect(p, Status::InvalidBounds, "lbA > ubA");
    p = base, p.ubL(0) = -1.0, expect(p, Status::InvalidBounds, "ubL < lbL");
    p = base, p.ubR(0) = -kInf, expect(p, Status::InvalidBounds, "ubR = -inf");
    p = base, p.lb(0) = kInf, p.ub(0) = kInf, expect(p, Status::InvalidBounds, "lb = +inf");
    p = base, p.ub(2) = -kInf, p.lb(2) = -kInf, expect(p, Status::InvalidBounds, "ub = -inf");
    p = base, p.lbA(0) = kInf, p.ubA(0) = kInf, expect(p, Status::InvalidBounds, "lbA = +inf");
  }
  // Sizes.
  {
    Problem p = base;
    p.g.resize(2);
    expect(p, Status::SizeMismatch, "g");
    p = base, p.lb.resize(4), expect(p, Status::SizeMismatch, "lb");
    p = base, p.ub.resize(2), expect(p, Status::SizeMismatch, "ub");
    p = base, p.Q.conservativeResize(3, 2), expect(p, Status::SizeMismatch, "Q not square");
    p = base, p.A.conservativeResize(1, 2), expect(p, Status::SizeMismatch, "A cols");
    p = base, p.lbA.resize(2), expect(p, Status::SizeMismatch, "lbA");
    p = base, p.ubA.resize(0), expect(p, Status::SizeMismatch, "ubA");
    p = base, p.L.conservativeResize(1, 4), expect(p, Status::SizeMismatch, "L cols");
    p = base, p.R.conservativeResize(2, 3), expect(p, Status::SizeMismatch, "R rows");
    p = base, p.lbL.resize(2), expect(p, Status::SizeMismatch, "lbL");
    p = base, p.ubL.resize(0), expect(p, Status::SizeMismatch, "ubL");
    p = base, p.lbR.resize(2), expect(p, Status::SizeMismatch, "lbR");
    p = base, p.ubR.resize(2), expect(p, Status::SizeMismatch, "ubR");
    expect(Problem(0, 0, 0), Status::SizeMismatch, "n = 0");
    expect(Problem(0, 1, 1), Status::SizeMismatch, "n = 0 with rows");
  }
  // A fresh solver refuses before sizing anything.
  Solver fresh;
  Problem p = base;
  p.g(0) = kNaN;
  check_refused(fresh.solve(p), Status::NonFiniteInput);
}

TEST_CASE(
    "LCQP regularisation: a semidefinite Q needs auto_regularisation, an indefinite one fails",
    "[lcqp]") {
  // Q = diag(1, 0), g = (-2, 1), x1 perp x2: branch x2 = 0 gives x1 = 2, f = -2; branch x1 = 0
  // gives x2 = 0 (g2 > 0), f = 0. Optimum (2, 0), f = -2.
  Problem p = two_variable(2.0, -1.0);
  p.Q(1, 1) = 0.0;
  {
    Solver solver;
    const auto& r = solver.solve(p);
    check_ok_point(p, r);
    CHECK(r.regularisation > 0.0);
    CHECK(r.regularisation <= 1e-8);
    CHECK(r.x(0) == Approx(2.0).epsilon(1e-8));
    CHECK(r.x(1) == Approx(0.0).margin(1e-8));
    CHECK(r.objective == Approx(-2.0).epsilon(1e-8));
    // A positive definite Q needs none.
    CHECK(solver.solve(two_variable(2.0, 1.0)).regularisation == 0.0);
  }
  Settings strict;
  strict.auto_regularisation = false;
  {
    Solver solver;
    REQUIRE(solver.set_settings(strict) == Status::Ok);
    check_refused(solver.solve(p), Status::InvalidProblem);
    // hessian_regularisation makes it definite.
    Settings reg = strict;
    reg.hessian_regularisation = 1e-6;
    REQUIRE(solver.set_settings(reg) == Status::Ok);
    const auto& r = solver.solve(p);
    check_ok_point(p, r);
    CHECK(r.x(0) == Approx(2.0 / (1.0 + 1e-6)).epsilon(1e-10));
    CHECK(r.regularisation == 0.0);
    // The objective reported uses Q, not Q + 1e-6 I.
    CHECK(r.objective == Approx(lcqp_objective(p, r.x)).epsilon(1e-14));
  }
  // Indefinite Q: no small delta helps.
  {
    Problem q = p;
    q.Q(1, 1) = -1.0;
    Solver solver;
    check_refused(solver.solve(q), Status::InvalidProblem);
  }
  // The monotone path solves no QP: a zero Q is fine there, even without regularisation.
  std::mt19937 rng(808);
  Problem f = fliqc_like(rng, 5, 3);
  const VectorXd x = Solver().solve(f).x;
  f.Q.setZero();
  Solver solver;
  REQUIRE(solver.set_settings(strict) == Status::Ok);
  const auto& r = solver.solve(f);
  REQUIRE(r.status == Status::Ok);
  CHECK(r.path == LcqpPath::Monotone);
  CHECK((r.x - x).lpNorm<Eigen::Infinity>() <= 1e-12 * scale_of(x));
  CHECK(r.objective == Approx(f.g.dot(r.x)));
  // ... but branch and bound does.
  strict.use_monotone_path = false;
  REQUIRE(solver.set_settings(strict) == Status::Ok);
  check_refused(solver.solve(f), Status::InvalidProblem);
}

TEST_CASE("LCQP settings: validation refuses each bad value and keeps the old settings", "[lcqp]") {
  Solver solver;
  Settings good;
  good.max_nodes = 77;
  REQUIRE(solver.set_settings(good) == Status::Ok);
  CHECK(Settings{}.validate() == Status::Ok);
  std::vector<Settings> bad(20, good);
  bad[0].max_pairs_for_branch_and_bound = -1;
  bad[1].max_nodes = 0;
  bad[2].max_iterations = -1;
  bad[3].max_local_flips = -1;
  bad[4].dynamic_penalty_window = -1;
  bad[5].dynamic_penalty_window = 9;
  bad[6].prune_tolerance = -1e-9;
  bad[7].stationarity_tolerance = kNaN;
  bad[8].complementarity_tolerance = kInf;
  bad[9].feasibility_tolerance = -1.0;
  bad[10].hessian_regularisation = kNaN;
  bad[11].initial_penalty = 0.0;
  bad[12].penalty_update_factor = 1.0;
  bad[13].max_penalty = 1e-3;  // below initial_penalty
  bad[14].max_penalty = kInf;
  bad[15].dynamic_penalty_eta = 0.0;
  bad[16].dynamic_penalty_eta = 1.0;
  bad[17].qp.max_iterations = -1;
  bad[18].qp.feasibility_tolerance = kNaN;
  bad[19].initial_penalty = kNaN;
  for (std::size_t i = 0; i < bad.size(); ++i) {
    INFO("bad setting " << i);
    CHECK(bad[i].validate() == Status::InvalidParameter);
    CHECK(solver.set_settings(bad[i]) == Status::InvalidParameter);
    CHECK(solver.settings().max_nodes == 77);
  }
  // Edge values that are valid.
  Settings edge = good;
  edge.max_pairs_for_branch_and_bound = 0;
  edge.max_iterations = 0;
  edge.dynamic_penalty_window = 8;
  edge.max_penalty = edge.initial_penalty;
  CHECK(solver.set_settings(edge) == Status::Ok);
  CHECK(solver.settings().max_iterations == 0);
}

// === allocation, stationarity
// ======================================================================================

TEST_CASE("LCQP: solve() does not allocate after construction / reserve, whatever the status",
          "[lcqp]") {
  std::mt19937 rng(909);
  struct Case {
    const char* name;
    Problem problem;
    Settings settings;
    Status status;
    LcqpPath path;
  };
  Settings nodes1;
  nodes1.max_nodes = 1;
  Settings iter0 = homotopy_settings();
  iter0.max_iterations = 0;
  Problem infeasible_box = two_variable(0.0, 0.0);
  infeasible_box.lb << 1, 1;
  Problem infeasible_relaxation = two_variable(0.0, 0.0);
  infeasible_relaxation.ub << -1, kInf;
  Problem box_violation = fliqc_like(rng, 5, 3);
  {
    Solver s;
    box_violation.ub(0) = s.solve(box_violation).x(0) - 0.1;
  }
  Problem nan_problem = random_lcqp(rng, 8, 2, 4);
  nan_problem.Q(3, 3) = kNaN;
  Problem semidefinite = two_variable(2.0, -1.0);
  semidefinite.Q(1, 1) = 0.0;
  Settings strict;
  strict.auto_regularisation = false;
  const std::vector<Case> cases = {
      {"monotone", fliqc_like(rng, 5, 3), Settings{}, Status::Ok, LcqpPath::Monotone},
      {"branch and bound", random_lcqp(rng, 8, 2, 4), Settings{}, Status::Ok,
       LcqpPath::BranchAndBound},
      {"homotopy", random_lcqp(rng, 8, 2, 4), homotopy_settings(), Status::Ok,
       LcqpPath::PenaltyHomotopy},
      {"regularised", semidefinite, Settings{}, Status::Ok, LcqpPath::BranchAndBound},
      {"monotone ray", opposing_contacts(), Settings{}, Status::Infeasible, LcqpPath::Monotone},
      {"monotone box", box_violation, Settings{}, Status::Infeasible, LcqpPath::Monotone},
      {"exhausted", infeasible_box, Settings{}, Status::Infeasible, LcqpPath::BranchAndBound},
      {"relaxation", infeasible_relaxation, homotopy_settings(), Status::Infeasible,
       LcqpPath::PenaltyHomotopy},
      {"max_nodes", two_variable(2.0, 1.0), nodes1, Status::MaxIterations,
       LcqpPath::BranchAndBound},
      {"max_iterations", homotopy_trap(), iter0, Status::MaxIterations, LcqpPath::PenaltyHomotopy},
      {"NaN", nan_problem, Settings{}, Status::NonFiniteInput, LcqpPath::None},
      {"not definite", semidefinite, strict, Status::InvalidProblem, LcqpPath::None},
  };
  using Bounded = BoundedSolver;
  for (const Case& c : cases) {
    INFO(c.name);
    const Problem& p = c.problem;
    const auto guess = Eigen::Matrix<std::int8_t, Eigen::Dynamic, 1>::Zero(p.num_pairs()).eval();
    // Dynamic, sized by reserve().
    Solver reserved;
    REQUIRE(reserved.set_settings(c.settings) == Status::Ok);
    reserved.reserve(p.num_variables(), p.num_constraints(), p.num_pairs());
    Status status = Status::Ok;
    LcqpPath path = LcqpPath::None;
    CHECK(claw_test::allocations_during([&] {
            const auto& r = reserved.solve(p);
            status = r.status;
            path = r.path;
          }) == 0);
    CHECK(status == c.status);
    CHECK(path == c.path);
    CHECK(claw_test::allocations_during([&] { status = reserved.solve(p, guess).status; }) == 0);
    CHECK(status == c.status);
    // Dynamic, sized by a first solve of the same sizes.
    Solver solved;
    REQUIRE(solved.set_settings(c.settings) == Status::Ok);
    // Other sizes in between: only the storage they leave matters, not their answer.
    static_cast<void>(solved.solve(two_variable(1.0, 1.0)));
    CHECK(solved.solve(p).status == c.status);
    CHECK(claw_test::allocations_during([&] { status = solved.solve(p).status; }) == 0);
    CHECK(status == c.status);
    // Bounded: never allocates.
    Bounded bounded;
    REQUIRE(bounded.set_settings(c.settings) == Status::Ok);
    const Bounded::Problem bp = convert<Bounded::Problem>(p);
    CHECK(claw_test::allocations_during([&] {
            status = bounded.solve(bp).status;
            status = bounded.solve(bp, guess).status;
          }) == 0);
    CHECK(status == c.status);
  }
}

TEST_CASE("LCQP stationarity: a biactive optimum is S-stationary, a strictly complementary one too",
          "[lcqp]") {
  // min 1/2|x - (-1, -1)|^2 with x1 perp x2: x = (0, 0), both sides active, multipliers
  // nu_L = nu_R = 1 > 0 (Qx + g = (1, 1) = L' nu_L + R' nu_R): S.
  const Problem p = two_variable(-1.0, -1.0);
  for (const Settings& s : {Settings{}, homotopy_settings()}) {
    Solver solver;
    REQUIRE(solver.set_settings(s) == Status::Ok);
    const auto& r = solver.solve(p);
    INFO("path " << static_cast<int>(r.path));
    check_ok_point(p, r);
    CHECK(r.x.isZero(1e-12));
    CHECK(r.active(0) == 2);
    CHECK(r.stationarity == LcqpStationarity::S);
    CHECK(r.residuals.stationarity <= 1e-12);
    CHECK(r.objective == Approx(0.0).margin(1e-14));
  }
  // Biactive with one multiplier zero: a = (-1, 0) gives x = (0, 0) with nu = (1, 0): S still.
  Solver solver;
  const auto& r = solver.solve(two_variable(-1.0, 0.0));
  check_ok_point(two_variable(-1.0, 0.0), r);
  CHECK(r.active(0) == 2);
  CHECK(r.stationarity == LcqpStationarity::S);
  // Not biactive: S (no biactive pair restricts anything).
  const auto& r2 = solver.solve(two_variable(2.0, 1.0));
  CHECK(r2.active(0) == 1);
  CHECK(r2.stationarity == LcqpStationarity::S);
}
