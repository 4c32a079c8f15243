// tests/support/qp_certificate.hpp: an independent re-check, in long double, of what a QpResult
// claims: the Farkas certificate of an Infeasible answer and the residuals of an Ok one.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <limits>

namespace claw_test {

/// Margin by which the certificate y (QpResult::constraint_multipliers of an Infeasible answer)
/// proves that no x of the box with ||x||_inf <= t / eps(Scalar) meets lbA <= A x <= ubA within
/// t (1 + |b|) along each row's unit normal (t the solver's infeasibility_tolerance, Scalar the
/// solver's precision): gap - band in QpResult's terms, evaluated in long double from the
/// problem and y alone. > 0: the proof holds. -inf when y selects an infinite side or is not finite.
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
    const long double b = yi > 0 ? static_cast<long double>(lba(i)) : static_cast<long double>(uba(i));
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
    const long double c = v > 0 ? std::fmin(hi, std::fmax(reach, lo)) : std::fmax(lo, std::fmin(-reach, hi));
    gap -= v * c;
    band += std::fabs(v) * t * (1 + std::fabs(c));
  }
  return gap - band;
}

}  // namespace claw_test
