// tests/mcu/test_allocation.cpp: proves on the board that claw's hot calls (update, reset,
// integrate, set_gains...) never reach the heap after construction, through the counting malloc of
// alloc_counter.cpp, for fixed, bounded and dynamic sizes, float and double. The counter's own test
// comes first: it must see malloc, operator new and an Eigen dynamic vector, or the zeros below
// would prove nothing.
#include <cstdlib>
#include <new>

#include "alloc_counter.hpp"
#include "claw/blocks/pd_adapter.hpp"
#include "claw/blocks/pd_controller.hpp"
#include "claw/integrators/zoh.hpp"
#include "claw/laws/pd.hpp"
#include "claw/laws/pid.hpp"
#include "claw/laws/pid_presets.hpp"
#include "claw/laws/slew_limiter.hpp"
#include "claw/laws/stable_pd.hpp"
#include "claw/laws/velocity_servo.hpp"
#include "harness.hpp"

namespace claw_mcu {
namespace {

using claw::Dynamic;
using claw::Status;

template <typename S>
const char* scalar_name() {
  return sizeof(S) == 8 ? "double" : "float";
}

/// Checks the statuses and the heap call count of one measured block.
template <int K>
void expect_no_heap(Test& test, std::size_t heap_calls, const Status (&statuses)[K]) {
  test.check(heap_calls == 0, "%u heap call(s) during the hot calls", unsigned(heap_calls));
  for (int k = 0; k < K; ++k)
    test.check(statuses[k] == Status::Ok, "call %d: status %s", k, claw::to_string(statuses[k]));
}

void counter_sees_the_heap() {
  Test test("no heap: the counting malloc sees malloc, operator new and Eigen");
  void* (*volatile allocate)(std::size_t) = std::malloc;
  std::size_t calls = heap_calls_during([&] { std::free(allocate(32)); });
  test.check(calls >= 2, "malloc + free counted %u", unsigned(calls));
  calls = heap_calls_during([] { delete new (std::nothrow) volatile int(3); });
  test.check(calls >= 2, "new + delete counted %u", unsigned(calls));
  const std::size_t before = allocation_count();
  {
    Eigen::VectorXf dynamic(64);
    dynamic.setZero();
  }
  test.check(allocation_count() > before, "Eigen::VectorXf(64) not counted");
}

/// Bounds of 7 joints: position +-2, velocity +-5, acceleration +-100.
template <typename M>
void fill_bounds(M& lower, M& upper) {
  using S = typename M::Scalar;
  lower.row(0).setConstant(S(-2));
  lower.row(1).setConstant(S(-5));
  lower.row(2).setConstant(S(-100));
  upper = -lower;
}

template <typename S>
void zoh_allocates_nothing() {
  Test test("no heap: integrate_zoh<%s> fixed, bounded, dynamic; jiminy and viable",
            scalar_name<S>());
  claw::StateMatrix<S, 7> fixed = claw::StateMatrix<S, 7>::Constant(S(0.5)), lower, upper;
  fill_bounds(lower, upper);
  claw::StateMatrix<S, Dynamic, 8> bounded = fixed, bounded_lower = lower, bounded_upper = upper;
  claw::StateMatrix<S, Dynamic> dynamic = fixed, dynamic_lower = lower, dynamic_upper = upper;
  Status st[6];
  const std::size_t calls = heap_calls_during([&] {
    st[0] = claw::integrate_zoh(fixed, lower, upper, S(1e-3));
    st[1] = claw::integrate_zoh(fixed, lower, upper, S(1e-3), claw::ZohMode::Viable);
    st[2] = claw::integrate_zoh(bounded, bounded_lower, bounded_upper, S(1e-3));
    st[3] =
        claw::integrate_zoh(bounded, bounded_lower, bounded_upper, S(1e-3), claw::ZohMode::Viable);
    st[4] = claw::integrate_zoh(dynamic, dynamic_lower, dynamic_upper, S(1e-3));
    st[5] =
        claw::integrate_zoh(dynamic, dynamic_lower, dynamic_upper, S(1e-3), claw::ZohMode::Viable);
  });
  expect_no_heap(test, calls, st);
}

/// PdController + PdAdapter of size type <S, N, MaxN> built for 7 joints (dynamic sizes allocate
/// here, in the constructors and settings), then every hot call measured.
template <typename S, int N, int MaxN>
void pd_blocks_allocate_nothing(const char* kind) {
  Test test("no heap: PdController/PdAdapter<%s, %s> reset, update, setters", scalar_name<S>(),
            kind);
  using Controller = claw::PdController<S, N, MaxN>;
  using Vec = claw::Vector<S, N, MaxN>;
  Controller jiminy(7), viable(7);
  claw::PdAdapter<S, N, MaxN> adapter(7);
  auto settings = jiminy.settings();
  fill_bounds(settings.bounds.lower, settings.bounds.upper);
  settings.kp.setConstant(S(100));
  settings.kd.setConstant(S(0.01));
  settings.effort_limit.setConstant(S(50));
  test.check(jiminy.configure(settings) == Status::Ok, "configure jiminy");
  settings.mode = claw::ZohMode::Viable;
  test.check(viable.configure(settings) == Status::Ok, "configure viable");
  auto adapter_settings = adapter.settings();
  adapter_settings.order = claw::PdActionOrder::Position;
  test.check(adapter.configure(adapter_settings) == Status::Ok, "configure adapter");
  const Vec q = Vec::Constant(7, S(0.25)), v = Vec::Constant(7, S(-0.5));
  const Vec action = Vec::Constant(7, S(0.75));
  Vec target = Vec::Zero(7), tau = Vec::Zero(7), gains = Vec::Constant(7, S(80));
  Status st[12];
  const std::size_t calls = heap_calls_during([&] {
    st[0] = jiminy.reset(q, v, tau);
    st[1] = adapter.update(action, jiminy, target);
    st[2] = jiminy.update(q, v, target, tau);            // contiguous (vectorisable) path
    st[3] = jiminy.update(q, v, target.reverse(), tau);  // expression: joint-by-joint path
    st[4] = jiminy.compute_effort(q, v, tau);
    st[5] = jiminy.set_gains(gains, settings.kd);
    st[6] = jiminy.set_effort_limit(settings.effort_limit);
    st[7] = viable.reset(q, v, tau);
    st[8] = adapter.update(action, viable, target);
    st[9] = viable.update(q, v, target, tau);
    st[10] = jiminy.set_command_state(viable.command_state());
    st[11] = jiminy.update(q, v, target, tau);
  });
  expect_no_heap(test, calls, st);
}

template <typename S>
void free_functions_allocate_nothing() {
  Test test("no heap: pd_controller, pd_adapter, pd_effort, clamp_effort<%s>", scalar_name<S>());
  using Vec = claw::Vector<S, Dynamic>;
  claw::StateMatrix<S, Dynamic> state = claw::StateMatrix<S, Dynamic>::Zero(3, 7), lower(3, 7),
                                upper(3, 7);
  fill_bounds(lower, upper);
  const Vec q = Vec::Constant(7, S(0.25)), v = Vec::Constant(7, S(-0.5));
  const Vec kp = Vec::Constant(7, S(100)), kd = Vec::Constant(7, S(0.01));
  const Vec limit = Vec::Constant(7, S(50)), deadband = Vec::Constant(7, S(0.01)), none(0);
  Vec out = Vec::Zero(7), target = Vec::Zero(7);
  claw::EffortLimits<S, Dynamic> limits;
  limits.resize(7);
  limits.kind = claw::EffortLimitKind::DcMotor;
  limits.stall_effort.setConstant(S(12));
  limits.peak_effort.setConstant(S(8));
  limits.no_load_speed.setConstant(S(6));
  Status st[5];
  const std::size_t calls = heap_calls_during([&] {
    st[0] = claw::pd_adapter(q, claw::PdActionOrder::Position, state, lower, upper, false, deadband,
                             S(0.04), target);
    st[1] = claw::pd_adapter(q, claw::PdActionOrder::Velocity, state, lower, upper, true, none,
                             S(0.04), target);
    st[2] = claw::pd_controller(q, v, state, lower, upper, kp, kd, limit, S(1e-3), out);
    st[3] = claw::pd_effort(q, v, q * S(2), v, kp, kd, claw::PdForm::Parallel, limits, out);
    st[4] = claw::clamp_effort(limits, out, v);
  });
  expect_no_heap(test, calls, st);
}

/// Pid in its simple path (velocity error, clamp, bounds) and its general path (every device on),
/// StablePd, SlewLimiter and VelocityServo, all of size type <S, N, MaxN> for 7 joints.
template <typename S, int N, int MaxN>
void pid_family_allocates_nothing(const char* kind) {
  Test test("no heap: Pid/StablePd/SlewLimiter/VelocityServo<%s, %s> hot calls", scalar_name<S>(),
            kind);
  using Vec = claw::Vector<S, N, MaxN>;
  using Mat = Eigen::Matrix<S, N, N, Eigen::ColMajor, MaxN, MaxN>;
  claw::Pid<S, N, MaxN> simple(7), general(7);
  auto s = simple.settings();
  s.kp.setConstant(S(200));
  s.ki.setConstant(S(50));
  s.kd.setConstant(S(5));
  s.anti_windup = claw::AntiWindup::IntegralClamp;
  s.integral_max.setConstant(S(0.1));
  s.limits.kind = claw::EffortLimitKind::Bounds;
  s.limits.lower.setConstant(S(-40));
  s.limits.upper.setConstant(S(40));
  test.check(simple.configure(s) == Status::Ok, "configure simple");
  s.anti_windup = claw::AntiWindup::BackCalculation;
  s.derivative = claw::DerivativeSource::ErrorDifference;
  s.derivative_filter.setConstant(S(100));
  s.slew_rate.setConstant(S(3));
  s.wrap_period.setConstant(S(6.25));
  s.limits = claw::EffortLimits<S, N, MaxN>::dc_motor(S(12), S(8), S(6), 7);
  test.check(general.configure(s) == Status::Ok, "configure general");
  claw::StablePd<S, N, MaxN> stable(7);
  auto stable_settings = stable.settings();
  stable_settings.kp.setConstant(S(1e4));
  stable_settings.kd.setConstant(S(100));
  test.check(stable.configure(stable_settings) == Status::Ok, "configure stable");
  claw::SlewLimiter<S, N, MaxN> slew(7);
  test.check(
      slew.configure(Vec::Constant(7, S(0.5)), claw::SlewStart::FromMeasurement) == Status::Ok,
      "configure slew");
  claw::VelocityServo<S, N, MaxN> servo(7);
  const claw::presets::CoppeliaSimJoint<S> joint{S(0.1), S(0.01), S(0.001), S(3), S(50), S(0.005)};
  test.check(servo.configure(claw::presets::coppeliasim_joint<S, N, MaxN>(7, joint)) == Status::Ok,
             "configure servo");
  const Vec q = Vec::Constant(7, S(0.2)), v = Vec::Constant(7, S(-0.1));
  const Vec target = Vec::Constant(7, S(0.5)), gain = Vec::Constant(7, S(150));
  const Mat inverse_mass = Mat::Identity(7, 7) * S(0.5);
  Vec out = Vec::Zero(7), velocity = Vec::Zero(7), force = Vec::Zero(7);
  Status st[13];
  const std::size_t calls = heap_calls_during([&] {
    st[0] = simple.update(target, q, v, out);
    st[1] = simple.update(target, v, target, q, v, out);
    st[2] = general.update(target, q, v, out);
    st[3] = general.update(target, v, target, q, v, out);
    st[4] = general.set_gains(gain, s.ki, s.kd);
    st[5] = general.reset(q, out);
    general.reset();
    st[6] = general.update(target * S(2), q, v, out);
    st[7] = general.set_integral_term(out);
    st[8] = stable.update(target, v, out, q, v, inverse_mass.diagonal(), out);
    st[9] = stable.update_full(target, v, out, q, v, inverse_mass, out);
    st[10] = slew.update(target, q, S(1e-3), out);
    st[11] = servo.update(target - q, velocity, force);
    st[12] = simple.update(target, q, v, out);
  });
  expect_no_heap(test, calls, st);
}

template <typename S>
void run_for() {
  zoh_allocates_nothing<S>();
  pd_blocks_allocate_nothing<S, 7, 7>("7");
  pd_blocks_allocate_nothing<S, Dynamic, 8>("Dynamic, 8");
  pd_blocks_allocate_nothing<S, Dynamic, Dynamic>("Dynamic");
  free_functions_allocate_nothing<S>();
  pid_family_allocates_nothing<S, 7, 7>("7");
  pid_family_allocates_nothing<S, Dynamic, 8>("Dynamic, 8");
  pid_family_allocates_nothing<S, Dynamic, Dynamic>("Dynamic");
}

}  // namespace

void run_no_allocation() {
  begin_suite("no heap after construction (counting malloc)");
  counter_sees_the_heap();
  run_for<float>();
  run_for<double>();
}

}  // namespace claw_mcu
