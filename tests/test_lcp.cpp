// tests/test_lcp.cpp: solvers/lcp.hpp (Lemke's method) against closed forms (q >= 0, M = I, a 2x2
// solved by hand), random positive semidefinite LCPs checked by their complementarity conditions,
// certified infeasibility, degenerate (tied) data, the pivot cap, refusals, settings, float, and
// allocation-free solves; detail::semidefinite_within_bound (the monotone LCP's precondition on a
// matrix known to an error bound) on closed forms and perturbed rank-deficient Gram matrices.
#include <catch2/catch.hpp>

#include <Eigen/Core>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "claw/solvers/detail/semidefinite.hpp"
#include "claw/solvers/lcp.hpp"
#include "support/alloc_counter.hpp"
#include "support/infinity.hpp"

using claw::LemkeSolver;
using claw::Status;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// The LCP conditions at z, computed from (q, M) alone: the largest violation of z >= 0 and of
/// w = q + M z >= 0, and max_i |z_i w_i| (each relative to 1 + |q|_inf + |M|_inf |z|_inf).
struct LcpCheck {
  double sign = 0, complementarity = 0, scale = 1;
};

LcpCheck check_lcp(const VectorXd& q, const MatrixXd& m, const VectorXd& z) {
  LcpCheck c;
  const VectorXd w = q + m * z;
  c.scale = 1.0 + q.lpNorm<Eigen::Infinity>() +
            m.cwiseAbs().rowwise().sum().maxCoeff() * z.lpNorm<Eigen::Infinity>();
  for (Eigen::Index i = 0; i < q.size(); ++i) {
    c.sign = std::max({c.sign, -z(i), -w(i)});
    c.complementarity = std::max(c.complementarity, std::abs(z(i) * w(i)));
  }
  c.sign /= c.scale;
  c.complementarity /= c.scale * std::max(1.0, z.lpNorm<Eigen::Infinity>());
  return c;
}

/// The Farkas certificate an Infeasible result carries, restated in long double from (q, M) and
/// the ray y alone: y >= 0 with largest entry 1, and q'y + sum_j max(0, (M'y)_j) r < 0 with
/// r = |q|_inf / (pivot_tolerance max|M_ij|) (LemkeResult's reach; M'y's own rounding is far
/// below the margin these data leave).
template <typename Result>
bool ray_is_farkas_certificate(const Result& r, const VectorXd& q, const MatrixXd& m,
                               double pivot_tolerance) {
  const Eigen::Index size = q.size();
  if (r.ray.size() != size) return false;
  long double y_max = 0, gap = 0, excess = 0;
  for (Eigen::Index i = 0; i < size; ++i) {
    if (!(r.ray(i) >= 0)) return false;
    y_max = std::max<long double>(y_max, r.ray(i));
    gap += static_cast<long double>(q(i)) * r.ray(i);
  }
  const long double reach =
      q.lpNorm<Eigen::Infinity>() / (pivot_tolerance * m.cwiseAbs().maxCoeff());
  for (Eigen::Index j = 0; j < size; ++j) {
    long double v = 0;
    for (Eigen::Index i = 0; i < size; ++i) v += static_cast<long double>(m(i, j)) * r.ray(i);
    if (v > 0) excess += v * reach;
  }
  return y_max == 1 && gap + excess < 0;
}

/// Checks every property an Ok result promises against (q, M).
template <typename Result>
void require_solution(const Result& r, const VectorXd& q, const MatrixXd& m, double tol) {
  REQUIRE(r.status == Status::Ok);
  REQUIRE(r.z.size() == q.size());
  REQUIRE(r.w.size() == q.size());
  const LcpCheck c = check_lcp(q, m, r.z);
  CHECK(c.sign <= tol);
  CHECK(c.complementarity <= tol);
  // The reported w is q + M z, and every nonzero z_i is basic.
  const VectorXd w_error = r.w.template cast<double>() - (q + m * r.z.template cast<double>());
  CHECK(w_error.lpNorm<Eigen::Infinity>() <= tol * c.scale);
  for (Eigen::Index i = 0; i < q.size(); ++i) {
    CHECK(r.z(i) >= 0.0);
    CHECK(r.w(i) >= 0.0);
    if (r.z(i) != 0.0) CHECK(r.z_basic(i) == 1);
  }
}

/// A positive semidefinite m x m matrix B'B (B of `rank` rows) and a q for which the LCP is
/// solvable: q = w0 - M z0 with z0, w0 >= 0 complementary (a share of both zero: degenerate).
void random_feasible_lcp(std::mt19937& rng, int m, int rank, MatrixXd& mat, VectorXd& q) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_int_distribution<int> kind(0, 2);
  const MatrixXd b = MatrixXd::NullaryExpr(rank, m, [&] { return u(rng); });
  mat = b.transpose() * b;
  VectorXd z0 = VectorXd::Zero(m), w0 = VectorXd::Zero(m);
  for (int i = 0; i < m; ++i) {
    const int k = kind(rng);
    if (k == 0) z0(i) = 1.0 + u(rng);
    if (k == 1) w0(i) = 1.0 + u(rng);
  }
  q = w0 - mat * z0;
}

}  // namespace

