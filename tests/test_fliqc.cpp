// tests/test_fliqc.cpp: the FLIQC filter's options, each against a closed form or an invariant, the
// infeasible-cycle policy, bad input, warm start and the no-allocation guarantee.
#include <Eigen/Dense>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "claw/filters/fliqc.hpp"
#include "support/alloc_counter.hpp"
#include "support/infinity.hpp"

namespace {

using claw::FliqcCostType;
using claw::FliqcFallback;
using claw::Status;
using Filter = claw::FliqcFilter<double, 4, 4, 4>;
using Vec4 = Eigen::Matrix<double, 4, 1>;
using Mat4 = Eigen::Matrix<double, 4, 4>;
using Jac = Eigen::Matrix<double, 6, 4>;
using PsiVec = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 4, 1>;
using PMat = Eigen::Matrix<double, Eigen::Dynamic, 4, Eigen::RowMajor, 4, 4>;

/// A 4-joint toy: J_pos of rank 3 (so P_null has rank 1), one distance row P heading into the
/// obstacle under the guide.
struct Toy {
  Jac jacobian;
  Vec4 guide;
  PsiVec psi;
  PMat p;
  Toy() {
    jacobian.setZero();
    jacobian.topRows(3) << 1.0, 0.2, 0.0, 0.3,  //
        0.0, 1.0, 0.4, -0.2,                    //
        0.1, 0.0, 1.0, 0.5;
    jacobian.bottomRows(3).setRandom();
    guide << 0.3, -0.2, 0.1, 0.4;
    psi.resize(1);
    psi << 0.03;
    p.resize(1, 4);
    p << -0.5, 0.3, -0.2, -1.0;  // P guide = -0.15 - 0.06 - 0.02 - 0.4 < 0: approaching
  }
  Mat4 nullspace() const {
    const Eigen::Matrix<double, 3, 4> jp = jacobian.topRows(3);
    return Mat4::Identity() - jp.transpose() * (jp * jp.transpose()).inverse() * jp;
  }
};

claw::FliqcSettings<double> defaults() { return claw::FliqcSettings<double>{}; }

}  // namespace

TEST_CASE("FLIQC: one active distance with the projector has the closed-form answer", "[fliqc]") {
  const Toy toy;
  Filter filter;
  REQUIRE(filter.configure(defaults()) == Status::Ok);
  const auto& r = filter.filter(toy.guide, toy.jacobian, toy.psi, toy.p);
  REQUIRE(r.status == Status::Ok);
  REQUIRE(r.solved);
  // w = psi - eps + dt P (g + N P' lambda / |P|^2) = 0 when the constraint binds.
  const auto s = defaults();
  const Vec4 pt = toy.p.row(0).transpose();
  const double c = toy.psi(0) - s.eps + s.dt * pt.dot(toy.guide);
  REQUIRE(c < 0.0);
  const double k = s.dt * pt.dot(toy.nullspace() * pt) / pt.squaredNorm();
  const double lambda = -c / k;
  const Vec4 expected = toy.guide + toy.nullspace() * pt * lambda / pt.squaredNorm();
  CHECK((r.qdot - expected).lpNorm<Eigen::Infinity>() <= 1e-12);
  CHECK(r.lambda(0) == Approx(lambda).epsilon(1e-12));
  CHECK(r.certified_global);
  CHECK(r.path == claw::LcqpPath::Monotone);
  // The correction lies in the nullspace of J_pos: the end effector's position rate is the guide's.
  CHECK((toy.jacobian.topRows(3) * (r.qdot - toy.guide)).lpNorm<Eigen::Infinity>() <= 1e-12);
  // The predicted distance lands exactly on eps.
  CHECK(r.predicted_violation == Approx(0.0).margin(1e-12));
}

