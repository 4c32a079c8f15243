// claw/solvers/lcqp/monotone.hpp: LcqpSolver's first path: when one side of the pairs selects
// variables and the equalities determine the rest, the LCQP's unique complementary point by Lemke.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <limits>

#include "claw/core/product.hpp"
#include "claw/core/status.hpp"
#include "claw/core/types.hpp"
#include "claw/solvers/detail/gauss_jordan.hpp"
#include "claw/solvers/detail/min_max.hpp"
#include "claw/solvers/detail/numerics.hpp"
#include "claw/solvers/detail/semidefinite.hpp"
#include "claw/solvers/detail/symmetric_scaling.hpp"
#include "claw/solvers/lcp.hpp"
#include "claw/solvers/lcqp/affine_line.hpp"
#include "claw/solvers/lcqp/small_lcp.hpp"

namespace claw {
namespace detail {

/// The monotone path of LcqpSolver (its class comment states the method). It applies when one
/// side of the pairs selects variables (each row of L, or of R, has one nonzero entry, positive,
/// in distinct columns: lambda_i = L_i x - lbL_i) and the equality rows of A determine the other
/// n - m variables: x = x0 + T lambda and the other side is w = c + M lambda. With m <= 2 pairs and
/// M a P-matrix within its error bound (SmallLcp), the LCP's one solution is found among its
/// complementary bases. Otherwise, when M = S D with S symmetric positive semidefinite and D
/// positive diagonal, 0 <= lambda perp w >= 0 is the monotone LCP(c, S) in mu = D lambda, whose w
/// is unique (Lemke's method solves it); lambda is unique when S restricted to the pairs
/// with w_i = 0 (to the rounding of w) is nonsingular with a margin over S's error bound. Every
/// test decides with the rounding bounds of the quantities it reads, so that a problem within
/// rounding of another structure falls through instead of being certified.
/// Owns its buffers (sized by reserve(n, nc, m)); no other path uses them.
template <typename Scalar, int MaxN, int MaxC, int MaxP>
class LcqpMonotonePath {
 public:
  using Index = Eigen::Index;
  using VectorN = Vector<Scalar, Dynamic, MaxN>;
  using VectorP = Vector<Scalar, Dynamic, MaxP>;
  enum class Outcome : std::uint8_t { NotApplicable, Point, Infeasible };

  void reserve(Index n, Index /*nc*/, Index m) {
    lemke_.reserve(m);
    line_.reserve(n, m);
    lu_.resize(n, n + m + 1);
    mm_.resize(m, m);
    ss_.resize(m, m);
    serr_.resize(m, m);
    cvec_.resize(m);
    dvec_.resize(m);
    mu_.resize(m);
    w_.resize(m);
    w_relaxed_.resize(m);
    equil_.resize(m);
    w_noise_.resize(m);
    i0_.resize(m);
    visited_.resize(m);
  }

