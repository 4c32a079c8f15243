// tests/test_regressions.cpp: reduced inputs the fuzz targets (tests/fuzz) found for the laws,
// blocks and small QPs, each with the contract it pins.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "claw/blocks/pd_adapter.hpp"
#include "claw/blocks/pd_controller.hpp"
#include "claw/integrators/zoh.hpp"
#include "claw/laws/effort_clamp.hpp"
#include "claw/laws/pid.hpp"
#include "claw/solvers/qp.hpp"
#include "support/infinity.hpp"
#include "support/solver_instances.hpp"

using claw::Status;
using claw::ZohMode;

namespace {

constexpr double kMax = std::numeric_limits<double>::max();
constexpr double kDenormMin = std::numeric_limits<double>::denorm_min();

using State1 = claw::StateMatrix<double, 1>;

State1 column(double p, double v, double a) {
  State1 s;
  s << p, v, a;
  return s;
}

bool finite(const State1& s) { return s.allFinite(); }

}  // namespace

TEST_CASE("fuzz finding: integrate_zoh overflow holds the joint instead of writing Inf",
          "[regression][zoh]") {
  // Unbounded joint at p = v = max: p + dt v overflowed to +inf and the state became non-finite.
  claw::StateMatrix<double, 2> state;
  state << kMax, 1.0, kMax, 2.0, 0.0, 3.0;
  claw::StateMatrix<double, 2> lower = claw::StateMatrix<double, 2>::Constant(-kInf);
  claw::StateMatrix<double, 2> upper = claw::StateMatrix<double, 2>::Constant(kInf);
  for (ZohMode mode : {ZohMode::JiminyCompatible, ZohMode::Viable}) {
    claw::StateMatrix<double, 2> s = state;
    REQUIRE(claw::integrate_zoh(s, lower, upper, 10.0, mode) == Status::NumericalOverflow);
    CHECK(s.col(0) == state.col(0));  // held
    CHECK(s.col(1).allFinite());
    CHECK(s(1, 1) == 2.0 + 10.0 * 3.0);  // the other joint is integrated
  }
}

TEST_CASE("fuzz finding: viable ZOH keeps its bounds when decel dt^2 overflows",
          "[regression][zoh]") {
  // amin = -max/4, dt = 1e9: c = decel dt^2 = inf, then decel dt * 0 = NaN, a NaN speed limit
  // let the joint through the upper position bound (p reached 5.9e14 > 1).
  State1 lower = column(-999847409781.03308, -0.63436331731136031, -4.4942328371557893e+307);
  State1 upper = column(0.99987792782482643, 1e9, 646845197222.85791);
  State1 s = column(-203890452189.84607, 0.0, 0.00058596169985503923);
  for (int k = 0; k < 24; ++k) {
    REQUIRE(claw::integrate_zoh(s, lower, upper, 1e9, ZohMode::Viable) == Status::Ok);
    REQUIRE(finite(s));
    REQUIRE(s(0) <= upper(0));
    REQUIRE(s(0) >= lower(0));
  }
}

TEST_CASE("fuzz finding: viable ZOH keeps its bounds when decel dt^2 underflows",
          "[regression][zoh]") {
  // amax = denorm_min: c = amax dt^2 is 0 (or subnormal) and margin / c = inf, which made the
  // stoppable speed inf (no limit): p went to -1.057 < -1.
  State1 lower = column(-1.0, -kInf, -0.70312046997787436);
  State1 upper = column(1.0, kInf, kDenormMin);
  State1 s = column(-0.94726482032501713, 0.0, -0.24803540093080034);
  REQUIRE(claw::integrate_zoh(s, lower, upper, 0.66408789196612505, ZohMode::Viable) == Status::Ok);
  CHECK(s(0) >= -1.0);
  // And with margin / c past the largest double (c normal): p went below its lower bound.
  State1 lower2 = column(-0.59215686274509793, -1e9, -4.4942328371557893e+307);
  State1 upper2 = column(1e9, 1e9, kDenormMin);
  State1 s2 = column(796139467.33941829, 0.0, -1.3407807929942596e+154);
  for (int k = 0; k < 20; ++k) {
    REQUIRE(claw::integrate_zoh(s2, lower2, upper2, 1e9, ZohMode::Viable) == Status::Ok);
    REQUIRE(s2(0) >= lower2(0));
    REQUIRE(s2(0) <= upper2(0));
  }
}