TEST_CASE("FLIQC: without the projector the correction is along P_i^inv", "[fliqc]") {
  const Toy toy;
  Filter filter;
  auto s = defaults();
  s.enable_nullspace_projector_in_A = false;
  REQUIRE(filter.configure(s) == Status::Ok);
  const auto& r = filter.filter(toy.guide, toy.jacobian, toy.psi, toy.p);
  REQUIRE(r.status == Status::Ok);
  const Vec4 pt = toy.p.row(0).transpose();
  const double c = toy.psi(0) - s.eps + s.dt * pt.dot(toy.guide);
  const double lambda = -c / s.dt;  // P Pinv = 1
  const Vec4 expected = toy.guide + pt * lambda / pt.squaredNorm();
  CHECK((r.qdot - expected).lpNorm<Eigen::Infinity>() <= 1e-12);
  CHECK(filter.nullspace_projector().isIdentity(0.0));
  // With the projector the answer differs (the toy's P is not in the nullspace).
  Filter with;
  REQUIRE(with.configure(defaults()) == Status::Ok);
  CHECK((with.filter(toy.guide, toy.jacobian, toy.psi, toy.p).qdot - r.qdot).norm() > 1e-3);
}

TEST_CASE("FLIQC: a rank-deficient J_pos gives the projector onto its nullspace", "[fliqc]") {
  // J_pos rows r0, r1 and r2 = 0.3 r0 - 0.7 r1: rank 2 (Gram-Schmidt leaves only rounding of r2):
  // P_null = I - pinv(J_pos) J_pos = I - B'(B B')^-1 B with B = [r0; r1], a projector of rank
  // n - 2 = 2. The correction of one active distance is then N P' lambda / |P|^2 with
  // lambda = -(psi - eps + dt P g) / (dt P N P' / |P|^2), as with the full-rank toy.
  Toy toy;
  const Eigen::Matrix<double, 1, 4> r0 = toy.jacobian.row(0), r1 = toy.jacobian.row(1);
  toy.jacobian.row(2) = 0.3 * r0 - 0.7 * r1;
  Eigen::Matrix<double, 2, 4> b;
  b << r0, r1;
  const Mat4 nullspace = Mat4::Identity() - b.transpose() * (b * b.transpose()).inverse() * b;
  Filter filter;
  REQUIRE(filter.configure(defaults()) == Status::Ok);
  const auto& r = filter.filter(toy.guide, toy.jacobian, toy.psi, toy.p);
  REQUIRE(r.status == Status::Ok);
  CHECK((filter.nullspace_projector() - nullspace).lpNorm<Eigen::Infinity>() <= 1e-12);
  CHECK(filter.nullspace_projector().trace() == Approx(2.0).epsilon(1e-12));
  const auto s = defaults();
  const Vec4 pt = toy.p.row(0).transpose();
  const double c = toy.psi(0) - s.eps + s.dt * pt.dot(toy.guide);
  REQUIRE(c < 0.0);
  const double lambda = -c / (s.dt * pt.dot(nullspace * pt) / pt.squaredNorm());
  const Vec4 expected = toy.guide + nullspace * pt * lambda / pt.squaredNorm();
  CHECK((r.qdot - expected).lpNorm<Eigen::Infinity>() <= 1e-12);
  CHECK(r.lambda(0) == Approx(lambda).epsilon(1e-12));
}

TEST_CASE("FLIQC: the active threshold filters distances; none active returns the guide unsolved",
          "[fliqc]") {
  const Toy toy;
  Filter filter;
  REQUIRE(filter.configure(defaults()) == Status::Ok);
  PsiVec psi(3);
  psi << 0.2, toy.psi(0), 0.06;  // only the middle one is <= 0.05
  PMat p(3, 4);
  p << 1.0, 0.0, 0.0, 0.0, toy.p, 0.0, -1.0, 0.0, 0.0;
  const auto& r = filter.filter(toy.guide, toy.jacobian, psi, p);
  REQUIRE(r.status == Status::Ok);
  REQUIRE(r.active_count == 1);
  CHECK(r.active_rows(0) == 1);
  Filter single;
  REQUIRE(single.configure(defaults()) == Status::Ok);
  CHECK((single.filter(toy.guide, toy.jacobian, toy.psi, toy.p).qdot - r.qdot)
            .lpNorm<Eigen::Infinity>() <= 1e-14);
  PsiVec far(1);
  far << 0.051;
  const auto& none = filter.filter(toy.guide, toy.jacobian, far, toy.p);
  CHECK(none.status == Status::Ok);
  CHECK_FALSE(none.solved);
  CHECK(none.active_count == 0);
  CHECK(none.qdot == toy.guide);
}

