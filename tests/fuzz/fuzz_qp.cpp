// tests/fuzz/fuzz_qp.cpp: libFuzzer target for QpSolver (claw/solvers/qp.hpp), bounded sizes n, m
// <= 8, float and double: any data (refusals as documented, x kept on failure, Ok => verified as
// documented, Infeasible => a certificate that re-checks), and well-conditioned feasible problems
// (Ok, small KKT residuals, warm start from the previous active set == cold start).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "claw/solvers/qp.hpp"
#include "fuzz/fuzz_input.hpp"
#include "support/qp_certificate.hpp"

namespace {

using claw::QpActivity;
using claw::Status;
using claw_fuzz::FuzzInput;

constexpr int kMaxN = 8;
constexpr int kMaxM = 8;

template <typename Scalar>
struct Problem {
  using Solver = claw::QpSolver<Scalar, claw::Dynamic, kMaxN, claw::Dynamic, kMaxM>;
  typename Solver::HessianType q;
  typename Solver::ConstraintMatrixType a;
  typename Solver::VectorN g, lb, ub;
  typename Solver::VectorM lba, uba;
};

/// Checks what the result of an Ok solve promises (qp/types.hpp): finite x, multipliers and
/// residuals; every bound and row violated by at most infeasibility_tolerance (1 + |b|) along its
/// unit normal (b the violated bound, |b| / ||a|| for a row), up to the rounding of a'x;
/// stationarity within stationarity_tolerance (1 + the magnitude of its terms), up to its own
/// rounding; no multiplier of the wrong sign; signs matching the reported active set. With `tight`,
/// also a small stationarity relative to the data (for well-conditioned problems).
template <typename Scalar, typename Solver>
void check_ok(const Problem<Scalar>& p, const Solver& solver, bool tight) {
  const auto& r = solver.result();
  const Eigen::Index n = p.g.size(), m = p.lba.size();
  CLAW_FUZZ_CHECK(claw_fuzz::finite(r.x) && claw_fuzz::finite(r.bound_multipliers) &&
                      claw_fuzz::finite(r.constraint_multipliers),
                  "Ok with a non-finite solution or multiplier");
  const auto& res = r.residuals;
  CLAW_FUZZ_CHECK(
      res.primal >= 0 && res.stationarity >= 0 && res.dual >= 0 && res.complementarity >= 0,
      "negative or NaN residual");
  CLAW_FUZZ_CHECK(res.dual == 0, "a multiplier of the wrong sign (dual residual)");
  const Scalar eps = std::numeric_limits<Scalar>::epsilon();
  // The comparisons below round too: t carries a few eps of it.
  const Scalar t = solver.settings().infeasibility_tolerance * (Scalar(1) + Scalar(4) * eps);
  const auto allowed = [t](Scalar bound, Scalar norm) { return t * (norm + std::fabs(bound)); };
  for (Eigen::Index i = 0; i < n; ++i) {
    CLAW_FUZZ_CHECK(!(p.lb(i) - r.x(i) > allowed(p.lb(i), Scalar(1))) &&
                        !(r.x(i) - p.ub(i) > allowed(p.ub(i), Scalar(1))),
                    "Ok point violates a simple bound beyond the tolerance");
  }
  for (Eigen::Index i = 0; i < m; ++i) {
    const Scalar norm = p.a.row(i).norm();
    const Scalar ax = p.a.row(i).dot(r.x);
    const Scalar rounding = Scalar(4 * (n + 1)) * eps * (p.a.row(i).cwiseAbs().dot(r.x.cwiseAbs()));
    const Scalar w = norm > 0 ? norm : Scalar(1);
    CLAW_FUZZ_CHECK(!(p.lba(i) - ax > allowed(p.lba(i), w) + rounding) &&
                        !(ax - p.uba(i) > allowed(p.uba(i), w) + rounding),
                    "Ok point violates a row beyond the tolerance");
  }
  // Signs against the active set: 0 when inactive, >= 0 at a lower bound, <= 0 at an upper one.
  auto sign_ok = [](QpActivity activity, Scalar y) {
    switch (activity) {
      case QpActivity::Inactive:
        return y == 0;
      case QpActivity::Lower:
        return y >= 0;
      case QpActivity::Upper:
        return y <= 0;
      default:
        return true;
    }
  };
  for (Eigen::Index i = 0; i < n; ++i)
    CLAW_FUZZ_CHECK(sign_ok(r.active_set.bound(i), r.bound_multipliers(i)),
                    "bound multiplier sign");
  for (Eigen::Index i = 0; i < m; ++i)
    CLAW_FUZZ_CHECK(sign_ok(r.active_set.constraint(i), r.constraint_multipliers(i)),
                    "row multiplier sign");
  using Long = long double;
  Eigen::Matrix<Long, claw::Dynamic, 1, 0, kMaxN, 1> s(n);
  Long scale = 0, bound_scale = 0, q_norm = 0, x_norm = 0;  // bound_scale: QpResiduals' S
  for (Eigen::Index j = 0; j < n; ++j) {
    Long column = 0;
    for (Eigen::Index k = 0; k < n; ++k)
      column += std::fabs((Long(p.q(k, j)) + Long(p.q(j, k))) / 2);
    q_norm = std::max(q_norm, column);
    x_norm = std::max(x_norm, std::fabs(Long(r.x(j))));
  }
  for (Eigen::Index i = 0; i < n; ++i) {
    Long bound_mag =
        q_norm * x_norm + std::fabs(Long(p.g(i))) + std::fabs(Long(r.bound_multipliers(i)));
    Long acc = Long(p.g(i)) - Long(r.bound_multipliers(i));
    Long mag = std::fabs(Long(p.g(i))) + std::fabs(Long(r.bound_multipliers(i)));
    for (Eigen::Index k = 0; k < n; ++k) {  // the symmetric part of Q, the one the solver uses
      const Long qik = (Long(p.q(i, k)) + Long(p.q(k, i))) / 2;
      acc += qik * Long(r.x(k));
      mag += std::fabs(qik * Long(r.x(k)));
    }
    for (Eigen::Index k = 0; k < m; ++k) {
      acc -= Long(p.a(k, i)) * Long(r.constraint_multipliers(k));
      mag += std::fabs(Long(p.a(k, i)) * Long(r.constraint_multipliers(k)));
      bound_mag += std::fabs(Long(p.a(k, i)) * Long(r.constraint_multipliers(k)));
    }
    s(i) = acc;
    scale = std::max(scale, mag);
    bound_scale = std::max(bound_scale, bound_mag);
  }
  const Long stated =
      Long(solver.settings().stationarity_tolerance) + Long(4 * (n + m + 1)) * Long(eps);
  CLAW_FUZZ_CHECK(s.cwiseAbs().maxCoeff() <= stated * (1 + bound_scale),
                  "stationarity beyond the verified limit");
  if (!tight) return;
  const Long rel = sizeof(Scalar) == 8 ? 1e-9L : 1e-3L;
  CLAW_FUZZ_CHECK(s.cwiseAbs().maxCoeff() <= rel * (1 + scale), "stationarity residual too large");
}

/// Checks what an Infeasible result promises: its certificate, re-checked in long double from the
/// problem and constraint_multipliers alone (tests/support/qp_certificate.hpp).
template <typename Scalar, typename Solver>
void check_infeasible(const Problem<Scalar>& p, const Solver& solver) {
  const auto& r = solver.result();
  const Eigen::Matrix<long double, claw::Dynamic, 1, 0, kMaxM, 1> y =
      r.constraint_multipliers.template cast<long double>();
  CLAW_FUZZ_CHECK(
      claw_test::qp_certificate_margin<Scalar>(
          p.a, p.lb, p.ub, p.lba, p.uba, y, double(solver.settings().infeasibility_tolerance)) > 0,
      "Infeasible without a certificate that re-checks");
}

/// True when every set of at most n constraint normals (the n unit vectors of the bounds and the m
/// rows, each normalised) has 1 / trace(G^-1) >= delta^2, G its Gram matrix: its smallest singular
/// value is then at least delta (and within sqrt(n) of it). Depth-first over the subsets with an
/// incremental Cholesky factor L of G and the squared Frobenius norm of L^-1 (= trace(G^-1)).
class NormalSetConditioning {
 public:
  NormalSetConditioning(
      const Eigen::Matrix<double, claw::Dynamic, claw::Dynamic, 0, kMaxN + kMaxM, kMaxN>& v,
      double delta)
      : v_(v), limit_(1.0 / (delta * delta)), n_(v.cols()) {}
  bool all_above() { return visit(0, 0, 0.0); }