  /// Runs the path on p (sizes as in the last reserve()). l_norm, r_norm: the 2-norms of L's and
  /// R's rows. Point: x holds the unique complementary point x0 + T lambda (the caller checks it
  /// against the bounds and rows: within them it is the certified optimum, outside them the
  /// LCQP is infeasible). Infeasible: the LCP has no solution even with every w_i allowed down
  /// to minus the acceptance margin. NotApplicable: the structure or a uniqueness condition does
  /// not hold (x is scratch then). `pivots` counts Lemke's pivots.
  template <typename Problem, typename Guess>
  Outcome run(const Problem& p, const Guess* guess, const VectorP& l_norm, const VectorP& r_norm,
              Scalar feasibility_tolerance, VectorN& x, int& pivots) noexcept {
    const Index n = line_.x0().size(), m = cvec_.size();
    pivots = 0;
    if (m > n) return Outcome::NotApplicable;
    // Which side selects variables? side 0: L, side 1: R.
    int side = -1;
    for (int s = 0; s < 2 && side < 0; ++s)
      if (line_.selects_variables(s == 0 ? p.L : p.R, n, m)) side = s;
    if (side < 0) return Outcome::NotApplicable;
    const auto& oth = side == 0 ? p.R : p.L;
    const auto& lb_oth = side == 0 ? p.lbR : p.lbL;
    if (!line_.build(p, side == 0 ? p.lbL : p.lbR, lu_)) return Outcome::NotApplicable;
    if (!build_lcp(oth, lb_oth)) return Outcome::NotApplicable;
    if (solved_over_bases(m, feasibility_tolerance)) return point(x);
    if (!symmetrize_and_equilibrate(m)) return Outcome::NotApplicable;
    // From here on S, c and mu stand for E S E, E c and nu. Lemke runs on the scaled LCP
    // (c / alpha, S / beta) in mu' = mu beta / alpha.
    const Scalar alpha = cvec_.template lpNorm<Eigen::Infinity>();
    const Scalar beta = cvec_beta_;
    cvec_scale_ = alpha;
    if (!(beta > Scalar(0))) return Outcome::NotApplicable;
    if (!(alpha > Scalar(0))) {
      // c = 0: mu = 0 is a solution; it is the only one when S is nonsingular on all pairs.
      for (Index i = 0; i < m; ++i) i0_.coeffRef(i) = static_cast<int>(i);
      w_.setZero(m);
      mu_.setZero(m);
      if (!nonsingular_all(m)) return Outcome::NotApplicable;  // S unscaled here
      return point(x);                                         // lambda = D^-1 mu = 0
    }
    w_ = cvec_ / alpha;
    ss_ /= beta;
    Outcome outcome = Outcome::NotApplicable;
    if (guess != nullptr && try_guess(*guess, side, oth, lb_oth, x)) {
      outcome = Outcome::Point;
    } else {
      const auto& lemke = lemke_.solve(w_, ss_);
      pivots = lemke.pivots;
      if (ends_on_ray(lemke.status)) {
        const auto& relaxed = solve_relaxed(side == 0 ? r_norm : l_norm, feasibility_tolerance);
        pivots += relaxed.pivots;
        if (ends_on_ray(relaxed.status) &&
            ray_proves_infeasible(relaxed.ray, oth, lb_oth, side == 0 ? p.lbL : p.lbR,
                                  feasibility_tolerance))
          return Outcome::Infeasible;
      } else if (lemke.status == Status::Ok && unique_solution(lemke, oth, lb_oth, x)) {
        outcome = Outcome::Point;
      }
    }
    ss_ *= beta;
    if (outcome != Outcome::Point) return outcome;
    return unscaled_point(alpha / beta, x);
  }

 private:
  /// w = c + M lambda with M = oth T (into mm_, and |oth| |T| into serr_) and c = oth x0 - lb_oth
  /// (into cvec_, its rounding c_rounding into w_noise_). Each decision allows for the rounding of
  /// what it reads:
  ///  - an entry of M with |M_ij| <= sqrt(eps) (|oth| |T|)_ij is a cancellation known to no digit
  ///    (T carries the elimination's rounding), so the LCP's shape is unknown: not applicable;
  ///  - an entry of c within 64 n eps (|lb| + |oth| |x0|)_i of 0 is 0 (the LCP is scaled by |c|_inf
  ///    later, which would make such rounding a unit-size entry).
  template <typename OtherRows, typename OtherBounds>
  bool build_lcp(const OtherRows& oth, const OtherBounds& lb_oth) noexcept {
    const Index m = cvec_.size();
    const Scalar noise = lcqp_cancellation_fraction<Scalar>();
    // M = oth T and |oth| |T| (until S's error bound replaces it).
    for (Index j = 0; j < m; ++j)
      for (Index i = 0; i < m; ++i) {
        Scalar sum, magnitude;
        row_times(oth, i, line_.t().col(j), sum, magnitude);
        if (sum != Scalar(0) && std::fabs(sum) <= noise * magnitude) return false;
        mm_.coeffRef(i, j) = sum;
        serr_.coeffRef(i, j) = magnitude;
      }
    // c = oth x0 - lb_oth, with |oth_i| |x0| for its rounding (c_rounding).
    for (Index i = 0; i < m; ++i) {
      Scalar sum, magnitude;
      row_times(oth, i, line_.x0(), sum, magnitude);
      const Scalar c = sum - lb_oth.coeff(i);
      const Scalar rounding = c_rounding(lb_oth.coeff(i), magnitude);
      cvec_.coeffRef(i) = std::fabs(c) <= rounding ? Scalar(0) : c;
      w_noise_.coeffRef(i) = rounding;  // until scaled_w_rounding() overwrites it
    }
    return true;
  }