TEST_CASE("FLIQC: q_dot_max holds on every path, a cycle with no active distance included",
          "[fliqc][safe_defaults]") {
  const Toy toy;  // guide (0.3, -0.2, 0.1, 0.4)
  PsiVec far(1);
  far << 1.0;  // nothing active
  auto s = defaults();
  s.q_dot_max = 0.2;
  Filter filter;
  REQUIRE(filter.configure(s) == Status::Ok);
  {
    // The guide scaled by min(1, 0.2 / 0.4) = 0.5: the same direction, the peak joint at the bound.
    const auto& r = filter.filter(toy.guide, toy.jacobian, far, toy.p);
    REQUIRE(r.status == Status::Ok);
    CHECK_FALSE(r.solved);
    CHECK(r.velocity_scaled);
    CHECK(r.qdot == 0.5 * toy.guide);
  }
  {
    // Per-joint bounds: joint 1 (|-0.2| > 0.05) decides, s = 0.25.
    REQUIRE(filter.set_velocity_limits(Vec4(1.0, 0.05, 1.0, 1.0)) == Status::Ok);
    const auto& r = filter.filter(toy.guide, toy.jacobian, far, toy.p);
    CHECK(r.qdot == 0.25 * toy.guide);
    CHECK(r.qdot(1) == -0.05);
  }
  {
    // A guide inside the bounds passes unchanged.
    REQUIRE(filter.set_velocity_limits(Vec4::Constant(0.5)) == Status::Ok);
    const auto& r = filter.filter(toy.guide, toy.jacobian, far, toy.p);
    CHECK_FALSE(r.velocity_scaled);
    CHECK(r.qdot == toy.guide);
  }
  // Every outcome of a cycle, for both fallbacks, holds the bound exactly: solved (Ok),
  // Infeasible, refused (NaN), and inactive with a fast guide.
  const Vec4 fast_guide = 40.0 * toy.guide;
  PsiVec contact(1);
  contact << 0.0;
  PsiVec nan_psi(1);
  nan_psi << std::numeric_limits<double>::quiet_NaN();
  for (const auto fallback : {FliqcFallback::Stop, FliqcFallback::LeastViolation}) {
    for (const double bound : {0.05, 0.3, 5.0}) {
      s.q_dot_max = bound;
      s.fallback = fallback;
      Filter bounded;  // q_dot_max applies until set_velocity_limits replaces it
      REQUIRE(bounded.configure(s) == Status::Ok);
      for (const Vec4& guide : {toy.guide, fast_guide}) {
        for (const PsiVec& psi : {far, toy.psi, contact, nan_psi}) {
          const auto& r = bounded.filter(guide, toy.jacobian, psi, toy.p);
          INFO("bound " << bound << ", psi " << psi(0) << ", status " << claw::to_string(r.status));
          CHECK(r.qdot.allFinite());
          CHECK(r.qdot.cwiseAbs().maxCoeff() <= bound);
        }
      }
    }
  }
}

namespace {
/// A hand at q(0..2) (J_pos = [I 0]) above the floor z = 0, driven toward a goal on the floor at
/// x = 1; the distance is measured on the hand itself (P = e_z' J_pos). The guide 0.8 (goal - q)
/// stays inside q_dot_max = 1. Runs `steps` cycles of 10 ms; counts the cycles whose active row
/// was reported blocked and those that stopped.
struct HandOverFloor {
  Vec4 q = Vec4(0.0, 0.0, 0.06, 0.0);
  int blocked_cycles = 0, active_cycles = 0, stopped_cycles = 0;
  double lowest = 1.0;
  void run(Filter& filter, int steps) {
    Jac jacobian = Jac::Zero();
    jacobian.topLeftCorner(3, 3).setIdentity();
    PMat p(1, 4);
    p << 0.0, 0.0, 1.0, 0.0;
    PsiVec psi(1);
    const Vec4 goal(1.0, 0.0, 0.0, 0.0);
    for (int k = 0; k < steps; ++k) {
      psi(0) = q(2);
      const Vec4 guide = 0.8 * (goal - q);
      const auto& r = filter.filter(guide, jacobian, psi, p);
      REQUIRE(r.qdot.allFinite());
      if (r.active_count > 0) ++active_cycles;
      if (r.projector_blocked_count > 0) ++blocked_cycles;
      if (r.qdot.isZero(0.0)) ++stopped_cycles;
      q += 0.01 * r.qdot;
      lowest = std::min(lowest, q(2));
    }
  }
};
}  // namespace

