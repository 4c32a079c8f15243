// tests/mcu/test_jiminy.cpp: the gym_jiminy conformance cases on the board: integrate_zoh,
// pd_controller, pd_adapter and the bounds derivation, in double (bit for bit, ==) and in float
// (within the float tolerance).
//
// Float tolerance. Each float result f is compared with the double reference e as
//   |f - e| <= 16 u (|e| + S),   u = 2^-24 (float's unit roundoff),
// where S is the magnitude of the operands e is computed from, per entry (first-order rounding
// analysis of the law; see operand scales below): a position from positions P (the state, the
// bound and the result), a velocity from velocities and from position gaps over the step (P / dt:
// the horizon and cancellation clips divide a position gap by h >= dt, or multiply it by
// amax / v with |v| > dt amax), an acceleration (v+ - v) / dt from velocities over dt, an effort
// kp (P + kd V). When |dt| < 1e-9 s nothing is computed and S is the inputs' magnitude. The worst
// entry of the shipped cases needs 1.9 u (|e| + S): 16 leaves a factor 8.
// A case is skipped in float when float may legitimately take another branch of the law, decided
// from the case's data, never from a case id (float_divergence()): a value float cannot hold, or a
// discontinuity of the law that float and double decide differently, each evaluated with the law's
// own formula in both precisions: the horizon count trunc((|v| / amax) / dt) (gym_jiminy's numba
// build differs there too), the 1e-9 s "no time passed" threshold, an adapter deadband test.
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>

#include "claw/blocks/pd_adapter.hpp"
#include "claw/blocks/pd_controller.hpp"
#include "claw/integrators/zoh.hpp"
#include "harness.hpp"
#include "jiminy_data.hpp"

