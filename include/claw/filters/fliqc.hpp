// claw/filters/fliqc.hpp: the FLIQC joint-velocity safety filter (every option of the original
// FLIQC_controller_joint_velocity_basic) on the LCQP solver, with an explicit infeasible-cycle
// policy.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <limits>

#include "claw/core/product.hpp"
#include "claw/core/status.hpp"
#include "claw/core/time_step.hpp"
#include "claw/core/types.hpp"
#include "claw/filters/fliqc_types.hpp"
#include "claw/filters/row_space_projector.hpp"
#include "claw/solvers/lcqp.hpp"

namespace claw {

/// FLIQC joint-velocity safety filter. Each cycle, with the active distances (psi_i <= threshold),
/// it solves the LCQP in x = [qdot; lambda]:
///
///   minimise    1/2 qdot' Q_q qdot + g_q' qdot + k_lambda/2 |lambda|^2
///   subject to  qdot = qdot_guide + P_null sum_i P_i^inv lambda_i          (n equality rows)
///               0 <= lambda_i  perp  psi_i + dt P_i qdot - eps >= 0        (each active distance)
///               -q_dot_max <= qdot <= q_dot_max,  lambda_i <= lambda_max (in x and/or in L),
///               dt P_i qdot <= esc_vel_max (optional)
///
/// with P_i the row mapping joint velocity to the distance's rate, P_i^inv its inverse direction
/// (default P_i' / |P_i|^2), P_null = I - pinv(J_pos) J_pos or I. The equality rows tie all n
/// joints (the original passes nC = m to LCQPow, which leaves joints beyond m free; claw implements
/// the formulation as written). With the default P_i^inv the complementarity system is a monotone
/// LCP: qdot is the same for every complementary point, the solver's monotone path certifies it (or
/// certifies infeasibility), and the cost type cannot change qdot (it only selects lambda when
/// that is not unique). Other P_i^inv go to branch and bound (m <= 24 by default).
///
/// The filter warm-starts from the previous cycle: the previous active set (mapped by the index
/// of each distance in the caller's psi) is tried first and verified; a wrong guess costs one
/// small solve. (One or two active distances usually need none: when their LCP's matrix is a
/// P-matrix within its rounding, the solver takes its solution from the complementary bases.)
///
/// Sizes (claw's one parameter order, core/types.hpp): N joints, fixed (MaxN = N) or Dynamic with
/// MaxN > 0; MaxM > 0 distances at most (more active rows: SizeMismatch and the fallback), e.g.
/// FliqcFilter<float, 7, 7, 8>. No heap at all; filter() is noexcept and allocation-free.
template <typename Scalar_, int N_, int MaxN_, int MaxM_>
class FliqcFilter {
  static_assert(MaxN_ > 0,
                "FliqcFilter<Scalar, N, MaxN, MaxM> needs a bounded number of joints MaxN");
  static_assert(N_ == Dynamic || N_ == MaxN_,
                "FliqcFilter<Scalar, N, MaxN, MaxM>: a fixed N needs MaxN == N");
  static_assert(MaxM_ > 0,
                "FliqcFilter<Scalar, N, MaxN, MaxM> needs a bounded number of distances MaxM");

 public:
  using Scalar = Scalar_;                         ///< the scalar type (float or double)
  using Index = Eigen::Index;                     ///< index and size type
  static constexpr int kMaxVars = MaxN_ + MaxM_;  ///< LCQP variables at most: x = [qdot; lambda]
  /// Rows of A: the n equality rows, or the m rows of the least-violation fallback.
  static constexpr int kMaxRows = MaxN_ > MaxM_ ? MaxN_ : MaxM_;
  using Solver = LcqpSolver<Scalar, kMaxVars, kMaxRows, MaxM_>;  ///< the LCQP solver it runs
  using Problem = typename Solver::Problem;              ///< the LCQP it assembles each cycle
  using Settings = FliqcSettings<Scalar>;                ///< see FliqcSettings
  using Result = FliqcResult<Scalar, N_, MaxN_, MaxM_>;  ///< see FliqcResult
  using VectorN = Vector<Scalar, N_, MaxN_>;             ///< n entries, one per joint
  using MatrixNN = Eigen::Matrix<Scalar, N_, N_, Eigen::ColMajor, MaxN_, MaxN_>;  ///< n x n