TEST_CASE(
    "FLIQC: a distance measured on the hand is reported blocked by the projector; exempting "
    "it, or the least-violation fallback, keeps the arm moving",
    "[fliqc][safe_defaults]") {
  auto s = defaults();
  s.q_dot_max = 1.0;
  SECTION(
      "projector on, Stop: every active cycle is blocked and the hand freezes short of the goal") {
    Filter filter;
    REQUIRE(filter.configure(s) == Status::Ok);
    HandOverFloor hand;
    hand.run(filter, 1000);
    CHECK(hand.active_cycles > 0);
    CHECK(hand.blocked_cycles == hand.active_cycles);
    CHECK(hand.stopped_cycles > 800);
    CHECK(1.0 - hand.q(0) > 0.2);
  }
  SECTION("projector on, LeastViolation: the hand slides along the floor to the goal") {
    s.fallback = FliqcFallback::LeastViolation;
    Filter filter;
    REQUIRE(filter.configure(s) == Status::Ok);
    HandOverFloor hand;
    hand.run(filter, 1000);
    CHECK(hand.blocked_cycles == hand.active_cycles);
    CHECK(std::fabs(1.0 - hand.q(0)) < 0.01);
    CHECK(hand.lowest > 0.0);
  }
  SECTION("blocked rows exempted from the projector: every cycle solved, the goal reached") {
    s.exempt_blocked_rows_from_projector = true;
    Filter filter;
    REQUIRE(filter.configure(s) == Status::Ok);
    HandOverFloor hand;
    hand.run(filter, 1000);
    CHECK(hand.blocked_cycles == hand.active_cycles);
    CHECK(hand.stopped_cycles == 0);
    CHECK(std::fabs(1.0 - hand.q(0)) < 0.01);
    // The predicted distance psi + dt qdot_z >= eps holds each cycle and the hand moves 0.01 qdot:
    // it never goes below eps (1 - 0.01 / dt) = 0.01.
    CHECK(hand.lowest >= 0.01 - 1e-12);
  }
  SECTION("a distance on another point (P_i outside the row space of J_pos) is not blocked") {
    const Toy toy;
    Filter filter;
    REQUIRE(filter.configure(s) == Status::Ok);
    const auto& r = filter.filter(toy.guide, toy.jacobian, toy.psi, toy.p);
    REQUIRE(r.active_count == 1);
    CHECK(r.projector_blocked_count == 0);
    CHECK(r.projector_blocked(0) == 0);
  }
}

TEST_CASE("FLIQC: q_dot_max that the unique answer exceeds makes the cycle Infeasible", "[fliqc]") {
  const Toy toy;
  Filter filter;
  REQUIRE(filter.configure(defaults()) == Status::Ok);
  const Vec4 free_answer = filter.filter(toy.guide, toy.jacobian, toy.psi, toy.p).qdot;
  const double peak = free_answer.cwiseAbs().maxCoeff();
  auto s = defaults();
  s.q_dot_max = 1.01 * peak;
  REQUIRE(filter.configure(s) == Status::Ok);
  CHECK((filter.filter(toy.guide, toy.jacobian, toy.psi, toy.p).qdot - free_answer).norm() <=
        1e-12);
  s.q_dot_max = 0.99 * peak;
  REQUIRE(filter.configure(s) == Status::Ok);
  const auto& r = filter.filter(toy.guide, toy.jacobian, toy.psi, toy.p);
  CHECK(r.status == Status::Infeasible);
  CHECK(r.certified_global);
  CHECK(r.fallback_applied);
  CHECK(r.qdot.isZero(0.0));  // Stop
  // Per-joint limits: only the joint that carries the peak is bounded below it.
  REQUIRE(filter.configure(defaults()) == Status::Ok);
  Vec4 limits = Vec4::Constant(kInf);
  Eigen::Index joint = 0;
  free_answer.cwiseAbs().maxCoeff(&joint);
  limits(joint) = 0.99 * peak;
  REQUIRE(filter.set_velocity_limits(limits) == Status::Ok);
  CHECK(filter.filter(toy.guide, toy.jacobian, toy.psi, toy.p).status == Status::Infeasible);
  limits(joint) = kInf;
  limits((joint + 1) % 4) = 1.01 * std::fabs(free_answer((joint + 1) % 4)) + 1e-3;  // not binding
  REQUIRE(filter.set_velocity_limits(limits) == Status::Ok);
  CHECK(filter.filter(toy.guide, toy.jacobian, toy.psi, toy.p).status == Status::Ok);
  CHECK(filter.set_velocity_limits(Vec4::Constant(-1.0)) == Status::InvalidParameter);
}

