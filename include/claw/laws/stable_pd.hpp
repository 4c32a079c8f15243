// claw/laws/stable_pd.hpp: stable (implicit) PD of Tan et al. 2011, which computes the effort from
// the next state's error through the inverse mass, diagonal or a full matrix block; stable for any
// gains.
#pragma once

#include <cmath>
#include <utility>

#include "claw/core/fields.hpp"
#include "claw/core/status.hpp"
#include "claw/core/time_step.hpp"
#include "claw/core/types.hpp"
#include "claw/laws/effort_clamp.hpp"

namespace claw {

/// Settings of a StablePd (one entry per joint).
template <typename Scalar, int N = Dynamic, int MaxN = N>
struct StablePdSettings {
  static constexpr Eigen::Index kDefaultSize = (N == Dynamic) ? 0 : N;  ///< N (0 if Dynamic)
  using VectorType = Vector<Scalar, N, MaxN>;                           ///< one entry per joint
  VectorType kp = VectorType::Zero(kDefaultSize);                       ///< [effort/pos], >= 0
  VectorType kd = VectorType::Zero(kDefaultSize);                       ///< [effort s/pos], >= 0
  VectorType constant_effort = VectorType::Zero(kDefaultSize);          ///< c [effort]
  EffortLimits<Scalar, N, MaxN> limits;                                 ///< applied to tau
  Scalar dt = Scalar(0.001);  ///< h [s], finite and >= CLAW_MIN_TIME_STEP (valid_time_step_setting)
};

/// Stable PD: with A the inverse mass (diagonal vector or an NxN block), solves
///   (I + h (h Kp + Kd) A) tau = c + ff + Kp (q* - q - h v) + Kd (v* - v)
/// so tau is the PD effort evaluated at the semi-implicit next state; for one joint of mass m it is
/// the explicit law divided by 1 + h (h kp + kd) / m. Then tau is clipped to the limits. A PID
/// folds its integral ki I+ into ff (or c) before the call. Allocation-free after construction.
template <typename Scalar_, int N_ = Dynamic, int MaxN_ = N_>
class StablePd : public StatelessBlock<Scalar_> {
 public:
  using Scalar = Scalar_;                        ///< the scalar type (float or double)
  using VectorType = Vector<Scalar, N_, MaxN_>;  ///< a vector of n joints
  using MatrixType = Eigen::Matrix<Scalar, N_, N_, Eigen::ColMajor, MaxN_, MaxN_>;  ///< n x n
  using Settings = StablePdSettings<Scalar, N_, MaxN_>;  ///< gains, c, limits, dt
  using State = NoState;  ///< nothing is carried between calls (system and rhs are scratch)
  static constexpr const char* kCommandQuantity = "commandEffort";  ///< tau, for logging

  StablePd() : StablePd(N_ == Dynamic ? 0 : N_) {}
  /// A law for n joints with zero gains, c = 0 and no limits (allocates here for dynamic sizes).
  explicit StablePd(Eigen::Index n) : system_(MatrixType::Zero(n, n)), rhs_(VectorType::Zero(n)) {
    settings_.kp.setZero(n);
    settings_.kd.setZero(n);
    settings_.constant_effort.setZero(n);
    settings_.limits.resize(n);
  }

  Eigen::Index size() const noexcept { return rhs_.size(); }  ///< joint count n

  /// InvalidParameter (old settings kept) for negative or non-finite gains or c, dt not finite or
  /// below CLAW_MIN_TIME_STEP, or invalid limits.
  Status configure(const Settings& settings) noexcept {
    if (settings.kp.size() != size() || settings.kd.size() != size() ||
        settings.constant_effort.size() != size())
      return Status::SizeMismatch;
    if (!valid_time_step_setting(settings.dt)) return Status::InvalidParameter;
    for (Eigen::Index j = 0; j < size(); ++j)
      if (!std::isfinite(settings.kp.coeff(j)) || !std::isfinite(settings.kd.coeff(j)) ||
          !std::isfinite(settings.constant_effort.coeff(j)) || settings.kp.coeff(j) < Scalar(0) ||
          settings.kd.coeff(j) < Scalar(0))
        return Status::InvalidParameter;
    const Status limits_status = validate_effort_limits(settings.limits, size());
    if (limits_status != Status::Ok) return limits_status;
    settings_ = settings;
    return Status::Ok;
  }