TEST_CASE("Lemke: q >= 0 gives z = 0 and w = q without a pivot", "[lcp]") {
  LemkeSolver<double> solver(4);
  MatrixXd m(3, 3);
  m << 2, -1, 0, -1, 2, -1, 0, -1, 2;
  const VectorXd q = (VectorXd(3) << 1.0, 0.0, 2.5).finished();
  const auto& r = solver.solve(q, m);
  REQUIRE(r.status == Status::Ok);
  CHECK(r.z.isZero(0.0));
  CHECK(r.w == q);
  CHECK(r.pivots == 0);
  CHECK(r.z_basic.isZero());
}

TEST_CASE("Lemke: M = I gives z = max(-q, 0), w = max(q, 0)", "[lcp]") {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  LemkeSolver<double, 8> solver;
  for (int m = 1; m <= 8; ++m) {
    const VectorXd q = VectorXd::NullaryExpr(m, [&] { return u(rng); });
    const auto& r = solver.solve(q, MatrixXd::Identity(m, m));
    INFO("m " << m << " q " << q.transpose());
    REQUIRE(r.status == Status::Ok);
    CHECK((r.z - (-q).cwiseMax(0.0)).lpNorm<Eigen::Infinity>() <= 1e-14);
    CHECK((r.w - q.cwiseMax(0.0)).lpNorm<Eigen::Infinity>() <= 1e-14);
    for (int i = 0; i < m; ++i) CHECK(r.z_basic(i) == (q(i) < 0 ? 1 : 0));
  }
}

TEST_CASE("Lemke: 2x2 positive definite LCPs solved by hand", "[lcp]") {
  MatrixXd m(2, 2);
  m << 2, 1, 1, 2;
  LemkeSolver<double> solver(2);
  // Both z positive: M z = -q, z = M^-1 (5, 6) = (4/3, 7/3), w = 0.
  {
    const VectorXd q = (VectorXd(2) << -5.0, -6.0).finished();
    const auto& r = solver.solve(q, m);
    REQUIRE(r.status == Status::Ok);
    CHECK(r.z(0) == Approx(4.0 / 3.0).epsilon(1e-14));
    CHECK(r.z(1) == Approx(7.0 / 3.0).epsilon(1e-14));
    CHECK(std::abs(r.w(0)) <= 1e-14);
    CHECK(std::abs(r.w(1)) <= 1e-14);
  }
  // Only z1 positive: 2 z1 = 1, w2 = 3 + z1 = 3.5.
  {
    const VectorXd q = (VectorXd(2) << -1.0, 3.0).finished();
    const auto& r = solver.solve(q, m);
    REQUIRE(r.status == Status::Ok);
    CHECK(r.z(0) == Approx(0.5).epsilon(1e-14));
    CHECK(r.z(1) == 0.0);
    CHECK(r.w(0) == Approx(0.0).margin(1e-14));
    CHECK(r.w(1) == Approx(3.5).epsilon(1e-14));
    CHECK(r.z_basic(0) == 1);
    CHECK(r.z_basic(1) == 0);
  }
  // A nonsymmetric copositive-plus M (nonnegative entries, positive diagonal), q = (-1, -4):
  // z2 alone: 3 z2 = 4 gives w1 = -1 + 1 * 4/3 > 0, so z = (0, 4/3), w = (1/3, 0).
  {
    MatrixXd p(2, 2);
    p << 1, 1, 0, 3;
    const VectorXd q = (VectorXd(2) << -1.0, -4.0).finished();
    const auto& r = solver.solve(q, p);
    REQUIRE(r.status == Status::Ok);
    CHECK(r.z(0) == 0.0);
    CHECK(r.z(1) == Approx(4.0 / 3.0).epsilon(1e-14));
    CHECK(r.w(0) == Approx(1.0 / 3.0).epsilon(1e-14));
  }
}