TEST_CASE("fuzz finding: viable ZOH braking plan keeps a rounding reserve (float, bound near 0)",
          "[regression][zoh]") {
  // Braking from v = -0.5 toward p_min = -6.16e-7 at amax = 0.5, dt = 0.5: a planned speed half an
  // ulp of 0.25 too fast takes the joint past p_min by 1e-8 two steps later, far more than any
  // rounding of |p| ~ 6e-7. Pins the plan's reserve of 16 eps of the margin.
  using StateF = claw::StateMatrix<float, 1>;
  StateF lower, upper, s;
  lower << -6.1568630371766631e-07f, -0.5f, -0.5f;
  upper << 0.5f, 0.5f, 0.5f;
  s << 0.49999997019767761f, 0.0f, -1736441728.0f;
  for (int k = 0; k < 24; ++k) {
    REQUIRE(claw::integrate_zoh(s, lower, upper, 0.5f, ZohMode::Viable) == Status::Ok);
    REQUIRE(s(0) >= lower(0));
    REQUIRE(s(0) <= upper(0));
    s(2) = -0.5f;  // keep pushing toward the lower bound
  }
  CHECK(s(1) == 0.0f);  // stopped
}

TEST_CASE("fuzz finding: viable ZOH stoppable speed does not overflow to inf (no limit)",
          "[regression][zoh]") {
  // (a) float, r = margin / c = 2.1e38: sqrt(2 r) overflowed; the speed limit toward p_max with a
  // deceleration of denorm_min is 2.9e-17, not inf (the joint jumped to p = 1e18).
  // The long-horizon speed sqrt(2 margin decel) = 2.9e-17 is no limit either: braking 1.4e-36 per
  // step from there rounds to no braking at all. The limit is u (1 - eps u / (2 s)) with
  // u = s / eps (at most half of each brake step lost to rounding), s = decel dt.
  const float decel = std::numeric_limits<float>::denorm_min();
  const float w = claw::detail::max_stoppable_speed(297340567552.0f, decel, 1e9f);
  const float s_f = decel * 1e9f;
  const float eps_f = std::numeric_limits<float>::epsilon();
  CHECK(w == Approx(0.5 * double(s_f) / double(eps_f)).epsilon(1e-6));
  CHECK(double(w) < std::sqrt(2.0 * 297340567552.0 * double(decel)));
  // (b) double, margin and decel dt near the largest double: margin/dt + decel dt n(n+1)/2
  // overflowed before the division by n + 1.
  const double w2 = claw::detail::max_stoppable_speed(5.2476777539730793e+307, kMax, 0.5);
  REQUIRE(std::isfinite(w2));
  // n = 1: w = margin' / (2 dt) + decel dt / 2 with margin' = margin (1 - 16 eps), the rounding
  // reserve, and two steps travel dt (2 w - decel dt) = margin'.
  const double reserve = 1.0 - 16.0 * std::numeric_limits<double>::epsilon();
  CHECK(w2 == Approx(5.2476777539730793e+307 * reserve + 0.25 * kMax).epsilon(1e-15));
  // (c) float, margin / dt = 4.6e38 overflowed before the division by n + 1 = 3: the limit was
  // inf and the joint, braking at -max from p = 1.96e38, was let through at -max and ran past 0.
  const float fmax = std::numeric_limits<float>::max();
  const float dt3 = 0.42745101451873779f, margin3 = 1.9596910808590332e+38f;
  const float w3 = claw::detail::max_stoppable_speed(margin3, fmax, dt3);
  REQUIRE(std::isfinite(w3));
  // n = 2 braking steps after the one at w: travel dt (3 w - 3 decel dt) <= margin, and w is the
  // largest such speed up to the rounding reserve.
  const double travel = double(dt3) * (3.0 * double(w3) - 3.0 * double(fmax) * double(dt3));
  CHECK(travel <= double(margin3));
  CHECK(travel >= double(margin3) * (1 - 1e-5));
  State1 lower = column(-9.5971618219272133e-118, -kMax, -kMax);
  State1 upper = column(kMax, kMax, kMax);
  State1 s = column(5.2476777539730793e+307, -1.2812969696518666e+308, -8.6536012668372278e+307);
  REQUIRE(claw::integrate_zoh(s, lower, upper, 0.5, ZohMode::Viable) == Status::Ok);
  CHECK(s(0) >= lower(0));  // was -3.3e307: the limit was inf
}

TEST_CASE(
    "fuzz finding: viable ZOH with subnormal bounds stays inside (rounding in denorm_min steps)",
    "[regression][zoh]") {
  State1 lower = column(-6.0992403979101886e-320, -1e-53, -2.563716018557957e-69);
  State1 upper = column(6.0992403979101886e-320, 1e-53, 6.0992403979101886e-320);
  State1 s = column(-5.3373911720229864e-320, -4.575047880489943e-320, 6.0987463322643473e-320);
  REQUIRE(claw::integrate_zoh(s, lower, upper, 0.5, ZohMode::Viable) == Status::Ok);
  CHECK(s(0) >= lower(0));  // passed it by 2 denorm_min
  CHECK(s(0) <= upper(0));
}

