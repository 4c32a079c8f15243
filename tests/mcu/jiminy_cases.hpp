// tests/mcu/jiminy_cases.hpp: the layout of the gym_jiminy reference cases as the board sees them,
// C arrays in flash generated at build time from $CLAW_REFERENCE_DIR/jiminy/*.json
// (gen_jiminy_cases.py).
#pragma once

namespace claw_mcu {

// Every matrix is stored row-major: a state or bounds is 3 x n (rows position, velocity,
// acceleration), encoder data 2 x n (position, velocity), motor limits 5 x n. Infinities are IEEE
// infinities; doubles are emitted as hexadecimal literals, so the board reads the JSON's exact
// bits.

/// integrate_zoh.json: state integrated in place over dt.
struct ZohCase {
  int id;
  int n;
  double dt;
  const double* state;
  const double* lower;
  const double* upper;
  const double* expected_state;
};

/// pd_controller.json: the command state integrated over control_dt, then the PD effort.
struct PdControllerCase {
  int id;
  int n;
  double control_dt;
  const double* encoder;  // 2 x n
  const double* state;
  const double* lower;
  const double* upper;
  const double* kp;
  const double* kd;
  const double* effort_limit;
  const double* expected_out;
  const double* expected_state;
};

/// pd_adapter.json: an action turned into a target acceleration (or an instantaneous state change).
struct PdAdapterCase {
  int id;
  int n;
  int order;  // 0 position, 1 velocity
  bool instantaneous;
  double step_dt;
  const double* action;
  const double* state;
  const double* lower;
  const double* upper;
  const double* deadband;  // nullptr: no deadband (JSON null)
  const double* out_init;
  const double* expected_out;
  const double* expected_state;
};

/// pd_controller_bounds.json: PDController.__init__'s bounds derivation.
struct PdBoundsCase {
  int id;
  int n;
  double step_dt;
  double joint_position_margin;
  double joint_velocity_limit;
  bool infer_acceleration_limit;  // JSON null
  double joint_acceleration_limit;
  const double* motors;  // 5 x n: position lower, position upper, velocity, effort, reduction
  const double* kp;
  const double* kd;
  const int* encoder_motor_index;
  const int* expected_map;  // nullptr: "identity"
  const double* expected_lower;
  const double* expected_upper;
  const double* expected_initial;
};

}  // namespace claw_mcu