TEST_CASE("Lemke: random positive semidefinite LCPs satisfy z >= 0, w >= 0, z'w = 0", "[lcp]") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  LemkeSolver<double> solver(12);
  int ok = 0, infeasible = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int m = 1 + trial % 12;
    const int rank = 1 + static_cast<int>(rng() % static_cast<unsigned>(m + 2));  // singular too
    const MatrixXd b = MatrixXd::NullaryExpr(rank, m, [&] { return u(rng); });
    const MatrixXd mat = b.transpose() * b;
    const VectorXd q = VectorXd::NullaryExpr(m, [&] { return 2.0 * u(rng); });
    const auto& r = solver.solve(q, mat);
    INFO("trial " << trial << " m " << m << " rank " << rank);
    if (r.status == Status::Infeasible) {
      // PSD M: a ray proves {z >= 0 : q + M z >= 0} empty, which needs a singular M (Farkas: some
      // y >= 0 with M y = 0 and q'y < 0).
      ++infeasible;
      CHECK(r.z.isZero(0.0));
      CHECK(r.w.isZero(0.0));
      CHECK(rank < m);  // positive definite M: every LCP is solvable
      CHECK(ray_is_farkas_certificate(r, q, mat, solver.settings().pivot_tolerance));
      // Independent evidence: with y that certificate, y'(q + (M + eps I) z) >= 0 forces
      // y'z >= -q'y / eps, so the solutions of the regularised LCP blow up like 1/eps.
      LemkeSolver<double> other(m);
      const auto& reg = other.solve(q, mat + 1e-7 * MatrixXd::Identity(m, m));
      REQUIRE(reg.status == Status::Ok);
      CHECK(reg.z.lpNorm<Eigen::Infinity>() >= 1e3);
      continue;
    }
    ++ok;
    require_solution(r, q, mat, 1e-9);
  }
  CHECK(ok > 200);
  CHECK(infeasible > 0);
  // Solvable by construction (z0, w0 complementary, degenerate in a third of the pairs): always Ok.
  for (int trial = 0; trial < 300; ++trial) {
    const int m = 1 + trial % 12;
    const int rank = 1 + trial % m;
    MatrixXd mat;
    VectorXd q;
    random_feasible_lcp(rng, m, rank, mat, q);
    INFO("solvable trial " << trial << " m " << m << " rank " << rank);
    require_solution(solver.solve(q, mat), q, mat, 1e-9);
  }
}

TEST_CASE("Lemke: nonsymmetric positive definite and larger LCPs are solved", "[lcp]") {
  std::mt19937 rng(29);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  LemkeSolver<double> solver(40);
  for (int trial = 0; trial < 60; ++trial) {
    const int m = trial < 40 ? 2 + trial % 10 : 20 + trial % 21;
    const MatrixXd b = MatrixXd::NullaryExpr(m, m, [&] { return u(rng); });
    const MatrixXd k = MatrixXd::NullaryExpr(m, m, [&] { return 3.0 * u(rng); });
    // PSD part plus a skew part: x'Mx = |Bx|^2 + 0.1 |x|^2 > 0, M a P-matrix (unique solution).
    const MatrixXd mat = b.transpose() * b + 0.1 * MatrixXd::Identity(m, m) + (k - k.transpose());
    const VectorXd q = VectorXd::NullaryExpr(m, [&] { return 2.0 * u(rng); });
    INFO("trial " << trial << " m " << m);
    const auto& r = solver.solve(q, mat);
    require_solution(r, q, mat, 1e-9);
    // Unique: the solution solves the square system on its support.
    std::vector<Eigen::Index> support;
    for (Eigen::Index i = 0; i < m; ++i)
      if (r.z(i) > 0) support.push_back(i);
    if (support.empty()) continue;
    const std::size_t s = support.size();
    const auto size = static_cast<Eigen::Index>(s);
    MatrixXd ms(size, size);
    VectorXd qs(size), zs(size);
    for (std::size_t a = 0; a < s; ++a) {
      const auto ia = static_cast<Eigen::Index>(a);
      qs(ia) = -q(support[a]);
      zs(ia) = r.z(support[a]);
      for (std::size_t c = 0; c < s; ++c)
        ms(ia, static_cast<Eigen::Index>(c)) = mat(support[a], support[c]);
    }
    CHECK((ms * zs - qs).lpNorm<Eigen::Infinity>() <= 1e-9 * (1.0 + qs.lpNorm<Eigen::Infinity>()));
  }
}