TEST_CASE("fuzz finding: viable ZOH with a subnormal deceleration brakes as the step rounds",
          "[regression][zoh]") {
  // float, amin = -denorm_min, p near a subnormal p_max, pushed toward it from rest.
  // (a) dt = 985: decel dt^2 is subnormal, so the long-horizon root sqrt(2 margin decel) - decel dt
  // / 2 is used, and (decel / 2) rounds to 0: without the half step a speed limit of 1.4e-43 lets
  // the joint travel 1.3e-40 past a margin of 6.6e-42. (b) dt = 6.16: the brake step amin dt rounds
  // to -6 denorm_min, not 6.16; planned with 6.16, 2.6% less braking per step carries the joint
  // 1.4e-40 past p_max after 14 steps. Pins the plan's use of s = fl(decel dt), the brake the step
  // applies.
  using StateF = claw::StateMatrix<float, 1>;
  StateF lower, upper;
  lower << -0x1.81c8p-136f, -0x1.81c8p-136f, -0x1p-149f;
  upper << 0x1.81c8p-136f, 0x1.81c8p-136f, 0x1.6849b8p-47f;
  // (c) dt = 6.12: the plan's speed, subnormal, can round up by half a denorm_min; braking from
  // above the plan never gets back under it, and (n + 1) dt / 2 denorm_min more travel would pass
  // p_max. Pins the plan's 2 denorm_min of reserve.
  for (const float dt : {0x1.ec85e8p+9f, 0x1.8a0a0cp+2f, 0x1.878a06p+2f}) {
    INFO("dt " << dt);
    StateF s;
    s << 0x1.db1p-137f, 0.0f, 0.5f;
    const float margin = upper(0) - s(0);
    const float w = claw::detail::max_stoppable_speed(margin, -lower(2), dt);
    CHECK(double(dt) * double(w) <= double(margin));  // one step at w stays inside
    for (int k = 0; k < 40; ++k) {
      REQUIRE(claw::integrate_zoh(s, lower, upper, dt, ZohMode::Viable) == Status::Ok);
      REQUIRE(s(0) <= upper(0));
      REQUIRE(s(0) >= lower(0));
      s(2) = 0.5f;  // keep pushing toward the upper bound
    }
  }
}

TEST_CASE("fuzz finding: viable ZOH stoppable speed for a margin above half the largest double",
          "[regression][zoh]") {
  // (a) p = -0.72 max, p_max ~ 0, braking at 1.3e-117: r = margin / c overflows, and the
  // long-horizon root took sqrt(2 margin) = sqrt(inf): no speed limit, the joint ran past p_max in
  // five steps.
  State1 lower = column(-kMax, -kMax, -0x1.35c74389e58b6p-389);
  State1 upper = column(0x1.8e4a5a3e4dccp-464, kMax, kMax);
  State1 s = column(-0x1.6e696e696e696p+1023, 0.0, kMax / 4);
  // The finite answer is the rounding-limited one, s / (2 eps) with s = decel dt (braking 6.6e-118
  // per step from the long-horizon speed 5e95 would round to no braking at all).
  const double w = claw::detail::max_stoppable_speed(upper(0) - s(0), -lower(2), 0.5);
  REQUIRE(std::isfinite(w));
  const double s_d = -lower(2) * 0.5;
  CHECK(w == Approx(0.5 * s_d / std::numeric_limits<double>::epsilon()).epsilon(1e-12));
  for (int k = 0; k < 24; ++k) {
    REQUIRE(claw::integrate_zoh(s, lower, upper, 0.5, ZohMode::Viable) == Status::Ok);
    REQUIRE(s(0) <= upper(0));
    s(2) = kMax / 4;  // keep pushing toward the upper bound
  }
  // (b) p = max, p_min ~ 0, amax = 0.5: sqrt(2 margin) was inf again; commanded -max, the joint
  // passed p_min two steps later.
  State1 lower2 = column(-0x1p-52, -kMax, -kMax);
  State1 upper2 = column(kMax, kMax, 0.5);
  State1 s2 = column(kMax, 0.0, -kMax);
  for (int k = 0; k < 24; ++k) {
    REQUIRE(claw::integrate_zoh(s2, lower2, upper2, 0.5, ZohMode::Viable) == Status::Ok);
    REQUIRE(s2(0) >= lower2(0));
    s2(2) = -kMax;
  }
  // (c) finite bounds more than the largest double apart: p_max - p is inf, which meant no limit;
  // the largest double is the margin instead. With a deceleration of 1e-100 the stoppable speed is
  // about 1e104, and the joint commanded at +max must still stop before p_max.
  State1 lower3 = column(-0.9 * kMax, -kMax, -1e-100);
  State1 upper3 = column(0.9 * kMax, kMax, kMax);
  State1 s3 = column(-0.9 * kMax, 0.0, kMax);
  for (int k = 0; k < 24; ++k) {
    REQUIRE(claw::integrate_zoh(s3, lower3, upper3, 1.0, ZohMode::Viable) == Status::Ok);
    REQUIRE(s3(0) <= upper3(0));
    REQUIRE(s3(1) <= 1e105);  // was max: the plan had no speed limit
    s3(2) = kMax;
  }
}