  /// One or two pairs with M a P-matrix within its error bound unit |oth| |T| (SmallLcp): the
  /// LCP's one solution, from its complementary bases, into mu_ (lambda itself, unscaled). Taken
  /// only when its error bound delta moves nothing the acceptance test reads by more than half its
  /// least margin, feasibility_tolerance: x moves by at most ||T||_inf delta, so a row a of A, L
  /// or R by ||a||_1 ||T||_inf delta <= sqrt(n) ||a||_2 ||T||_inf delta (the test's margins scale
  /// with max(1, ||a||_2)), and a selected pair value lambda_i by delta itself. So the verdict on
  /// the point is the verdict on the exact solution, up to half the tolerance.
  bool solved_over_bases(Index m, Scalar feasibility_tolerance) noexcept {
    if (m > 2) return false;
    SmallLcp<Scalar> small;
    Scalar delta;
    if (!small.certify(mm_, serr_, product_rounding(), cvec_, w_noise_, m) ||
        !small.solve(mu_, delta))
      return false;
    const Index n = line_.x0().size();
    Scalar t_norm = Scalar(0);
    for (Index k = 0; k < n; ++k) {
      Scalar sum = Scalar(0);
      for (Index j = 0; j < m; ++j) sum += std::fabs(line_.t().coeff(k, j));
      t_norm = detail::max_of(t_norm, sum);
    }
    const Scalar reach = detail::max_of(Scalar(1), std::sqrt(static_cast<Scalar>(n)) * t_norm);
    return delta * reach <= Scalar(0.5) * feasibility_tolerance;
  }

  /// M = S D (S symmetric, D > 0 diagonal), S equilibrated to a unit diagonal (E S E, E c, D / E)
  /// and tested positive semidefinite; cvec_beta_ = max |E S E|. S is taken symmetric,
  /// (S_ij + S_ji) / 2, and serr_ bounds its distance from the exact S: half the asymmetry plus the
  /// rounding of M, 64 n eps (|oth_i| |T_j|) / d_j. The equilibration makes Lemke's relative
  /// pivot tolerance mean the same in every column (D is fixed only up to one factor per linked
  /// group of pairs, so S's diagonal can span any range).
  bool symmetrize_and_equilibrate(Index m) noexcept {
    // i0_ is the search's queue here: every path writes I0 before reading it.
    if (!symmetric_scaling(mm_, m, dvec_, visited_, i0_)) return false;
    for (Index j = 0; j < m; ++j)
      for (Index i = 0; i < m; ++i) ss_.coeffRef(i, j) = mm_.coeff(i, j) / dvec_.coeff(j);
    const Scalar product_unit = product_rounding();
    for (Index j = 0; j < m; ++j)
      for (Index i = 0; i <= j; ++i) {
        const Scalar v = Scalar(0.5) * (ss_.coeff(i, j) + ss_.coeff(j, i));
        const Scalar rounding = product_unit * detail::max_of(serr_.coeff(i, j) / dvec_.coeff(j),
                                                              serr_.coeff(j, i) / dvec_.coeff(i));
        const Scalar bound = Scalar(0.5) * std::fabs(ss_.coeff(i, j) - ss_.coeff(j, i)) + rounding;
        ss_.coeffRef(i, j) = v;
        ss_.coeffRef(j, i) = v;
        serr_.coeffRef(i, j) = bound;
        serr_.coeffRef(j, i) = bound;
      }
    return equilibrate(m);
  }