TEST_CASE("Lemke: infeasible LCPs end on a ray (Infeasible, z = w = 0)", "[lcp]") {
  LemkeSolver<double, 4> solver;
  // M = 0 and q with a negative entry: w = q is never >= 0.
  {
    const VectorXd q = (VectorXd(3) << 1.0, -1.0, 0.5).finished();
    const auto& r = solver.solve(q, MatrixXd::Zero(3, 3));
    CHECK(r.status == Status::Infeasible);
    CHECK(r.z.isZero(0.0));
    CHECK(r.w.isZero(0.0));
    // The certificate y = e_2: M'y = 0, q'y = -1.
    CHECK(r.ray == VectorXd::Unit(3, 1));
  }
  // M = [1 -1; -1 1] is PSD; w1 + w2 = q1 + q2 = -2 < 0 for every z.
  {
    MatrixXd m(2, 2);
    m << 1, -1, -1, 1;
    const VectorXd q = (VectorXd(2) << -1.0, -1.0).finished();
    const auto& r = solver.solve(q, m);
    CHECK(r.status == Status::Infeasible);
    CHECK(r.z.isZero(0.0));
    CHECK(r.w.isZero(0.0));
    CHECK(r.pivots >= 1);
    // Farkas: M'y <= 0 with y >= 0 needs y_1 = y_2; the ray is y = (1, 1), q'y = -2.
    CHECK((r.ray - VectorXd::Ones(2)).lpNorm<Eigen::Infinity>() <= 1e-15);
  }
  // A skew-symmetric M (PSD, monotone) with an empty feasible set: w1 = -1 - z2 < 0 always.
  {
    MatrixXd m(2, 2);
    m << 0, -1, 1, 0;
    const VectorXd q = (VectorXd(2) << -1.0, 1.0).finished();
    const auto& r = solver.solve(q, m);
    CHECK(r.status == Status::Infeasible);
    // Farkas: M'y = (y_2, -y_1) <= 0 and y >= 0 force y_2 = 0; y = (1, 0), q'y = -1.
    CHECK((r.ray - VectorXd::Unit(2, 0)).lpNorm<Eigen::Infinity>() <= 1e-15);
  }
  // The solver is not stuck after a ray: the next feasible problem is solved.
  const VectorXd q = (VectorXd(2) << -1.0, -2.0).finished();
  const auto& r = solver.solve(q, MatrixXd::Identity(2, 2));
  REQUIRE(r.status == Status::Ok);
  CHECK(r.z(0) == Approx(1.0));
  CHECK(r.z(1) == Approx(2.0));
}

TEST_CASE("Lemke: degenerate data (tied ratios, zero q entries) terminates with a solution",
          "[lcp]") {
  LemkeSolver<double> solver(6);
  // All q equal: the first ratio test is a full tie. Murty's cyclic matrix (copositive-plus).
  {
    MatrixXd m(3, 3);
    m << 1, 2, 0, 0, 1, 2, 2, 0, 1;
    const VectorXd q = VectorXd::Constant(3, -1.0);
    const auto& r = solver.solve(q, m);
    require_solution(r, q, m, 1e-12);
    CHECK(r.pivots < 50);
    // The solution: by the symmetry of M, z = (1/3, 1/3, 1/3) with w = 0.
    CHECK((r.z - VectorXd::Constant(3, 1.0 / 3.0)).lpNorm<Eigen::Infinity>() <= 1e-14);
  }
  // Integer data with many ties and zero entries of q (degenerate vertices everywhere).
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> small(-1, 1);
  int solved = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int m = 2 + trial % 5;
    const MatrixXd b = MatrixXd::NullaryExpr(m, m, [&] { return double(small(rng)); });
    const MatrixXd mat = b.transpose() * b + MatrixXd::Identity(m, m);  // positive definite
    const VectorXd q = VectorXd::NullaryExpr(m, [&] { return double(small(rng)); });
    INFO("trial " << trial << "\nM\n" << mat << "\nq " << q.transpose());
    const auto& r = solver.solve(q, mat);
    CHECK(r.pivots <= 2 * m + 2);
    require_solution(r, q, mat, 1e-12);
    solved += r.status == Status::Ok ? 1 : 0;
  }
  CHECK(solved == 200);
  // Identical rows (PSD, singular) with equal q: a tie in every ratio test.
  {
    const MatrixXd m = MatrixXd::Ones(4, 4);
    const VectorXd q = VectorXd::Constant(4, -2.0);
    const auto& r = solver.solve(q, m);
    require_solution(r, q, m, 1e-12);
    CHECK(r.z.sum() == Approx(2.0).epsilon(1e-14));
  }
}

namespace {
/// Every solution of LCP(q, M) on a complementary basis (z_B from M_BB z_B = -q_B, z = 0 off B),
/// m <= 6: the smallest |z|_inf of one that holds within 1e-9, or +inf when none does.
double smallest_enumerated_solution(const VectorXd& q, const MatrixXd& m) {
  const Eigen::Index size = q.size();
  double best = kInf;
  for (unsigned mask = 0; mask < (1u << size); ++mask) {
    std::vector<Eigen::Index> b;
    for (Eigen::Index i = 0; i < size; ++i)
      if (mask & (1u << i)) b.push_back(i);
    VectorXd z = VectorXd::Zero(size);
    if (!b.empty()) {
      const auto k = static_cast<Eigen::Index>(b.size());
      MatrixXd mb(k, k);
      VectorXd qb(k);
      for (Eigen::Index a = 0; a < k; ++a) {
        qb(a) = -q(b[static_cast<std::size_t>(a)]);
        for (Eigen::Index c = 0; c < k; ++c)
          mb(a, c) = m(b[static_cast<std::size_t>(a)], b[static_cast<std::size_t>(c)]);
      }
      const Eigen::FullPivLU<MatrixXd> lu(mb);
      if (!lu.isInvertible()) continue;
      const VectorXd zb = lu.solve(qb);
      for (Eigen::Index a = 0; a < k; ++a) z(b[static_cast<std::size_t>(a)]) = zb(a);
    }
    const LcpCheck c = check_lcp(q, m, z);
    if (c.sign <= 1e-9 && c.complementarity <= 1e-9)
      best = std::min(best, z.lpNorm<Eigen::Infinity>());
  }
  return best;
}
}  // namespace

