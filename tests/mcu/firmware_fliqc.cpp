// tests/mcu/firmware_fliqc.cpp: the FLIQC safety filter as firmware, for the size report:
// claw::FliqcFilter<float, 7, 7, 8> (n = 7 joints, up to 8 distances) filtering a planner's joint
// velocity for 10 cycles of 20 ms on one built-in instance (sphere_obstacles_m8_2 of
// tests/data/reference/lcqp/fliqc_instances.json, rounded to float; every distance active). Between
// cycles the distances move as predicted, psi += dt P qdot, so the filter warm-starts from the
// previous active set on a changed problem. Volatile arrays stand for the planner, the distance
// queries and the actuators. The filter object is the whole working memory: its size is checked
// at compile time (<= 16 KiB) and printed. Runs under QEMU too: returns 0 when the first cycle's
// qdot is within 1e-3 of the instance's global optimum and every cycle returned Ok.
#include <cmath>
#include <cstddef>

#include "claw/filters/fliqc.hpp"

namespace {
constexpr int kJoints = 7;
constexpr int kDistances = 8;
using Filter = claw::FliqcFilter<float, kJoints, kJoints, kDistances>;
static_assert(sizeof(Filter) <= 16384, "FliqcFilter<float, 7, 7, 8> must fit in 16 KiB of RAM");

volatile float g_qdot_guide[kJoints] = {-0x1.feb49ep-3f, 0x1.d09f92p-3f,  -0x1.ef29fp-4f,
                                        -0x1.ce85dcp-4f, -0x1.712934p-5f, -0x1.28767ap-2f,
                                        0x1.90bbcap-56f};
// The translational rows of the Jacobian (the filter reads only these), row-major.
volatile float g_jacobian[3 * kJoints] = {
    0x1.c81ep-7f,    0x1.ca2624p-3f,  0x1.2f9e82p-4f,  0x1.ad7b48p-8f,  0x1.dde628p-7f,
    -0x1.f2ae06p-4f, 0x1.8p-56f,      -0x1.292f04p-1f, -0x1.b59582p-3f, -0x1.f8a54ep-2f,
    0x1.8e31eap-4f,  -0x1.d69eccp-4f, 0x1.e5e5fep-7f,  -0x1.4p-55f,     0.0f,
    0x1.a3f8e2p-2f,  0x1.dedb8ep-4f,  0x1.b6e332p-2f,  0x1.ba6c2cp-5f,  0x1.07e234p-4f,
    0x1.6p-56f};
volatile float g_psi[kDistances] = {0x1.eeabep-12f, 0x1.a3ce86p-11f, 0x1.58adb6p-6f,
                                    0x1.4dc1c2p-6f, 0x1.03d12cp-4f,  0x1.f51ea6p-5f,
                                    0x1.567842p-5f, 0x1.85edc4p-4f};
volatile float g_p[kDistances * kJoints] = {0x1.3bf8ccp-2f,
                                            0x1.90df24p-1f,
                                            0x1.5bad8p-2f,
                                            -0x1.e0fb88p-3f,
                                            0.0f,
                                            0.0f,
                                            0.0f,
                                            0x1.d90adap-2f,
                                            0x1.cb512cp-1f,
                                            0x1.a5ff1p-3f,
                                            0.0f,
                                            0.0f,
                                            0.0f,
                                            0.0f,
                                            -0x1.386e7cp-1f,
                                            0x1.9c0d24p-3f,
                                            -0x1.65d818p-2f,
                                            0x1.016f92p-1f,
                                            -0x1.0988ecp-6f,
                                            0.0f,
                                            0.0f,
                                            -0x1.cbf6bap-4f,
                                            0x1.9da3d6p-1f,
                                            0x1.4466d8p-5f,
                                            0.0f,
                                            0.0f,
                                            0.0f,
                                            0.0f,
                                            0x1.4ec1e4p-1f,
                                            -0x1.4015fp-2f,
                                            0x1.875c9cp-2f,
                                            -0x1.9f8ce8p-3f,
                                            -0x1.c78bf6p-10f,
                                            -0x1.dccdfp-7f,
                                            0.0f,
                                            -0x1.c0a622p-2f,
                                            0x1.f57c5cp-1f,
                                            0x1.b1b222p-6f,
                                            0.0f,
                                            0.0f,
                                            0.0f,
                                            0.0f,
                                            0x1.794c5cp-6f,
                                            0x1.c87a4ap-1f,
                                            0x1.32a4cap-3f,
                                            0.0f,
                                            0.0f,
                                            0.0f,
                                            0.0f,
                                            0x1.ae139cp-1f,
                                            0x1.55757p-1f,
                                            0x1.b82e2ep-2f,
                                            0.0f,
                                            0.0f,
                                            0.0f,
                                            0.0f};
// The global optimum's qdot (the instance's global.x[0:7]) for the first cycle.
const float kExpectedQdot[kJoints] = {-0x1.5e024cp-4f, 0x1.4c899ep+0f, -0x1.9c2b4ep-1f,
                                      -0x1.1a658ap+0f, -0x1.2a465p-1f, 0x1.2a3a52p+0f,
                                      -0x1.6534p-50f};
volatile float g_qdot_command[kJoints];

Filter g_filter;

/// Semihosting SYS_WRITE0 (0x04): a NUL-terminated string to the host's terminal (no printf: the
/// size report counts claw, not a formatter).
void write_text(const char* text) {
  register int operation __asm__("r0") = 0x04;
  register const char* argument __asm__("r1") = text;
  __asm__ volatile("bkpt 0xAB" : "+r"(operation) : "r"(argument) : "memory");
}

/// Prints "sizeof(claw::FliqcFilter<float, 7, 7, 8>) = <bytes> bytes".
void print_filter_size() {
  char digits[12];
  char* p = digits + sizeof digits;
  *--p = '\0';
  std::size_t value = sizeof(Filter);
  do {
    *--p = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  write_text("sizeof(claw::FliqcFilter<float, 7, 7, 8>) = ");
  write_text(p);
  write_text(" bytes\n");
}
}  // namespace

int main() {
  print_filter_size();
  claw::FliqcSettings<float> settings;  // the instance's: the defaults but q_dot_max and threshold
  settings.q_dot_max = 2.0f;
  settings.active_threshold = claw::infinity<float>();
  bool ok = g_filter.configure(settings) == claw::Status::Ok;

  using Vector7f = Eigen::Matrix<float, kJoints, 1>;
  Vector7f guide;
  Eigen::Matrix<float, 3, kJoints, Eigen::RowMajor> jacobian;
  Eigen::Matrix<float, kDistances, 1> psi;
  Eigen::Matrix<float, kDistances, kJoints, Eigen::RowMajor> p;
  for (int cycle = 0; cycle < 10; ++cycle) {
    for (int j = 0; j < kJoints; ++j) {
      guide(j) = g_qdot_guide[j];
      for (int r = 0; r < 3; ++r) jacobian(r, j) = g_jacobian[r * kJoints + j];
      for (int i = 0; i < kDistances; ++i) p(i, j) = g_p[i * kJoints + j];
    }
    for (int i = 0; i < kDistances; ++i) psi(i) = g_psi[i];
    const auto& result = g_filter.filter(guide, jacobian, psi, p);
    ok &= result.status == claw::Status::Ok;
    for (int j = 0; j < kJoints; ++j) {
      g_qdot_command[j] = result.qdot(j);
      if (cycle == 0) ok &= std::fabs(result.qdot(j) - kExpectedQdot[j]) <= 1e-3f;
    }
    const Eigen::Matrix<float, kDistances, 1> moved = psi + settings.dt * (p * result.qdot);
    for (int i = 0; i < kDistances; ++i) g_psi[i] = moved(i);
  }
  write_text(ok ? "fliqc firmware: 10 cycles Ok\n" : "fliqc firmware: FAILED\n");
  return ok ? 0 : 1;
}