  /// N fixed: ready with default settings. N Dynamic: call set_num_joints() first.
  FliqcFilter() {
    // N fixed: N in 1..MaxN (static_asserts above), so this returns Ok.
    if constexpr (N_ != Dynamic) static_cast<void>(set_num_joints(N_));
  }

  /// Number of joints n (N Dynamic: 1..MaxN; N fixed: must be N). Resets the velocity limits to the
  /// settings' scalar, the mass-matrix weights to 1 and the warm start.
  Status set_num_joints(Index n) noexcept {
    if (n < 1 || n > MaxN_ || (N_ != Dynamic && n != N_)) return Status::SizeMismatch;
    n_ = n;
    vel_limit_.setConstant(n, settings_.q_dot_max);
    weights_.setOnes(n);
    per_joint_limits_ = false;
    result_.qdot.setZero(n);
    projector_.clear();
    mass_.setIdentity(n, n);
    mass_is_identity_ = true;
    reset();
    return Status::Ok;
  }

  /// Installs settings (InvalidParameter: the old ones stay).
  Status configure(const Settings& settings) noexcept {
    Status status = settings.validate();
    if (status != Status::Ok) return status;
    status = solver_.set_settings(settings.solver);
    if (status != Status::Ok) return status;
    settings_ = settings;
    if (!per_joint_limits_) vel_limit_.setConstant(n_, settings.q_dot_max);
    reset();
    return Status::Ok;
  }
  const Settings& settings() const noexcept { return settings_; }  ///< the installed settings

  /// Per-joint velocity bounds |qdot_j| <= limit_j (each > 0, +inf allowed). SizeMismatch or
  /// InvalidParameter: nothing changes.
  template <typename D>
  Status set_velocity_limits(const Eigen::MatrixBase<D>& limits) noexcept {
    if (limits.size() != n_) return Status::SizeMismatch;
    for (Index i = 0; i < n_; ++i)
      if (!(limits.coeff(i) > Scalar(0))) return Status::InvalidParameter;
    vel_limit_ = limits;
    per_joint_limits_ = true;
    return Status::Ok;
  }

  /// weight_on_mass_matrix w (each finite, > 0): the mass-matrix costs use M_w = W M W,
  /// W = diag(w) (claw's reading of the original's "scale the mass matrix"; default w = 1).
  template <typename D>
  Status set_mass_matrix_weights(const Eigen::MatrixBase<D>& w) noexcept {
    if (w.size() != n_) return Status::SizeMismatch;
    for (Index i = 0; i < n_; ++i)
      if (!(w.coeff(i) > Scalar(0)) || !std::isfinite(w.coeff(i))) return Status::InvalidParameter;
    weights_ = w;
    return Status::Ok;
  }

  /// Forgets the warm start.
  void reset() noexcept { previous_count_ = 0; }

  const Result& result() const noexcept { return result_; }  ///< the last cycle's result

  /// One cycle with M = I (the mass-matrix costs then equal the identity ones) and the default
  /// P_i^inv = P_i' / |P_i|^2. qdot_guide: n; jacobian: >= 3 x n (rows 0-2 translational);
  /// psi: m; p: m x n (row i = P_i).
  template <typename DG, typename DJ, typename DPsi, typename DP>
  [[nodiscard]] const Result& filter(const Eigen::MatrixBase<DG>& qdot_guide,
                                     const Eigen::MatrixBase<DJ>& jacobian,
                                     const Eigen::MatrixBase<DPsi>& psi,
                                     const Eigen::MatrixBase<DP>& p) noexcept {
    if (!mass_is_identity_) mass_.setIdentity(n_, n_);
    mass_is_identity_ = true;
    return run(qdot_guide, jacobian, psi, p, static_cast<const DP*>(nullptr));
  }

  /// One cycle with the mass matrix M (n x n, symmetric positive definite) and default P_i^inv.
  template <typename DG, typename DM, typename DJ, typename DPsi, typename DP>
  [[nodiscard]] const Result& filter(const Eigen::MatrixBase<DG>& qdot_guide,
                                     const Eigen::MatrixBase<DM>& mass,
                                     const Eigen::MatrixBase<DJ>& jacobian,
                                     const Eigen::MatrixBase<DPsi>& psi,
                                     const Eigen::MatrixBase<DP>& p) noexcept {
    if (!load_mass(mass)) return refuse_cycle(Status::SizeMismatch);
    return run(qdot_guide, jacobian, psi, p, static_cast<const DP*>(nullptr));
  }