TEST_CASE(
    "Lemke: Infeasible only with a re-checked Farkas certificate; another ray is "
    "IllConditioned",
    "[lcp]") {
  // Indefinite and nonsymmetric M (not copositive-plus): Lemke's ray then proves nothing by
  // itself. Every Infeasible must carry a certificate that holds, and no enumerated solution may
  // lie within its reach; a solvable LCP that ends on a ray must say IllConditioned.
  std::mt19937 rng(41);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  LemkeSolver<double> solver(5);
  int infeasible = 0, ill = 0, solvable_ray = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int m = 1 + trial % 5;
    const MatrixXd mat = MatrixXd::NullaryExpr(m, m, [&] { return u(rng); });
    const VectorXd q = VectorXd::NullaryExpr(m, [&] { return u(rng); });
    const auto& r = solver.solve(q, mat);
    INFO("trial " << trial << "\nM\n" << mat << "\nq " << q.transpose());
    const double reach = q.lpNorm<Eigen::Infinity>() /
                         (solver.settings().pivot_tolerance * mat.cwiseAbs().maxCoeff());
    const double enumerated = smallest_enumerated_solution(q, mat);
    if (r.status == Status::Infeasible) {
      ++infeasible;
      CHECK(ray_is_farkas_certificate(r, q, mat, solver.settings().pivot_tolerance));
      CHECK(enumerated > reach);
    } else if (r.status == Status::IllConditioned) {
      ++ill;
      CHECK(r.z.isZero(0.0));
      CHECK_FALSE(ray_is_farkas_certificate(r, q, mat, solver.settings().pivot_tolerance));
      solvable_ray += enumerated < kInf ? 1 : 0;
    } else {
      require_solution(r, q, mat, 1e-9);
    }
  }
  CHECK(infeasible > 50);
  CHECK(ill > 50);
  CHECK(solvable_ray > 10);  // rays on solvable LCPs occur and are not called Infeasible
}

TEST_CASE("check_lcp_certificate: closed forms of the reach, the error bounds and the signs",
          "[lcp]") {
  using V1 = Eigen::Matrix<double, 1, 1>;
  const V1 q = V1::Constant(-1.0);
  const auto holds = [&](double mval, double reach, double q_err, double m_err, double yval) {
    return claw::check_lcp_certificate(q, V1::Constant(mval), V1::Constant(yval),
                                       V1::Constant(reach), V1::Constant(q_err),
                                       V1::Constant(m_err));
  };
  // w = -1 + M z: M = 0 has no solution at all (every reach, +inf included).
  CHECK(holds(0.0, 1e300, 0.0, 0.0, 1.0));
  CHECK(holds(0.0, kInf, 0.0, 0.0, 1.0));
  // M = 1: z = 1 solves it, so the certificate covers exactly z < 1.
  CHECK(holds(1.0, 0.99, 0.0, 0.0, 1.0));
  CHECK_FALSE(holds(1.0, 1.01, 0.0, 0.0, 1.0));
  // M known to within 0.5 of 0: M~ = 0.5 is solved by z = 2, so the reach must stay below 2.
  CHECK(holds(0.0, 1.99, 0.0, 0.5, 1.0));
  CHECK_FALSE(holds(0.0, 2.01, 0.0, 0.5, 1.0));
  // q known to within 1.5 of -1: q~ = 0.5 >= 0 is solved by z = 0; within 0.9 it is not.
  CHECK_FALSE(holds(0.0, 1.0, 1.5, 0.0, 1.0));
  CHECK(holds(0.0, 1.0, 0.9, 0.0, 1.0));
  // y must be >= 0, nonzero and finite. With q = (1, 1) (z = 0 solves it) and M = 0,
  // y = (-1, 0.5) meets every other condition: q'y = -0.5, M'y = 0.
  CHECK_FALSE(claw::check_lcp_certificate(Eigen::Vector2d(1.0, 1.0), Eigen::Matrix2d::Zero(),
                                          Eigen::Vector2d(-1.0, 0.5), Eigen::Vector2d::Ones(),
                                          Eigen::Vector2d::Zero(), Eigen::Matrix2d::Zero()));
  CHECK_FALSE(holds(0.0, 1.0, 0.0, 0.0, -1.0));
  CHECK_FALSE(holds(0.0, 1.0, 0.0, 0.0, 0.0));
  CHECK_FALSE(holds(0.0, 1.0, 0.0, 0.0, kNaN));
  // Two pairs, M = [1 -1; -1 1], q = (-1, -1) (w_1 + w_2 = -2: no solution). y = (1, 0) has M'y =
  // (1, -1) and only shows w_1 < 0 while z_1 < 1: its reach must stay below 1.
  Eigen::Matrix2d m2;
  m2 << 1, -1, -1, 1;
  const Eigen::Vector2d q2(-1.0, -1.0), zero2 = Eigen::Vector2d::Zero();
  // y = (1, 1): M'y = 0 by cancellation, so only its rounding (6 eps per column) is in the
  // excess: the certificate reaches z up to about 1 / (6 eps) (q'y = -2), not to +inf.
  CHECK(claw::check_lcp_certificate(q2, m2, Eigen::Vector2d(1.0, 1.0),
                                    Eigen::Vector2d::Constant(1e14), zero2,
                                    Eigen::Matrix2d::Zero()));
  CHECK_FALSE(claw::check_lcp_certificate(q2, m2, Eigen::Vector2d(1.0, 1.0),
                                          Eigen::Vector2d::Constant(kInf), zero2,
                                          Eigen::Matrix2d::Zero()));
  CHECK(claw::check_lcp_certificate(q2, m2, Eigen::Vector2d(1.0, 0.0),
                                    Eigen::Vector2d::Constant(0.99), zero2,
                                    Eigen::Matrix2d::Zero()));
  CHECK_FALSE(claw::check_lcp_certificate(q2, m2, Eigen::Vector2d(1.0, 0.0),
                                          Eigen::Vector2d::Constant(1.01), zero2,
                                          Eigen::Matrix2d::Zero()));
}