  /// e_i = 1 / sqrt(S_ii) (1 where S_ii <= 0): the LCP in nu = E^-1 mu,
  /// 0 <= nu perp E w = E c + (E S E) nu >= 0, has the same solutions with a unit diagonal.
  /// Then S (so equilibrated) must be finite and positive semidefinite; cvec_beta_ = max |E S E|.
  bool equilibrate(Index m) noexcept {
    Scalar s_max = Scalar(0);
    for (Index i = 0; i < m; ++i) {
      const Scalar d = ss_.coeff(i, i);
      equil_.coeffRef(i) = d > Scalar(0) ? Scalar(1) / std::sqrt(d) : Scalar(1);
    }
    for (Index j = 0; j < m; ++j) {
      for (Index i = 0; i < m; ++i) {
        ss_.coeffRef(i, j) *= equil_.coeff(i) * equil_.coeff(j);
        serr_.coeffRef(i, j) *= equil_.coeff(i) * equil_.coeff(j);
        s_max = detail::max_of(s_max, std::fabs(ss_.coeff(i, j)));
      }
      cvec_.coeffRef(j) *= equil_.coeff(j);
      dvec_.coeffRef(j) /= equil_.coeff(j);  // lambda = D^-1 mu = (E^-1 D)^-1 nu
    }
    cvec_beta_ = s_max;
    if (!std::isfinite(s_max) || !all_finite(cvec_) || !all_finite(serr_)) return false;
    return positive_semidefinite(m, s_max);
  }

  /// Lemke's ray proves LCP(c, S) infeasible for the c it was given, but c = oth x0 - lb_oth
  /// carries rounding. The ray is believed only when it persists with every w_i allowed down to
  /// -t_i, t_i = max(feasibility_tolerance, 16 eps) (1 + ||x0||_inf) max(1, ||oth_i||) (the
  /// acceptance test's margin at the lambda = 0 point x0): the LCP is solved again on c + t. When
  /// that one is solvable, c sits at a degenerate point whose solution need not be unique, and
  /// the caller falls through to branch and bound.
  const typename LemkeSolver<Scalar, MaxP>::Result& solve_relaxed(
      const VectorP& oth_norm, Scalar feasibility_tolerance) noexcept {
    const Index m = cvec_.size();
    const Scalar margin = detail::max_of(feasibility_tolerance, relaxed_ray_floor<Scalar>()) *
                          (Scalar(1) + line_.x0().template lpNorm<Eigen::Infinity>());
    for (Index i = 0; i < m; ++i)
      w_relaxed_.coeffRef(i) = w_.coeff(i) + margin * detail::max_of(Scalar(1), oth_norm.coeff(i)) *
                                                 equil_.coeff(i) / cvec_scale_;
    return lemke_.solve(w_relaxed_, ss_);
  }

  /// Lemke ended on a secondary ray (with its own certificate, or one it could not confirm: the
  /// certificate below, with the LCQP's reach and error bounds, decides).
  static bool ends_on_ray(Status s) noexcept {
    return s == Status::Infeasible || s == Status::IllConditioned;
  }

  /// Re-checks the relaxed LCP's ray y (check_lcp_certificate) against what the scaled LCP is
  /// known to: q = w_relaxed_ plus c's rounding 64 n eps (|lb_oth_i| + |oth_i| |x0|) e_i / alpha
  /// (added into w_relaxed_), M = S / beta within serr_ / beta, and the reach of the QP's
  /// certificate, ||x||_inf <= X = feasibility_tolerance / eps: there lambda_i = a_i x_j - lb_i <=
  /// a_i X + |lb_i|, i.e. mu'_i <= (a_i X + |lb_i|) d_i beta / alpha. True: no x = x0 + T lambda
  /// with lambda >= 0 and ||x||_inf <= X has every w_i >= -t_i (the relaxation's margin).
  template <typename Ray, typename OtherRows, typename OtherBounds, typename SelectedBounds>
  bool ray_proves_infeasible(const Ray& y, const OtherRows& oth, const OtherBounds& lb_oth,
                             const SelectedBounds& lb_sel, Scalar feasibility_tolerance) noexcept {
    const Index m = cvec_.size();
    const Scalar alpha = cvec_scale_, beta = cvec_beta_;
    for (Index i = 0; i < m; ++i)
      w_relaxed_.coeffRef(i) += c_rounding(oth, lb_oth, i) * equil_.coeff(i) / alpha;
    const Scalar x_reach = certificate_reach(feasibility_tolerance);
    const auto reach =
        ((line_.scale().array() * x_reach + lb_sel.array().abs()) * dvec_.array() * (beta / alpha))
            .matrix();
    return check_lcp_certificate(w_relaxed_, ss_, y, reach, VectorP::Zero(m), serr_ / beta);
  }

