// claw/solvers/detail/numerics.hpp: every rounding allowance the solvers use, named, each with its
// one-line derivation; docs/numerics.md states the model these belong to.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <limits>

namespace claw {
namespace detail {

/// Machine epsilon of Scalar (twice the unit roundoff u).
template <typename Scalar>
constexpr Scalar machine_epsilon() noexcept {
  return std::numeric_limits<Scalar>::epsilon();
}

/// Rounding of a length-k dot product: |fl(a'x) - a'x| <= gamma_k |a|'|x| + k eta with
/// gamma_k = k u / (1 - k u) <= k eps for k eps < 1 and eta the absolute error of a product that
/// underflows, at most the smallest subnormal (Higham, Accuracy and Stability, 3.1 and 2.1);
/// `magnitude` is |a|'|x|. Bounded here by (k + 1) (eps |a|'|x| + denorm_min).
template <typename Scalar>
Scalar dot_rounding(Eigen::Index k, Scalar magnitude) noexcept {
  return static_cast<Scalar>(k + 1) *
         (machine_epsilon<Scalar>() * magnitude + std::numeric_limits<Scalar>::denorm_min());
}

/// Rounding of a quantity computed through the working-set factors J, R of condition kappa
/// (kappa >= 1, QpFactors::condition in qp/factorization.hpp): the solves with R and the products
/// with J lose about eps kappa relative; 16 covers the few operations chained (x, u, L^-1 n).
template <typename Scalar>
Scalar working_set_rounding(Scalar kappa) noexcept {
  return Scalar(16) * machine_epsilon<Scalar>() * kappa;
}

/// Smallest pivot a Cholesky factorisation of an n x n matrix with largest diagonal d accepts:
/// n eps d (below it the pivot is rounding of the eliminations before it), and at least the
/// smallest normal number (a subnormal pivot has lost its precision).
template <typename Scalar>
Scalar cholesky_pivot_floor(Eigen::Index n, Scalar max_diagonal) noexcept {
  const Scalar relative = static_cast<Scalar>(n) * machine_epsilon<Scalar>() * max_diagonal;
  return relative > std::numeric_limits<Scalar>::min() ? relative
                                                       : std::numeric_limits<Scalar>::min();
}

// --- the LCQP layer (solvers/lcqp/) ----------------------------------------------------------

/// Relative rounding the LCQP's monotone path allows for a sum of k products (a row of
/// M = oth T, of c = oth x0 - lb, of w = oth x - lb): 64 k eps, dot_rounding's gamma_k with room
/// for the elimination that produced T and x0 (a few such sums chained).
template <typename Scalar>
Scalar lcqp_sum_rounding(Eigen::Index k) noexcept {
  return Scalar(64) * static_cast<Scalar>(k) * machine_epsilon<Scalar>();
}

/// An entry of M = oth T at most sqrt(eps) times the magnitude of its terms (|oth| |T|)_ij is a
/// cancellation: T carries the elimination's rounding, so the entry's value, and the LCP's shape
/// with it, is unknown. sqrt(eps) keeps a margin of about half the digits over the rounding.
template <typename Scalar>
Scalar lcqp_cancellation_fraction() noexcept {
  return std::sqrt(machine_epsilon<Scalar>());
}

/// Rounding of Lemke's solution of a scaled LCP (|c| <= 1, |S_ij| <= 1) with m pairs and
/// largest z entry z_max: w = c + S z is a sum of m + 1 terms of size up to max(1, z_max),
/// 64 eps (1 + m z_max).
template <typename Scalar>
Scalar lemke_solution_rounding(Eigen::Index m, Scalar z_max) noexcept {
  return Scalar(64) * machine_epsilon<Scalar>() * (Scalar(1) + static_cast<Scalar>(m) * z_max);
}

/// Reach of an infeasibility certificate decided at tolerance t: points with ||x||_inf <= t / eps
/// (beyond that, x's own rounding eps |x| exceeds t: no proof of this precision reaches further).
/// check_qp_certificate and the LCQP's monotone path use it.
template <typename Scalar>
Scalar certificate_reach(Scalar tolerance) noexcept {
  return tolerance / machine_epsilon<Scalar>();
}

/// Reach of the Farkas certificate LemkeSolver re-checks on its ray: z up to |q|_inf / (sqrt(eps)
/// max|M_ij|). The ray's M'y is known to the tableau's rounding (a few hundred eps after the
/// pivots), so the reach is where that rounding times z stays near sqrt(eps) |q|; a z beyond it
/// meets q only if half the digits of M z cancel.
template <typename Scalar>
Scalar lcp_certificate_reach_fraction() noexcept {
  return std::sqrt(machine_epsilon<Scalar>());
}

/// Smallest pivot Gauss-Jordan elimination of a matrix with largest entry `scale` accepts:
/// 1e3 eps scale (a smaller pivot is the rounding of up to a few hundred eliminations).
template <typename Scalar>
Scalar elimination_pivot_floor(Scalar scale) noexcept {
  return Scalar(1e3) * machine_epsilon<Scalar>() * scale;
}

/// Pivoted LDL' of an m x m symmetric matrix with largest entry s_max: a remaining diagonal at
/// most 1e3 eps m s_max is rounding (the Schur complement's entries accumulate m updates each).
template <typename Scalar>
Scalar semidefinite_pivot_floor(Eigen::Index m, Scalar s_max) noexcept {
  return Scalar(1e3) * machine_epsilon<Scalar>() * s_max * static_cast<Scalar>(m);
}

/// The monotone path's relaxed LCP moves each w_i down by at least 16 eps (1 + ||x0||) max(1,
/// ||oth_i||): the rounding of one row product at the lambda = 0 point, when the feasibility
/// tolerance is smaller still.
template <typename Scalar>
Scalar relaxed_ray_floor() noexcept {
  return Scalar(16) * machine_epsilon<Scalar>();
}

/// Symmetric scaling of M (M D^-1 symmetric): a coupling |M_ij| at most 1e-12 max |M| counts as
/// absent (in float too, where that is below M's rounding: a coupling that is rounding there makes
/// the scaling fail and the solver fall through to branch and bound, never a wrong certificate),
/// and the ratios d_i / d_j found along two paths of the coupling graph must agree within 1e-9
/// relative (float: 1e-4, about 10^3 of its eps).
template <typename Scalar>
Scalar coupling_zero_fraction() noexcept {
  return Scalar(1e-12);
}
template <typename Scalar>
Scalar coupling_ratio_tolerance() noexcept {
  return sizeof(Scalar) <= 4 ? Scalar(1e-4) : Scalar(1e-9);
}

/// A branch QP's Ok answer is settled (a bound branch and bound can prune with) when its
/// stationarity residual is at most eps^(1/4) max(1, ||Qx + g||): a minimiser known to the
/// working set's rounding stays far below it, a vertex that is not the minimiser has a residual of
/// the gradient's size.
template <typename Scalar>
Scalar settled_stationarity_fraction() noexcept {
  return std::sqrt(std::sqrt(machine_epsilon<Scalar>()));
}

/// A multiplier of a biactive pair counts as negative (a descent direction) below -1e3 t, t the
/// feasibility tolerance: multipliers carry the primal tolerance amplified by the working set.
template <typename Scalar>
Scalar biactive_dual_tolerance(Scalar feasibility_tolerance) noexcept {
  return Scalar(1e3) * feasibility_tolerance;
}

/// Automatic regularisation of a semidefinite Q, in units of max(1, max_i Q_ii): the steps tried
/// in turn, 1e-12, 1e-10, 1e-8 (float: 1e-6, 1e-4, its range above eps), and the cap 1e-4 up to
/// which a subproblem that failed raises it (condition 1 / delta stays within the QP's reach).
template <typename Scalar>
int regularisation_step_count() noexcept {
  return sizeof(Scalar) <= 4 ? 2 : 3;
}
template <typename Scalar>
Scalar regularisation_step(int k) noexcept {
  const Scalar steps[3] = {Scalar(1e-12), Scalar(1e-10), Scalar(1e-8)};
  const Scalar float_steps[2] = {Scalar(1e-6), Scalar(1e-4)};
  return sizeof(Scalar) <= 4 ? float_steps[k] : steps[k];
}
template <typename Scalar>
Scalar regularisation_cap() noexcept {
  return Scalar(1e-4);
}

}  // namespace detail
}  // namespace claw
