// tests/test_solver_kernels.cpp: small solver kernels pinned by closed forms:
// detail::euclidean_norm in every range of its inputs (ordinary, tiny, huge, zero, NaN; double and
// float), the NaN-ignoring max / min against std::fmax / std::fmin, and the LCQP monotone path's
// line x = x0 + T lambda, which takes a shortcut when the equalities are [I | E_lambda] on
// x = [y; lambda]: the same LCQP written so that the shortcut applies, with scaled equality rows
// (elimination), with the rows reversed (row exchanges) and with lambda first (gathered columns)
// must agree.
#include <catch2/catch.hpp>

#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <random>

#include "claw/solvers/detail/min_max.hpp"
#include "claw/solvers/detail/qp_linalg.hpp"
#include "claw/solvers/lcqp.hpp"
#include "support/solver_instances.hpp"

namespace {

template <typename Scalar>
void check_norm_closed_forms() {
  using V = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;
  const Scalar eps = std::numeric_limits<Scalar>::epsilon();
  const Scalar tiny = std::numeric_limits<Scalar>::min();  // smallest normal
  const Scalar huge = std::numeric_limits<Scalar>::max();
  // (3, 4) t has norm 5 t at every scale t where 5 t is finite, including where the plain sum of
  // squares underflows (t^2 below the smallest normal) or overflows (t^2 above max).
  for (const Scalar t : {Scalar(1), Scalar(1e-3), std::sqrt(tiny), tiny * Scalar(1024), tiny,
                         std::sqrt(huge), huge / Scalar(8)}) {
    V v(2);
    v << Scalar(3) * t, Scalar(4) * t;
    INFO("t = " << t);
    CHECK(std::fabs(claw::detail::euclidean_norm(v) - Scalar(5) * t) <=
          Scalar(4) * eps * Scalar(5) * t);
  }
  // k equal entries c: sqrt(k) |c|, also at k min / eps, the one-pass test's lower end.
  for (const Scalar c : {Scalar(-2), std::sqrt(tiny / eps), std::sqrt(tiny / eps) / Scalar(2)}) {
    const V v = V::Constant(9, c);
    INFO("c = " << c);
    CHECK(std::fabs(claw::detail::euclidean_norm(v) - Scalar(3) * std::fabs(c)) <=
          Scalar(8) * eps * Scalar(3) * std::fabs(c));
  }
  // One entry far above the rest: the norm is that entry to eps.
  V w(3);
  w << Scalar(1), std::sqrt(huge), Scalar(1e-3);
  CHECK(std::fabs(claw::detail::euclidean_norm(w) - std::sqrt(huge)) <=
        Scalar(2) * eps * std::sqrt(huge));
  CHECK(claw::detail::euclidean_norm(V::Zero(4)) == Scalar(0));
  CHECK(claw::detail::euclidean_norm(V(0)) == Scalar(0));
  V n(3);
  n << Scalar(1), std::numeric_limits<Scalar>::quiet_NaN(), Scalar(2);
  CHECK(std::isnan(claw::detail::euclidean_norm(n)));
  V inf(2);
  inf << Scalar(1), std::numeric_limits<Scalar>::infinity();
  CHECK(claw::detail::euclidean_norm(inf) == std::numeric_limits<Scalar>::infinity());
}

/// A monotone LCQP in x = [y; lambda] (ny free variables, m pairs): Q = I, equalities
/// y - R' lambda = b (so M = R R' is positive semidefinite), L selects lambda, R acts on y.
claw::LcqpProblem<double> monotone_lcqp(std::mt19937& rng, Eigen::Index ny, Eigen::Index m) {
  std::normal_distribution<double> normal(0.0, 1.0);
  const Eigen::Index n = ny + m;
  claw::LcqpProblem<double> p(n, ny, m);
  p.Q.setIdentity();
  for (Eigen::Index j = 0; j < n; ++j) p.g(j) = normal(rng);
  Eigen::MatrixXd r(m, ny);
  for (Eigen::Index i = 0; i < m; ++i)
    for (Eigen::Index j = 0; j < ny; ++j) r(i, j) = normal(rng);
  p.A.leftCols(ny).setIdentity();
  p.A.rightCols(m) = -r.transpose();
  for (Eigen::Index i = 0; i < ny; ++i) p.lbA(i) = p.ubA(i) = normal(rng);
  for (Eigen::Index i = 0; i < m; ++i) {
    p.L(i, ny + i) = 1.0;
    p.R.row(i).head(ny) = r.row(i);
    p.lbR(i) = normal(rng) + 1.0;  // mostly positive: some pairs must push
  }
  p.lb.setConstant(-10.0);
  p.ub.setConstant(10.0);
  return p;
}

}  // namespace