namespace claw_mcu {
namespace {

constexpr int kMaxN = kJiminyMaxJoints;
template <typename S>
using State = claw::StateMatrix<S, claw::Dynamic, kMaxN>;
template <typename S>
using Vec = claw::Vector<S, claw::Dynamic, kMaxN>;

constexpr double kFloatUnitRoundoff = 0x1p-24;
constexpr double kFloatTolerance = 16 * kFloatUnitRoundoff;

template <typename S>
const char* scalar_name() {
  return sizeof(S) == 8 ? "double" : "float";
}

/// rows x n row-major doubles, converted (rounded to nearest) to S.
template <typename S>
State<S> state_from(const double* data, int n) {
  State<S> m(3, n);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < n; ++j) m(i, j) = static_cast<S>(data[i * n + j]);
  return m;
}

template <typename S>
Vec<S> vector_from(const double* data, int n) {
  Vec<S> v(n);
  for (int j = 0; j < n; ++j) v(j) = static_cast<S>(data[j]);
  return v;
}

double finite_magnitude(double x) { return std::isfinite(x) ? std::fabs(x) : 0.0; }

/// Whether a Scalar result agrees with the double reference: == for double; the float tolerance
/// above for float, given the operand scale of the entry.
template <typename S>
bool agrees(S actual, double expected, double scale) {
  if (sizeof(S) == 8 || std::isinf(expected)) return static_cast<double>(actual) == expected;
  return std::fabs(static_cast<double>(actual) - expected) <=
         kFloatTolerance * (std::fabs(expected) + scale);
}

/// Compares entry (i, j) and reports it in the reference's exact bits when it disagrees.
template <typename S>
void compare(Test& test, const char* what, int i, int j, S actual, double expected, double scale) {
  if (agrees(actual, expected, scale)) return;
  test.check(false, "%s(%d,%d): %.17g (%s) != %.17g (%s) expected, |diff| %.3g, allowed %.3g", what,
             i, j, static_cast<double>(actual), hex_bits(static_cast<double>(actual)).text,
             expected, hex_bits(expected).text, std::fabs(static_cast<double>(actual) - expected),
             sizeof(S) == 8 ? 0.0 : kFloatTolerance * (std::fabs(expected) + scale));
}

/// Operand scales of one joint's integrated state [p; v; a] (see the file comment).
struct StateScales {
  double position, velocity, acceleration;
};

/// True when |dt| is below claw's "no time passed" threshold: nothing is integrated, and the float
/// result is the input rounded to float (the scales are the inputs' magnitudes).
bool no_time_passes(double dt) { return std::fabs(dt) < CLAW_MIN_TIME_STEP; }

StateScales zoh_scales(const double* state, const double* lower, const double* upper,
                       const double* expected, int n, int j, double dt, double extra_position) {
  double p = extra_position;
  for (double x : {state[j], lower[j], upper[j], expected[j]})
    if (finite_magnitude(x) > p) p = finite_magnitude(x);
  const double v = std::fabs(state[n + j]) + std::fabs(expected[n + j]);
  if (no_time_passes(dt)) return {p, v, 0.0};
  const double step = std::fabs(dt);
  const double v_scale = v + p / step;
  return {p + step * v_scale, v_scale, v_scale / step};
}

/// The 3 x n state of a case, compared entry by entry.
template <typename S, typename M>
void compare_state(Test& test, const char* what, const M& actual, const double* expected, int n,
                   const StateScales* scales) {
  if (!test.check(actual.rows() == 3 && actual.cols() == n, "%s: shape %dx%d", what,
                  int(actual.rows()), int(actual.cols())))
    return;
  for (int j = 0; j < n; ++j) {
    const double s[3] = {scales[j].position, scales[j].velocity, scales[j].acceleration};
    for (int i = 0; i < 3; ++i)
      compare<S>(test, what, i, j, actual(i, j), expected[i * n + j], s[i]);
  }
}

/// A block's or function's result: its 3 x n command state and n outputs, `label` prefixing both.
template <typename S, typename M, typename V>
void compare_result(Test& test, const char* label, const M& state, const V& out,
                    const double* expected_state, const double* expected_out, int n,
                    const StateScales* scales, const double* out_scales) {
  char what[32];
  std::snprintf(what, sizeof what, "%scommand_state", label);
  compare_state<S>(test, what, state, expected_state, n, scales);
  std::snprintf(what, sizeof what, "%sout", label);
  for (int j = 0; j < n; ++j) compare<S>(test, what, 0, j, out(j), expected_out[j], out_scales[j]);
}

/// True when some finite value of data[0..count) is not a normal float (overflows or underflows).
bool outside_float_range(const double* data, int count) {
  for (int k = 0; k < count; ++k) {
    const double magnitude = std::fabs(data[k]);
    if (std::isfinite(magnitude) && (magnitude > FLT_MAX || (magnitude > 0 && magnitude < FLT_MIN)))
      return true;
  }
  return false;
}

/// The law's discontinuities, evaluated with its own formula in double and in float: where the two
/// precisions decide differently, the float result legitimately takes another branch.
/// gym_jiminy's horizon count k = trunc((|v| / amax) / dt) (DESIGN.md 3.1 step 3) of some joint.
bool horizon_count_differs(const double* state, const double* upper, int n, double dt) {
  if (no_time_passes(dt)) return false;
  for (int j = 0; j < n; ++j) {
    const double v = state[n + j], a_max = upper[2 * n + j];
    const double k = std::trunc((std::fabs(v) / a_max) / dt);
    const float k_float = std::trunc((std::fabs(float(v)) / float(a_max)) / float(dt));
    if (std::isfinite(k) && double(k_float) != k) return true;
  }
  return false;
}

/// |dt| < CLAW_MIN_TIME_STEP ("no time passed").
bool threshold_differs(double dt) {
  return (std::fabs(dt) < CLAW_MIN_TIME_STEP) != (std::fabs(float(dt)) < float(CLAW_MIN_TIME_STEP));
}

/// The deadband test of the adapter (DESIGN.md 3.3) for joint j.
template <typename S>
bool in_deadband(const PdAdapterCase& c, int j) {
  const int n = c.n;
  const S band = static_cast<S>(c.deadband[j]), action = static_cast<S>(c.action[j]);
  if (c.instantaneous && c.order == 1) return std::fabs(action) <= band;
  const S raw =
      c.order == 0 ? (action - static_cast<S>(c.state[j])) / static_cast<S>(c.step_dt) : action;
  return std::fabs(claw::clip(raw, static_cast<S>(c.lower[n + j]),
                              static_cast<S>(c.upper[n + j]))) < band;
}

/// Why the float run of a case may legitimately take another branch than the double reference
/// (nullptr: it may not). Decided from the case's data only.
const char* float_divergence(const ZohCase& c) {
  const int m = 3 * c.n;
  if (outside_float_range(c.state, m) || outside_float_range(c.lower, m) ||
      outside_float_range(c.upper, m) || outside_float_range(c.expected_state, m) ||
      outside_float_range(&c.dt, 1))
    return "a value outside float's normal range";
  if (threshold_differs(c.dt)) return "float and double disagree on dt < 1e-9 s";
  if (horizon_count_differs(c.state, c.upper, c.n, c.dt))
    return "float's horizon count trunc((|v| / amax) / dt) differs from double's";
  return nullptr;
}

const char* float_divergence(const PdControllerCase& c) {
  const int m = 3 * c.n;
  if (outside_float_range(c.state, m) || outside_float_range(c.lower, m) ||
      outside_float_range(c.upper, m) || outside_float_range(c.expected_state, m) ||
      outside_float_range(c.encoder, 2 * c.n) || outside_float_range(c.kp, c.n) ||
      outside_float_range(c.kd, c.n) || outside_float_range(c.effort_limit, c.n) ||
      outside_float_range(c.expected_out, c.n) || outside_float_range(&c.control_dt, 1))
    return "a value outside float's normal range";
  if (threshold_differs(c.control_dt)) return "float and double disagree on control_dt < 1e-9 s";
  if (horizon_count_differs(c.state, c.upper, c.n, c.control_dt))
    return "float's horizon count trunc((|v| / amax) / dt) differs from double's";
  return nullptr;
}

const char* float_divergence(const PdAdapterCase& c) {
  const int n = c.n, m = 3 * n;
  if (outside_float_range(c.state, m) || outside_float_range(c.lower, m) ||
      outside_float_range(c.upper, m) || outside_float_range(c.expected_state, m) ||
      outside_float_range(c.action, n) || outside_float_range(c.out_init, n) ||
      outside_float_range(c.expected_out, n) || outside_float_range(&c.step_dt, 1) ||
      (c.deadband != nullptr && outside_float_range(c.deadband, n)))
    return "a value outside float's normal range";
  if (threshold_differs(c.step_dt)) return "float and double disagree on step_dt < 1e-9 s";
  if (c.deadband == nullptr || no_time_passes(c.step_dt)) return nullptr;
  for (int j = 0; j < n; ++j)
    if (in_deadband<double>(c, j) != in_deadband<float>(c, j))
      return "float and double disagree on a velocity's deadband test";
  return nullptr;
}

const char* float_divergence(const PdBoundsCase& c) {
  const int n = c.n, m = 3 * n;
  const double options[] = {c.step_dt, c.joint_position_margin, c.joint_velocity_limit,
                            c.joint_acceleration_limit};
  if (outside_float_range(c.motors, 5 * n) || outside_float_range(c.kp, n) ||
      outside_float_range(c.kd, n) || outside_float_range(options, 4) ||
      outside_float_range(c.expected_lower, m) || outside_float_range(c.expected_upper, m) ||
      outside_float_range(c.expected_initial, m))
    return "a value outside float's normal range";
  return nullptr;
}

template <typename S>
void zoh_case(const ZohCase& c) {
  Test test("integrate_zoh<%s> id %d", scalar_name<S>(), c.id);
  if (sizeof(S) == 4)
    if (const char* reason = float_divergence(c)) return test.skip("%s", reason);
  const int n = c.n;
  StateScales scales[kMaxN] = {};
  for (int j = 0; j < n; ++j)
    scales[j] = zoh_scales(c.state, c.lower, c.upper, c.expected_state, n, j, c.dt, 0.0);
  State<S> state = state_from<S>(c.state, n);
  const claw::Status status =
      claw::integrate_zoh(state, state_from<S>(c.lower, n), state_from<S>(c.upper, n), S(c.dt));
  if (!test.check(status == claw::Status::Ok, "status %s", claw::to_string(status))) return;
  compare_state<S>(test, "state", state, c.expected_state, n, scales);
}

template <typename S>
void pd_controller_case(const PdControllerCase& c) {
  Test test("pd_controller<%s> id %d", scalar_name<S>(), c.id);
  if (sizeof(S) == 4)
    if (const char* reason = float_divergence(c)) return test.skip("%s", reason);
  const int n = c.n;
  StateScales scales[kMaxN] = {};
  double effort_scales[kMaxN] = {};
  for (int j = 0; j < n; ++j) {
    scales[j] = zoh_scales(c.state, c.lower, c.upper, c.expected_state, n, j, c.control_dt,
                           std::fabs(c.encoder[j]));
    effort_scales[j] = c.kp[j] * (scales[j].position +
                                  c.kd[j] * (scales[j].velocity + std::fabs(c.encoder[n + j])));
  }
  Vec<S> q(n), v(n);
  for (int j = 0; j < n; ++j) {
    q(j) = static_cast<S>(c.encoder[j]);
    v(j) = static_cast<S>(c.encoder[n + j]);
  }
  const State<S> lower = state_from<S>(c.lower, n), upper = state_from<S>(c.upper, n);
  const Vec<S> kp = vector_from<S>(c.kp, n), kd = vector_from<S>(c.kd, n);
  const Vec<S> limit = vector_from<S>(c.effort_limit, n);
  const S dt = static_cast<S>(c.control_dt);

  // gym_jiminy's pd_controller function.
  State<S> state = state_from<S>(c.state, n);
  Vec<S> out = Vec<S>::Constant(n, S(12345));
  const claw::Status status =
      claw::pd_controller(q, v, state, lower, upper, kp, kd, limit, dt, out);
  if (!test.check(status == claw::Status::Ok, "status %s", claw::to_string(status))) return;
  compare_result<S>(test, "", state, out, c.expected_state, c.expected_out, n, scales,
                    effort_scales);

  // The PdController block (its vectorisable contiguous path), where it accepts the settings: it
  // refuses bounds with lower > upper and periods below 1e-9 s (the host test's rule).
  if (claw::validate_state_bounds(lower, upper) != claw::Status::Ok || dt < S(1e-9)) return;
  claw::PdController<S, claw::Dynamic, kMaxN> block(n);
  auto settings = block.settings();
  settings.bounds = {lower, upper};
  settings.kp = kp;
  settings.kd = kd;
  settings.effort_limit = limit;
  settings.control_dt = dt;
  if (!test.check(block.configure(settings) == claw::Status::Ok, "block configure")) return;
  const State<S> initial = state_from<S>(c.state, n);
  if (!test.check(block.set_command_state(initial) == claw::Status::Ok, "set_command_state"))
    return;
  Vec<S> block_out(n);
  const Vec<S> target = initial.row(2).transpose();
  const claw::Status block_status = block.update(q, v, target, block_out);
  if (!test.check(block_status == claw::Status::Ok, "block status %s",
                  claw::to_string(block_status)))
    return;
  compare_result<S>(test, "block ", block.command_state(), block_out, c.expected_state,
                    c.expected_out, n, scales, effort_scales);
}

template <typename S>
void pd_adapter_case(const PdAdapterCase& c) {
  Test test("pd_adapter<%s> id %d", scalar_name<S>(), c.id);
  if (sizeof(S) == 4)
    if (const char* reason = float_divergence(c)) return test.skip("%s", reason);
  const int n = c.n;
  const double step = std::fabs(c.step_dt);
  StateScales scales[kMaxN] = {};
  double out_scales[kMaxN] = {};
  for (int j = 0; j < n; ++j) {
    const double p = std::fabs(c.state[j]) + (c.order == 0 ? std::fabs(c.action[j]) : 0.0);
    double v = std::fabs(c.state[n + j]) + std::fabs(c.expected_state[n + j]);
    if (no_time_passes(c.step_dt)) {  // nothing touched: the inputs rounded to float
      scales[j] = {p, v, 0.0};
      out_scales[j] = 0.0;
      continue;
    }
    v += c.order == 0 ? p / step : std::fabs(c.action[j]);
    scales[j] = {p + step * v, v, 0.0};  // the acceleration row is never touched
    out_scales[j] = v / step;
  }
  const auto order = c.order == 0 ? claw::PdActionOrder::Position : claw::PdActionOrder::Velocity;
  const Vec<S> action = vector_from<S>(c.action, n);
  const State<S> lower = state_from<S>(c.lower, n), upper = state_from<S>(c.upper, n);
  const Vec<S> deadband = c.deadband != nullptr ? vector_from<S>(c.deadband, n) : Vec<S>(0);
  const S step_dt = static_cast<S>(c.step_dt);

  State<S> state = state_from<S>(c.state, n);
  Vec<S> out = vector_from<S>(c.out_init, n);
  const claw::Status status =
      claw::pd_adapter(action, order, state, lower, upper, c.instantaneous, deadband, step_dt, out);
  if (!test.check(status == claw::Status::Ok, "status %s", claw::to_string(status))) return;
  compare_result<S>(test, "", state, out, c.expected_state, c.expected_out, n, scales, out_scales);

  // The PdAdapter block on a PdController holding the case's state and bounds, where both accept
  // the settings (step_dt >= 1e-9 s, lower <= upper).
  if (step_dt < S(1e-9) || claw::validate_state_bounds(lower, upper) != claw::Status::Ok) return;
  claw::PdController<S, claw::Dynamic, kMaxN> controller(n);
  auto controller_settings = controller.settings();
  controller_settings.bounds = {lower, upper};
  controller_settings.kp.setOnes(n);
  controller_settings.kd.setZero(n);
  controller_settings.effort_limit.setOnes(n);
  controller_settings.control_dt = S(1e-3);
  if (!test.check(controller.configure(controller_settings) == claw::Status::Ok,
                  "controller configure"))
    return;
  if (!test.check(controller.set_command_state(state_from<S>(c.state, n)) == claw::Status::Ok,
                  "set_command_state"))
    return;
  claw::PdAdapter<S, claw::Dynamic, kMaxN> adapter(n);
  auto settings = adapter.settings();
  settings.order = order;
  settings.instantaneous = c.instantaneous;
  settings.step_dt = step_dt;
  settings.use_deadband = c.deadband != nullptr;
  settings.velocity_deadband = settings.use_deadband ? deadband : Vec<S>(Vec<S>::Zero(n));
  if (!test.check(adapter.configure(settings) == claw::Status::Ok, "adapter configure")) return;
  Vec<S> block_out = vector_from<S>(c.out_init, n);
  if (!test.check(adapter.update(action, controller, block_out) == claw::Status::Ok,
                  "adapter update"))
    return;
  compare_result<S>(test, "block ", controller.command_state(), block_out, c.expected_state,
                    c.expected_out, n, scales, out_scales);
}

template <typename S>
void pd_bounds_case(const PdBoundsCase& c) {
  Test test("pd_controller_bounds<%s> id %d", scalar_name<S>(), c.id);
  if (sizeof(S) == 4)
    if (const char* reason = float_divergence(c)) return test.skip("%s", reason);
  const int n = c.n;
  claw::MotorLimits<S, claw::Dynamic, kMaxN> motors;
  motors.position_lower = vector_from<S>(c.motors, n);
  motors.position_upper = vector_from<S>(c.motors + n, n);
  motors.velocity_limit = vector_from<S>(c.motors + 2 * n, n);
  motors.effort_limit = vector_from<S>(c.motors + 3 * n, n);
  motors.mechanical_reduction = vector_from<S>(c.motors + 4 * n, n);
  claw::PdBoundsOptions<S> options;
  options.joint_position_margin = static_cast<S>(c.joint_position_margin);
  options.joint_velocity_limit = static_cast<S>(c.joint_velocity_limit);
  options.infer_acceleration_limit = c.infer_acceleration_limit;
  options.joint_acceleration_limit = static_cast<S>(c.joint_acceleration_limit);
  claw::StateBounds<S, claw::Dynamic, kMaxN> bounds;
  const claw::Status status =
      claw::derive_pd_command_bounds(motors, vector_from<S>(c.kp, n), vector_from<S>(c.kd, n),
                                     static_cast<S>(c.step_dt), options, bounds);
  if (!test.check(status == claw::Status::Ok, "status %s", claw::to_string(status))) return;
  // Scales: a position bound is lower + r margin (operands |lower| and |r margin|); the velocity
  // and acceleration bounds are products, quotients and minima (relative error only).
  StateScales scales[kMaxN] = {};
  for (int j = 0; j < n; ++j)
    scales[j] = {std::fabs(c.motors[j]) + std::fabs(c.motors[n + j]) +
                     finite_magnitude(c.motors[4 * n + j] * c.joint_position_margin),
                 0.0, 0.0};
  compare_state<S>(test, "lower", bounds.lower, c.expected_lower, n, scales);
  compare_state<S>(test, "upper", bounds.upper, c.expected_upper, n, scales);
  compare_state<S>(test, "initial", claw::initial_command_state(bounds), c.expected_initial, n,
                   scales);

  Eigen::Matrix<int, claw::Dynamic, 1, 0, kMaxN, 1> index(n), map(n);
  for (int j = 0; j < n; ++j) index(j) = c.encoder_motor_index[j];
  bool identity = false;
  if (!test.check(claw::encoder_to_motor_map(index, map, identity) == claw::Status::Ok,
                  "encoder_to_motor_map"))
    return;
  test.check(identity == (c.expected_map == nullptr), "identity %d", int(identity));
  if (c.expected_map != nullptr)
    for (int j = 0; j < n; ++j)
      test.check(map(j) == c.expected_map[j], "map(%d) = %d != %d", j, map(j), c.expected_map[j]);
}

template <typename S>
void run_all() {
  for (int k = 0; k < kZohCaseCount; ++k) zoh_case<S>(kZohCases[k]);
  for (int k = 0; k < kPdControllerCaseCount; ++k) pd_controller_case<S>(kPdControllerCases[k]);
  for (int k = 0; k < kPdAdapterCaseCount; ++k) pd_adapter_case<S>(kPdAdapterCases[k]);
  for (int k = 0; k < kPdBoundsCaseCount; ++k) pd_bounds_case<S>(kPdBoundsCases[k]);
}

}  // namespace

void run_jiminy_conformance() {
  std::printf(
      "reference: %s/jiminy (%d integrate_zoh, %d pd_controller, %d pd_adapter, %d bounds "
      "cases, up to %d joints)\n",
      kJiminyReferenceDir, kZohCaseCount, kPdControllerCaseCount, kPdAdapterCaseCount,
      kPdBoundsCaseCount, kMaxN);
  begin_suite("gym_jiminy conformance, double (soft-float IEEE binary64): bit for bit");
  run_all<double>();
  begin_suite("gym_jiminy conformance, float (FPv4-SP): |f - e| <= 16 u (|e| + S), u = 2^-24");
  run_all<float>();
}

}  // namespace claw_mcu