TEST_CASE("FLIQC: lambda_max binds in x and in L only when enabled", "[fliqc]") {
  const Toy toy;
  Filter filter;
  REQUIRE(filter.configure(defaults()) == Status::Ok);
  const double lambda = filter.filter(toy.guide, toy.jacobian, toy.psi, toy.p).lambda(0);
  REQUIRE(lambda > 0.0);
  struct Case {
    bool in_x, in_l;
    Status expected;
  };
  for (const Case c : {Case{true, false, Status::Infeasible}, Case{false, true, Status::Infeasible},
                       Case{false, false, Status::Ok}, Case{true, true, Status::Infeasible}}) {
    auto s = defaults();
    s.lambda_max = 0.5 * lambda;
    s.enable_lambda_constraint_in_x = c.in_x;
    s.enable_lambda_constraint_in_L = c.in_l;
    REQUIRE(filter.configure(s) == Status::Ok);
    INFO("in_x " << c.in_x << ", in_L " << c.in_l);
    CHECK(filter.filter(toy.guide, toy.jacobian, toy.psi, toy.p).status == c.expected);
    const auto& problem = filter.problem();
    CHECK(problem.ub(4) == (c.in_x ? 0.5 * lambda : kInf));
    CHECK(problem.ubL(0) == (c.in_l ? 0.5 * lambda : kInf));
  }
}

TEST_CASE("FLIQC: the escape-velocity bound caps dt P qdot when enabled", "[fliqc]") {
  Toy toy;
  toy.guide = -toy.guide;  // now moving away: P guide > 0, lambda = 0, qdot = guide
  Filter filter;
  REQUIRE(filter.configure(defaults()) == Status::Ok);
  const auto& free_run = filter.filter(toy.guide, toy.jacobian, toy.psi, toy.p);
  REQUIRE(free_run.status == Status::Ok);
  CHECK((free_run.qdot - toy.guide).norm() <= 1e-14);
  const double escape = defaults().dt * toy.p.row(0).dot(toy.guide);
  REQUIRE(escape > 0.0);
  auto s = defaults();
  s.esc_vel_max = 0.5 * escape;
  s.enable_esc_vel_constraint = false;
  REQUIRE(filter.configure(s) == Status::Ok);
  CHECK(filter.filter(toy.guide, toy.jacobian, toy.psi, toy.p).status == Status::Ok);
  s.enable_esc_vel_constraint = true;
  REQUIRE(filter.configure(s) == Status::Ok);
  CHECK(filter.filter(toy.guide, toy.jacobian, toy.psi, toy.p).status == Status::Infeasible);
  CHECK(filter.problem().ubR(0) == 0.5 * escape);
  s.esc_vel_max = 2.0 * escape;
  REQUIRE(filter.configure(s) == Status::Ok);
  CHECK(filter.filter(toy.guide, toy.jacobian, toy.psi, toy.p).status == Status::Ok);
}