TEST_CASE("fuzz finding: PdController holds a joint whose command state overflows",
          "[regression][pd]") {
  for (ZohMode mode : {ZohMode::JiminyCompatible, ZohMode::Viable}) {
    claw::PdController<double, 2> pd;
    auto settings = pd.settings();
    settings.kp.setConstant(1.0);
    settings.kd.setConstant(0.0);
    settings.effort_limit.setConstant(kInf);
    settings.bounds.lower.setConstant(-kInf);
    settings.bounds.upper.setConstant(kInf);
    settings.bounds.lower.row(2).setConstant(-1e300);
    settings.bounds.upper.row(2).setConstant(1e300);
    settings.control_dt = 1.0;
    settings.mode = mode;
    REQUIRE(pd.configure(settings) == Status::Ok);
    claw::StateMatrix<double, 2> start;
    start << kMax, 0.0, kMax, 0.0, 0.0, 0.0;
    REQUIRE(pd.set_command_state(start) == Status::Ok);
    const Eigen::Vector2d q(0.0, 0.0), v(0.0, 0.0), target(0.0, 1.0);
    Eigen::Vector2d tau(7.0, 7.0);
    CHECK(pd.update(q, v, target, tau) == Status::NumericalOverflow);
    CHECK(pd.command_state().allFinite());
    CHECK(pd.command_state().col(0) == start.col(0));  // held, acceleration included
    CHECK(tau(0) == kMax);  // the held joint's effort, kp (p* - q), from its held state
    CHECK(tau(1) == pd.command_state()(0, 1));  // kp (p* - 0)
    // The free function agrees (state integrated, the overflowing joint held).
    claw::StateMatrix<double, 2> s = start;
    s.row(2) = target.transpose();
    Eigen::Vector2d tau_f(7.0, 7.0);
    CHECK(claw::pd_controller(q, v, s, settings.bounds.lower, settings.bounds.upper, settings.kp,
                              settings.kd, settings.effort_limit, 1.0, tau_f,
                              mode) == Status::NumericalOverflow);
    CHECK(s.topRows(2) == pd.command_state().topRows(2));
  }
}

TEST_CASE("fuzz finding: bounds [+inf, +inf] are refused, not clipped into",
          "[regression][zoh][pd]") {
  // validate_state_bounds accepted lower = upper = +inf; PdController::configure then clipped the
  // command state into it: p = +inf from finite inputs.
  claw::PdController<double, 1> pd;
  auto settings = pd.settings();
  settings.bounds.lower << kInf, -1.0, -1.0;
  settings.bounds.upper << kInf, 1.0, 1.0;
  CHECK(pd.configure(settings) == Status::InvalidBounds);
  CHECK(pd.command_state().allFinite());
  settings.bounds.lower << -1.0, -1.0, -1.0;
  settings.bounds.upper << -kInf, 1.0, 1.0;
  CHECK(claw::validate_state_bounds(settings.bounds.lower, settings.bounds.upper) ==
        Status::InvalidBounds);
  settings.bounds.upper << kInf, 1.0, 1.0;  // an absent upper bound is fine
  CHECK(pd.configure(settings) == Status::Ok);
}

TEST_CASE("fuzz finding: pd_adapter and PdAdapter hold a joint whose output overflows",
          "[regression][pd]") {
  // (action - p) / step_dt = 2 max / 0.04 overflowed to inf with unbounded velocities.
  claw::StateMatrix<double, 2> state;
  state << -kMax, 0.0, 0.0, 0.0, 0.0, 0.0;
  const claw::StateMatrix<double, 2> lower = claw::StateMatrix<double, 2>::Constant(-kInf);
  const claw::StateMatrix<double, 2> upper = claw::StateMatrix<double, 2>::Constant(kInf);
  const Eigen::Vector2d action(kMax, 1.0);
  for (bool instantaneous : {false, true}) {
    claw::StateMatrix<double, 2> s = state;
    Eigen::Vector2d out(5.0, 5.0);
    CHECK(claw::pd_adapter(action, claw::PdActionOrder::Position, s, lower, upper, instantaneous,
                           Eigen::VectorXd(0), 0.04, out) == Status::NumericalOverflow);
    CHECK(s.col(0) == state.col(0));
    CHECK(out(0) == 5.0);
    CHECK(s.allFinite());
    CHECK(out.allFinite());
  }
  claw::PdController<double, 2> pd;
  REQUIRE(pd.set_command_state(state) == Status::Ok);
  claw::PdAdapter<double, 2> adapter;
  auto a = adapter.settings();
  a.order = claw::PdActionOrder::Position;
  REQUIRE(adapter.configure(a) == Status::Ok);
  Eigen::Vector2d out(5.0, 5.0);
  CHECK(adapter.update(action, pd, out) == Status::NumericalOverflow);
  CHECK(out(0) == 5.0);
  CHECK(std::isfinite(out(1)));
}