  /// Diagonal inverse mass a_j = 1 / m_j [1/(effort s^2/pos)], >= 0. SizeMismatch (nothing
  /// touched) when a vector's size is not size() or the law has no joints, in every build.
  template <typename DT, typename DTV, typename DFF, typename DQ, typename DV, typename DA,
            typename DOut>
  Status update(const Eigen::MatrixBase<DT>& target, const Eigen::MatrixBase<DTV>& target_velocity,
                const Eigen::MatrixBase<DFF>& feedforward, const Eigen::MatrixBase<DQ>& q,
                const Eigen::MatrixBase<DV>& v, const Eigen::MatrixBase<DA>& inverse_mass,
                const Eigen::MatrixBase<DOut>& out) noexcept {
    if (size() == 0 ||
        !all_have_size(size(), target, target_velocity, feedforward, q, v, out, inverse_mass))
      return Status::SizeMismatch;
    if (!inputs_finite(target, target_velocity, feedforward, q, v) || !all_finite(inverse_mass))
      return Status::NonFiniteInput;
    for (Eigen::Index j = 0; j < size(); ++j)
      if (inverse_mass.coeff(j) < Scalar(0)) return Status::InvalidParameter;
    fill_rhs(target, target_velocity, feedforward, q, v);
    const Scalar h = settings_.dt;
    for (Eigen::Index j = 0; j < size(); ++j)
      rhs_.coeffRef(j) /= Scalar(1) + h * (h * settings_.kp.coeff(j) + settings_.kd.coeff(j)) *
                                          inverse_mass.coeff(j);
    return write_clamped(v, out);
  }

  /// Full inverse mass block A (NxN, symmetric positive semi-definite): solves the coupled system
  /// by Gaussian elimination with partial pivoting on preallocated storage.
  template <typename DT, typename DTV, typename DFF, typename DQ, typename DV, typename DA,
            typename DOut>
  Status update_full(const Eigen::MatrixBase<DT>& target,
                     const Eigen::MatrixBase<DTV>& target_velocity,
                     const Eigen::MatrixBase<DFF>& feedforward, const Eigen::MatrixBase<DQ>& q,
                     const Eigen::MatrixBase<DV>& v, const Eigen::MatrixBase<DA>& inverse_mass,
                     const Eigen::MatrixBase<DOut>& out) noexcept {
    if (size() == 0 || !all_have_size(size(), target, target_velocity, feedforward, q, v, out) ||
        inverse_mass.rows() != size() || inverse_mass.cols() != size())
      return Status::SizeMismatch;
    if (!inputs_finite(target, target_velocity, feedforward, q, v) || !all_finite(inverse_mass))
      return Status::NonFiniteInput;
    fill_rhs(target, target_velocity, feedforward, q, v);
    const Scalar h = settings_.dt;
    const Eigen::Index n = size();
    for (Eigen::Index i = 0; i < n; ++i) {
      const Scalar row_gain = h * (h * settings_.kp.coeff(i) + settings_.kd.coeff(i));
      for (Eigen::Index k = 0; k < n; ++k)
        system_.coeffRef(i, k) =
            (i == k ? Scalar(1) : Scalar(0)) + row_gain * inverse_mass.coeff(i, k);
    }
    if (!solve_in_place()) return Status::InvalidProblem;
    return write_clamped(v, out);
  }