TEST_CASE(
    "FLIQC: cost types (and lambda_cost_penalty) choose among non-unique complementary points",
    "[fliqc]") {
  // Two copies of the same distance row with different inverse directions, no projector:
  // qdot = g + l1 e1 + l2 (e1 + e2); both rows give w = c + dt (l1 + l2), so every split of
  // s = l1 + l2 = -c / dt is complementary and qdot_y = g_y + l2 depends on the split.
  Filter filter;
  auto s = defaults();
  s.enable_nullspace_projector_in_A = false;
  Jac jacobian = Jac::Zero();
  jacobian.topRows(3).setIdentity();
  Vec4 guide;
  guide << -1.0, -1.0, 0.0, 0.0;
  PsiVec psi(2);
  psi << 0.03, 0.03;
  PMat p(2, 4);
  p << 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0;
  PMat p_inv(2, 4);
  p_inv << 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0;
  const double c = psi(0) - s.eps + s.dt * guide(0);
  const double sum = -c / s.dt;
  REQUIRE(sum > 0.0);
  const Mat4 mass = Mat4::Identity();
  // Each cost is a quadratic in l2 on [0, sum]; its minimiser (interior here) in closed form:
  //  Identity:       1/2 ((g_x+s)^2 + (g_y+l2)^2) + k/2 ((s-l2)^2 + l2^2) -> l2 = (k s - g_y) / (1
  //  + 2k) VelocityError:  1/2 (s^2 + l2^2) + k/2 ((s-l2)^2 + l2^2)             -> l2 = k s / (1 +
  //  2k)
  struct Case {
    FliqcCostType type;
    double k;
    double l2;
  };
  const double gy = guide(1);
  for (const Case cs : {Case{FliqcCostType::Identity, 1.0, (1.0 * sum - gy) / 3.0},
                        Case{FliqcCostType::Identity, 3.0, (3.0 * sum - gy) / 7.0},
                        Case{FliqcCostType::VelocityError, 1.0, sum / 3.0},
                        Case{FliqcCostType::MassMatrix, 1.0, (1.0 * sum - gy) / 3.0},
                        Case{FliqcCostType::MassMatrixVelocityError, 1.0, sum / 3.0}}) {
    INFO("cost type " << static_cast<int>(cs.type) << ", k " << cs.k);
    REQUIRE(cs.l2 > 0.0);
    REQUIRE(cs.l2 < sum);
    s.quad_cost_type = cs.type;
    s.lambda_cost_penalty = cs.k;
    REQUIRE(filter.configure(s) == Status::Ok);
    const auto& r = filter.filter(guide, mass, jacobian, psi, p, p_inv);
    REQUIRE(r.status == Status::Ok);
    CHECK(r.certified_global);
    CHECK(r.path == claw::LcqpPath::BranchAndBound);
    CHECK(r.qdot(0) == Approx(guide(0) + sum).epsilon(1e-9));
    CHECK(r.qdot(1) == Approx(gy + cs.l2).epsilon(1e-9));
  }
}

TEST_CASE(
    "FLIQC: velocity-error costs put the minimiser at the guide (or at 2 guide as originally "
    "coded)",
    "[fliqc]") {
  const Toy toy;
  Filter filter;
  auto s = defaults();
  Mat4 mass;
  mass << 2.0, 0.3, 0.0, 0.1, 0.3, 1.5, 0.2, 0.0, 0.0, 0.2, 1.0, 0.0, 0.1, 0.0, 0.0, 0.8;
  Vec4 weights;
  weights << 1.0, 2.0, 0.5, 1.0;
  const Mat4 weighted = weights.asDiagonal() * mass * weights.asDiagonal();
  for (const bool original : {false, true}) {
    for (const FliqcCostType type :
         {FliqcCostType::VelocityError, FliqcCostType::MassMatrixVelocityError}) {
      s.quad_cost_type = type;
      s.velocity_error_as_original = original;
      REQUIRE(filter.configure(s) == Status::Ok);
      REQUIRE(filter.set_mass_matrix_weights(weights) == Status::Ok);
      REQUIRE(filter.filter(toy.guide, mass, toy.jacobian, toy.psi, toy.p).status == Status::Ok);
      const Mat4 q = filter.problem().Q.topLeftCorner(4, 4);
      const Mat4 expected_q = type == FliqcCostType::VelocityError ? Mat4::Identity() : weighted;
      CHECK((q - expected_q).lpNorm<Eigen::Infinity>() <= 1e-15);
      // The unconstrained minimiser -Q^-1 g of the qdot cost.
      const Vec4 minimiser = -q.ldlt().solve(filter.problem().g.head(4));
      CHECK((minimiser - (original ? 2.0 : 1.0) * toy.guide).lpNorm<Eigen::Infinity>() <= 1e-12);
    }
  }
  CHECK(filter.set_mass_matrix_weights(Vec4::Zero()) == Status::InvalidParameter);
}

