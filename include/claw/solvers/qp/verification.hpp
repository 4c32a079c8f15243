// claw/solvers/qp/verification.hpp: the checks that decide a QP answer's status, on the unscaled
// problem: check_qp_answer (Ok) and check_qp_certificate (Infeasible). Plain loops, no allocation.
#pragma once

#include <Eigen/Core>
#include <cmath>

#include "claw/core/types.hpp"
#include "claw/solvers/detail/min_max.hpp"
#include "claw/solvers/detail/numerics.hpp"
#include "claw/solvers/qp/types.hpp"

namespace claw {

/// ||Q||_1 = max_j sum_k |Q_kj|, the scale of Q the stationarity limit uses. O(n^2).
template <typename DQ>
typename DQ::Scalar qp_matrix_norm1(const Eigen::MatrixBase<DQ>& q) noexcept {
  using Scalar = typename DQ::Scalar;
  Scalar norm = Scalar(0);
  for (Eigen::Index j = 0; j < q.cols(); ++j) {
    Scalar column = Scalar(0);
    for (Eigen::Index k = 0; k < q.rows(); ++k) column += std::fabs(q.coeff(k, j));
    norm = column > norm || column != column ? column : norm;
  }
  return norm;
}

namespace detail {

/// Stationarity of (x, mu, lambda): out.stationarity = ||Q x + g - A' lambda - mu||_inf and
/// out.stationarity_limit = tolerance (1 + S) with
/// S = max_j (||Q||_1 ||x||_inf + |g_j| + |A_j|'|lambda| + |mu_j|), the magnitude of column j's
/// terms; also the objective 1/2 x'Qx + g'x from the same products. A' lambda is accumulated row by
/// row over the nonzero multipliers (most are zero). `residual` and `magnitude` (n each) are
/// workspace. NaN (terms that overflowed and cancelled) sticks. O(n^2 + n nnz(lambda)).
template <typename DQ, typename DG, typename DA, typename DX, typename DMU, typename DLAM,
          typename DW>
void qp_stationarity(const Eigen::MatrixBase<DQ>& q, typename DQ::Scalar q_norm,
                     const Eigen::MatrixBase<DG>& g, const Eigen::MatrixBase<DA>& a,
                     const Eigen::MatrixBase<DX>& x, const Eigen::MatrixBase<DMU>& mu,
                     const Eigen::MatrixBase<DLAM>& lambda, typename DG::Scalar tolerance,
                     QpResiduals<typename DG::Scalar>& out, typename DG::Scalar& objective,
                     Eigen::MatrixBase<DW>& residual, Eigen::MatrixBase<DW>& magnitude) noexcept {
  using Scalar = typename DG::Scalar;
  using Index = Eigen::Index;
  const Index n = x.size(), m = lambda.size();
  objective = Scalar(0);
  Scalar x_norm = Scalar(0);
  for (Index k = 0; k < n; ++k) x_norm = max_ignoring_nan(x_norm, std::fabs(x.coeff(k)));
  const Scalar qx_bound = q_norm * x_norm;  // >= |Q_j|'|x| for every column j
  for (Index j = 0; j < n; ++j) {
    const Scalar qx = q.col(j).dot(x);
    objective += x.coeff(j) * (Scalar(0.5) * qx + g.coeff(j));
    residual.coeffRef(j) = qx + g.coeff(j) - mu.coeff(j);
    magnitude.coeffRef(j) = qx_bound + std::fabs(g.coeff(j)) + std::fabs(mu.coeff(j));
  }
  for (Index i = 0; i < m; ++i) {
    const Scalar li = lambda.coeff(i);
    if (li == Scalar(0)) continue;
    for (Index j = 0; j < n; ++j) {
      const Scalar term = a.coeff(i, j) * li;
      residual.coeffRef(j) -= term;
      magnitude.coeffRef(j) += std::fabs(term);
    }
  }
  Scalar terms = Scalar(0);
  out.stationarity = Scalar(0);
  for (Index j = 0; j < n; ++j) {
    const Scalar rj = std::fabs(residual.coeff(j)), mj = magnitude.coeff(j);
    out.stationarity = rj > out.stationarity || rj != rj ? rj : out.stationarity;
    terms = mj > terms || mj != mj ? mj : terms;
  }
  out.stationarity_limit = tolerance * (Scalar(1) + terms);
}

/// The constraint residuals of (x, mu, lambda), constraint by constraint (c < n: the bound on x_c;
/// else row c - n), along unit normals: out.primal (and out.most_violated), out.dual (a nonzero
/// multiplier on an infinite side) and out.complementarity (a multiplier's constraint away from
/// its side). Returns whether every a_c'x and multiplier is finite. O(m n).
template <typename DA, typename DN, typename DL, typename DU, typename DLA, typename DUA,
          typename DX, typename DMU, typename DLAM>
bool qp_constraint_residuals(const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DN>& row_norm,
                             const Eigen::MatrixBase<DL>& lb, const Eigen::MatrixBase<DU>& ub,
                             const Eigen::MatrixBase<DLA>& lba, const Eigen::MatrixBase<DUA>& uba,
                             const Eigen::MatrixBase<DX>& x, const Eigen::MatrixBase<DMU>& mu,
                             const Eigen::MatrixBase<DLAM>& lambda,
                             QpResiduals<typename DL::Scalar>& out) noexcept {
  using Scalar = typename DL::Scalar;
  using Index = Eigen::Index;
  const Index n = x.size(), m = lambda.size();
  out.primal = out.dual = out.complementarity = Scalar(0);
  out.most_violated = -1;
  bool finite = true;
  // Constraint c: value v = a_c'x within [lo, hi], ||a_c|| = norm, multiplier y.
  const auto visit = [&](Index c, Scalar v, Scalar lo, Scalar hi, Scalar norm, Scalar y) {
    finite = finite && std::isfinite(v) && std::isfinite(y);
    // Violation along the unit normal relative to 1 + |b| along it: (b - a'x) / (||a|| + |b|)
    // (a zero row: b / |b|, i.e. 1 when violated). An infinite side is never violated.
    const auto relative = [norm](Scalar miss, Scalar b) {
      const Scalar scale = norm + std::fabs(b);
      return scale > Scalar(0) ? miss / scale : miss;
    };
    const Scalar below = lo > -infinity<Scalar>() ? relative(lo - v, lo) : Scalar(0);
    const Scalar above = hi < infinity<Scalar>() ? relative(v - hi, hi) : Scalar(0);
    if (below > out.primal || above > out.primal) {
      out.primal = max_ignoring_nan(below, above);
      out.most_violated = c;
    }
    if (y > Scalar(0)) {
      if (!(lo > -infinity<Scalar>()))
        out.dual = max_ignoring_nan(out.dual, y);
      else
        out.complementarity = max_ignoring_nan(out.complementarity, std::fabs(below));
    } else if (y < Scalar(0)) {
      if (!(hi < infinity<Scalar>()))
        out.dual = max_ignoring_nan(out.dual, -y);
      else
        out.complementarity = max_ignoring_nan(out.complementarity, std::fabs(above));
    }
  };
  for (Index j = 0; j < n; ++j)
    visit(j, x.coeff(j), lb.coeff(j), ub.coeff(j), Scalar(1), mu.coeff(j));
  if constexpr (DA::RowsAtCompileTime != 0) {
    for (Index i = 0; i < m; ++i)
      visit(n + i, a.row(i).dot(x), lba.coeff(i), uba.coeff(i), row_norm.coeff(i), lambda.coeff(i));
  }
  return finite;
}

}  // namespace detail

/// Fills `out` with the residuals of the candidate answer (x, mu, lambda) of
///   min 1/2 x'Qx + g'x  s.t.  lbA <= A x <= ubA,  lb <= x <= ub
/// (Q symmetric: column j of Q is used as its row; q_norm = ||Q||_1, qp_matrix_norm1;
/// row_norm_i = ||a_i||_2, e.g. a.row(i).stableNorm(), exact for rows of subnormal entries)
/// and the stationarity limit (QpResiduals), and returns whether the answer passes:
/// primal <= infeasibility_tolerance, complementarity <= infeasibility_tolerance,
/// stationarity <= stationarity_limit, dual == 0, all finite, the limit included (a limit that
/// overflowed bounds nothing: the answer is then unverifiable in Scalar). Also writes the objective
/// 1/2 x'Qx + g'x (from the same products). `residual` and `magnitude` (n each) are workspace.
/// O(n^2 + m n).
template <typename DQ, typename DG, typename DA, typename DN, typename DL, typename DU,
          typename DLA, typename DUA, typename DX, typename DMU, typename DLAM, typename DW>
bool check_qp_answer(const Eigen::MatrixBase<DQ>& q, typename DQ::Scalar q_norm,
                     const Eigen::MatrixBase<DG>& g, const Eigen::MatrixBase<DA>& a,
                     const Eigen::MatrixBase<DN>& row_norm, const Eigen::MatrixBase<DL>& lb,
                     const Eigen::MatrixBase<DU>& ub, const Eigen::MatrixBase<DLA>& lba,
                     const Eigen::MatrixBase<DUA>& uba, const Eigen::MatrixBase<DX>& x,
                     const Eigen::MatrixBase<DMU>& mu, const Eigen::MatrixBase<DLAM>& lambda,
                     typename DG::Scalar infeasibility_tolerance,
                     typename DG::Scalar stationarity_tolerance,
                     QpResiduals<typename DG::Scalar>& out, typename DG::Scalar& objective,
                     Eigen::MatrixBase<DW>& residual, Eigen::MatrixBase<DW>& magnitude) noexcept {
  detail::qp_stationarity(q, q_norm, g, a, x, mu, lambda, stationarity_tolerance, out, objective,
                          residual, magnitude);
  const bool finite =
      detail::qp_constraint_residuals(a, row_norm, lb, ub, lba, uba, x, mu, lambda, out);
  return finite && out.primal <= infeasibility_tolerance &&
         out.complementarity <= infeasibility_tolerance && std::isfinite(out.stationarity_limit) &&
         out.stationarity <= out.stationarity_limit && out.dual == typename DG::Scalar(0);
}

/// Checks a Farkas certificate of infeasibility y (one multiplier per row of A) for the
/// constraints lbA <= A x <= ubA, lb <= x <= ub, as QpResult states it for Status::Infeasible.
/// With t = infeasibility_tolerance, X = t / eps, v = A'y, b_i = lbA_i (y_i > 0) or ubA_i
/// (y_i < 0), and c_j the end of [lb_j, ub_j] clipped to [-X, X] that v_j points to (ub_j side for
/// v_j > 0; the clip never crosses the other end):
///   y_i > 0 only where lbA_i is finite, y_i < 0 only where ubA_i is finite, and
///   gap = sum_i y_i b_i - sum_j v_j c_j  >  band + rounding,
///   band = sum_i |y_i| t (||a_i|| + |b_i|) + sum_j |v_j| t (1 + |c_j|),
/// rounding = detail::dot_rounding over the terms of both sums. Every x of the box with
/// ||x||_inf <= X has y'Ax = v'x <= sum_j v_j c_j (+ the box part of band when x's bounds are
/// violated within the Ok tolerance); every x whose rows are violated by at most the Ok tolerance
/// (t (1 + |b|) along the unit normal) has y'Ax >= sum_i y_i b_i - (the row part of band): no
/// point of the box with ||x||_inf <= X satisfies the constraints within the Ok tolerance.
/// (X = t / eps: beyond it x's own rounding, eps |x|, exceeds the tolerance, and A'y's rounding
/// times X stays below t: the reach a proof of this precision has.) Writes the box part mu = -v
/// into `mu` and returns whether the certificate proves infeasibility. O(m n).
template <typename DA, typename DN, typename DL, typename DU, typename DLA, typename DUA,
          typename DY, typename DMU>
bool check_qp_certificate(const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DN>& row_norm,
                          const Eigen::MatrixBase<DL>& lb, const Eigen::MatrixBase<DU>& ub,
                          const Eigen::MatrixBase<DLA>& lba, const Eigen::MatrixBase<DUA>& uba,
                          const Eigen::MatrixBase<DY>& y, Eigen::MatrixBase<DMU>& mu,
                          typename DL::Scalar infeasibility_tolerance) noexcept {
  using Scalar = typename DL::Scalar;
  using Index = Eigen::Index;
  const Index n = lb.size(), m = y.size();
  const Scalar t = infeasibility_tolerance;
  Scalar gap = Scalar(0), magnitude = Scalar(0), band = Scalar(0), underflow = Scalar(0);
  for (Index i = 0; i < m; ++i) {
    const Scalar yi = y.coeff(i);
    if (yi == Scalar(0)) continue;
    const Scalar side = yi > Scalar(0) ? lba.coeff(i) : uba.coeff(i);
    if (!std::isfinite(side) || !std::isfinite(yi)) return false;
    gap += yi * side;
    magnitude += std::fabs(yi * side);
    band += std::fabs(yi) * t * (row_norm.coeff(i) + std::fabs(side));
  }
  const Scalar reach = detail::certificate_reach(t);
  for (Index j = 0; j < n; ++j) {
    Scalar v = Scalar(0), v_abs = Scalar(0);  // v_j and the magnitude of its terms
    for (Index i = 0; i < m; ++i) {
      v += a.coeff(i, j) * y.coeff(i);
      v_abs += std::fabs(a.coeff(i, j) * y.coeff(i));
    }
    mu.coeffRef(j) = -v;
    if (v == Scalar(0)) continue;
    const Scalar lo = lb.coeff(j), hi = ub.coeff(j);
    const Scalar side = v > Scalar(0)
                            ? detail::min_ignoring_nan(hi, detail::max_ignoring_nan(reach, lo))
                            : detail::max_ignoring_nan(lo, detail::min_ignoring_nan(-reach, hi));
    gap -= v * side;
    magnitude += v_abs * std::fabs(side);  // v_j's own relative rounding times |c_j|
    underflow += std::fabs(side) * detail::dot_rounding(m, Scalar(0));  // and its absolute one
    band += std::fabs(v) * t * (Scalar(1) + std::fabs(side));
  }
  const Scalar rounding = detail::dot_rounding<Scalar>(m + n, magnitude) + underflow;
  return std::isfinite(gap) && std::isfinite(band) && gap > band + rounding;
}

}  // namespace claw