TEST_CASE("Lemke: the pivot cap returns MaxIterations exactly below the pivots needed", "[lcp]") {
  std::mt19937 rng(5);
  LemkeSolver<double> solver(8);
  MatrixXd mat;
  VectorXd q;
  random_feasible_lcp(rng, 8, 8, mat, q);
  REQUIRE((q.array() < 0).any());
  const auto& free_run = solver.solve(q, mat);
  REQUIRE(free_run.status == Status::Ok);
  const VectorXd z = free_run.z;
  const int needed = free_run.pivots;
  REQUIRE(needed >= 3);
  claw::LemkeSettings<double> s;
  s.max_pivots = needed;
  REQUIRE(solver.set_settings(s) == Status::Ok);
  {
    const auto& r = solver.solve(q, mat);
    CHECK(r.status == Status::Ok);
    CHECK(r.pivots == needed);
    CHECK(r.z == z);
  }
  s.max_pivots = needed - 1;
  REQUIRE(solver.set_settings(s) == Status::Ok);
  {
    const auto& r = solver.solve(q, mat);
    CHECK(r.status == Status::MaxIterations);
    CHECK(r.pivots == needed - 1);
    CHECK(r.z.isZero(0.0));
    CHECK(r.w.isZero(0.0));
    CHECK(r.z_basic.isZero());
  }
  s.max_pivots = 0;
  REQUIRE(solver.set_settings(s) == Status::Ok);
  {
    const auto& r = solver.solve(q, mat);
    CHECK(r.status == Status::MaxIterations);
    CHECK(r.z.isZero(0.0));
    // q >= 0 needs no pivot: still Ok under a zero cap.
    const VectorXd qp = q.cwiseAbs();
    CHECK(solver.solve(qp, mat).status == Status::Ok);
  }
}

// Regression: the pivot that brings the artificial variable z0 in was made before the cap was
// checked (max_pivots = 0 reported pivots = 1).
TEST_CASE("Lemke: max_pivots = 0 makes no pivot", "[lcp][regression]") {
  LemkeSolver<double> solver(2);
  claw::LemkeSettings<double> s;
  s.max_pivots = 0;
  REQUIRE(solver.set_settings(s) == Status::Ok);
  const VectorXd q = (VectorXd(2) << -1.0, 1.0).finished();
  const auto& r = solver.solve(q, MatrixXd::Identity(2, 2));
  CHECK(r.status == Status::MaxIterations);
  CHECK(r.pivots == 0);
}