 private:
  bool visit(Eigen::Index start, Eigen::Index k, double frob2) {
    if (k == n_) return true;
    for (Eigen::Index c = start; c < v_.rows(); ++c) {
      // y = L^-1 g with g_j = v_c . v_{chosen_j}; the new diagonal d^2 = 1 - y'y.
      double yy = 0.0;
      for (Eigen::Index i = 0; i < k; ++i) {
        double acc = 0.0;
        for (Eigen::Index j = 0; j <= i; ++j) acc += inv_(i, j) * v_.row(c).dot(v_.row(chosen_[j]));
        y_[i] = acc;
        yy += acc * acc;
      }
      const double d2 = 1.0 - yy;
      if (!(d2 > 0.0)) return false;
      const double d = std::sqrt(d2);
      // New row of L^-1: [-y' L^-1 / d, 1 / d].
      double added = 1.0 / d2;
      for (Eigen::Index j = 0; j < k; ++j) {
        double acc = 0.0;
        for (Eigen::Index i = j; i < k; ++i) acc += y_[i] * inv_(i, j);
        inv_(k, j) = -acc / d;
        added += inv_(k, j) * inv_(k, j);
      }
      inv_(k, k) = 1.0 / d;
      if (frob2 + added > limit_) return false;
      chosen_[k] = c;
      if (!visit(c + 1, k + 1, frob2 + added)) return false;
    }
    return true;
  }