  /// From Lemke's solution of the scaled LCP (w_, ss_): I0 = the basic z plus the degenerate pairs
  /// (basic w within rounding of 0), and mu'_I0 from S[I0,I0] mu' = -c[I0], unique when
  /// S[I0,I0] is nonsingular with a margin over S's error (solve_i0). w = c + S z with |c| <= 1
  /// and |S_ij| <= 1 here, so Lemke's own rounding scales with 1 + m |z|_inf; w_noise_ adds the
  /// rounding of c and S. True: mu_ holds the scaled solution (>= 0).
  template <typename LemkeResult, typename OtherRows, typename OtherBounds>
  bool unique_solution(const LemkeResult& lemke, const OtherRows& oth, const OtherBounds& lb_oth,
                       VectorN& scratch) noexcept {
    const Index m = cvec_.size();
    Scalar z_max = Scalar(0);
    for (Index i = 0; i < m; ++i) z_max = detail::max_of(z_max, lemke.z.coeff(i));
    const Scalar w_tol = lemke_solution_rounding(m, z_max);
    mu_ = lemke.z;
    scaled_w_rounding(oth, lb_oth, scratch);
    Index n0 = 0;
    for (Index i = 0; i < m; ++i) {
      if (lemke.z_basic.coeff(i) != 0 || lemke.w.coeff(i) <= w_tol + w_noise_.coeff(i))
        i0_.coeffRef(n0++) = static_cast<int>(i);
    }
    mu_.setZero(m);
    if (n0 > 0 && !solve_i0(n0, Scalar(1) / cvec_beta_)) return false;
    for (Index i = 0; i < m; ++i) {
      if (mu_.coeff(i) < -w_tol) return false;
      mu_.coeffRef(i) = detail::max_of(mu_.coeff(i), Scalar(0));
    }
    return true;
  }

  /// The relative rounding the monotone path allows for a sum of n products (a row of M = oth T,
  /// of c = oth x0 - lb_oth, of w): 64 n eps.
  Scalar product_rounding() const noexcept { return lcqp_sum_rounding<Scalar>(line_.x0().size()); }

  /// The rounding of c_i = oth_i x0 - lb_oth_i: 64 n eps (|lb_oth_i| + |oth_i| |x0|), given
  /// lb_oth_i and magnitude = |oth_i| |x0|.
  Scalar c_rounding(Scalar lb_oth_i, Scalar magnitude) const noexcept {
    return product_rounding() * (std::fabs(lb_oth_i) + magnitude);
  }

  /// c_rounding of row i, |oth_i| |x0| summed here.
  template <typename OtherRows, typename OtherBounds>
  Scalar c_rounding(const OtherRows& oth, const OtherBounds& lb_oth, Index i) const noexcept {
    Scalar sum, magnitude;
    row_times(oth, i, line_.x0(), sum, magnitude);
    return c_rounding(lb_oth.coeff(i), magnitude);
  }

  /// sum = oth_i v and magnitude = sum_k |oth_ik v_k| (what the sum's rounding scales with), in
  /// one pass in column order (a plain loop: at these sizes a vectorised reduction's set-up costs
  /// more than the sum).
  template <typename OtherRows, typename V>
  static void row_times(const OtherRows& oth, Index i, const V& v, Scalar& sum,
                        Scalar& magnitude) noexcept {
    sum = Scalar(0);
    magnitude = Scalar(0);
    for (Index k = 0; k < v.size(); ++k) {
      const Scalar term = oth.coeff(i, k) * v.coeff(k);
      sum += term;
      magnitude += std::fabs(term);
    }
  }

