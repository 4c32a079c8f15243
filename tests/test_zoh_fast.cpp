// tests/test_zoh_fast.cpp: the fast jiminy ZOH kernel (detail::zoh_joint_jiminy_fast, one division
// per joint in the common case) against the reference detail::zoh_joint_jiminy, bit for bit, on
// random and adversarial joint-steps; and PdController::update (fast kernel, vectorisable array
// loop) against the reference per-joint update, bit for bit.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "claw/blocks/pd_controller.hpp"
#include "claw/integrators/zoh.hpp"
#include "support/bits.hpp"
#include "support/infinity.hpp"

using claw::Status;
using claw::detail::JointStateBounds;

namespace {

using claw::detail::same_bits;  // one scalar, bit for bit

/// One joint-step: the state before, the bounds, the step.
template <typename S>
struct JointStep {
  S p, v, a;
  JointStateBounds<S> b;
  S dt;
};

/// Families of joint-steps, each counted apart (certain = the fast path decided everything).
enum Family : std::size_t {
  kRandom,
  kHorizonNearInteger,
  kPositionClipNearBound,
  kCancelNearBound,
  kFamilies
};
constexpr const char* kFamilyNames[kFamilies] = {"random", "horizon near an integer",
                                                 "position clip near its bound",
                                                 "cancellability clip near its bound"};

template <typename S>
struct Counts {
  std::array<long, kFamilies> certain{};
  std::array<long, kFamilies> exact_path{};
  long total() const {
    long sum = 0;
    for (std::size_t f = 0; f < kFamilies; ++f) sum += certain[f] + exact_path[f];
    return sum;
  }
};

/// Runs both kernels on `step` and REQUIREs identical bits; counts which path the fast one took.
template <typename S>
void check_step(const JointStep<S>& step, Family family, Counts<S>& counts) {
  S p_ref = step.p, v_ref = step.v, a_ref = step.a;
  claw::detail::zoh_joint_jiminy(p_ref, v_ref, a_ref, step.b, step.dt);
  const S inverse = claw::detail::jiminy_fast_inverse(step.b.a_max, step.dt);
  S p_fast = step.p, v_fast = step.v, a_fast = step.a;
  claw::detail::zoh_joint_jiminy_fast(p_fast, v_fast, a_fast, step.b, step.dt, inverse);
  S p_try, v_try, a_try;
  const bool certain = claw::detail::zoh_joint_jiminy_try_fast(
      step.p, step.v, step.a, step.b, step.dt, inverse, p_try, v_try, a_try);
  (certain ? counts.certain : counts.exact_path)[family]++;
  const bool ok =
      same_bits(p_ref, p_fast) && same_bits(v_ref, v_fast) && same_bits(a_ref, a_fast) &&
      (!certain || (same_bits(p_ref, p_try) && same_bits(v_ref, v_try) && same_bits(a_ref, a_try)));
  if (!ok) {
    INFO(kFamilyNames[family] << std::hexfloat << ": p " << step.p << " v " << step.v << " a "
                              << step.a << " dt " << step.dt << " bounds p [" << step.b.p_min
                              << ", " << step.b.p_max << "] v [" << step.b.v_min << ", "
                              << step.b.v_max << "] a [" << step.b.a_min << ", " << step.b.a_max
                              << "] inverse " << inverse << " certain " << certain << "\nreference "
                              << p_ref << " " << v_ref << " " << a_ref << "\nfast      " << p_fast
                              << " " << v_fast << " " << a_fast << "\ntry       " << p_try << " "
                              << v_try << " " << a_try);
    REQUIRE(ok);
  }
}

/// The reference's horizon and position deltas for a state (zoh_joint_jiminy, steps 3).
template <typename S>
struct Geometry {
  S horizon, delta_min, delta_max;
};

template <typename S>
Geometry<S> reference_geometry(S p, S v0, const JointStateBounds<S>& b, S dt) {
  S steps = claw::detail::jiminy_horizon_ratio(v0, b.a_max, dt);
  const S max_steps = S(9007199254740992.0);
  if (!(std::fabs(steps) <= max_steps)) steps = max_steps;
  const S k_dt = std::trunc(steps) * dt;
  const S horizon = (k_dt < dt) ? dt : k_dt;
  S delta_min = b.p_min - p, delta_max = b.p_max - p;
  if (horizon > dt) {
    const S drift = S(0.5) * (horizon * (horizon - dt)) * b.a_max;
    delta_min = delta_min - drift;
    delta_max = delta_max + drift;
  }
  return {horizon, delta_min, delta_max};
}

/// Random numbers for the generators.
template <typename S>
class Draw {
 public:
  explicit Draw(std::uint64_t seed) : rng_(seed) {}
  double unit() { return std::uniform_real_distribution<double>(0.0, 1.0)(rng_); }
  int integer(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(double p) { return unit() < p; }
  S sign() { return chance(0.5) ? S(1) : S(-1); }
  /// |x| log-uniform in [10^lo, 10^hi].
  S log_uniform(double lo, double hi) {
    return static_cast<S>(std::pow(10.0, lo + (hi - lo) * unit()));
  }
  /// x moved by `ulps` representable steps (toward +inf for ulps > 0).
  static S nudge(S x, int ulps) {
    for (; ulps > 0; --ulps) x = std::nextafter(x, kInfinity<S>);
    for (; ulps < 0; ++ulps) x = std::nextafter(x, -kInfinity<S>);
    return x;
  }
  S time_step() {
    static const double steps[] = {1e-3, 0.01, 1e-9, 0.04};
    return static_cast<S>(steps[integer(0, 3)]);
  }
  /// A position bound pair: finite, infinite on either side, degenerate, or swapped.
  void position_bounds(S& lo, S& hi) {
    const int kind = integer(0, 9);
    const S scale = log_uniform(-3, 3);
    lo = -scale * S(unit());
    hi = scale * S(unit());
    if (kind == 0) lo = -kInfinity<S>;
    if (kind == 1) hi = kInfinity<S>;
    if (kind == 2) lo = -kInfinity<S>, hi = kInfinity<S>;
    if (kind == 3) hi = lo;            // degenerate
    if (kind == 4) std::swap(lo, hi);  // lower > upper
    if (kind == 5) lo = hi = S(0);
  }
  void velocity_bounds(S& lo, S& hi) {
    const int kind = integer(0, 7);
    const S scale = log_uniform(-2, 3);
    lo = -scale * S(0.2 + unit());
    hi = scale * S(0.2 + unit());
    if (kind == 0) lo = -kInfinity<S>, hi = kInfinity<S>;
    if (kind == 1) hi = lo;
    if (kind == 2) std::swap(lo, hi);
  }
  /// amax: mostly a finite positive value over a wide range, or +inf, tiny, huge; rarely <= 0.
  S acceleration_upper() {
    const int kind = integer(0, 19);
    if (kind == 0) return kInfinity<S>;
    if (kind == 1) return std::numeric_limits<S>::min() * S(1 + 8 * unit());  // tiny
    if (kind == 2) return std::numeric_limits<S>::denorm_min();
    if (kind == 3) return std::numeric_limits<S>::max() / S(1 + 8 * unit());  // huge
    if (kind == 4) return -log_uniform(-2, 3);                                // lower > upper case
    if (kind == 5) return log_uniform(-30, -10);
    return log_uniform(-2, 6);
  }
  S acceleration_lower(S a_max) {
    const int kind = integer(0, 5);
    if (kind == 0) return -kInfinity<S>;
    if (kind == 1) return a_max;
    if (kind == 2) return std::fabs(a_max) * S(2);  // lower > upper
    return -log_uniform(-2, 6);
  }
  /// A velocity over many magnitudes (or exactly zero).
  S velocity() {
    const int kind = integer(0, 9);
    if (kind == 0) return S(0);
    if (kind == 1) return sign() * log_uniform(-300 * (sizeof(S) >= 8 ? 1.0 : 0.12), -20);
    if (kind == 2) return sign() * log_uniform(6, 300 * (sizeof(S) >= 8 ? 1.0 : 0.12));
    return sign() * log_uniform(-4, 3);
  }
  S acceleration() {
    const int kind = integer(0, 5);
    if (kind == 0) return sign() * log_uniform(6, 30);
    if (kind == 1) return S(0);
    return sign() * log_uniform(-2, 4);
  }
  /// A position inside [lo, hi] when finite and ordered, otherwise anywhere nearby.
  S position(S lo, S hi) {
    if (std::isfinite(lo) && std::isfinite(hi) && lo <= hi && chance(0.7))
      return lo + (hi - lo) * S(unit());
    const S centre = std::isfinite(lo) ? lo : (std::isfinite(hi) ? hi : S(0));
    return centre + sign() * log_uniform(-6, 2);
  }

  JointStep<S> random_step(S dt) {
    JointStep<S> s{};
    s.dt = dt;
    position_bounds(s.b.p_min, s.b.p_max);
    velocity_bounds(s.b.v_min, s.b.v_max);
    s.b.a_max = acceleration_upper();
    s.b.a_min = acceleration_lower(s.b.a_max);
    s.p = position(s.b.p_min, s.b.p_max);
    s.v = velocity();
    s.a = acceleration();
    return s;
  }

  /// Finite bounds and amax > 0 (the block's setting), v and a moderate: the common case.
  JointStep<S> ordinary_step(S dt) {
    JointStep<S> s{};
    s.dt = dt;
    const S range = log_uniform(-2, 1);
    s.b.p_min = -range * S(0.1 + unit());
    s.b.p_max = range * S(0.1 + unit());
    s.b.v_max = log_uniform(-1, 2);
    s.b.v_min = -s.b.v_max;
    s.b.a_max = log_uniform(-1, 4);
    s.b.a_min = -s.b.a_max;
    s.p = position(s.b.p_min, s.b.p_max);
    s.v = sign() * s.b.v_max * S(unit());
    s.a = sign() * s.b.a_max * S(2 * unit());
    return s;
  }

 private:
  std::mt19937_64 rng_;
};

/// |v0| so that (|v0| / amax) / dt sits within a few ulp of an integer n (both sides).
template <typename S>
JointStep<S> horizon_near_integer(Draw<S>& draw, S dt) {
  JointStep<S> s = draw.chance(0.5) ? draw.ordinary_step(dt) : draw.random_step(dt);
  if (!(s.b.a_max >= S(1e-2) && s.b.a_max <= S(1e6)) || draw.chance(0.1))
    s.b.a_max = draw.log_uniform(-1, 4);
  const double top = (sizeof(S) >= 8) ? 15.7 : 6.9;  // n up to ~2^52 / ~2^23
  const int pick = draw.integer(0, 3);
  const S n =
      pick == 0 ? S(draw.integer(1, 4)) : std::floor(draw.log_uniform(0, pick == 1 ? 3 : top));
  // Two ways to land near n: v0 = n amax dt rounded in either order.
  const S base = draw.chance(0.5) ? (n * s.b.a_max) * s.dt : (n * s.dt) * s.b.a_max;
  s.v = draw.sign() * Draw<S>::nudge(base, draw.integer(-48, 48));
  if (draw.chance(0.2)) s.b.a_min = -kInfinity<S>;
  return s;
}

/// v2 (forced through degenerate velocity bounds) within a few ulp of fl(dmin / h) or fl(dmax / h).
template <typename S>
JointStep<S> position_clip_near_bound(Draw<S>& draw, S dt) {
  JointStep<S> s = draw.chance(0.7) ? draw.ordinary_step(dt) : draw.random_step(dt);
  if (draw.chance(0.5) && std::isfinite(s.b.a_max))
    s.v = draw.sign() * draw.log_uniform(-3, 1) * s.b.a_max * s.dt;  // horizon of 0 to 10 steps
  if (draw.chance(0.3)) s.b.a_max = kInfinity<S>;
  const Geometry<S> g = reference_geometry(s.p, s.v, s.b, s.dt);
  const S bound = draw.chance(0.5) ? g.delta_min / g.horizon : g.delta_max / g.horizon;
  const S target = Draw<S>::nudge(bound, draw.integer(-12, 12));
  if (!std::isfinite(target)) return s;
  s.b.v_min = s.b.v_max = target;  // v2 = clip(v0 + a dt, target, target) = target
  return s;
}

/// v3 (forced as above) within a few ulp of the cancellability bound: v3^2 near dmax amax (v3 > 0)
/// or near -dmin amax (v3 < 0), plus the exact crossing where fl(max(d / v3, dt) amax) == |v3|.
template <typename S>
JointStep<S> cancel_near_bound(Draw<S>& draw, S dt) {
  JointStep<S> s = draw.ordinary_step(dt);
  // Position bounds wide enough that the position clip (v h vs d) stays loose, and v3 above
  // dt amax: d > amax dt^2 (the brake bound sqrt(d amax) then exceeds dt amax).
  s.b.a_max = draw.log_uniform(-1, 4);
  const S reach = s.b.a_max * s.dt * s.dt * draw.log_uniform(0.5, 5);
  s.b.p_min = -reach * S(0.5 + draw.unit());
  s.b.p_max = reach * S(0.5 + draw.unit());
  s.p = s.b.p_min + (s.b.p_max - s.b.p_min) * S(draw.unit());
  if (draw.chance(0.5)) s.v = S(0);  // small v0: horizon dt, no drift
  const Geometry<S> g = reference_geometry(s.p, s.v, s.b, s.dt);
  const bool up = draw.chance(0.5);
  const S room = up ? g.delta_max : -g.delta_min;
  if (!(room > S(0))) return s;
  S speed = std::sqrt(room * s.b.a_max);
  if (draw.chance(0.3)) {
    // The largest |v3| the reference leaves unclipped, fl(max(room / |v3|, dt) amax) >= |v3|
    // (for v3 < 0, dmin / v3 = room / |v3| exactly): the exact crossing, probed around below.
    const auto bound = [&](S x) {
      const S r = room / x;
      return ((r < s.dt) ? s.dt : r) * s.b.a_max;
    };
    for (int i = 0; i < 64 && bound(speed) < speed; ++i) speed = std::nextafter(speed, S(0));
    for (int i = 0; i < 64; ++i) {
      const S faster = std::nextafter(speed, kInfinity<S>);
      if (!(bound(faster) >= faster)) break;
      speed = faster;
    }
  }
  const S target = (up ? S(1) : S(-1)) * Draw<S>::nudge(speed, draw.integer(-16, 16));
  s.b.v_min = s.b.v_max = target;
  return s;
}

template <typename S>
Counts<S> run_kernel_equivalence(std::uint64_t seed, long random_steps, long adversarial_steps) {
  Draw<S> draw(seed);
  Counts<S> counts;
  for (long i = 0; i < random_steps; ++i) {
    const S dt = draw.time_step();
    check_step(draw.chance(0.5) ? draw.random_step(dt) : draw.ordinary_step(dt), kRandom, counts);
  }
  for (long i = 0; i < adversarial_steps; ++i) {
    check_step(horizon_near_integer(draw, draw.time_step()), kHorizonNearInteger, counts);
    check_step(position_clip_near_bound(draw, draw.time_step()), kPositionClipNearBound, counts);
    check_step(cancel_near_bound(draw, draw.time_step()), kCancelNearBound, counts);
  }
  return counts;
}

template <typename S>
void report_and_check_coverage(const Counts<S>& counts) {
  for (std::size_t f = 0; f < kFamilies; ++f) {
    INFO(kFamilyNames[f] << ": " << counts.certain[f] << " fast, " << counts.exact_path[f]
                         << " exact path");
    // Each family must exercise both sides of the fast path's decision.
    CHECK(counts.certain[f] > 0);
    CHECK(counts.exact_path[f] > 0);
  }
}

}  // namespace

TEST_CASE("jiminy_fast_inverse: 0 for amax = inf, NaN where the fast path is not valid",
          "[zoh][fast]") {
  using claw::detail::jiminy_fast_inverse;
  REQUIRE(jiminy_fast_inverse(kInfinity<double>, 1e-3) == 0.0);
  REQUIRE(jiminy_fast_inverse(100.0, 1e-3) == 1.0 / (100.0 * 1e-3));
  REQUIRE(std::isnan(jiminy_fast_inverse(0.0, 1e-3)));
  REQUIRE(std::isnan(jiminy_fast_inverse(-1.0, 1e-3)));
  REQUIRE(std::isnan(jiminy_fast_inverse(std::nan(""), 1e-3)));
  REQUIRE(std::isnan(jiminy_fast_inverse(1e-300, 1e-3)));  // amax dt below 2^-500
  REQUIRE(std::isnan(jiminy_fast_inverse(1e308, 10.0)));   // amax dt overflows
  REQUIRE(std::isnan(jiminy_fast_inverse(1.0, 0.0)));
  REQUIRE(std::isnan(jiminy_fast_inverse(1.0, 1e300)));
  REQUIRE(std::isnan(jiminy_fast_inverse(1e-25f, 1e-3f)));  // float: below 2^-60
  REQUIRE(jiminy_fast_inverse(kInfinity<float>, 1e-3f) == 0.0f);
}

TEST_CASE("fast jiminy kernel equals the reference bit for bit on 1.2e6 double joint-steps",
          "[zoh][fast]") {
  // 600k random joint-steps + 3 x 200k adversarial ones.
  const Counts<double> counts = run_kernel_equivalence<double>(0xFA57C1A4ULL, 600000, 200000);
  REQUIRE(counts.total() == 1200000);
  report_and_check_coverage(counts);
}

TEST_CASE("fast jiminy kernel equals the reference bit for bit on float joint-steps",
          "[zoh][fast]") {
  const Counts<float> counts = run_kernel_equivalence<float>(0xF1047ULL, 100000, 40000);
  REQUIRE(counts.total() == 220000);
  report_and_check_coverage(counts);
}

namespace {

/// The jiminy-mode PdController::update before the fast kernel: per joint, a <- target,
/// zoh_joint_jiminy, pd_joint_effort (an overflowing joint keeps its out; a joint whose state
/// overflows keeps its whole state, fuzzing finding, tests/test_regressions.cpp).
template <typename S, typename StateT, typename BoundsT, typename VecT>
Status reference_update(StateT& state, const BoundsT& bounds, const VecT& kp, const VecT& kd,
                        const VecT& limit, S dt, const VecT& q, const VecT& v, const VecT& target,
                        VecT& out) {
  Status status = Status::Ok;
  for (Eigen::Index j = 0; j < state.cols(); ++j) {
    const S a_before = state(2, j);
    state(2, j) = target(j);
    const auto b = claw::detail::joint_bounds(bounds.lower, bounds.upper, j);
    if (!claw::detail::zoh_joint_or_hold(
            state(0, j), state(1, j), state(2, j),
            [&](S& p, S& w, S& a) { claw::detail::zoh_joint_jiminy(p, w, a, b, dt); })) {
      state(2, j) = a_before;
      status = Status::NumericalOverflow;
    }
    if (!claw::detail::pd_joint_effort(state(0, j), state(1, j), q(j), v(j), kp(j), kd(j), limit(j),
                                       out(j)))
      status = Status::NumericalOverflow;
  }
  return status;
}

/// A valid block setting (lower <= upper, amax > 0) and a state with some joints built to sit on
/// the fast path's decision boundaries, for n joints.
template <typename S, int N>
void random_block(Draw<S>& draw, Eigen::Index n,
                  typename claw::PdController<S, N>::Settings& settings,
                  claw::StateMatrix<S, N>& state) {
  settings.bounds.lower.resize(3, n);
  settings.bounds.upper.resize(3, n);
  settings.kp.resize(n);
  settings.kd.resize(n);
  settings.effort_limit.resize(n);
  state.resize(3, n);
  settings.control_dt = draw.time_step();
  const S dt = settings.control_dt;
  for (Eigen::Index j = 0; j < n; ++j) {
    const int kind = draw.integer(0, 9);
    JointStep<S> s = kind == 0   ? horizon_near_integer(draw, dt)
                     : kind == 1 ? position_clip_near_bound(draw, dt)
                     : kind == 2 ? cancel_near_bound(draw, dt)
                     : kind == 3 ? draw.random_step(dt)
                                 : draw.ordinary_step(dt);
    // The block holds a finite state; make the bounds valid for it: ordered, amax > 0.
    if (!std::isfinite(s.p) || !std::isfinite(s.v) || !std::isfinite(s.a))
      s = draw.ordinary_step(dt);
    if (s.b.p_min > s.b.p_max) std::swap(s.b.p_min, s.b.p_max);
    if (s.b.v_min > s.b.v_max) std::swap(s.b.v_min, s.b.v_max);
    if (!(s.b.a_max > S(0))) s.b.a_max = draw.log_uniform(-1, 4);
    if (s.b.a_min > s.b.a_max) s.b.a_min = -s.b.a_max;
    // Empty ranges (a lower bound +inf, an upper bound -inf) are refused (a fuzzing finding,
    // tests/test_regressions.cpp): open them.
    for (S* lo : {&s.b.p_min, &s.b.v_min, &s.b.a_min})
      if (*lo == kInfinity<S>) *lo = -kInfinity<S>;
    for (S* hi : {&s.b.p_max, &s.b.v_max})
      if (*hi == -kInfinity<S>) *hi = kInfinity<S>;
    if (kind == 4)
      s.b.p_min = -kInfinity<S>, s.b.p_max = kInfinity<S>;  // unbounded joints in the batch
    if (kind == 5 && std::isfinite(s.b.p_max))
      s.p = s.b.p_max + draw.log_uniform(-3, 0);  // outside
    settings.bounds.lower.col(j) << s.b.p_min, s.b.v_min, s.b.a_min;
    settings.bounds.upper.col(j) << s.b.p_max, s.b.v_max, s.b.a_max;
    state.col(j) << s.p, s.v, s.a;
    settings.kp(j) = draw.log_uniform(-1, 3);
    settings.kd(j) = draw.chance(0.1) ? S(0) : draw.log_uniform(-3, 0);
    settings.effort_limit(j) = draw.chance(0.1) ? kInfinity<S> : draw.log_uniform(0, 3);
  }
}

/// Joint-steps of compare_block runs, by the path the fast kernel takes for them.
struct PathCounts {
  long fast = 0, exact = 0;
};

/// Runs the block (configure, set_command_state, update through `call`) and the reference on the
/// same input for `steps` periods; REQUIREs identical state, out and status. `out_is_target`: the
/// call passes out as the target too (so out starts as the target). Adds to `paths`.
template <typename S, int N, typename Call>
void compare_block(Draw<S>& draw, Eigen::Index n, int steps, Call&& call, PathCounts& paths,
                   bool out_is_target = false) {
  using Block = claw::PdController<S, N>;
  using Vec = typename Block::VectorType;
  typename Block::Settings settings;
  claw::StateMatrix<S, N> state;
  random_block<S, N>(draw, n, settings, state);
  Block block(n);
  REQUIRE(block.configure(settings) == Status::Ok);
  REQUIRE(block.set_command_state(state) == Status::Ok);
  claw::StateMatrix<S, N> reference = state;
  for (int k = 0; k < steps; ++k) {
    Vec q(n), v(n), target(n);
    for (Eigen::Index j = 0; j < n; ++j) {
      q(j) = reference(0, j) + draw.sign() * draw.log_uniform(-4, 0);
      v(j) = reference(1, j) + draw.sign() * draw.log_uniform(-4, 1);
      if (!std::isfinite(q(j))) q(j) = S(0);  // the state overflowed (extreme float joints)
      if (!std::isfinite(v(j))) v(j) = S(0);
      // First period: the generated (possibly adversarial) acceleration; then fresh ones.
      target(j) = (k == 0) ? state(2, j) : draw.acceleration();
    }
    for (Eigen::Index j = 0; j < n; ++j) {
      const auto b = claw::detail::joint_bounds(settings.bounds.lower, settings.bounds.upper, j);
      S p1, v1, a1;
      const bool certain = claw::detail::zoh_joint_jiminy_try_fast(
          reference(0, j), reference(1, j), target(j), b, settings.control_dt,
          claw::detail::jiminy_fast_inverse(b.a_max, settings.control_dt), p1, v1, a1);
      ++(certain ? paths.fast : paths.exact);
    }
    Vec out_block = Vec::Constant(n, S(7));
    if (out_is_target) out_block = target;
    Vec out_reference = out_block;
    const Status expected =
        reference_update(reference, settings.bounds, settings.kp, settings.kd,
                         settings.effort_limit, settings.control_dt, q, v, target, out_reference);
    const Status got = call(block, q, v, target, out_block);
    INFO("n " << n << " step " << k);
    REQUIRE(got == expected);
    REQUIRE(claw_test::same_bits(block.command_state(), reference));
    REQUIRE(claw_test::same_bits(out_block, out_reference));
  }
}

}  // namespace

TEST_CASE("PdController::update (fast kernel) equals the reference update bit for bit",
          "[zoh][fast][pd_controller]") {
  Draw<double> draw(0xB10CC0DEULL);
  const auto plain = [](auto& block, const auto& q, const auto& v, const auto& target, auto& out) {
    return block.update(q, v, target, out);
  };
  // Each section must see joints on both paths, so that the array loop's fallback (restore the
  // state, run the reference) is exercised too.
  PathCounts paths;
  SECTION("contiguous vectors, many sizes (chunk boundaries at 64)") {
    for (Eigen::Index n : {1, 2, 3, 7, 63, 64, 65, 127, 128, 129, 1000})
      compare_block<double, claw::Dynamic>(draw, n, 6, plain, paths);
  }
  SECTION("fixed size 7, double and float") {
    for (int rep = 0; rep < 200; ++rep) compare_block<double, 7>(draw, 7, 4, plain, paths);
    Draw<float> draw_f(0xF7ULL);
    for (int rep = 0; rep < 200; ++rep) compare_block<float, 7>(draw_f, 7, 4, plain, paths);
    for (int rep = 0; rep < 20; ++rep)
      compare_block<float, claw::Dynamic>(draw_f, 300, 3, plain, paths);
  }
  SECTION("strided inputs and an output that aliases an input take the per-joint path") {
    const auto strided = [](auto& block, const auto& q, const auto& v, const auto& target,
                            auto& out) {
      Eigen::MatrixXd rows(3, q.size());
      rows.row(0) = q.transpose();
      rows.row(1) = v.transpose();
      rows.row(2) = target.transpose();
      return block.update(rows.row(0).transpose(), rows.row(1).transpose(), rows.row(2).transpose(),
                          out);
    };
    compare_block<double, claw::Dynamic>(draw, 100, 5, strided, paths);
    const auto aliased = [](auto& block, const auto& q, const auto& v, const auto& target,
                            auto& out) {
      out = target;  // out doubles as the target acceleration
      return block.update(q, v, out, out);
    };
    compare_block<double, claw::Dynamic>(draw, 100, 5, aliased, paths, true);
  }
  INFO(paths.fast << " joint-steps on the fast path, " << paths.exact << " on the exact path");
  CHECK(paths.fast > 0);
  CHECK(paths.exact > 0);
}

TEST_CASE("PdController::update (fast path) holds out on overflow and refuses NaN input untouched",
          "[zoh][fast][pd_controller]") {
  const Eigen::Index n = 130;  // three chunks
  claw::PdControllerXd block(n);
  claw::PdControllerXd::Settings settings;
  settings.bounds.lower =
      claw::StateMatrix<double, claw::Dynamic>::Constant(3, n, -kInfinity<double>);
  settings.bounds.upper =
      claw::StateMatrix<double, claw::Dynamic>::Constant(3, n, kInfinity<double>);
  settings.bounds.lower.row(2).setConstant(-100.0);
  settings.bounds.upper.row(2).setConstant(100.0);
  settings.kp = Eigen::VectorXd::Constant(n, 1e300);
  settings.kd = Eigen::VectorXd::Constant(n, 0.01);
  settings.effort_limit = Eigen::VectorXd::Constant(n, kInfinity<double>);
  settings.control_dt = 1e-3;
  REQUIRE(block.configure(settings) == Status::Ok);
  Eigen::VectorXd q = Eigen::VectorXd::Zero(n), v = Eigen::VectorXd::Zero(n),
                  a = Eigen::VectorXd::Zero(n), out = Eigen::VectorXd::Constant(n, 5.0);
  q(70) = -1e300;  // kp (q* - q) overflows for joint 70 only
  REQUIRE(block.update(q, v, a, out) == Status::NumericalOverflow);
  REQUIRE(out(70) == 5.0);
  REQUIRE(out(69) == 0.0);
  REQUIRE(out(71) == 0.0);
  const auto state_before = block.command_state();
  const Eigen::VectorXd out_before = out;
  for (Eigen::Index bad_index : {Eigen::Index(0), Eigen::Index(64), n - 1})
    for (double bad : {std::nan(""), kInfinity<double>, -kInfinity<double>}) {
      Eigen::VectorXd a_bad = a;
      a_bad(bad_index) = bad;
      REQUIRE(block.update(q, v, a_bad, out) == Status::NonFiniteInput);
      REQUIRE(claw_test::same_bits(block.command_state(), state_before));
      REQUIRE(claw_test::same_bits(out, out_before));
    }
}
