// tests/test_solver_kernels.cpp: small solver kernels pinned by closed forms:
// detail::euclidean_norm in every range of its inputs (ordinary, tiny, huge, zero, NaN; double and
// float), the NaN-ignoring max / min against std::fmax / std::fmin, and the LCQP monotone path's
// line x = x0 + T lambda, which takes a shortcut when the equalities are [I | E_lambda] on
// x = [y; lambda]: the same LCQP written so that the shortcut applies, with scaled equality rows
// (elimination), with the rows reversed (row exchanges) and with lambda first (gathered columns)
// must agree; and the monotone path's LCP of one or two pairs (detail::SmallLcp): its certificate's
// margins in closed form, its solutions by hand and against Lemke.
#include <catch2/catch.hpp>

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <type_traits>

#include "claw/solvers/detail/min_max.hpp"
#include "claw/solvers/detail/qp_linalg.hpp"
#include "claw/solvers/lcp.hpp"
#include "claw/solvers/lcqp.hpp"
#include "claw/solvers/lcqp/small_lcp.hpp"
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

namespace {

template <typename Scalar>
using SmallMatrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic, 0, 2, 2>;
template <typename Scalar>
using SmallVector = Eigen::Matrix<Scalar, Eigen::Dynamic, 1, 0, 2, 1>;

/// certify() on M with every entry's magnitude `e` (unit 1, so E_ij = e), c = 0, no c rounding.
template <typename Scalar>
bool certifies(const SmallMatrix<Scalar>& mm, Scalar e) {
  const Eigen::Index m = mm.rows();
  const SmallMatrix<Scalar> magnitude = SmallMatrix<Scalar>::Constant(m, m, e);
  const SmallVector<Scalar> zero = SmallVector<Scalar>::Zero(m);
  claw::detail::SmallLcp<Scalar> lcp;
  return lcp.certify(mm, magnitude, Scalar(1), zero, zero, m);
}

/// SmallLcp on LCP(c, M) with no error on M; REQUIREs the certificate. True when a basis passed
/// (the solution in lambda, its error bound in error).
template <typename Scalar>
bool small_solve(const SmallMatrix<Scalar>& mm, const SmallVector<Scalar>& c,
                 const SmallVector<Scalar>& c_err, SmallVector<Scalar>& lambda, Scalar& error) {
  const Eigen::Index m = c.size();
  claw::detail::SmallLcp<Scalar> lcp;
  REQUIRE(lcp.certify(mm, SmallMatrix<Scalar>::Zero(m, m), Scalar(0), c, c_err, m));
  lambda.resize(m);
  return lcp.solve(lambda, error);
}

/// small_solve() that must find a basis; the solution.
template <typename Scalar>
SmallVector<Scalar> small_solution(const SmallMatrix<Scalar>& mm, const SmallVector<Scalar>& c,
                                   const SmallVector<Scalar>& c_err) {
  SmallVector<Scalar> lambda;
  Scalar error = Scalar(-1);
  REQUIRE(small_solve(mm, c, c_err, lambda, error));
  CHECK(error >= Scalar(0));
  return lambda;
}

}  // namespace

