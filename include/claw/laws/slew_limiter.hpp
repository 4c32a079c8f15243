// claw/laws/slew_limiter.hpp: setpoint rate limiter q*~ = clip(q*, s - S h, s + S h), s <- q*~,
// with the choice of where its state starts (the measurement by default; MuJoCo's two behaviours as
// switches).
#pragma once

#include <cmath>
#include <cstdint>

#include "claw/core/fields.hpp"
#include "claw/core/status.hpp"
#include "claw/core/time_step.hpp"
#include "claw/core/types.hpp"

namespace claw {

/// Where the limiter's state s is on the first step after a reset.
enum class SlewStart : std::uint8_t {
  FromMeasurement,  ///< s = q (measured): the setpoint ramps from where the joint is (default)
  FromZero,         ///< s = 0 and the limit applies at once (MuJoCo native <pid>: a known pitfall)
  PassFirst,        ///< the first step is not limited: s = q* (MuJoCo plugin, which skips t = 0)
};

namespace detail {

/// One joint of the slew limiter; `first` is true on the first step after a reset.
/// rate S [pos/s] may be +inf (no limit). Returns the limited setpoint and updates s.
template <typename Scalar>
inline Scalar slew_limit(Scalar target, Scalar measured, Scalar rate, Scalar h, bool first,
                         SlewStart start, Scalar& s) noexcept {
  if (first) {
    if (start == SlewStart::PassFirst) {
      s = target;
      return target;
    }
    s = (start == SlewStart::FromMeasurement) ? measured : Scalar(0);
  }
  const Scalar step = rate * h;
  const Scalar limited = clip(target, s - step, s + step);
  s = limited;
  return limited;
}

}  // namespace detail

/// Setpoint rate limiter for N joints: each call moves the output toward the target by at most
/// S h, so a step target becomes a ramp of slope exactly S [pos/s] until it meets the target.
/// Allocation-free after construction; noexcept.
template <typename Scalar_, int N_ = Dynamic, int MaxN_ = N_>
class SlewLimiter {
 public:
  using Scalar = Scalar_;                        ///< the scalar type (float or double)
  using VectorType = Vector<Scalar, N_, MaxN_>;  ///< one entry per joint
  static constexpr const char* kCommandQuantity = "limitedTarget";  ///< out, for logging

  /// What the limiter carries between calls: the last output and the first-step flag.
  struct State {
    VectorType limited;  ///< s, the last limited target [pos]
    bool first = true;   ///< the next call is a first step
  };

  SlewLimiter() : SlewLimiter(N_ == Dynamic ? 0 : N_) {}
  /// n joints, S = +inf (no limit), s = 0, first step pending (allocates here for dynamic sizes).
  explicit SlewLimiter(Eigen::Index n)
      : rate_(VectorType::Constant(n, infinity<Scalar>())), state_{VectorType::Zero(n), true} {}

  Eigen::Index size() const noexcept { return state_.limited.size(); }  ///< joint count n

  /// Rates S [pos/s] > 0 (+inf: no limit), first-step rule; InvalidParameter keeps the old ones.
  template <typename DRate>
  Status configure(const Eigen::MatrixBase<DRate>& rate, SlewStart start) noexcept {
    if (rate.size() != size()) return Status::SizeMismatch;
    for (Eigen::Index j = 0; j < size(); ++j)
      if (!(rate.coeff(j) > Scalar(0))) return Status::InvalidParameter;
    rate_ = rate;
    start_ = start;
    return Status::Ok;
  }

  /// Next call is a "first step" again.
  void reset() noexcept { state_.first = true; }

  /// out = clip(target, s - S h, s + S h); s <- out. h [s] follows check_time_step
  /// (NonFiniteInput, NegativeTimeStep; 0 <= h < 1e-9: Ok, out = the held value, i.e. the result
  /// of a step of length 0, and the state does not move). SizeMismatch when
  /// a vector's size is not size() or the limiter has no joints; nothing touched on any refusal.
  template <typename DT, typename DQ, typename DOut>
  Status update(const Eigen::MatrixBase<DT>& target, const Eigen::MatrixBase<DQ>& measured,
                Scalar h, const Eigen::MatrixBase<DOut>& out) noexcept {
    if (size() == 0 || !all_have_size(size(), target, measured, out)) return Status::SizeMismatch;
    bool skip = false;
    const Status step_status = check_time_step(h, skip);
    if (step_status != Status::Ok) return step_status;
    if (!all_finite(target) || !all_finite(measured)) return Status::NonFiniteInput;
    auto& o = const_cast<Eigen::MatrixBase<DOut>&>(out);
    if (skip) {  // no time passes: out = the held value (a step of length 0); the state stays
      for (Eigen::Index j = 0; j < size(); ++j) {
        Scalar held = state_.limited.coeff(j);
        o.coeffRef(j) = detail::slew_limit(target.coeff(j), measured.coeff(j), rate_.coeff(j),
                                           Scalar(0), state_.first, start_, held);
      }
      return Status::Ok;
    }
    for (Eigen::Index j = 0; j < size(); ++j)
      o.coeffRef(j) = detail::slew_limit(target.coeff(j), measured.coeff(j), rate_.coeff(j), h,
                                         state_.first, start_, state_.limited.coeffRef(j));
    state_.first = false;
    return Status::Ok;
  }

  /// The last limited target s per joint.
  const VectorType& limited() const noexcept { return state_.limited; }

  /// Snapshot (rollback, checkpoints): copy it, and set_state() restores the limiter bit for bit.
  const State& state() const noexcept { return state_; }
  /// Restores a snapshot; SizeMismatch / NonFiniteInput (NaN/Inf) refuse it, nothing touched.
  Status set_state(const State& snapshot) noexcept {
    if (size() == 0 || snapshot.limited.size() != size()) return Status::SizeMismatch;
    if (!all_finite(snapshot.limited)) return Status::NonFiniteInput;
    state_.limited = snapshot.limited;
    state_.first = snapshot.first;
    return Status::Ok;
  }
  /// Logging (core/fields.hpp): one quantity, s.
  static constexpr int state_quantity_count() noexcept { return 1; }
  /// The one quantity, q = 0: slewState, no slot (-1).
  static StateQuantity state_quantity(int /*q*/) noexcept { return {"slewState", -1}; }
  /// s of joint j [pos] (the one quantity, q = 0).
  Scalar state_value(int /*q*/, Eigen::Index j) const noexcept { return state_.limited.coeff(j); }

 private:
  VectorType rate_;
  State state_;
  SlewStart start_ = SlewStart::FromMeasurement;
};

}  // namespace claw