  /// The rounding of each w_i = oth_i x - lb_oth_i at the point of the scaled solution in mu_
  /// (x = x0 + T lambda, lambda_j = mu_j (alpha / beta) / d_j), in the scaled LCP's units, into
  /// w_noise_: 64 n eps (|lb_oth_i| + |oth_i| (|x0| + |T| |lambda|)) e_i / alpha. A w_i that is 0
  /// in exact arithmetic can come out as large as this (c = R x0 - lbR cancels), plus S's error
  /// bound serr_ times |mu| (S is known only to it). Uses `scratch` (size n).
  template <typename OtherRows, typename OtherBounds>
  void scaled_w_rounding(const OtherRows& oth, const OtherBounds& lb_oth,
                         VectorN& scratch) noexcept {
    const Index m = cvec_.size();
    const Scalar alpha = cvec_scale_;
    const Scalar to_lambda = alpha / cvec_beta_;
    const Index n = line_.x0().size();
    scratch.resize(n);
    for (Index k = 0; k < n; ++k) scratch.coeffRef(k) = std::fabs(line_.x0().coeff(k));
    for (Index j = 0; j < m; ++j) {
      const Scalar lambda_j = std::fabs(mu_.coeff(j)) * to_lambda / dvec_.coeff(j);
      for (Index k = 0; k < n; ++k)
        scratch.coeffRef(k) += std::fabs(line_.t().coeff(k, j)) * lambda_j;
    }
    const Scalar unit = product_rounding();
    for (Index i = 0; i < m; ++i) {
      // Plus S's error carried through the solution: sum_j serr_ij / beta |mu_j|.
      Scalar from_s = Scalar(0);
      for (Index j = 0; j < m; ++j) from_s += serr_.coeff(i, j) * std::fabs(mu_.coeff(j));
      Scalar reach = Scalar(0);  // |oth_i| (|x0| + |T| |lambda|)
      for (Index k = 0; k < n; ++k) reach += std::fabs(oth.coeff(i, k)) * scratch.coeff(k);
      const Scalar noise = unit * (std::fabs(lb_oth.coeff(i)) + reach) * equil_.coeff(i) / alpha +
                           from_s / cvec_beta_;
      // An overflowed bound (lambda beyond the range) knows nothing: the pair counts as degenerate.
      w_noise_.coeffRef(i) = std::isfinite(noise) ? noise : infinity<Scalar>();
    }
  }

  /// Verifies a guessed index set I0 (pairs whose w side is active) on the scaled LCP in w_, ss_:
  /// mu_I0 from S[I0,I0] mu = -c[I0] must be > 0 on I0 and w = c + S mu > 0 off I0 beyond its
  /// rounding (strict, so the solution is unique exactly when Lemke's would be). True: mu_ holds
  /// the scaled solution.
  template <typename Guess, typename OtherRows, typename OtherBounds>
  bool try_guess(const Guess& guess, int side, const OtherRows& oth, const OtherBounds& lb_oth,
                 VectorN& scratch) noexcept {
    const Index m = cvec_.size();
    const std::int8_t w_active = side == 0 ? 1 : 0;
    Index n0 = 0;
    for (Index i = 0; i < m; ++i)
      if (guess.coeff(i) == w_active || guess.coeff(i) == 2)
        i0_.coeffRef(n0++) = static_cast<int>(i);
    mu_.setZero(m);
    if (n0 > 0 && !solve_i0(n0, Scalar(1) / cvec_beta_)) return false;
    Scalar mu_max = Scalar(0);
    for (Index i = 0; i < m; ++i) mu_max = detail::max_of(mu_max, std::fabs(mu_.coeff(i)));
    const Scalar tol = lemke_solution_rounding(m, mu_max);
    for (Index a = 0; a < n0; ++a)
      if (!(mu_.coeff(i0_.coeff(a)) > tol)) return false;
    scaled_w_rounding(oth, lb_oth, scratch);
    for (Index i = 0; i < m; ++i) {
      if (mu_.coeff(i) != Scalar(0)) continue;
      Scalar wi = w_.coeff(i);
      for (Index a = 0; a < n0; ++a) wi += ss_.coeff(i, i0_.coeff(a)) * mu_.coeff(i0_.coeff(a));
      if (!(wi > tol + w_noise_.coeff(i))) return false;
    }
    return true;
  }

  /// lambda = D^-1 mu with mu = mu' to_mu (mu_ holds the scaled LCP's mu'), then point(x).
  Outcome unscaled_point(Scalar to_mu, VectorN& x) noexcept {
    for (Index i = 0; i < mu_.size(); ++i) mu_.coeffRef(i) = mu_.coeff(i) * to_mu / dvec_.coeff(i);
    return point(x);
  }

  /// x = x0 + T lambda for lambda in mu_.
  Outcome point(VectorN& x) noexcept {
    x.noalias() = detail::product(line_.t(), mu_);
    x += line_.x0();
    return Outcome::Point;
  }

