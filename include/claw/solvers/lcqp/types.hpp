// claw/solvers/lcqp/types.hpp: what LcqpSolver returns: LcqpResult with its status, point,
// certificate flag, path (LcqpPath), stationarity type (LcqpStationarity) and residuals.
#pragma once

#include <Eigen/Core>
#include <cstdint>

#include "claw/core/status.hpp"
#include "claw/core/types.hpp"

namespace claw {

/// How the returned point was found.
enum class LcqpPath : std::uint8_t {
  None = 0,             ///< refused before any work
  Monotone = 1,         ///< the monotone-LCP path (unique feasible point, certified)
  BranchAndBound = 2,   ///< branch and bound over the pairs (certified when it finished)
  PenaltyHomotopy = 3,  ///< LCQPow's penalty homotopy, then a branch-QP polish and local pair flips
};

/// Stationarity type of the returned point (LCQPow's classification over the biactive pairs,
/// where both L_i x - lbL_i and R_i x - lbR_i vanish, from the multipliers nu_L, nu_R of the final
/// branch QP): S when every biactive pair has nu_L, nu_R >= 0; M when each has both > 0 or one
/// = 0; C when each has nu_L nu_R >= 0; W otherwise. Unknown when no branch QP was solved
/// (monotone path: there the feasible set is one point).
enum class LcqpStationarity : std::uint8_t { Unknown = 0, W = 1, C = 2, M = 3, S = 4 };

inline const char* to_string(LcqpStationarity s) noexcept {
  switch (s) {
    case LcqpStationarity::W:
      return "W";
    case LcqpStationarity::C:
      return "C";
    case LcqpStationarity::M:
      return "M";
    case LcqpStationarity::S:
      return "S";
    default:
      return "unknown";
  }
}

/// Residuals of the returned point, in the problem's units (+inf when not computed).
template <typename Scalar>
struct LcqpResiduals {
  /// Largest violation of any bound or row: box, A, L and R (both sides).
  Scalar primal = infinity<Scalar>();
  /// Natural complementarity residual max_i |min(L_i x - lbL_i, R_i x - lbR_i)|.
  Scalar complementarity = infinity<Scalar>();
  /// ||Q x + g - (multipliers)||_inf of the final branch QP (each pair fixed on its active side);
  /// +inf on the monotone path (it solves no QP).
  Scalar stationarity = infinity<Scalar>();
};

/// What LcqpSolver::solve returns (a reference to the solver's own result).
///  - Ok: x is feasible and complementary within LcqpSettings::feasibility_tolerance; objective
///    1/2 x'Qx + g'x (the Q given, without regularisation); certified_global says whether x is
///    proved a global minimiser (monotone path, or branch and bound that finished).
///  - Infeasible: no point satisfies the constraints and the complementarity within the
///    tolerance, among the points a certificate of this precision reaches, ||x||_inf <= t / eps
///    (t the tolerance it was decided at: feasibility_tolerance on the monotone path,
///    qp.infeasibility_tolerance in the branch QPs; beyond it x's own rounding exceeds t). Always
///    certified (certified_global = true): by Lemke's ray (a Farkas certificate re-checked against
///    the LCP's error bounds, check_lcp_certificate) or a box violation of the unique LCP point on
///    the monotone path, by an infeasible relaxation, or by branch and bound that finished. x = 0.
///  - MaxIterations: the homotopy (iteration or penalty cap) or branch and bound (node cap, or a
///    subproblem that failed) stopped without a feasible complementary point. Nothing is proved;
///    x = 0. NumericalOverflow: the monotone path's point (or its objective) overflowed (finite
///    data of extreme range); x = 0.
///  - NonFiniteInput, InvalidBounds, SizeMismatch, InvalidProblem (Q not positive definite),
///    InvalidParameter: refused; x = 0.
template <typename Scalar, int MaxN, int MaxP>
struct LcqpResult {
  Status status = Status::InvalidProblem;  ///< see above; before the first solve: InvalidProblem
  Vector<Scalar, Dynamic, MaxN> x;         ///< the point, n entries (0 unless Ok)
  Scalar objective = Scalar(0);            ///< 1/2 x'Qx + g'x with the Q given (0 unless Ok)
  bool certified_global = false;           ///< x proved a global minimiser, or Infeasible proved
  LcqpPath path = LcqpPath::None;          ///< how x was found
  LcqpStationarity stationarity = LcqpStationarity::Unknown;  ///< stationarity type of x
  /// Per pair: 0 when the L side is active (L_i x = lbL_i), 1 when the R side is, 2 when both.
  Eigen::Matrix<std::int8_t, Dynamic, 1, Eigen::ColMajor, MaxP, 1> active;
  /// Residuals of x.
  LcqpResiduals<Scalar> residuals;
  int qp_solves = 0;            ///< convex QPs solved
  int homotopy_iterations = 0;  ///< penalty-homotopy inner iterations
  long nodes = 0;               ///< branch-and-bound nodes
  int lemke_pivots = 0;         ///< pivots of the monotone path
  Scalar penalty = Scalar(0);   ///< final homotopy penalty (0 on other paths)
  Scalar regularisation =
      Scalar(0);  ///< delta added by LcqpSettings::auto_regularisation (0: none)
};

}  // namespace claw