TEMPLATE_TEST_CASE("SmallLcp: the certificate's margins in closed form", "[kernels][lcqp]", double,
                   float) {
  using Scalar = TestType;
  using M = SmallMatrix<Scalar>;
  const Scalar eps = std::numeric_limits<Scalar>::epsilon();
  // One pair: E_00 / M_00 <= 1/2, so e = 1/2 certifies M = 1 and the next number above does not.
  M one(1, 1);
  one << Scalar(1);
  CHECK(certifies<Scalar>(one, Scalar(0.5)));
  CHECK_FALSE(certifies<Scalar>(one, std::nextafter(Scalar(0.5), Scalar(1))));
  one << Scalar(0);
  CHECK_FALSE(certifies<Scalar>(one, Scalar(0)));
  one << Scalar(-1);
  CHECK_FALSE(certifies<Scalar>(one, Scalar(0)));
  one << std::numeric_limits<Scalar>::quiet_NaN();
  CHECK_FALSE(certifies<Scalar>(one, Scalar(0)));
  // Two pairs, M = [1 1; 1 1 + d], d = 1/8: det = d exactly, det's rounding allowance
  // dot_rounding(2, 1 + d + 1) = 3 (eps (2 + d) + denorm_min), ||adj M||_inf = 2 + d,
  // ||E||_inf = 2 e: certified exactly when (2 + d) 2 e <= (d - 3 (eps (2 + d) + denorm_min)) / 2.
  const Scalar d = Scalar(0.125);
  M near(2, 2);
  near << Scalar(1), Scalar(1), Scalar(1), Scalar(1) + d;
  const Scalar tiniest = std::numeric_limits<Scalar>::denorm_min();
  const Scalar limit =
      (d - Scalar(3) * (eps * (Scalar(2) + d) + tiniest)) / (Scalar(4) * (Scalar(2) + d));
  CHECK(certifies<Scalar>(near, Scalar(0.99) * limit));
  CHECK_FALSE(certifies<Scalar>(near, Scalar(1.01) * limit));
  // Every principal minor must be positive: indefinite, singular, negative definite, and a
  // positive determinant with negative diagonal all fail with E = 0.
  M m2(2, 2);
  m2 << Scalar(1), Scalar(2), Scalar(2), Scalar(1);
  CHECK_FALSE(certifies<Scalar>(m2, Scalar(0)));
  m2 << Scalar(1), Scalar(1), Scalar(1), Scalar(1);
  CHECK_FALSE(certifies<Scalar>(m2, Scalar(0)));
  m2 << Scalar(-1), Scalar(0), Scalar(0), Scalar(-1);
  CHECK_FALSE(certifies<Scalar>(m2, Scalar(0)));
  m2 << Scalar(1), Scalar(3), Scalar(0), Scalar(1);  // nonsymmetric P-matrix
  CHECK(certifies<Scalar>(m2, Scalar(0)));
  // A determinant within its own rounding of 0 is not positive: [1 1; 1 1 + eps] has det = eps
  // (exact) against the allowance 3 eps (2 + eps); and a subnormal determinant of tiny entries,
  // t^2 (1 + 2 eps) - t^2 with t^2 subnormal, rounds to a few denorm_min whatever its exact value.
  m2 << Scalar(1), Scalar(1), Scalar(1), Scalar(1) + eps;
  CHECK_FALSE(certifies<Scalar>(m2, Scalar(0)));
  const Scalar t = std::sqrt(std::numeric_limits<Scalar>::min()) * Scalar(0.25);
  m2 << t, t, t, t * (Scalar(1) + Scalar(2) * eps);
  CHECK_FALSE(certifies<Scalar>(m2, Scalar(0)));
  // A non-finite c or c rounding is refused.
  claw::detail::SmallLcp<Scalar> lcp;
  const M identity = M::Identity(2, 2);
  SmallVector<Scalar> c(2), c_err = SmallVector<Scalar>::Zero(2);
  c << Scalar(1), std::numeric_limits<Scalar>::infinity();
  CHECK_FALSE(lcp.certify(identity, M::Zero(2, 2), Scalar(0), c, c_err, 2));
  c << Scalar(1), Scalar(1);
  c_err << Scalar(0), std::numeric_limits<Scalar>::quiet_NaN();
  CHECK_FALSE(lcp.certify(identity, M::Zero(2, 2), Scalar(0), c, c_err, 2));
}