TEST_CASE("FLIQC: the overload without a mass matrix uses M = I whatever the last call loaded",
          "[fliqc]") {
  const Toy toy;
  auto s = defaults();
  s.quad_cost_type = FliqcCostType::MassMatrix;
  Filter filter, fresh;
  REQUIRE(filter.configure(s) == Status::Ok);
  REQUIRE(fresh.configure(s) == Status::Ok);
  const Vec4 expected = fresh.filter(toy.guide, toy.jacobian, toy.psi, toy.p).qdot;
  REQUIRE(fresh.result().status == Status::Ok);
  Mat4 mass;
  mass << 2.0, 0.3, 0.0, 0.1, 0.3, 1.5, 0.2, 0.0, 0.0, 0.2, 1.0, 0.0, 0.1, 0.0, 0.0, 0.8;
  Mat4 nan_mass = Mat4::Identity();
  nan_mass(2, 0) = std::numeric_limits<double>::quiet_NaN();
  for (const Mat4& loaded : {mass, nan_mass}) {
    filter.reset();
    const auto& with_mass = filter.filter(toy.guide, loaded, toy.jacobian, toy.psi, toy.p);
    CHECK(with_mass.status == (loaded.allFinite() ? Status::Ok : Status::NonFiniteInput));
    filter.reset();
    const auto& r = filter.filter(toy.guide, toy.jacobian, toy.psi, toy.p);
    REQUIRE(r.status == Status::Ok);
    CHECK((filter.problem().Q.topLeftCorner(4, 4) - Mat4::Identity()).isZero(0.0));
    CHECK(r.qdot == expected);
  }
}

TEST_CASE("FLIQC: the least-violation fallback minimises the largest predicted violation",
          "[fliqc]") {
  const Toy toy;
  auto s = defaults();
  s.q_dot_max = 0.05;  // far too slow to keep eps: infeasible
  s.fallback = FliqcFallback::LeastViolation;
  s.enable_nullspace_projector_in_A = false;
  Filter filter;
  REQUIRE(filter.configure(s) == Status::Ok);
  PsiVec psi(1);
  psi << 0.0;  // at contact: needs dt P qdot >= eps
  const auto& r = filter.filter(toy.guide, toy.jacobian, psi, toy.p);
  REQUIRE(r.status == Status::Infeasible);
  REQUIRE(r.fallback_applied);
  // Best possible: qdot_j = q_dot_max sign(P_j): violation eps - psi - dt q_dot_max |P|_1.
  const double best = s.eps - psi(0) - s.dt * s.q_dot_max * toy.p.row(0).lpNorm<1>();
  REQUIRE(best > 0.0);
  CHECK(r.predicted_violation == Approx(best).epsilon(1e-6));
  CHECK(r.qdot.cwiseAbs().maxCoeff() <= s.q_dot_max + 1e-12);
  for (int j = 0; j < 4; ++j) CHECK(r.qdot(j) * toy.p(0, j) >= 0.0);
  // The default fallback stops.
  s.fallback = FliqcFallback::Stop;
  REQUIRE(filter.configure(s) == Status::Ok);
  CHECK(filter.filter(toy.guide, toy.jacobian, psi, toy.p).qdot.isZero(0.0));
}

TEST_CASE("FLIQC: NaN or Inf in any input gives NonFiniteInput and stops", "[fliqc]") {
  const Toy toy;
  Filter filter;
  auto s = defaults();
  s.fallback = FliqcFallback::LeastViolation;  // not computable from bad data: stop anyway
  REQUIRE(filter.configure(s) == Status::Ok);
  const double bad[] = {std::numeric_limits<double>::quiet_NaN(), kInf};
  for (const double v : bad) {
    for (int which = 0; which < 4; ++which) {
      Toy t = toy;
      if (which == 0) t.guide(2) = v;
      if (which == 1) t.jacobian(1, 3) = v;
      if (which == 2) t.psi(0) = v;
      if (which == 3) t.p(0, 1) = v;
      INFO("input " << which << " = " << v);
      const auto& r = filter.filter(t.guide, t.jacobian, t.psi, t.p);
      CHECK(r.status == Status::NonFiniteInput);
      CHECK(r.fallback_applied);
      CHECK(r.qdot.isZero(0.0));
    }
  }
  Mat4 mass = Mat4::Identity();
  mass(0, 1) = std::numeric_limits<double>::quiet_NaN();
  CHECK(filter.filter(toy.guide, mass, toy.jacobian, toy.psi, toy.p).status ==
        Status::NonFiniteInput);
  // More active distances than MaxM: refused, stop.
  Filter small;  // MaxM = 4: five distances do not fit
  REQUIRE(small.configure(defaults()) == Status::Ok);
  const Eigen::VectorXd psi_dyn = Eigen::VectorXd::Constant(5, 0.01);
  const Eigen::Matrix<double, Eigen::Dynamic, 4> p_dyn =
      Eigen::Matrix<double, Eigen::Dynamic, 4>::Random(5, 4);
  CHECK(small.filter(toy.guide, toy.jacobian, psi_dyn, p_dyn).status == Status::SizeMismatch);
  CHECK(small.result().qdot.isZero(0.0));
  // Invalid settings are refused and the old ones stay.
  auto bad_settings = defaults();
  bad_settings.dt = 0.0;
  CHECK(filter.configure(bad_settings) == Status::InvalidParameter);
  CHECK(filter.settings().dt == defaults().dt);
}

