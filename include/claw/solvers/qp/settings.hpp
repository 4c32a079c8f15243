// claw/solvers/qp/settings.hpp: QpSettings, the tolerances and the iteration cap of a QP solve,
// with their defaults per precision.
#pragma once

#include <cmath>
#include <limits>

#include "claw/core/status.hpp"

namespace claw {

/// Default feasibility tolerance: 1e-12 for double (and wider), 1e-5 for float.
template <typename Scalar>
constexpr Scalar default_qp_feasibility_tolerance() noexcept {
  return sizeof(Scalar) <= 4 ? Scalar(1e-5) : Scalar(1e-12);
}

/// Default infeasibility tolerance: 1e-9 for double (and wider), 1e-4 for float.
template <typename Scalar>
constexpr Scalar default_qp_infeasibility_tolerance() noexcept {
  return sizeof(Scalar) <= 4 ? Scalar(1e-4) : Scalar(1e-9);
}

/// Default stationarity tolerance: 1e-9 for double (and wider), 1e-4 for float.
template <typename Scalar>
constexpr Scalar default_qp_stationarity_tolerance() noexcept {
  return sizeof(Scalar) <= 4 ? Scalar(1e-4) : Scalar(1e-9);
}

/// Settings of a QpSolver. The answer's status is decided by checks on the unscaled problem
/// (see QpResult): infeasibility_tolerance bounds its primal violations, stationarity_tolerance its
/// stationarity; feasibility_tolerance and dependence_tolerance only steer the iteration.
template <typename Scalar>
struct QpSettings {
  /// Hard cap on active-set changes (each addition, drop or pure dual step counts one) per solve;
  /// reaching it returns Status::MaxIterations. >= 0.
  int max_iterations = 1000;
  /// The iteration's target: a constraint is added while its distance to the feasible side, along
  /// the row's unit normal (b - a'x) / ||a|| (simple bounds: lb - x), exceeds
  /// feasibility_tolerance (1 + ||x||_inf), or half the Ok tolerance infeasibility_tolerance
  /// (1 + |b|) (rows: |b| / ||a||) when that is smaller: the iteration never stops at a candidate
  /// the answer's check rejects for a miss outside W. Finite, >= eps (a smaller one asks for more
  /// than the arithmetic can hold: x itself is only known to eps ||x||).
  Scalar feasibility_tolerance = default_qp_feasibility_tolerance<Scalar>();
  /// The answer's primal tolerance t, relative to each constraint's own bound b:
  ///  - Ok: every bound and row is violated by at most t (1 + |b|) along its unit normal
  ///    (rows: (lbA_i - a_i'x) / ||a_i|| <= t (1 + |lbA_i| / ||a_i||), likewise above);
  ///  - Infeasible: the certificate proves that no point violates every constraint by at most
  ///    that much (check_qp_certificate).
  /// Inside the iteration, a violated constraint that is linearly dependent on the working set and
  /// misses by at most infeasibility_tolerance (1 + ||x||_inf) is set aside as rounding at a
  /// degenerate vertex; one that misses by more asks for the certificate.
  /// Finite, >= feasibility_tolerance (so >= eps).
  Scalar infeasibility_tolerance = default_qp_infeasibility_tolerance<Scalar>();
  /// The answer's stationarity tolerance: Ok needs ||Q x + g - A' lambda - mu||_inf <=
  /// stationarity_tolerance (1 + S), S a bound on the magnitude of the terms it sums,
  /// max_j (||Q||_1 ||x||_inf + |g_j| + |A_j|'|lambda| + |mu_j|) (column j of A). Finite, >= eps.
  Scalar stationarity_tolerance = default_qp_stationarity_tolerance<Scalar>();
  /// A constraint normal n is linearly dependent on the working set when the part of L^-1 n
  /// orthogonal to the working set's (L the Cholesky factor of Q) is at most dependence_tolerance
  /// times ||L^-1 n||, or within the working set's own rounding (detail::working_set_rounding):
  /// it then cannot enter the factorisation (a pure dual step, a set-aside or an infeasibility
  /// certificate follows). Finite, >= 0. Default 1000 eps.
  Scalar dependence_tolerance = Scalar(1000) * std::numeric_limits<Scalar>::epsilon();

  /// InvalidParameter when max_iterations < 0, a tolerance is negative or not finite, the
  /// feasibility or stationarity tolerance is below eps, or infeasibility_tolerance is below
  /// feasibility_tolerance.
  Status validate() const noexcept {
    if (max_iterations < 0) return Status::InvalidParameter;
    for (Scalar t : {feasibility_tolerance, infeasibility_tolerance, stationarity_tolerance,
                     dependence_tolerance})
      if (!std::isfinite(t) || t < Scalar(0)) return Status::InvalidParameter;
    const Scalar eps = std::numeric_limits<Scalar>::epsilon();
    if (feasibility_tolerance < eps || stationarity_tolerance < eps)
      return Status::InvalidParameter;
    if (infeasibility_tolerance < feasibility_tolerance) return Status::InvalidParameter;
    return Status::Ok;
  }
};

}  // namespace claw