  /// One cycle with M and explicit P_i^inv (m x n, row i = (P_i^inv)').
  template <typename DG, typename DM, typename DJ, typename DPsi, typename DP, typename DPinv>
  [[nodiscard]] const Result& filter(const Eigen::MatrixBase<DG>& qdot_guide,
                                     const Eigen::MatrixBase<DM>& mass,
                                     const Eigen::MatrixBase<DJ>& jacobian,
                                     const Eigen::MatrixBase<DPsi>& psi,
                                     const Eigen::MatrixBase<DP>& p,
                                     const Eigen::MatrixBase<DPinv>& p_inv) noexcept {
    if (!load_mass(mass)) return refuse_cycle(Status::SizeMismatch);
    return run(qdot_guide, jacobian, psi, p, &p_inv.derived());
  }

  /// The LCQP of the last solved cycle (for inspection and tests); after a least-violation
  /// fallback, that fallback's second QP.
  const Problem& problem() const noexcept { return problem_; }
  /// P_null of the last cycle (formed on request; the filter applies it as I - U'U).
  MatrixNN nullspace_projector() const noexcept { return projector_.matrix(n_); }

 private:
  /// n, as a constant when N is fixed (n_ == N then).
  Index joints() const noexcept { return detail::fixed_or<N_>(n_); }

  template <typename DM>
  bool load_mass(const Eigen::MatrixBase<DM>& mass) noexcept {
    if (mass.rows() != n_ || mass.cols() != n_) return false;
    mass_ = mass;
    mass_is_identity_ = false;
    return true;
  }

  const Result& refuse_cycle(Status status) noexcept {
    result_.status = status;
    result_.solved = false;
    result_.certified_global = false;
    result_.path = LcqpPath::None;
    result_.active_count = 0;
    result_.active_rows.resize(0);
    result_.active_set.resize(0);
    result_.lambda.resize(0);
    result_.residuals = LcqpResiduals<Scalar>{};
    result_.qp_solves = 0;
    result_.lemke_pivots = 0;
    result_.qdot.setZero(n_);  // Stop: inputs are not trusted
    result_.fallback_applied = true;
    result_.predicted_violation = infinity<Scalar>();
    result_.velocity_scaled = false;
    result_.projector_blocked.resize(0);
    result_.projector_blocked_count = 0;
    previous_count_ = 0;
    return result_;
  }

  /// result_.qdot = qdot_guide s with s = min(1, min_j limit_j / |qdot_guide_j|): the largest
  /// multiple of the guide, at most itself, inside the joint-velocity box.
  template <typename DG>
  void scale_guide_into_bounds(const Eigen::MatrixBase<DG>& qdot_guide) noexcept {
    Scalar s = Scalar(1);
    for (Index j = 0; j < n_; ++j) {
      const Scalar magnitude = std::fabs(qdot_guide.coeff(j));
      const Scalar ratio = vel_limit_.coeff(j) / magnitude;  // +inf when the joint is unbounded
      if (magnitude > vel_limit_.coeff(j) && ratio < s) s = ratio;
    }
    result_.velocity_scaled = s < Scalar(1);
    result_.qdot = qdot_guide;
    if (!result_.velocity_scaled) return;
    result_.qdot *= s;
    // s rounds: the product may exceed a bound by an ulp, which the clip removes.
    clip_into_velocity_bounds();
  }

  void clip_into_velocity_bounds() noexcept {
    for (Index j = 0; j < n_; ++j)
      result_.qdot.coeffRef(j) =
          clip(result_.qdot.coeff(j), -vel_limit_.coeff(j), vel_limit_.coeff(j));
  }