TEST_CASE("fuzz finding: the DC-motor envelope does not overflow for extreme ratios",
          "[regression][limits]") {
  claw::EffortLimits<float, 1> limits;
  limits.kind = claw::EffortLimitKind::DcMotor;
  const float denorm = std::numeric_limits<float>::denorm_min();
  // tmax / tsat and v / vlim overflow float: the envelope at v = +1 is exactly [-tmax, -tmax]
  // (v far past the no-load speed); it was [-tmax, -inf] and the clamped effort -inf.
  limits.stall_effort << denorm;
  limits.peak_effort << 0.00490196096f;
  limits.no_load_speed << denorm;
  Eigen::Matrix<float, 1, 1> u, v;
  u << 100.0f;
  v << 1.0f;
  REQUIRE(claw::clamp_effort(limits, u, v) == Status::Ok);
  CHECK(u(0) == -0.00490196096f);
  u << -100.0f;
  v << -1.0f;
  REQUIRE(claw::clamp_effort(limits, u, v) == Status::Ok);
  CHECK(u(0) == 0.00490196096f);
  // tsat v / vlim = 2.04e38 is a float, v / vlim = 3.4e47 is not: the envelope is [-2.04e38,
  // -2.04e38], not the saturated -3.4e38.
  limits.stall_effort << 6e-10f;
  limits.peak_effort << std::numeric_limits<float>::max();
  limits.no_load_speed << 1e-9f;
  u << 0.0f;
  v << std::numeric_limits<float>::max();
  REQUIRE(claw::clamp_effort(limits, u, v) == Status::Ok);
  CHECK(u(0) == Approx(-0.6 * double(std::numeric_limits<float>::max())).epsilon(1e-5));
}

TEST_CASE("fuzz finding: the DC-motor envelope keeps full precision past a subnormal ratio",
          "[regression][limits]") {
  // tsat = denorm_min, v = max: tsat / vlim is subnormal (10 significant bits lost); the envelope's
  // ends are -9.0243058503950252e-08, computed as (tsat v) / vlim.
  claw::EffortLimits<double, 1> limits;
  limits.kind = claw::EffortLimitKind::DcMotor;
  limits.stall_effort << kDenormMin;
  limits.peak_effort << 4.82352941176470634918e-07;
  limits.no_load_speed << 9.84206912336915618253e-09;
  Eigen::Matrix<double, 1, 1> u, v;
  u << 1.0;
  v << kMax;
  REQUIRE(claw::clamp_effort(limits, u, v) == Status::Ok);
  CHECK(u(0) == Approx(-9.02430585039502522047e-08).epsilon(1e-14));
}

TEST_CASE("fuzz finding: DC-motor envelope with a speed term that underflows in its first order",
          "[regression][limits]") {
  // tsat = denorm_min, vlim = 6.1e-320, v = 0.5: tsat v rounds to 0, which is not the exact speed
  // term; w = tsat v / vlim = 4.05e-5, and the envelope is [-w - tsat, -w + tsat].
  claw::EffortLimits<double, 1> limits;
  limits.kind = claw::EffortLimitKind::DcMotor;
  limits.stall_effort << kDenormMin;
  limits.peak_effort << 0.57647058823529406801;
  limits.no_load_speed << 6.0992403979101885879e-320;
  Eigen::Matrix<double, 1, 1> u, v;
  u << 1.0;
  v << 0.5;
  REQUIRE(claw::clamp_effort(limits, u, v) == Status::Ok);
  const double w = (kDenormMin / 6.0992403979101885879e-320) * 0.5;
  CHECK(u(0) == Approx(-w).epsilon(1e-12));
}

TEST_CASE("fuzz finding: DC-motor envelope past its edge speed is exactly -+tmax (subnormal vlim)",
          "[regression][limits]") {
  // The edge speed vlim (1 + tmax/tsat) was subnormal and lost precision: at v = max the upper end
  // was -tmax (1 - 5.7e-14) instead of -tmax.
  claw::EffortLimits<double, 1> limits;
  limits.kind = claw::EffortLimitKind::DcMotor;
  limits.stall_effort << 2.2204460492503130808e-16;
  limits.peak_effort << 0.0015609979400320384869;
  limits.no_load_speed << kDenormMin;
  Eigen::Matrix<double, 1, 1> u, v;
  u << 0.0;
  v << kMax;
  REQUIRE(claw::clamp_effort(limits, u, v) == Status::Ok);
  CHECK(u(0) == -0.0015609979400320384869);
  u << 0.0;
  v << -kMax;
  REQUIRE(claw::clamp_effort(limits, u, v) == Status::Ok);
  CHECK(u(0) == 0.0015609979400320384869);
}