TEMPLATE_TEST_CASE("max_ignoring_nan and min_ignoring_nan follow std::fmax and std::fmin",
                   "[kernels]", float, double) {
  // The residuals and Lemke's readout take the larger (smaller) of two numbers with a NaN one
  // ignored; the answer is NaN only when both are. Every pair of special and ordinary values.
  using S = TestType;
  const S nan = std::numeric_limits<S>::quiet_NaN(), inf = std::numeric_limits<S>::infinity();
  const S values[] = {
      nan, -inf, S(-1), S(-0.0), S(0), S(0.5), S(1), inf, std::numeric_limits<S>::denorm_min()};
  int pairs = 0;
  for (const S a : values)
    for (const S b : values) {
      INFO("a " << a << " b " << b);
      const S hi = claw::detail::max_ignoring_nan(a, b), lo = claw::detail::min_ignoring_nan(a, b);
      const S hi_ref = std::fmax(a, b), lo_ref = std::fmin(a, b);
      // Equal as numbers (which zero of -0 and +0 is returned is unspecified for fmax / fmin).
      CHECK((std::isnan(hi) ? std::isnan(hi_ref) : hi == hi_ref));
      CHECK((std::isnan(lo) ? std::isnan(lo_ref) : lo == lo_ref));
      ++pairs;
    }
  CHECK(pairs == 81);
}

TEST_CASE("euclidean_norm: closed forms in every range, double and float", "[kernels]") {
  check_norm_closed_forms<double>();
  check_norm_closed_forms<float>();
}

TEST_CASE(
    "LCQP monotone path: the line is the same with E_y = I, with scaled rows, with the rows in "
    "reverse order and with lambda first",
    "[kernels][lcqp]") {
  std::mt19937 rng(20261206);
  claw::LcqpSolver<double> solver;
  int pushed = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const Eigen::Index ny = 2 + trial % 5, m = 1 + trial % 3;
    const Eigen::Index n = ny + m;
    const auto direct = monotone_lcqp(rng, ny, m);
    // Equality rows scaled by 2^(r + 1): E_y = diag(2, 4, ...), not I; the same feasible set.
    auto scaled = direct;
    for (Eigen::Index r = 0; r < ny; ++r) {
      const double s = std::ldexp(1.0, static_cast<int>(r) + 1);
      scaled.A.row(r) *= s;
      scaled.lbA(r) *= s;
      scaled.ubA(r) *= s;
    }
    // Rows in reverse order: E_y is the reversed identity, whose elimination must exchange rows
    // (its first column's only nonzero is in the last row).
    auto reversed = direct;
    reversed.A = direct.A.colwise().reverse();
    reversed.lbA = direct.lbA.reverse();
    reversed.ubA = direct.ubA.reverse();
    // Variables reordered to x' = [lambda; y]: the selected columns come first.
    Eigen::VectorXi order(n);  // x'_k = x_order(k)
    for (Eigen::Index k = 0; k < m; ++k) order(k) = static_cast<int>(ny + k);
    for (Eigen::Index k = 0; k < ny; ++k) order(m + k) = static_cast<int>(k);
    auto swapped = direct;
    for (Eigen::Index k = 0; k < n; ++k) {
      swapped.g(k) = direct.g(order(k));
      swapped.lb(k) = direct.lb(order(k));
      swapped.ub(k) = direct.ub(order(k));
      swapped.A.col(k) = direct.A.col(order(k));
      swapped.L.col(k) = direct.L.col(order(k));
      swapped.R.col(k) = direct.R.col(order(k));
    }
    const auto a = solver.solve(direct);
    const auto b = solver.solve(scaled);
    const auto c = solver.solve(swapped);
    const auto d = solver.solve(reversed);
    INFO("trial " << trial);
    REQUIRE(a.path == claw::LcqpPath::Monotone);
    REQUIRE(b.path == claw::LcqpPath::Monotone);
    REQUIRE(c.path == claw::LcqpPath::Monotone);
    REQUIRE(d.path == claw::LcqpPath::Monotone);
    REQUIRE(a.status == b.status);
    REQUIRE(a.status == c.status);
    REQUIRE(a.status == d.status);
    CHECK(a.certified_global);
    if (a.status != claw::Status::Ok) continue;
    const double scale = 1.0 + a.x.lpNorm<Eigen::Infinity>();
    CHECK((a.x - b.x).lpNorm<Eigen::Infinity>() <= 1e-12 * scale);
    CHECK((a.x - d.x).lpNorm<Eigen::Infinity>() <= 1e-12 * scale);
    for (Eigen::Index k = 0; k < n; ++k) CHECK(std::fabs(c.x(k) - a.x(order(k))) <= 1e-12 * scale);
    if (a.x.tail(m).maxCoeff() > 1e-6) ++pushed;
  }
  // The comparison covers pairs that push (lambda > 0), not only lambda = 0 everywhere.
  CHECK(pushed >= 50);
}