  template <typename DG, typename DJ, typename DPsi, typename DP, typename DPinv>
  const Result& run(const Eigen::MatrixBase<DG>& qdot_guide, const Eigen::MatrixBase<DJ>& jacobian,
                    const Eigen::MatrixBase<DPsi>& psi, const Eigen::MatrixBase<DP>& p,
                    const DPinv* p_inv) noexcept {
    const Index n = joints();
    const Index m_in = psi.size();
    if (n == 0 || qdot_guide.size() != n || jacobian.cols() != n || jacobian.rows() < 3 ||
        p.rows() != m_in || p.cols() != n ||
        (p_inv != nullptr && (p_inv->rows() != m_in || p_inv->cols() != n)))
      return refuse_cycle(Status::SizeMismatch);
    bool finite = all_finite(qdot_guide) && all_finite(jacobian.topRows(3)) && all_finite(psi) &&
                  all_finite(p) && (mass_is_identity_ || all_finite(mass_));
    if (p_inv != nullptr) finite = finite && all_finite(*p_inv);
    if (!finite) return refuse_cycle(Status::NonFiniteInput);
    // Active distances.
    Index m = 0;
    for (Index i = 0; i < m_in; ++i)
      if (psi.coeff(i) <= settings_.active_threshold) ++m;
    if (m > MaxM_) return refuse_cycle(Status::SizeMismatch);
    result_.active_rows.resize(m);
    for (Index i = 0, k = 0; i < m_in; ++i)
      if (psi.coeff(i) <= settings_.active_threshold)
        result_.active_rows.coeffRef(k++) = static_cast<int>(i);
    result_.active_count = static_cast<int>(m);
    result_.fallback_applied = false;
    result_.velocity_scaled = false;
    result_.residuals = LcqpResiduals<Scalar>{};
    result_.qp_solves = 0;
    result_.lemke_pivots = 0;
    if (m == 0) {
      // Nothing active: the guide (the original's behaviour), scaled into the velocity bounds.
      result_.status = Status::Ok;
      result_.solved = false;
      result_.certified_global = false;
      result_.path = LcqpPath::None;
      scale_guide_into_bounds(qdot_guide);
      result_.lambda.resize(0);
      result_.active_set.resize(0);
      result_.projector_blocked.resize(0);
      result_.projector_blocked_count = 0;
      result_.predicted_violation = -infinity<Scalar>();
      previous_count_ = 0;
      return result_;
    }
    // Every P_i must be nonzero for the default inverse.
    for (Index k = 0; k < m; ++k) {
      const Index i = result_.active_rows.coeff(k);
      if (p_inv == nullptr && !(p.row(i).squaredNorm() > Scalar(0)))
        return refuse_cycle(Status::InvalidProblem);
    }
    // P_null = I - pinv(J_pos) J_pos, or I when the settings leave it out.
    if (settings_.enable_nullspace_projector_in_A) {
      projector_.build(jacobian.topRows(3));
    } else {
      projector_.clear();
    }
    assemble(qdot_guide, psi, p, p_inv, m);
    // Warm start: the previous cycle's active set, mapped by the caller's row index.
    bool have_guess = false;
    guess_.setZero(m);
    for (Index k = 0; k < m; ++k) {
      const int row = result_.active_rows.coeff(k);
      for (Index j = 0; j < previous_count_; ++j)
        if (previous_rows_.coeff(j) == row) {
          guess_.coeffRef(k) = previous_set_.coeff(j);
          have_guess = true;
        }
    }
    const auto& r = have_guess ? solver_.solve(problem_, guess_) : solver_.solve(problem_);
    result_.solved = true;
    // Finite inputs whose assembly overflowed (e.g. P_i^inv of a tiny P_i, dt P_i of a huge one).
    result_.status = r.status == Status::NonFiniteInput ? Status::NumericalOverflow : r.status;
    result_.certified_global = r.certified_global;
    result_.path = r.path;
    result_.residuals = r.residuals;
    result_.qp_solves = r.qp_solves;
    result_.lemke_pivots = r.lemke_pivots;
    result_.lambda.resize(m);
    result_.active_set.resize(m);
    if (r.status == Status::Ok) {
      result_.qdot = r.x.head(n);
      // The solver holds the bounds within its tolerance; the command holds them exactly.
      clip_into_velocity_bounds();
      result_.lambda = r.x.segment(n, m);
      result_.active_set = r.active;
      previous_count_ = m;
      previous_rows_.head(m) = result_.active_rows;
      previous_set_.head(m) = r.active;
    } else {
      result_.lambda.setZero();
      result_.active_set.setZero();
      previous_count_ = 0;
      apply_fallback(qdot_guide, psi, p, m);
    }
    result_.predicted_violation = predicted_violation(psi, p, m);
    return result_;
  }