TEST_CASE("Lemke: refusals (NaN, Inf, sizes) before any work", "[lcp]") {
  LemkeSolver<double, 3> bounded;
  LemkeSolver<double> dynamic(3);
  const MatrixXd m = MatrixXd::Identity(3, 3);
  const VectorXd q = (VectorXd(3) << -1.0, 2.0, -3.0).finished();
  for (double bad : {kNaN, kInf, -kInf}) {
    VectorXd qb = q;
    qb(1) = bad;
    MatrixXd mb = m;
    mb(2, 0) = bad;
    CHECK(bounded.solve(qb, m).status == Status::NonFiniteInput);
    CHECK(bounded.solve(q, mb).status == Status::NonFiniteInput);
    CHECK(dynamic.solve(qb, m).status == Status::NonFiniteInput);
    CHECK(dynamic.solve(q, mb).status == Status::NonFiniteInput);
    CHECK(dynamic.result().pivots == 0);
  }
  // Wrong shapes.
  CHECK(bounded.solve(q, MatrixXd::Identity(3, 2)).status == Status::SizeMismatch);
  CHECK(bounded.solve(q, MatrixXd::Identity(2, 3)).status == Status::SizeMismatch);
  CHECK(dynamic.solve(q.head(2), m).status == Status::SizeMismatch);
  // Above the capacity (MaxM, or the reserve()d size: the dynamic solver does not grow).
  const VectorXd q4 = VectorXd::Constant(4, -1.0);
  CHECK(bounded.solve(q4, MatrixXd::Identity(4, 4)).status == Status::SizeMismatch);
  CHECK(dynamic.solve(q4, MatrixXd::Identity(4, 4)).status == Status::SizeMismatch);
  LemkeSolver<double> empty;
  CHECK(empty.solve(q, m).status == Status::SizeMismatch);
  // m = 0 is a (trivial) LCP.
  CHECK(empty.solve(VectorXd(0), MatrixXd(0, 0)).status == Status::Ok);
  // After a refusal the next valid problem is solved.
  const auto& r = bounded.solve(q, m);
  REQUIRE(r.status == Status::Ok);
  CHECK(r.z(0) == Approx(1.0));
  CHECK(r.z(2) == Approx(3.0));
  CHECK(r.w(1) == Approx(2.0));
  // reserve() grows a dynamic solver.
  dynamic.reserve(4);
  CHECK(dynamic.solve(q4, MatrixXd::Identity(4, 4)).status == Status::Ok);
  CHECK(dynamic.result().z == VectorXd::Ones(4));
}

TEST_CASE("Lemke: settings validation keeps the old settings on InvalidParameter", "[lcp]") {
  LemkeSolver<double> solver(2);
  claw::LemkeSettings<double> good;
  good.max_pivots = 17;
  good.pivot_tolerance = 1e-10;
  REQUIRE(solver.set_settings(good) == Status::Ok);
  auto bad = good;
  bad.max_pivots = -1;
  CHECK(solver.set_settings(bad) == Status::InvalidParameter);
  for (double t : {0.0, -1e-12, kNaN, kInf}) {
    bad = good;
    bad.pivot_tolerance = t;
    CHECK(bad.validate() == Status::InvalidParameter);
    CHECK(solver.set_settings(bad) == Status::InvalidParameter);
  }
  CHECK(solver.settings().max_pivots == 17);
  CHECK(solver.settings().pivot_tolerance == 1e-10);
  CHECK(claw::LemkeSettings<double>{}.validate() == Status::Ok);
  CHECK(claw::LemkeSettings<double>{}.pivot_tolerance == 1e-11);
  CHECK(claw::LemkeSettings<float>{}.pivot_tolerance == 1e-5f);
}

TEST_CASE("Lemke: float matches double on small PSD LCPs", "[lcp]") {
  std::mt19937 rng(17);
  LemkeSolver<float, 6> fsolver;
  LemkeSolver<double, 6> dsolver;
  for (int trial = 0; trial < 40; ++trial) {
    const int m = 1 + trial % 6;
    MatrixXd mat;
    VectorXd q;
    random_feasible_lcp(rng, m, m, mat, q);
    mat += 0.5 * MatrixXd::Identity(m, m);  // well conditioned: a unique, stable solution
    const auto& d = dsolver.solve(q, mat);
    const auto& f = fsolver.solve(q.cast<float>(), mat.cast<float>());
    INFO("trial " << trial);
    REQUIRE(d.status == Status::Ok);
    REQUIRE(f.status == Status::Ok);
    CHECK((f.z.cast<double>() - d.z).lpNorm<Eigen::Infinity>() <=
          1e-4 * (1.0 + d.z.lpNorm<Eigen::Infinity>()));
  }
}