  /// True when S is positive semidefinite within its error bound serr_ plus the elimination's
  /// rounding (detail::semidefinite_within_bound on copies in mm_ and lu_, free here). Deciding
  /// with S's bound, not a fixed floor, keeps two roundings of one problem on the same path.
  bool positive_semidefinite(Index m, Scalar s_max) noexcept {
    mm_.topLeftCorner(m, m) = ss_.topLeftCorner(m, m);
    for (Index i = 0; i < m; ++i)
      for (Index j = 0; j < m; ++j) lu_.coeffRef(i, j) = serr_.coeff(i, j);
    return semidefinite_within_bound(mm_, lu_, visited_, m, semidefinite_pivot_floor(m, s_max));
  }

  /// Solves S[I0,I0] mu_I0 = -w_[I0] (w_ holds the scaled c) by gauss_jordan on [S[I0,I0] | I | -c]
  /// in lu_ (free once x = x0 + T lambda is built), which leaves S[I0,I0]^-1 and mu_I0 beside I.
  /// False when S[I0,I0] may be singular: a pivot at rounding level, or ||S^-1||_inf ||dS||_inf >
  /// 1/2 with dS the bound serr_ on S's error times err_scale (S's current scaling). S + dS is
  /// nonsingular for every such dS when ||S^-1|| ||dS|| < 1; the 1/2 leaves room for the inverse's
  /// own rounding. A pivot test alone is not enough: an exactly singular S known only to its
  /// rounding has pivots of the rounding's size, which a relative pivot tolerance can accept.
  bool solve_i0(Index n0, Scalar err_scale) noexcept {
    Scalar err_norm = Scalar(0);
    for (Index a = 0; a < n0; ++a) {
      Scalar row_err = Scalar(0);
      for (Index b = 0; b < n0; ++b) {
        lu_.coeffRef(a, b) = ss_.coeff(i0_.coeff(a), i0_.coeff(b));
        lu_.coeffRef(a, n0 + b) = a == b ? Scalar(1) : Scalar(0);
        row_err += serr_.coeff(i0_.coeff(a), i0_.coeff(b));
      }
      err_norm = detail::max_of(err_norm, row_err * err_scale);
      lu_.coeffRef(a, 2 * n0) = -w_.coeff(i0_.coeff(a));
    }
    if (!gauss_jordan(lu_, n0, 2 * n0 + 1)) return false;
    Scalar inv_norm = Scalar(0);
    for (Index a = 0; a < n0; ++a)
      inv_norm = detail::max_of(inv_norm, lu_.row(a).segment(n0, n0).cwiseAbs().sum());
    if (!(inv_norm * err_norm <= Scalar(0.5))) return false;
    for (Index a = 0; a < n0; ++a) mu_.coeffRef(i0_.coeff(a)) = lu_.coeff(a, 2 * n0);
    return true;
  }

  bool nonsingular_all(Index m) noexcept {
    for (Index i = 0; i < m; ++i) w_.coeffRef(i) = Scalar(0);
    return solve_i0(m, Scalar(1));
  }

  static constexpr bool kBounded = MaxN != Dynamic && MaxP != Dynamic;
  static constexpr int kMaxLuCols = kBounded ? MaxN + MaxP + 1 : Dynamic;
  using MatrixPP = Eigen::Matrix<Scalar, Dynamic, Dynamic, Eigen::ColMajor, MaxP, MaxP>;
  using MatrixLu = Eigen::Matrix<Scalar, Dynamic, Dynamic, Eigen::RowMajor, MaxN, kMaxLuCols>;
  using IntP = Eigen::Matrix<int, Dynamic, 1, Eigen::ColMajor, MaxP, 1>;

  LemkeSolver<Scalar, MaxP> lemke_;
  Scalar cvec_scale_ = Scalar(1);            // alpha = |E c|_inf of the LCP
  Scalar cvec_beta_ = Scalar(1);             // beta = max |E S E| of the LCP
  LcqpAffineLine<Scalar, MaxN, MaxP> line_;  // x = x0 + T lambda
  VectorP cvec_, dvec_, equil_, mu_, w_, w_relaxed_, w_noise_;
  IntP i0_, visited_;        // i0_ also symmetric_scaling's queue (before I0 exists)
  MatrixLu lu_;              // elimination scratch: the line's, the semidefinite test's, solve_i0's
  MatrixPP mm_, ss_, serr_;  // serr_: bound on S's error, entrywise
};

}  // namespace detail
}  // namespace claw