TEST_CASE("FLIQC: the warm start reuses the previous active set and gives the same answer",
          "[fliqc]") {
  // Three distances (with one or two the LCP is solved over its bases and no guess is tried),
  // without the projector so that the three rows' LCP is nonsingular; each row approaches under
  // the guide (P_i guide < 0) by more than psi_i - eps allows within dt.
  const Toy toy;
  PsiVec psi(3);
  psi << 0.03, 0.022, 0.024;
  PMat p(3, 4);
  p << -0.5, 0.3, -0.2, -1.0,  //
      -1.0, 0.0, 0.5, 0.0,     //
      0.0, 1.0, 0.0, -0.5;
  auto s = defaults();
  s.enable_nullspace_projector_in_A = false;
  Filter filter;
  REQUIRE(filter.configure(s) == Status::Ok);
  const Vec4 first = filter.filter(toy.guide, toy.jacobian, psi, p).qdot;
  REQUIRE(filter.result().status == Status::Ok);
  CHECK(filter.result().path == claw::LcqpPath::Monotone);
  CHECK(filter.result().lemke_pivots > 0);
  const auto& second = filter.filter(toy.guide, toy.jacobian, psi, p);
  CHECK(second.lemke_pivots == 0);  // the guess verified: no pivot
  CHECK((second.qdot - first).lpNorm<Eigen::Infinity>() <= 1e-15);
  // A stale guess (the guide now moves away, lambda = 0) is rejected and Lemke runs.
  const Vec4 away = -toy.guide;
  const auto& third = filter.filter(away, toy.jacobian, psi, p);
  REQUIRE(third.status == Status::Ok);
  CHECK((third.qdot - away).lpNorm<Eigen::Infinity>() <= 1e-15);
}

TEST_CASE("FLIQC: a cycle allocates nothing, whatever its outcome", "[fliqc]") {
  const Toy toy;
  auto s = defaults();
  s.fallback = FliqcFallback::LeastViolation;
  Filter filter;
  REQUIRE(filter.configure(s) == Status::Ok);
  PsiVec contact(1);
  contact << 0.0;
  Toy nan_toy = toy;
  nan_toy.psi(0) = std::numeric_limits<double>::quiet_NaN();
  auto slow = s;
  slow.q_dot_max = 0.05;
  Status statuses[5] = {};
  const std::size_t allocations = claw_test::allocations_during([&] {
    statuses[0] = filter.filter(toy.guide, toy.jacobian, toy.psi, toy.p).status;  // Ok, Lemke
    statuses[1] = filter.filter(toy.guide, toy.jacobian, toy.psi, toy.p).status;  // Ok, warm
    statuses[2] = filter.filter(nan_toy.guide, nan_toy.jacobian, nan_toy.psi, nan_toy.p).status;
    statuses[3] = filter.configure(slow);
    statuses[4] = filter.filter(toy.guide, toy.jacobian, contact, toy.p).status;  // least violation
  });
  CHECK(allocations == 0);
  CHECK(statuses[0] == Status::Ok);
  CHECK(statuses[1] == Status::Ok);
  CHECK(statuses[2] == Status::NonFiniteInput);
  CHECK(statuses[3] == Status::Ok);
  CHECK(statuses[4] == Status::Infeasible);
  CHECK(filter.result().status == Status::Infeasible);
}