TEST_CASE("Lemke: solve() does not allocate, whatever the status", "[lcp]") {
  std::mt19937 rng(23);
  MatrixXd mat;
  VectorXd q;
  random_feasible_lcp(rng, 6, 6, mat, q);
  q = -mat * VectorXd::Ones(6);  // z = 1: pivots needed
  MatrixXd zero = MatrixXd::Zero(6, 6);
  VectorXd q_nan = q;
  q_nan(3) = kNaN;
  const VectorXd q_neg = VectorXd::Constant(6, -1.0);
  LemkeSolver<double, 6> bounded;
  LemkeSolver<double> dynamic(6);
  claw::LemkeSettings<double> capped;
  capped.max_pivots = 1;
  auto run_all = [&](auto& solver) {
    std::size_t count = 0;
    Status ok = Status::InvalidProblem, inf = ok, nan = ok, cap = ok, size = ok;
    count += claw_test::allocations_during([&] { ok = solver.solve(q, mat).status; });
    count += claw_test::allocations_during([&] { inf = solver.solve(q_neg, zero).status; });
    count += claw_test::allocations_during([&] { nan = solver.solve(q_nan, mat).status; });
    count += claw_test::allocations_during([&] { size = solver.solve(q.head(5), mat).status; });
    const Status capped_status = solver.set_settings(capped);
    count += claw_test::allocations_during([&] { cap = solver.solve(q, mat).status; });
    CHECK(capped_status == Status::Ok);
    CHECK(ok == Status::Ok);
    CHECK(inf == Status::Infeasible);
    CHECK(nan == Status::NonFiniteInput);
    CHECK(size == Status::SizeMismatch);
    CHECK(cap == Status::MaxIterations);
    return count;
  };
  CHECK(run_all(bounded) == 0);
  CHECK(run_all(dynamic) == 0);
}

namespace {

/// semidefinite_within_bound on copies of s and a constant bound e_entry (visited: scratch).
bool psd_within(const MatrixXd& s, double e_entry, double floor = 0.0) {
  MatrixXd work = s;
  MatrixXd bound = MatrixXd::Constant(s.rows(), s.cols(), e_entry);
  Eigen::VectorXi visited(s.rows());
  return claw::detail::semidefinite_within_bound(work, bound, visited, s.rows(), floor);
}

}  // namespace

TEST_CASE("semidefinite_within_bound: closed forms of the carried error bound", "[lcp][psd]") {
  // S = [1 1; 1 1 - d], every entry known to e: a semidefinite matrix within e exists exactly
  // when d <= 4 e (the determinant of [1 + e, 1 - e; 1 - e, 1 - d + e] is 4 e - d + O(e^2)). The
  // carried bound gives the remainder -d the allowance e + (3 e + e^2) / (1 - e) = 4 e + O(e^2).
  MatrixXd s(2, 2);
  s << 1.0, 1.0, 1.0, 1.0 - 1e-10;
  CHECK(psd_within(s, 1e-9));
  CHECK_FALSE(psd_within(s, 1e-11));
  CHECK_FALSE(psd_within(s, 0.0));
  CHECK_FALSE(psd_within(s, 2.49e-11));  // 4 e < d
  CHECK(psd_within(s, 2.51e-11));        // 4 e > d
  s(1, 1) = 1.0 + 1e-10;
  CHECK(psd_within(s, 0.0));
  // A remainder [0 h; h 0] (eigenvalues +-h): [c, h - c; h - c, c] is semidefinite and within c
  // when h <= 2 c; for c < h / 2 no semidefinite matrix is within c.
  MatrixXd t = MatrixXd::Zero(3, 3);
  t(0, 0) = 1.0;
  t(1, 2) = t(2, 1) = 1e-6;
  CHECK_FALSE(psd_within(t, 0.0));
  CHECK_FALSE(psd_within(t, 0.4e-6));
  CHECK(psd_within(t, 0.6e-6));
  // Entries all below twice their bound (no pivot): 1.5 e [1 1; 1 1] is itself semidefinite.
  CHECK(psd_within(MatrixXd::Constant(2, 2, 1.5e-9), 1e-9));
  // A negative diagonal beyond its bound is refused whatever else holds.
  MatrixXd u = MatrixXd::Identity(2, 2);
  u(1, 1) = -1e-3;
  CHECK_FALSE(psd_within(u, 1e-4));
  CHECK(psd_within(u, 1e-3));
}

TEST_CASE("semidefinite_within_bound: rank-deficient Gram matrices perturbed within the bound",
          "[lcp][psd]") {
  // S = B B' (6 x 6, rank 3) is positive semidefinite; S + dS with |dS_ij| <= e (symmetric) is
  // within e of it, so the test must accept every such perturbation, and refuse S - 1e-3 I
  // (eigenvalue -1e-3, far beyond the bound).
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const double e = 1e-9;
  for (int trial = 0; trial < 200; ++trial) {
    MatrixXd b(6, 3);
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 3; ++j) b(i, j) = unit(rng);
    MatrixXd s = b * b.transpose();
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j <= i; ++j) s(i, j) = s(j, i) = s(i, j) + e * unit(rng);
    const double floor =
        1e3 * std::numeric_limits<double>::epsilon() * 6.0 * s.cwiseAbs().maxCoeff();
    INFO("trial " << trial);
    CHECK(psd_within(s, e, floor));
    CHECK_FALSE(psd_within(s - 1e-3 * MatrixXd::Identity(6, 6), e, floor));
  }
}