  template <typename DG, typename DPsi, typename DP, typename DPinv>
  void assemble(const Eigen::MatrixBase<DG>& qdot_guide, const Eigen::MatrixBase<DPsi>& psi,
                const Eigen::MatrixBase<DP>& p, const DPinv* p_inv, Index m) noexcept {
    const Index n = joints();
    const Scalar inf = infinity<Scalar>();
    const Index nv = n + m;
    // Every entry of the problem is written below on every cycle (the zero blocks by setZero), as
    // problem_.resize(nv, n, m) followed by the assignments would leave it.
    // Cost.
    problem_.Q.setZero(nv, nv);
    const bool mass_cost = settings_.quad_cost_type == FliqcCostType::MassMatrix ||
                           settings_.quad_cost_type == FliqcCostType::MassMatrixVelocityError;
    if (mass_cost) {
      for (Index c = 0; c < n; ++c)
        for (Index r = 0; r < n; ++r)
          problem_.Q.coeffRef(r, c) = weights_.coeff(r) * Scalar(0.5) *
                                      (mass_.coeff(r, c) + mass_.coeff(c, r)) * weights_.coeff(c);
    } else {
      for (Index r = 0; r < n; ++r) problem_.Q.coeffRef(r, r) = Scalar(1);
    }
    problem_.Q.diagonal().tail(m).setConstant(settings_.lambda_cost_penalty);
    problem_.g.setZero(nv);
    const bool velocity_error = settings_.quad_cost_type == FliqcCostType::VelocityError ||
                                settings_.quad_cost_type == FliqcCostType::MassMatrixVelocityError;
    if (velocity_error) {
      const Scalar factor = settings_.velocity_error_as_original ? Scalar(-2) : Scalar(-1);
      problem_.g.head(n).noalias() =
          factor * detail::product(problem_.Q.topLeftCorner(n, n), qdot_guide);
    }
    // Equality rows: qdot - P_null sum_i P_i^inv lambda_i = qdot_guide. A row whose own rate
    // keeps at most sqrt(eps) of its reaction through P_null is blocked (reported; exempted from
    // P_null when the settings say so).
    problem_.A.resize(n, nv);
    problem_.A.leftCols(n).setIdentity();
    result_.projector_blocked.setZero(m);
    result_.projector_blocked_count = 0;
    const Scalar blocked_ratio = std::sqrt(std::numeric_limits<Scalar>::epsilon());
    for (Index k = 0; k < m; ++k) {
      const Index i = result_.active_rows.coeff(k);
      if (p_inv != nullptr) {
        pinv_col_ = p_inv->row(i).transpose();
      } else {
        pinv_col_ = p.row(i).transpose() / p.row(i).squaredNorm();
      }
      problem_.A.col(n + k) = -pinv_col_;
      if (projector_.rank() == 0) continue;
      const Scalar reaction = p.row(i).dot(pinv_col_);
      projector_.apply(pinv_col_);
      const Scalar kept = p.row(i).dot(pinv_col_);
      if (reaction != Scalar(0) && std::fabs(kept) <= blocked_ratio * std::fabs(reaction)) {
        result_.projector_blocked.coeffRef(k) = 1;
        ++result_.projector_blocked_count;
        if (settings_.exempt_blocked_rows_from_projector) continue;
      }
      problem_.A.col(n + k) = -pinv_col_;
    }
    problem_.lbA = qdot_guide;
    problem_.ubA = qdot_guide;
    // Bounds.
    problem_.lb.resize(nv);
    problem_.ub.resize(nv);
    problem_.lb.head(n) = -vel_limit_;
    problem_.ub.head(n) = vel_limit_;
    problem_.lb.tail(m).setZero();
    problem_.ub.tail(m).setConstant(settings_.enable_lambda_constraint_in_x ? settings_.lambda_max
                                                                            : inf);
    // Complementarity: L x = lambda >= 0, R x = dt P qdot >= eps - psi.
    problem_.L.setZero(m, nv);
    problem_.R.resize(m, nv);
    problem_.R.rightCols(m).setZero();
    problem_.lbL.setZero(m);
    problem_.ubL.setConstant(m,
                             settings_.enable_lambda_constraint_in_L ? settings_.lambda_max : inf);
    problem_.lbR.resize(m);
    problem_.ubR.setConstant(m, settings_.enable_esc_vel_constraint ? settings_.esc_vel_max : inf);
    for (Index k = 0; k < m; ++k) {
      const Index i = result_.active_rows.coeff(k);
      problem_.L.coeffRef(k, n + k) = Scalar(1);
      problem_.R.row(k).head(n) = settings_.dt * p.row(i);
      problem_.lbR.coeffRef(k) = settings_.eps - psi.coeff(i);
    }
  }