TEST_CASE("fuzz finding: after fast-path steps, turning the slew limit on starts a first step",
          "[regression][pid]") {
  // The fast path keeps no slew state; the next step after configure() enabling the limiter is a
  // first step (next_step_is_first), limited per SlewStart from the measurement, not from a stale
  // 0.
  claw::Pid<double, 1> pid;
  auto s = pid.settings();
  s.kp << 1.0;
  REQUIRE(pid.configure(s) == Status::Ok);
  Eigen::Matrix<double, 1, 1> u, q(-1.0), zero(0.0), target(-1.0);
  REQUIRE(pid.update(target, q, zero, u) == Status::Ok);  // fast path
  CHECK(pid.next_step_is_first());
  s.slew_rate << 1.0;
  s.slew_start = claw::SlewStart::FromMeasurement;
  REQUIRE(pid.configure(s) == Status::Ok);
  REQUIRE(pid.update(Eigen::Matrix<double, 1, 1>(5.0), q, zero, u) == Status::Ok);
  CHECK(pid.slew_state()(0) == Approx(-1.0 + 1.0 * s.dt));  // ramps from q = -1, not from 0
  CHECK_FALSE(pid.next_step_is_first());
}

TEST_CASE("fuzz finding: Pid::reset(q, u) refuses an integral that overflows, touching nothing",
          "[regression][pid]") {
  claw::Pid<double, 1> pid;
  auto s = pid.settings();
  s.constant_effort << kMax;
  s.ki << 1.0;
  REQUIRE(pid.configure(s) == Status::Ok);
  REQUIRE(pid.set_integral_term(Eigen::Matrix<double, 1, 1>(0.25)) == Status::Ok);
  Eigen::Matrix<double, 1, 1> q, u;
  q << 0.0;
  u << -kMax;  // I = u - c = -2 max: overflows
  REQUIRE(pid.reset(q, u) == Status::NumericalOverflow);
  CHECK(pid.integral_term()(0) == 0.25);
  u << -1.0;  // I = -1 - max rounds to -max: representable
  REQUIRE(pid.reset(q, u) == Status::Ok);
  CHECK(pid.integral_term()(0) == -kMax);
}

TEST_CASE(
    "fuzz finding: IntegralClamp with ki = 0 and integral_max = inf is no clamp, not a NaN limit",
    "[regression][pid]") {
  // ki integral_max was 0 * inf = NaN: the clamp let any I through and |I| <= limit was never true.
  // Now integral_max = +inf means no clamp for every ki; a finite integral_max with ki = 0 clamps I
  // to 0.
  for (bool simple : {true, false}) {
    claw::Pid<double, 1> pid;
    auto s = pid.settings();
    s.kp << 1.0;
    s.anti_windup = claw::AntiWindup::IntegralClamp;
    if (!simple) s.derivative = claw::DerivativeSource::Measurement;  // the general path
    REQUIRE(pid.configure(s) == Status::Ok);
    REQUIRE(pid.set_integral_term(Eigen::Matrix<double, 1, 1>(3.0)) == Status::Ok);
    Eigen::Matrix<double, 1, 1> u;
    REQUIRE(pid.update(Eigen::Matrix<double, 1, 1>(1.0), Eigen::Matrix<double, 1, 1>(0.0),
                       Eigen::Matrix<double, 1, 1>(0.0), u) == Status::Ok);
    CHECK(pid.integral_term()(0) == 3.0);
    CHECK(u(0) == 4.0);  // kp e + I
    s.integral_max << 2.0;
    REQUIRE(pid.configure(s) == Status::Ok);
    REQUIRE(pid.update(Eigen::Matrix<double, 1, 1>(1.0), Eigen::Matrix<double, 1, 1>(0.0),
                       Eigen::Matrix<double, 1, 1>(0.0), u) == Status::Ok);
    CHECK(pid.integral_term()(0) == 0.0);  // |I| <= ki integral_max = 0
    CHECK(u(0) == 1.0);
  }
}