  const Settings& settings() const noexcept { return settings_; }  ///< the installed settings
  /// The empty snapshot restores trivially: SizeMismatch for a law without joints, else Ok.
  Status set_state(const State& /*snapshot*/) const noexcept {
    return size() == 0 ? Status::SizeMismatch : Status::Ok;
  }

 private:
  template <typename DT, typename DTV, typename DFF, typename DQ, typename DV>
  static bool inputs_finite(const Eigen::MatrixBase<DT>& target, const Eigen::MatrixBase<DTV>& tv,
                            const Eigen::MatrixBase<DFF>& ff, const Eigen::MatrixBase<DQ>& q,
                            const Eigen::MatrixBase<DV>& v) noexcept {
    return all_finite(target) && all_finite(tv) && all_finite(ff) && all_finite(q) && all_finite(v);
  }

  // rhs = c + ff + Kp (q* - q - h v) + Kd (v* - v)
  template <typename DT, typename DTV, typename DFF, typename DQ, typename DV>
  void fill_rhs(const Eigen::MatrixBase<DT>& target, const Eigen::MatrixBase<DTV>& tv,
                const Eigen::MatrixBase<DFF>& ff, const Eigen::MatrixBase<DQ>& q,
                const Eigen::MatrixBase<DV>& v) noexcept {
    const Scalar h = settings_.dt;
    for (Eigen::Index j = 0; j < size(); ++j)
      rhs_.coeffRef(j) = settings_.constant_effort.coeff(j) + ff.coeff(j) +
                         settings_.kp.coeff(j) * (target.coeff(j) - q.coeff(j) - h * v.coeff(j)) +
                         settings_.kd.coeff(j) * (tv.coeff(j) - v.coeff(j));
  }

  // Solves system_ x = rhs_ in place (rhs_ <- x); false when a pivot is zero.
  bool solve_in_place() noexcept {
    const Eigen::Index n = size();
    for (Eigen::Index k = 0; k < n; ++k) {
      Eigen::Index pivot = k;
      for (Eigen::Index i = k + 1; i < n; ++i)
        if (std::fabs(system_.coeff(i, k)) > std::fabs(system_.coeff(pivot, k))) pivot = i;
      if (!(std::fabs(system_.coeff(pivot, k)) > Scalar(0))) return false;
      if (pivot != k) {
        system_.row(k).swap(system_.row(pivot));
        std::swap(rhs_.coeffRef(k), rhs_.coeffRef(pivot));
      }
      for (Eigen::Index i = k + 1; i < n; ++i) {
        const Scalar factor = system_.coeff(i, k) / system_.coeff(k, k);
        for (Eigen::Index c = k; c < n; ++c) system_.coeffRef(i, c) -= factor * system_.coeff(k, c);
        rhs_.coeffRef(i) -= factor * rhs_.coeff(k);
      }
    }
    for (Eigen::Index k = n - 1; k >= 0; --k) {
      Scalar sum = rhs_.coeff(k);
      for (Eigen::Index c = k + 1; c < n; ++c) sum -= system_.coeff(k, c) * rhs_.coeff(c);
      rhs_.coeffRef(k) = sum / system_.coeff(k, k);
    }
    return true;
  }

  template <typename DV, typename DOut>
  Status write_clamped(const Eigen::MatrixBase<DV>& v,
                       const Eigen::MatrixBase<DOut>& out) noexcept {
    auto& effort = const_cast<Eigen::MatrixBase<DOut>&>(out);
    Status status = Status::Ok;
    for (Eigen::Index j = 0; j < size(); ++j) {
      Scalar lower, upper;
      detail::effort_interval(settings_.limits, j, v.coeff(j), lower, upper);
      const Scalar tau = clip(rhs_.coeff(j), lower, upper);
      if (!std::isfinite(tau)) {
        status = Status::NumericalOverflow;
        continue;
      }
      effort.coeffRef(j) = tau;
    }
    return status;
  }

  Settings settings_;
  MatrixType system_;
  VectorType rhs_;
};

}  // namespace claw