  template <typename DPsi, typename DP>
  Scalar predicted_violation(const Eigen::MatrixBase<DPsi>& psi, const Eigen::MatrixBase<DP>& p,
                             Index m) const noexcept {
    Scalar worst = -infinity<Scalar>();
    for (Index k = 0; k < m; ++k) {
      const Index i = result_.active_rows.coeff(k);
      const Scalar v = settings_.eps - psi.coeff(i) - settings_.dt * p.row(i).dot(result_.qdot);
      worst = detail::max_of(worst, v);
    }
    return worst;
  }

  /// Stop, or the least-violation velocity: two QPs in y = [qdot; t] (bounded by the velocity
  /// limits, t >= 0, eps - psi_i - dt P_i qdot <= t), solved by the same LCQP solver with no pair
  /// (problem() then holds the second): first min 1/2 t^2 + 1/2 mu |qdot - g|^2 with mu = 1e-8
  /// (float 1e-4) for the smallest t*, then min 1/2 |qdot - g|^2 + 1/2 mu t^2 with
  /// t <= t* (1 + 1e-9) + 1e-12. Stop when the first fails; the first's qdot when the second does.
  /// The command is then clipped to the velocity bounds exactly.
  template <typename DG, typename DPsi, typename DP>
  void apply_fallback(const Eigen::MatrixBase<DG>& qdot_guide, const Eigen::MatrixBase<DPsi>& psi,
                      const Eigen::MatrixBase<DP>& p, Index m) noexcept {
    result_.fallback_applied = true;
    result_.qdot.setZero(n_);
    // The least-violation velocity only for a well-posed cycle that has no answer; a refused or
    // overflowing problem stops.
    const bool well_posed =
        result_.status == Status::Infeasible || result_.status == Status::MaxIterations;
    if (settings_.fallback != FliqcFallback::LeastViolation || !well_posed) return;
    const Index n = joints();
    const Scalar mu = sizeof(Scalar) <= 4 ? Scalar(1e-4) : Scalar(1e-8);
    problem_.resize(n + 1, m, 0);
    problem_.Q.diagonal().head(n).setConstant(mu);
    problem_.Q.coeffRef(n, n) = Scalar(1);
    problem_.g.head(n) = -mu * qdot_guide;
    for (Index k = 0; k < m; ++k) {
      const Index i = result_.active_rows.coeff(k);
      // dt P_i qdot + t >= eps - psi_i
      problem_.A.row(k).head(n) = settings_.dt * p.row(i);
      problem_.A.coeffRef(k, n) = Scalar(1);
      problem_.lbA.coeffRef(k) = settings_.eps - psi.coeff(i);
    }
    problem_.lb.head(n) = -vel_limit_;
    problem_.ub.head(n) = vel_limit_;
    problem_.lb.coeffRef(n) = Scalar(0);
    const auto& first = solver_.solve(problem_);
    if (first.status != Status::Ok || !all_finite(first.x)) return;
    result_.qdot = first.x.head(n);
    const Scalar t_star = first.x.coeff(n);
    problem_.Q.diagonal().head(n).setOnes();
    problem_.Q.coeffRef(n, n) = mu;
    problem_.g.head(n) = -qdot_guide;
    problem_.ub.coeffRef(n) = t_star * (Scalar(1) + Scalar(1e-9)) + Scalar(1e-12);
    const auto& second = solver_.solve(problem_);
    if (second.status == Status::Ok && all_finite(second.x)) result_.qdot = second.x.head(n);
    // The QPs hold the bounds within their tolerance, which scales with |t|: clip exactly.
    clip_into_velocity_bounds();
  }

  Settings settings_;
  Solver solver_;
  Problem problem_;
  Result result_;
  Index n_ = 0;
  bool per_joint_limits_ = false;
  bool mass_is_identity_ = false;  // mass_ is I (set by the filter, not loaded)
  VectorN vel_limit_, weights_, pinv_col_;
  MatrixNN mass_;
  detail::RowSpaceProjector<Scalar, N_, MaxN_> projector_;  // P_null of the cycle
  Eigen::Matrix<std::int8_t, Dynamic, 1, Eigen::ColMajor, MaxM_, 1> guess_;
  Eigen::Matrix<int, MaxM_, 1> previous_rows_;
  Eigen::Matrix<std::int8_t, MaxM_, 1> previous_set_;
  Index previous_count_ = 0;
};

}  // namespace claw