TEST_CASE(
    "fuzz finding: back-calculation with h >= 2 Tt uses Tt = h (the discrete update diverged)",
    "[regression][pid]") {
  // In saturation I+ - I* = (1 - h/Tt)(I - I*): with h/Tt = 4 the integral would grow x3 per step
  // until it overflows. For h >= 2 Tt (explicit or default Tt) the law uses Tt = h: deadbeat, the
  // integral reaches its fixed point in one step. Below that, h/Tt is kept (control_toolbox's
  // defaults can give h/Tt = 1.6).
  claw::Pid<double, 1> pid;
  auto s = pid.settings();
  s.kp << 1.0;
  s.ki << 1.0;
  s.dt = 0.01;
  s.anti_windup = claw::AntiWindup::BackCalculation;
  s.limits.kind = claw::EffortLimitKind::Bounds;
  s.limits.lower << -1.0;
  s.limits.upper << 1.0;
  const double e = 10.0;
  Eigen::Matrix<double, 1, 1> u;
  for (double tt : {0.0025, 0.005}) {  // h/Tt = 4 and exactly 2
    s.tracking_time << tt;
    REQUIRE(pid.configure(s) == Status::Ok);
    REQUIRE(pid.set_integral_term(Eigen::Matrix<double, 1, 1>(100.0)) == Status::Ok);
    // Backward Euler: u = kp e + I + h ki e; with Tt = h the fixed point is I* = L - kp e.
    const double fixed_point = 1.0 - e;
    for (int k = 0; k < 5; ++k) {
      REQUIRE(pid.update(Eigen::Matrix<double, 1, 1>(e), Eigen::Matrix<double, 1, 1>(0.0),
                         Eigen::Matrix<double, 1, 1>(0.0), u) == Status::Ok);
      CHECK(u(0) == 1.0);
      CHECK(pid.integral_term()(0) == Approx(fixed_point).margin(1e-12));
    }
  }
  // Just inside the limit (h/Tt = 1.6) the integral converges with an alternating error.
  s.tracking_time << 0.00625;
  REQUIRE(pid.configure(s) == Status::Ok);
  const double fixed_point = 1.0 - e + 0.00625 * e - 0.01 * e;  // L - kp e + Tt ki e - h ki e
  REQUIRE(pid.set_integral_term(Eigen::Matrix<double, 1, 1>(fixed_point + 0.05)) == Status::Ok);
  double previous_distance = 0.05;
  for (int k = 0; k < 40; ++k) {
    REQUIRE(pid.update(Eigen::Matrix<double, 1, 1>(e), Eigen::Matrix<double, 1, 1>(0.0),
                       Eigen::Matrix<double, 1, 1>(0.0), u) == Status::Ok);
    const double distance = std::fabs(pid.integral_term()(0) - fixed_point);
    CHECK(u(0) == 1.0);
    CHECK(distance == Approx(0.6 * previous_distance).margin(1e-12));  // |1 - h/Tt| = 0.6
    previous_distance = distance;
  }
  CHECK(previous_distance < 1e-9);
}

TEST_CASE("fuzz finding: QpSolver refuses a subnormal Hessian (it said Ok with x = inf)",
          "[regression][qp]") {
  claw::QpSolverXf qp(1, 0);
  Eigen::Matrix<float, 1, 1> q;
  q << 6.88752208e-41f;  // positive, subnormal: the Cholesky test accepted it and x became inf
  REQUIRE(qp.set_hessian(q) == Status::InvalidProblem);  // now: a pivot below the smallest normal
}

TEST_CASE(
    "fuzz finding: simple bounds in the QP working set hold exactly (tight infeasibility "
    "tolerance)",
    "[regression][qp]") {
  // Every variable fixed at -1 (lb = ub) and infeasibility_tolerance 5.6e-56: x_0 one ulp off -1
  // counts as a violation. Pins: bounds in W are set exactly.
  // (Tolerances below eps are refused; the tightest valid ones still get x exact.)
  claw::QpSolverXd qp(3, 0);
  Eigen::Matrix3d q;
  q << 3.55084, 2.74218, 2.74218, 2.74218, 4.0, 3.0, 2.74218, 3.0, 4.0;
  claw::QpSettings<double> settings;
  settings.feasibility_tolerance = std::numeric_limits<double>::epsilon();
  settings.infeasibility_tolerance = std::numeric_limits<double>::epsilon();
  REQUIRE(qp.set_settings(settings) == Status::Ok);
  REQUIRE(qp.set_hessian(q) == Status::Ok);
  const Eigen::Vector3d g(-1.0, -1.0, -1.0), bound(-1.0, -1.0, -1.0);
  const auto& r = qp.solve(g, bound, bound);
  REQUIRE(r.status == Status::Ok);
  CHECK(r.x == bound);
  CHECK(r.residuals.primal == 0.0);
  // Multipliers from stationarity: Q x + g = y (bounds only).
  CHECK((q * r.x + g - r.bound_multipliers).cwiseAbs().maxCoeff() <= 1e-12);
}

TEST_CASE(
    "fuzz finding: a dependent row violated on its other side after the refresh is not set aside",
    "[regression][qp]") {
  // float, g_0 = 1.26e33: the steps drifted so far that the row, picked as violated below lbA, was
  // at the fresh point violated above ubA by 5619; it was set aside as rounding and the solve said
  // Ok there. Now the most violated constraint is picked again at the fresh point.
  claw::QpSolverXf qp(2, 1);
  Eigen::Matrix2f q;
  q << 1.2928884029388428f, 0.20718637108802795f, 0.20718637108802795f, 1.1465616226196289f;
  Eigen::Matrix<float, 1, 2> a;
  a << -1.0f, -6.4846267700195312f;
  const Eigen::Vector2f g(1.2635520128719129e+33f, 9.5684742973389803e-07f);
  const Eigen::Vector2f lb(-5619.134765625f, -0.0049118818715214729f);
  const Eigen::Vector2f ub(1.7299029542089867e-41f, 1.7299029542089867e-41f);
  const Eigen::Matrix<float, 1, 1> lba(0.42308688163757324f), uba(0.5f);
  REQUIRE(qp.set_hessian(q) == Status::Ok);
  REQUIRE(qp.set_constraints(a) == Status::Ok);
  const auto& r = qp.solve(g, lb, ub, lba, uba);
  REQUIRE(r.status == Status::Ok);
  // The minimiser: x_1 at its upper bound (~0), x_0 as low as the row allows: -x_0 - 6.48 x_1 =
  // 0.5.
  CHECK(r.x(0) == Approx(-0.5f).margin(1e-6));
  CHECK(r.x(1) == ub(1));
  const float row = a.row(0).dot(r.x);
  CHECK(row <= 0.5f + 1e-6f);
  CHECK(row >= lba(0));
  CHECK(r.residuals.primal <= 1e-6f);
}