  const Eigen::Matrix<double, claw::Dynamic, claw::Dynamic, 0, kMaxN + kMaxM, kMaxN>& v_;
  double limit_;
  Eigen::Index n_;
  Eigen::Matrix<double, kMaxN, kMaxN> inv_ = Eigen::Matrix<double, kMaxN, kMaxN>::Zero();
  double y_[kMaxN] = {};
  Eigen::Index chosen_[kMaxN] = {};
};

template <typename Scalar>
void run(FuzzInput& in) {
  using Solver = typename Problem<Scalar>::Solver;
  const int n = in.integer(1, kMaxN);
  const int m = in.integer(0, kMaxM);
  Solver solver(n, m);
  Problem<Scalar> p;
  p.q.resize(n, n);
  p.a.resize(m, n);
  p.g.resize(n);
  p.lb.resize(n);
  p.ub.resize(n);
  p.lba.resize(m);
  p.uba.resize(m);
  const bool well_conditioned = in.boolean();
  typename Solver::VectorN x0(n);

  if (!well_conditioned) {
    // Any data: refusals, no crash, Ok results as promised, x kept on failure.
    typename Solver::Settings settings;
    if (in.boolean()) settings.max_iterations = in.integer(-1, 20);
    if (in.boolean()) settings.feasibility_tolerance = in.value<Scalar>();
    if (in.boolean()) settings.infeasibility_tolerance = in.value<Scalar>();
    const Status settings_status = solver.set_settings(settings);
    CLAW_FUZZ_CHECK((settings_status == Status::Ok) == (settings.validate() == Status::Ok),
                    "set_settings");
    const bool pd_hessian = in.boolean();
    if (pd_hessian) {
      typename Solver::HessianType b(n, n);
      claw_fuzz::fill_finite(in, b);
      p.q = b * b.transpose();
      p.q.diagonal().array() += std::fabs(in.finite<Scalar>());
    } else {
      claw_fuzz::fill_values(in, p.q);
    }
    const Status hessian_status = solver.set_hessian(p.q);
    if (!claw_fuzz::finite(p.q))
      CLAW_FUZZ_CHECK(hessian_status == Status::NonFiniteInput, "set_hessian");
    claw_fuzz::fill_values(in, p.a);
    const Status a_status = solver.set_constraints(p.a);
    CLAW_FUZZ_CHECK((a_status == Status::Ok) == claw_fuzz::finite(p.a), "set_constraints status");
    typename Solver::VectorN last_ok_x = solver.result().x;
    const int solves = in.integer(1, 6);
    for (int k = 0; k < solves; ++k) {
      claw_fuzz::fill_values(in, p.g);
      claw_fuzz::fill_values(in, p.lb);
      claw_fuzz::fill_values(in, p.ub);
      claw_fuzz::fill_values(in, p.lba);
      claw_fuzz::fill_values(in, p.uba);
      const bool warm = in.boolean();
      const typename Solver::ActiveSet guess = solver.result().active_set;
      const typename Solver::VectorN x_before = solver.result().x;
      const auto& r = warm ? solver.solve(p.g, p.lb, p.ub, p.lba, p.uba, guess)
                           : solver.solve(p.g, p.lb, p.ub, p.lba, p.uba);
      if (r.status == Status::Ok) {
        CLAW_FUZZ_CHECK(hessian_status == Status::Ok && a_status == Status::Ok,
                        "solved without data");
        check_ok(p, solver, false);
        last_ok_x = r.x;
      } else {
        if (r.status == Status::Infeasible) check_infeasible(p, solver);
        CLAW_FUZZ_CHECK(claw_fuzz::same_bits(r.x, x_before) && claw_fuzz::same_bits(r.x, last_ok_x),
                        "a failed solve changed x");
        CLAW_FUZZ_CHECK(std::isinf(r.residuals.primal), "a failed solve reported residuals");
      }
      const bool bad_data = !claw_fuzz::finite(p.g) || p.lb.array().isNaN().any() ||
                            p.ub.array().isNaN().any() || p.lba.array().isNaN().any() ||
                            p.uba.array().isNaN().any();
      if (bad_data && hessian_status == Status::Ok && a_status == Status::Ok)
        CLAW_FUZZ_CHECK(r.status == Status::NonFiniteInput, "NaN or infinite g accepted");
    }
    return;
  }

  // Well-conditioned and feasible by construction: Q = B B' + alpha I, x0 strictly inside.
  typename Solver::HessianType b(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index k = 0; k < n; ++k) b(i, k) = in.uniform(Scalar(-1), Scalar(1));
  p.q = b * b.transpose() / Scalar(n);
  p.q.diagonal().array() += in.uniform(Scalar(0.1), Scalar(10));
  for (Eigen::Index i = 0; i < m; ++i)
    for (Eigen::Index k = 0; k < n; ++k) p.a(i, k) = in.uniform(Scalar(-1), Scalar(1));
  for (Eigen::Index i = 0; i < n; ++i) x0(i) = in.uniform(Scalar(-1), Scalar(1));
  // "Well-conditioned" also asks that no working set can be ill-conditioned: every set of at most n
  // normals has its smallest singular value above delta = 50 eps / infeasibility_tolerance (float
  // 0.06, double 1.1e-5), so that x over any working set is computed 50 times more precisely than
  // the tolerance that decides Infeasible. (In float, rows 1e-3 apart fix a vertex only to eps
  // kappa ~ 1e-2: no float solver can tell that point from an infeasible one.) Other inputs run
  // the same solves with the promises of any data.
  // Exact repeats (a row equal to another, or its negative, up to scale) are exactly dependent,
  // which the solver decides without rounding trouble: they count once.
  Eigen::Matrix<double, claw::Dynamic, claw::Dynamic, 0, kMaxN + kMaxM, kMaxN> normals(n, n);
  normals.setIdentity();
  for (Eigen::Index i = 0; i < m; ++i) {
    const Eigen::Matrix<double, 1, claw::Dynamic, Eigen::RowMajor, 1, kMaxN> row =
        p.a.row(i).template cast<double>().normalized();
    bool repeat = false;
    for (Eigen::Index k = 0; k < normals.rows() && !repeat; ++k)
      repeat = normals.row(k) == row || normals.row(k) == -row;
    if (repeat) continue;
    normals.conservativeResize(normals.rows() + 1, Eigen::NoChange);
    normals.row(normals.rows() - 1) = row;
  }
  const double delta = 50.0 * double(std::numeric_limits<Scalar>::epsilon()) /
                       double(claw::default_qp_infeasibility_tolerance<Scalar>());
  const bool decidable = NormalSetConditioning(normals, delta).all_above();
  CLAW_FUZZ_CHECK(solver.set_hessian(p.q) == Status::Ok, "a positive definite Hessian refused");
  CLAW_FUZZ_CHECK(solver.set_constraints(p.a) == Status::Ok, "finite A refused");
  Solver cold(n, m);
  CLAW_FUZZ_CHECK(cold.set_hessian(p.q) == Status::Ok, "finite Q refused");
  CLAW_FUZZ_CHECK(cold.set_constraints(p.a) == Status::Ok, "finite A refused");

  auto random_bounds = [&]() {
    const Scalar inf = claw::infinity<Scalar>();
    for (Eigen::Index i = 0; i < n; ++i) {
      const int kind = in.integer(0, 7);
      const Scalar lo = x0(i) - in.uniform(Scalar(0), Scalar(2));
      const Scalar hi = x0(i) + in.uniform(Scalar(0), Scalar(2));
      p.lb(i) = kind == 0 ? -inf : (kind == 7 ? x0(i) : lo);
      p.ub(i) = kind == 1 ? inf : (kind == 7 ? x0(i) : hi);
    }
    for (Eigen::Index i = 0; i < m; ++i) {
      const Scalar ax = p.a.row(i).dot(x0);
      const int kind = in.integer(0, 7);
      const Scalar lo = ax - in.uniform(Scalar(0), Scalar(2));
      const Scalar hi = ax + in.uniform(Scalar(0), Scalar(2));
      p.lba(i) = kind == 0 ? -inf : (kind == 7 ? ax : lo);
      p.uba(i) = kind == 1 ? inf : (kind == 7 ? ax : hi);
    }
    for (Eigen::Index i = 0; i < n; ++i) p.g(i) = in.uniform(Scalar(-10), Scalar(10));
  };

  const int solves = in.integer(1, 8);
  for (int k = 0; k < solves; ++k) {
    random_bounds();
    const bool warm = k > 0 && in.boolean();
    const typename Solver::ActiveSet guess = solver.result().active_set;
    const auto& r = warm ? solver.solve(p.g, p.lb, p.ub, p.lba, p.uba, guess)
                         : solver.solve(p.g, p.lb, p.ub, p.lba, p.uba);
    const auto& c = cold.solve(p.g, p.lb, p.ub, p.lba, p.uba);
    if (!decidable) {
      if (c.status == Status::Ok) check_ok(p, cold, false);
      if (r.status == Status::Ok) check_ok(p, solver, false);
      if (c.status == Status::Infeasible) check_infeasible(p, cold);
      if (r.status == Status::Infeasible) check_infeasible(p, solver);
      continue;
    }
    CLAW_FUZZ_CHECK(c.status == Status::Ok, "a feasible well-conditioned QP was not solved (cold)");
    CLAW_FUZZ_CHECK(r.status == Status::Ok, "a feasible well-conditioned QP was not solved (warm)");
    check_ok(p, cold, true);
    check_ok(p, solver, true);
    const Scalar agree = sizeof(Scalar) == 8 ? Scalar(1e-7) : Scalar(1e-2);
    CLAW_FUZZ_CHECK(
        (r.x - c.x).cwiseAbs().maxCoeff() <= agree * (Scalar(1) + c.x.cwiseAbs().maxCoeff()),
        "warm and cold solutions differ");
  }
}

}  // namespace

CLAW_FUZZ_ENTRY_FLOAT_AND_DOUBLE(run)
