// tests/support/qp_certificate.hpp: an independent re-check, in long double, of what a QpResult
// claims: the Farkas certificate of an Infeasible answer (qp_certificate_margin) and the residuals
// of an Ok one (qp_answer_excess).
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <limits>

namespace claw_test {

/// Margin by which the certificate y (QpResult::constraint_multipliers of an Infeasible answer)
/// proves that no x of the box with ||x||_inf <= t / eps(Scalar) meets lbA <= A x <= ubA within
/// t (1 + |b|) along each row's unit normal (t the solver's infeasibility_tolerance, Scalar the
/// solver's precision): gap - band in QpResult's terms, evaluated in long double from the
/// problem and y alone. > 0: the proof holds. -inf when y selects an infinite side or is not
/// finite.
template <typename Scalar, typename DA, typename DB, typename DR, typename DY>
long double qp_certificate_margin(const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DB>& lb,
                                  const Eigen::MatrixBase<DB>& ub, const Eigen::MatrixBase<DR>& lba,
                                  const Eigen::MatrixBase<DR>& uba, const Eigen::MatrixBase<DY>& y,
                                  double tolerance) {
  const long double t = tolerance;
  const long double reach = t / static_cast<long double>(std::numeric_limits<Scalar>::epsilon());
  const long double minus_inf = -std::numeric_limits<long double>::infinity();
  long double gap = 0, band = 0;
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    const long double yi = static_cast<long double>(y(i));
    if (yi == 0) continue;
    const long double b =
        yi > 0 ? static_cast<long double>(lba(i)) : static_cast<long double>(uba(i));
    if (!std::isfinite(b) || !std::isfinite(yi)) return minus_inf;
    long double norm2 = 0;
    for (Eigen::Index j = 0; j < a.cols(); ++j)
      norm2 += static_cast<long double>(a(i, j)) * static_cast<long double>(a(i, j));
    gap += yi * b;
    band += std::fabs(yi) * t * (std::sqrt(norm2) + std::fabs(b));
  }
  for (Eigen::Index j = 0; j < a.cols(); ++j) {
    long double v = 0;
    for (Eigen::Index i = 0; i < a.rows(); ++i)
      v += static_cast<long double>(a(i, j)) * static_cast<long double>(y(i));
    if (v == 0) continue;
    // sup of v x_j over [lb_j, ub_j] clipped to [-reach, reach] (never past the other end).
    const long double lo = static_cast<long double>(lb(j)), hi = static_cast<long double>(ub(j));
    const long double c =
        v > 0 ? std::fmin(hi, std::fmax(reach, lo)) : std::fmax(lo, std::fmin(-reach, hi));
    gap -= v * c;
    band += std::fabs(v) * t * (1 + std::fabs(c));
  }
  return gap - band;
}

/// How far an Ok answer (x, mu = bound_multipliers, lambda = constraint_multipliers) is from what
/// QpResult promises, in long double from the problem alone: the largest of (relative violation of
/// a bound or row along its unit normal) / t, (stationarity / its limit s (1 + S)), and the same
/// relative distance / t for each constraint with a nonzero multiplier; +inf for a multiplier of
/// the wrong sign. <= 1 (up to the solver's own rounding) when the promise holds.
template <typename DQ, typename DG, typename DA, typename DB, typename DR, typename DX, typename DM,
          typename DL>
long double qp_answer_excess(const Eigen::MatrixBase<DQ>& q, const Eigen::MatrixBase<DG>& g,
                             const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DB>& lb,
                             const Eigen::MatrixBase<DB>& ub, const Eigen::MatrixBase<DR>& lba,
                             const Eigen::MatrixBase<DR>& uba, const Eigen::MatrixBase<DX>& x,
                             const Eigen::MatrixBase<DM>& mu, const Eigen::MatrixBase<DL>& lambda,
                             double infeasibility_tolerance, double stationarity_tolerance) {
  using L = long double;
  const Eigen::Index n = x.size(), m = lambda.size();
  const L t = infeasibility_tolerance;
  L excess = 0, stationarity = 0, scale = 0, q_norm = 0, x_norm = 0;
  for (Eigen::Index j = 0; j < n; ++j) {
    L column = 0;
    for (Eigen::Index k = 0; k < n; ++k) column += std::fabs(L(q(k, j)));
    q_norm = std::fmax(q_norm, column);
    x_norm = std::fmax(x_norm, std::fabs(L(x(j))));
  }
  for (Eigen::Index j = 0; j < n; ++j) {
    // The magnitude bound of QpResiduals::stationarity_limit: ||Q||_1 ||x||_inf + |g_j| + ...
    L r = L(g(j)) - L(mu(j)),
      magnitude = q_norm * x_norm + std::fabs(L(g(j))) + std::fabs(L(mu(j)));
    for (Eigen::Index k = 0; k < n; ++k) r += L(q(k, j)) * L(x(k));
    for (Eigen::Index i = 0; i < m; ++i) {
      r -= L(a(i, j)) * L(lambda(i));
      magnitude += std::fabs(L(a(i, j)) * L(lambda(i)));
    }
    stationarity = std::fmax(stationarity, std::fabs(r));
    scale = std::fmax(scale, magnitude);
  }
  excess = stationarity / (L(stationarity_tolerance) * (1 + scale));
  for (Eigen::Index c = 0; c < n + m; ++c) {
    const bool bound = c < n;
    const Eigen::Index i = bound ? c : c - n;
    L v = 0, norm2 = 0;
    if (bound) {
      v = L(x(i));
      norm2 = 1;
    } else {
      for (Eigen::Index k = 0; k < n; ++k) {
        v += L(a(i, k)) * L(x(k));
        norm2 += L(a(i, k)) * L(a(i, k));
      }
    }
    const L norm = std::sqrt(norm2);
    const L lo = bound ? L(lb(i)) : L(lba(i)), hi = bound ? L(ub(i)) : L(uba(i));
    // (b - a'x) / (||a|| + |b|): along the unit normal, relative to 1 + |b| along it.
    const auto relative = [norm](L miss, L b) {
      return norm + std::fabs(b) > 0 ? miss / (norm + std::fabs(b)) : miss;
    };
    const L below = std::isfinite(lo) ? relative(lo - v, lo) : L(0);
    const L above = std::isfinite(hi) ? relative(v - hi, hi) : L(0);
    excess = std::fmax(excess, std::fmax(below, above) / t);
    const L multiplier = bound ? L(mu(i)) : L(lambda(i));
    if (multiplier > 0)
      excess = std::isfinite(lo) ? std::fmax(excess, std::fabs(below) / t) : INFINITY;
    if (multiplier < 0)
      excess = std::isfinite(hi) ? std::fmax(excess, std::fabs(above) / t) : INFINITY;
  }
  return excess;
}

}  // namespace claw_test