TEST_CASE("fuzz finding: a held-out equality is checked at the answer, not only at the warm start",
          "[regression][qp]") {
  // A zero row makes an equality 0 = -1 (infeasible). The warm start begins at x = lb = -5e11,
  // where the threshold itol (1 + ||x||) is 5e7 and the miss of 1 passes; the solve then moves to
  // x = -2/3. Pins: the check is repeated at the answer, which is never Ok.
  claw::QpSolver<float, claw::Dynamic, 8, claw::Dynamic, 8> qp(1, 1);
  const Eigen::Matrix<float, 1, 1> q(0.75f), a(-0.0f), g(0.5f);
  REQUIRE(qp.set_hessian(q) == Status::Ok);
  REQUIRE(qp.set_constraints(a) == Status::Ok);
  const auto& first = qp.solve(
      g, Eigen::Matrix<float, 1, 1>(0.42629134654998779f), Eigen::Matrix<float, 1, 1>(0.5f),
      Eigen::Matrix<float, 1, 1>(4.2745101382024586e-05f), Eigen::Matrix<float, 1, 1>(0.5f));
  // The zero row's value 0 misses [4.3e-5, 0.5]: infeasible, relative violation 1 (once within the
  // former threshold itol (1 + ||x||) and answered Ok); the certificate is that row alone.
  REQUIRE(first.status == Status::Infeasible);
  CHECK(first.constraint_multipliers(0) > 0.0f);
  const auto guess = first.active_set;
  const auto& r =
      qp.solve(g, Eigen::Matrix<float, 1, 1>(-502250668032.0f),
               Eigen::Matrix<float, 1, 1>(-0.55809873342514038f), Eigen::Matrix<float, 1, 1>(-1.0f),
               Eigen::Matrix<float, 1, 1>(-1.0f), guess);
  CHECK(r.status == Status::Infeasible);
  // Cold, the same problem was already Infeasible.
  const auto& cold = qp.solve(g, Eigen::Matrix<float, 1, 1>(-502250668032.0f),
                              Eigen::Matrix<float, 1, 1>(-0.55809873342514038f),
                              Eigen::Matrix<float, 1, 1>(-1.0f), Eigen::Matrix<float, 1, 1>(-1.0f));
  CHECK(cold.status == Status::Infeasible);
}

TEST_CASE(
    "fuzz finding: a bound implied by two nearly parallel equalities does not make the QP cycle",
    "[regression][qp]") {
  // float: the equalities x0 + x1 + x2 = 3 and 0.99866 x0 + x1 + x2 = 2.99866 fix x0 = 1 up to
  // their rounding (x0 <= 1 then misses by 7e-5). Set aside, brought back at every change of W,
  // dropped again: 1000 iterations, MaxIterations. Set aside for the rest of the solve now.
  claw::QpSolverXf qp(3, 3);
  Eigen::Matrix3f q, a;
  q << 2.35294557f, -0.827491045f, -0.218852714f, -0.827491045f, 2.60618448f, 0.178890467f,
      -0.218852714f, 0.178890467f, 1.97709727f;
  a << 1.0f, 0.993652225f, 1.0f, 1.0f, 1.0f, 1.0f, 0.998657227f, 1.0f, 1.0f;
  const float inf = std::numeric_limits<float>::infinity();
  const Eigen::Vector3f g(10.0f, 10.0f, 10.0f), lb(-inf, -inf, -inf), ub(1.0f, 1.0f, 1.0f);
  const Eigen::Vector3f lba(-inf, 3.0f, 2.99865723f), uba(4.99365234f, 3.0f, 2.99865723f);
  REQUIRE(qp.set_hessian(q) == Status::Ok);
  REQUIRE(qp.set_constraints(a) == Status::Ok);
  const auto& r = qp.solve(g, lb, ub, lba, uba);
  REQUIRE(r.status == Status::Ok);
  CHECK(r.iterations < 10);
  // The feasible set is the point (1, 1, 1), up to the equalities' rounding.
  CHECK((r.x - Eigen::Vector3f::Ones()).cwiseAbs().maxCoeff() <= 2e-4f);
  const float tol = qp.settings().infeasibility_tolerance * (1.0f + r.x.cwiseAbs().maxCoeff());
  CHECK(r.residuals.primal <= tol);
}