TEMPLATE_TEST_CASE("SmallLcp: solutions by hand and against Lemke", "[kernels][lcqp]", double,
                   float) {
  using Scalar = TestType;
  using M = SmallMatrix<Scalar>;
  using V = SmallVector<Scalar>;
  const Scalar eps = std::numeric_limits<Scalar>::epsilon();
  const Scalar tiniest = std::numeric_limits<Scalar>::denorm_min();
  const V none = V::Zero(2);
  // M = I: lambda = max(-c, 0), one case per basis.
  const M identity = M::Identity(2, 2);
  for (const auto& cs : {std::array<Scalar, 2>{1, 2}, std::array<Scalar, 2>{-1, 2},
                         std::array<Scalar, 2>{2, -3}, std::array<Scalar, 2>{-1, -2}}) {
    V c(2);
    c << cs[0], cs[1];
    const V lambda = small_solution<Scalar>(identity, c, none);
    CHECK(lambda(0) == std::max(-cs[0], Scalar(0)));
    CHECK(lambda(1) == std::max(-cs[1], Scalar(0)));
  }
  // M = [1 3; 0 1], c = (-1, -1): {} gives w = c < 0, {0} gives lambda_0 = 1 and w_1 = -1 < 0,
  // {1} gives lambda_1 = 1 and w_0 = -1 + 3 = 2 >= 0: lambda = (0, 1).
  M upper(2, 2);
  upper << Scalar(1), Scalar(3), Scalar(0), Scalar(1);
  V c(2);
  c << Scalar(-1), Scalar(-1);
  const V upper_lambda = small_solution<Scalar>(upper, c, none);
  CHECK(upper_lambda(0) == Scalar(0));
  CHECK(upper_lambda(1) == Scalar(1));
  // c_0 = -t within its rounding 10 t: lambda_0 = t on basis {0} is below its error bound 2 (10 t
  // + ...), and w_0 = -t on the empty basis is not above its noise: no basis passes strictly (the
  // pair is degenerate to this precision). With no rounding declared, lambda_0 = t. c_0 = 0
  // exactly is degenerate too.
  const Scalar t = Scalar(1e-3) * eps;
  c << -t, Scalar(1);
  V c_err(2), lambda;
  c_err << Scalar(10) * t, Scalar(0);
  Scalar error = Scalar(0);
  CHECK_FALSE(small_solve<Scalar>(identity, c, c_err, lambda, error));
  CHECK(small_solution<Scalar>(identity, c, none)(0) == t);
  c << Scalar(0), Scalar(1);
  CHECK_FALSE(small_solve<Scalar>(identity, c, none, lambda, error));
  // The error bound: basis {0, 1} of M = [2 1; 1 2], c = (-3, -3) gives lambda = (1, 1) exactly,
  // w = 0, so delta = 2 ||M^-1||_inf max_i noise_i (then rounded up: times 1 + 4 eps, plus
  // denorm_min) with ||M^-1||_inf <= ||adj M|| / det_low =
  // 3 / (3 - 3 (5 eps + denorm_min)) and noise_i = dot_rounding(3, 3 + 2 + 1) = 4 (6 eps +
  // denorm_min), declared c rounding 0.
  M sym(2, 2);
  sym << Scalar(2), Scalar(1), Scalar(1), Scalar(2);
  c << Scalar(-3), Scalar(-3);
  REQUIRE(small_solve<Scalar>(sym, c, none, lambda, error));
  CHECK(lambda(0) == Scalar(1));
  CHECK(lambda(1) == Scalar(1));
  const Scalar det_low = Scalar(3) - Scalar(3) * (Scalar(5) * eps + tiniest);
  const Scalar noise = Scalar(4) * (Scalar(6) * eps + tiniest);
  const Scalar expected =
      Scalar(2) * (Scalar(3) / det_low) * noise * (Scalar(1) + Scalar(4) * eps) + tiniest;
  CHECK(std::fabs(error - expected) <= Scalar(4) * eps * expected);
  // One pair: lambda = max(-c / M, 0).
  M one(1, 1);
  one << Scalar(4);
  V c1(1);
  c1 << Scalar(-2);
  CHECK(small_solution<Scalar>(one, c1, V::Zero(1))(0) == Scalar(0.5));
  // delta underflowing to 0 is still a bound: M = [2^100 0; 2^100 2^100], c = -(1000.875,
  // 1000.9375) 2^-974 (double) has lambda* = (1000.875, 0.0625) denorm_min on basis {0, 1}, yet
  // basis {0} rounds to lambda_0 = 1001 denorm_min with w_1 and delta below the subnormals. With
  // delta rounded up (plus denorm_min) no basis passes strictly.
  if constexpr (std::is_same<Scalar, double>::value) {
    M big(2, 2);
    big << std::ldexp(1.0, 100), 0.0, std::ldexp(1.0, 100), std::ldexp(1.0, 100);
    c << -1000.875 * std::ldexp(1.0, -974), -1000.9375 * std::ldexp(1.0, -974);
    CHECK_FALSE(small_solve<Scalar>(big, c, none, lambda, error));
  }
  // Random row-diagonally-dominant 2 x 2 (P-matrices, mostly nonsymmetric) against Lemke.
  std::mt19937 rng(20261207);
  std::uniform_real_distribution<Scalar> u(Scalar(-1), Scalar(1));
  claw::LemkeSolver<Scalar, 2> lemke;
  int solved = 0;
  for (int trial = 0; trial < 500; ++trial) {
    M mm(2, 2);
    mm << Scalar(0), u(rng), u(rng), Scalar(0);
    mm(0, 0) = std::fabs(mm(0, 1)) + Scalar(0.1) + std::fabs(u(rng));
    mm(1, 1) = std::fabs(mm(1, 0)) + Scalar(0.1) + std::fabs(u(rng));
    V q(2);
    q << u(rng), u(rng);
    V mine;
    Scalar bound = Scalar(0);
    INFO("trial " << trial);
    if (!small_solve<Scalar>(mm, q, none, mine, bound)) continue;  // degenerate to rounding
    ++solved;
    const auto& r = lemke.solve(q, mm);
    REQUIRE(r.status == claw::Status::Ok);
    CHECK((mine - r.z).template lpNorm<Eigen::Infinity>() <= bound + Scalar(1e3) * eps);
    const V w = q + mm * mine;
    const Scalar tol = Scalar(64) * eps;
    CHECK(mine.minCoeff() >= Scalar(0));
    CHECK(w.minCoeff() >= -tol);
    CHECK(std::fabs(mine(0) * w(0)) + std::fabs(mine(1) * w(1)) <= tol);
  }
  // Only a solution within rounding of a degenerate point (some lambda_i and w_i both near 0)
  // is left to Lemke.
  CHECK(solved >= 495);
}
