// tests/mcu/fliqc_cases.hpp: the layout of the FLIQC reference instances as the board sees them, C
// arrays in flash generated at build time from $CLAW_REFERENCE_DIR/lcqp/fliqc_instances.json
// (gen_fliqc_cases.py), every value rounded to float once by the generator.
#pragma once

#include <cstdint>

namespace claw_mcu {

/// Bits of FliqcCase::flags: the FliqcSettings option of the same name.
enum FliqcCaseFlag : std::uint8_t {
  kNullspaceProjectorInA = 1u << 0,
  kLambdaConstraintInX = 1u << 1,
  kLambdaConstraintInL = 1u << 2,
  kEscVelConstraint = 1u << 3,
};

/// One instance: the filter's settings (every row active), its raw inputs for n = 7 joints and m
/// distances (matrices row-major; Pinv row i = (P_i^inv)') and the certified global optimum's qdot.
struct FliqcCase {
  const char* id;
  int m;
  bool feasible;
  float dt, eps, q_dot_max, lambda_cost_penalty, lambda_max, esc_vel_max;  // +inf: none
  std::uint8_t cost_type;                                                  // claw::FliqcCostType
  std::uint8_t flags;                                                      // FliqcCaseFlag bits
  const float* qdot_guide;                                                 // 7
  const float* jacobian;                                                   // 6 x 7
  const float* psi;                                                        // m
  const float* p;                                                          // m x 7
  const float* p_inv;                                                      // m x 7
  const float* expected_qdot;  // 7 (global.x[0:7]); nullptr when infeasible
};

}  // namespace claw_mcu
