// tests/test_lcqp_regression_data.cpp: every LCQP input of tests/data/regressions/lcqp/*.json,
// solved as its file says and checked for the properties each solve step names (schema: that
// README).
#include <catch2/catch.hpp>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "claw/solvers/lcqp.hpp"
#include "support/json_core.hpp"
#include "support/lcqp_branches.hpp"
#include "support/lcqp_json.hpp"
#include "support/regression_data.hpp"
#include "support/solver_instances.hpp"

namespace {

using claw::Status;
using claw_test::check_keys;
using claw_test::field_integer;
using claw_test::field_real;
using claw_test::field_status;
using claw_test::field_text;
using claw_test::member;
using claw_test::status_name;
using Json = nlohmann::json;

/// The fields of a file, of its problem, of each step and of the checks a step holds (README:
/// "A file", "Steps", "Checks of an Ok answer", "The branch reference").
constexpr const char* kFileFields = "description scalar lcqp runs";
constexpr const char* kProblemFields = "Q g A lbA ubA lb ub L R lbL ubL lbR ubR";
constexpr const char* kMatrixFields = "Q A L R";
constexpr const char* kSettingsFields =
    "use_monotone_path max_pairs_for_branch_and_bound max_nodes prune_tolerance initial_penalty "
    "penalty_update_factor max_penalty max_iterations stationarity_tolerance "
    "complementarity_tolerance dynamic_penalty_window dynamic_penalty_eta max_local_flips "
    "feasibility_tolerance hessian_regularisation auto_regularisation qp";
constexpr const char* kQpSettingsFields =
    "max_iterations feasibility_tolerance infeasibility_tolerance stationarity_tolerance "
    "dependence_tolerance";
constexpr const char* kSolveFields =
    "do guess expect statuses certified witness branches if_ok if_certified";
constexpr const char* kAnswerChecks =
    "x x_tolerance objective objective_rel objective_below objective_at_most path "
    "objective_at_most_best_branch_rel objective_equals_best_branch_rel "
    "objective_at_most_ceiling_rel";
constexpr const char* kBranchFields =
    "best_objective best_objective_rel certified_ceiling certified_ceiling_rel clearly_feasible";

/// A number that must be a Scalar value exactly (settings).
template <typename Scalar>
Scalar exact(const Json& v) {
  const double d = field_real(v);
  const auto s = static_cast<Scalar>(d);
  INFO("number " << v.dump() << " is not exactly a value of the file's scalar type");
  CHECK(static_cast<double>(s) == d);
  return s;
}

bool boolean(const Json& v) {
  INFO("boolean " << v.dump());
  const bool is_boolean = v.is_boolean();
  CHECK(is_boolean);
  return is_boolean && v.get<bool>();
}

/// LcqpPath's enumerator names.
std::string path_name(claw::LcqpPath path) {
  switch (path) {
    case claw::LcqpPath::Monotone:
      return "Monotone";
    case claw::LcqpPath::BranchAndBound:
      return "BranchAndBound";
    case claw::LcqpPath::PenaltyHomotopy:
      return "PenaltyHomotopy";
    default:
      return "None";
  }
}

/// The file's `lcqp` block as an LcqpProblem<double> (read_lcqp, without regularisation). Every
/// field must be present and written out: matrices as lists of rows, no null anywhere, so that
/// none of read_lcqp's defaults for absent or null entries applies.
claw::LcqpProblem<double> read_problem(const Json& block) {
  REQUIRE(block.is_object());
  check_keys(block, kProblemFields, "lcqp");
  const std::string matrices = std::string(" ") + kMatrixFields + " ";
  for (const std::string name :
       {"Q", "g", "A", "lbA", "ubA", "lb", "ub", "L", "R", "lbL", "ubL", "lbR", "ubR"}) {
    INFO("lcqp." << name);
    REQUIRE(block.contains(name));
    const Json& field = block[name];
    REQUIRE(field.is_array());
    const bool matrix = matrices.find(" " + name + " ") != std::string::npos;
    for (const Json& entry : field) {
      if (matrix) {
        REQUIRE(entry.is_array());
        for (const Json& e : entry) REQUIRE(!e.is_null());
      } else {
        REQUIRE(!entry.is_null());
      }
    }
  }
  claw::LcqpProblem<double> p;
  std::string error;
  const bool read = claw_test::read_lcqp(block, false, p, error);
  INFO(error);
  REQUIRE(read);
  return p;
}

/// `from` in Scalar; fails the test when an entry is not a Scalar value exactly.
template <typename Scalar, typename To, typename From>
void convert(const From& from, To& to, const char* name) {
  to = from.template cast<Scalar>();
  INFO("lcqp." << name << " holds a number that is not exactly a value of the file's scalar type");
  CHECK(to.template cast<double>() == from);
}

template <typename Scalar>
claw::LcqpProblem<Scalar> in_scalar(const claw::LcqpProblem<double>& d) {
  claw::LcqpProblem<Scalar> p(d.num_variables(), d.num_constraints(), d.num_pairs());
  convert<Scalar>(d.Q, p.Q, "Q");
  convert<Scalar>(d.g, p.g, "g");
  convert<Scalar>(d.A, p.A, "A");
  convert<Scalar>(d.lbA, p.lbA, "lbA");
  convert<Scalar>(d.ubA, p.ubA, "ubA");
  convert<Scalar>(d.lb, p.lb, "lb");
  convert<Scalar>(d.ub, p.ub, "ub");
  convert<Scalar>(d.L, p.L, "L");
  convert<Scalar>(d.R, p.R, "R");
  convert<Scalar>(d.lbL, p.lbL, "lbL");
  convert<Scalar>(d.ubL, p.ubL, "ubL");
  convert<Scalar>(d.lbR, p.lbR, "lbR");
  convert<Scalar>(d.ubR, p.ubR, "ubR");
  return p;
}

/// One file's solver runs: each run is a fresh LcqpSolver<Scalar> taken through its steps in order.
template <typename Scalar>
class FileRunner {
 public:
  using Problem = claw::LcqpProblem<Scalar>;
  using Solver = claw::LcqpSolver<Scalar>;
  using Result = typename Solver::Result;
  using Settings = claw::LcqpSettings<Scalar>;
  using Vector = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;

  explicit FileRunner(const claw::LcqpProblem<double>& problem)
      : exact_(problem), p_(in_scalar<Scalar>(problem)) {}

  void run(const Json& runs) {
    REQUIRE(runs.is_array());
    REQUIRE(!runs.empty());
    for (std::size_t r = 0; r < runs.size(); ++r) {
      INFO("run " << r);
      const Json& steps = runs[r];
      REQUIRE(steps.is_array());
      REQUIRE(!steps.empty());
      Solver solver;
      for (std::size_t k = 0; k < steps.size(); ++k) {
        const Json& step = steps[k];
        INFO("step " << k << ": " << step.dump());
        REQUIRE(step.is_object());
        const std::string action = field_text(member(step, "do"));
        if (action == "set_settings") {
          set_settings(solver, step);
        } else if (action == "solve") {
          solve(solver, step);
        } else {
          FAIL("unknown step \"" << action << "\"");
        }
      }
    }
  }

 private:
  /// LcqpSettings<Scalar> at its defaults with the step's fields set; set_settings must return Ok
  /// and install them.
  void set_settings(Solver& solver, const Json& step) const {
    check_keys(step, "do settings", "set_settings");
    const Json& fields = member(step, "settings");
    REQUIRE(fields.is_object());
    check_keys(fields, kSettingsFields, "settings");
    Settings s;
    read(fields, "use_monotone_path", s.use_monotone_path);
    read(fields, "max_pairs_for_branch_and_bound", s.max_pairs_for_branch_and_bound);
    read(fields, "max_nodes", s.max_nodes);
    read(fields, "prune_tolerance", s.prune_tolerance);
    read(fields, "initial_penalty", s.initial_penalty);
    read(fields, "penalty_update_factor", s.penalty_update_factor);
    read(fields, "max_penalty", s.max_penalty);
    read(fields, "max_iterations", s.max_iterations);
    read(fields, "stationarity_tolerance", s.stationarity_tolerance);
    read(fields, "complementarity_tolerance", s.complementarity_tolerance);
    read(fields, "dynamic_penalty_window", s.dynamic_penalty_window);
    read(fields, "dynamic_penalty_eta", s.dynamic_penalty_eta);
    read(fields, "max_local_flips", s.max_local_flips);
    read(fields, "feasibility_tolerance", s.feasibility_tolerance);
    read(fields, "hessian_regularisation", s.hessian_regularisation);
    read(fields, "auto_regularisation", s.auto_regularisation);
    if (fields.contains("qp")) {
      const Json& qp = fields["qp"];
      REQUIRE(qp.is_object());
      check_keys(qp, kQpSettingsFields, "settings.qp");
      read(qp, "max_iterations", s.qp.max_iterations);
      read(qp, "feasibility_tolerance", s.qp.feasibility_tolerance);
      read(qp, "infeasibility_tolerance", s.qp.infeasibility_tolerance);
      read(qp, "stationarity_tolerance", s.qp.stationarity_tolerance);
      read(qp, "dependence_tolerance", s.qp.dependence_tolerance);
    }
    REQUIRE(status_name(solver.set_settings(s)) == "Ok");
    CHECK(same_settings(solver.settings(), s));
  }

  static void read(const Json& fields, const char* key, bool& out) {
    if (fields.contains(key)) out = boolean(fields[key]);
  }
  static void read(const Json& fields, const char* key, int& out) {
    if (fields.contains(key)) out = field_integer(fields[key]);
  }
  static void read(const Json& fields, const char* key, long& out) {
    if (!fields.contains(key)) return;
    INFO("integer " << fields[key].dump());
    const bool is_integer = fields[key].is_number_integer();
    CHECK(is_integer);
    if (is_integer) out = fields[key].get<long>();
  }
  static void read(const Json& fields, const char* key, Scalar& out) {
    if (fields.contains(key)) out = exact<Scalar>(fields[key]);
  }

  static bool same_settings(const Settings& a, const Settings& b) {
    return a.use_monotone_path == b.use_monotone_path &&
           a.max_pairs_for_branch_and_bound == b.max_pairs_for_branch_and_bound &&
           a.max_nodes == b.max_nodes && a.prune_tolerance == b.prune_tolerance &&
           a.initial_penalty == b.initial_penalty &&
           a.penalty_update_factor == b.penalty_update_factor && a.max_penalty == b.max_penalty &&
           a.max_iterations == b.max_iterations &&
           a.stationarity_tolerance == b.stationarity_tolerance &&
           a.complementarity_tolerance == b.complementarity_tolerance &&
           a.dynamic_penalty_window == b.dynamic_penalty_window &&
           a.dynamic_penalty_eta == b.dynamic_penalty_eta &&
           a.max_local_flips == b.max_local_flips &&
           a.feasibility_tolerance == b.feasibility_tolerance &&
           a.hessian_regularisation == b.hessian_regularisation &&
           a.auto_regularisation == b.auto_regularisation &&
           a.qp.max_iterations == b.qp.max_iterations &&
           a.qp.feasibility_tolerance == b.qp.feasibility_tolerance &&
           a.qp.infeasibility_tolerance == b.qp.infeasibility_tolerance &&
           a.qp.stationarity_tolerance == b.qp.stationarity_tolerance &&
           a.qp.dependence_tolerance == b.qp.dependence_tolerance;
  }

  /// The test reference of the problem's 2^m branch QPs (claw_test::solve_lcqp_branches), with the
  /// answer's x for the certified ceiling; computed once, when a check needs it.
  class Reference {
   public:
    Reference(const Problem& problem, const Vector& x) : problem_(problem), x_(x) {}
    const claw_test::LcqpBranches<Scalar>& get() {
      if (!branches_) {
        branches_ = claw_test::solve_lcqp_branches(problem_, &x_);
        INFO("the branch QPs refuse Q or the rows");
        REQUIRE(branches_->hessian_accepted);
      }
      return *branches_;
    }
    double best() { return static_cast<double>(get().best_objective); }
    double ceiling() { return static_cast<double>(get().certified_ceiling); }

   private:
    const Problem& problem_;
    const Vector x_;
    std::optional<claw_test::LcqpBranches<Scalar>> branches_;
  };

  void solve(Solver& solver, const Json& step) const {
    check_keys(step, kSolveFields, "solve");
    const Eigen::Index n = p_.num_variables(), m = p_.num_pairs();
    if (step.contains("witness")) check_witness(step["witness"]);
    const Result* answer = nullptr;
    if (step.contains("guess")) {
      const Json& sides = step["guess"];
      INFO("guess: one side (0: L, 1: R, 2: both) per pair");
      REQUIRE(sides.is_array());
      REQUIRE(static_cast<Eigen::Index>(sides.size()) == m);
      Eigen::Matrix<std::int8_t, Eigen::Dynamic, 1> guess(m);
      for (Eigen::Index i = 0; i < m; ++i) {
        const int side = field_integer(sides[static_cast<std::size_t>(i)]);
        REQUIRE((side >= 0 && side <= 2));
        guess(i) = static_cast<std::int8_t>(side);
      }
      answer = &solver.solve(p_, guess);
    } else {
      answer = &solver.solve(p_);
    }
    const Result& r = *answer;
    INFO("status " << claw::to_string(r.status) << (r.certified_global ? ", certified" : "")
                   << ", path " << path_name(r.path) << ", objective " << r.objective << ", x "
                   << r.x.transpose());
    REQUIRE(r.x.size() == n);
    check_status(step, r.status);
    if (step.contains("certified")) CHECK(r.certified_global == boolean(step["certified"]));
    check_contract(r, solver.settings());
    Reference reference(p_, r.x);
    if (step.contains("branches")) check_reference(step["branches"], reference);
    const bool ok = r.status == Status::Ok;
    if (step.contains("if_ok")) check_answer(step["if_ok"], ok, r, reference);
    if (step.contains("if_certified"))
      check_answer(step["if_certified"], ok && r.certified_global, r, reference);
  }

  /// The step's `expect`: ok, infeasible, never_infeasible (Ok or undecided), one_of `statuses`.
  static void check_status(const Json& step, Status s) {
    const std::string expect = field_text(member(step, "expect"));
    if (expect == "ok") {
      CHECK(status_name(s) == "Ok");
    } else if (expect == "infeasible") {
      CHECK(status_name(s) == "Infeasible");
    } else if (expect == "never_infeasible") {
      CHECK((s == Status::Ok || claw_test::undecided(s)));
    } else if (expect == "one_of") {
      const Json& allowed = member(step, "statuses");
      REQUIRE(allowed.is_array());
      REQUIRE(!allowed.empty());
      bool listed = false;
      for (const Json& name : allowed) listed = listed || field_status(name) == s;
      CHECK(listed);
    } else {
      FAIL("unknown property \"" << expect << "\"");
    }
  }

  /// What LcqpResult promises for its status. Ok: x and objective finite, the objective
  /// 1/2 x'Qx + g'x to the rounding of its terms, and x within the acceptance test LcqpSettings::
  /// feasibility_tolerance states (t = feasibility_tolerance (1 + |x|_inf): every bound within t,
  /// every row within t max(1, ||row||), every pair's natural residual within t max(1, ||L_i||,
  /// ||R_i||)). Any other status: x = 0 and objective 0; certified_global exactly when Infeasible.
  void check_contract(const Result& r, const Settings& s) const {
    if (r.status != Status::Ok) {
      CHECK(r.x.isZero(Scalar(0)));
      CHECK(r.objective == Scalar(0));
      CHECK(r.certified_global == (r.status == Status::Infeasible));
      return;
    }
    REQUIRE(r.x.allFinite());
    CHECK(std::isfinite(r.objective));
    const Eigen::Index n = p_.num_variables();
    using L = long double;
    L value = 0, size = 0;  // 1/2 x'Qx + g'x and the sum of its terms' magnitudes
    for (Eigen::Index i = 0; i < n; ++i) {
      for (Eigen::Index j = 0; j < n; ++j) {
        const L term = L(0.5) * L(r.x(i)) * L(p_.Q(i, j)) * L(r.x(j));
        value += term;
        size += std::fabs(term);
      }
      value += L(p_.g(i)) * L(r.x(i));
      size += std::fabs(L(p_.g(i)) * L(r.x(i)));
    }
    const L rounding = L(4 * (n + 1)) * L(std::numeric_limits<Scalar>::epsilon()) * size;
    INFO("objective recomputed " << static_cast<double>(value) << ", allowance "
                                 << static_cast<double>(rounding));
    CHECK(std::fabs(L(r.objective) - value) <= rounding);
    const Scalar t = s.feasibility_tolerance * (Scalar(1) + r.x.template lpNorm<Eigen::Infinity>());
    for (Eigen::Index j = 0; j < n; ++j) {
      INFO("bound " << j);
      CHECK(p_.lb(j) - r.x(j) <= t);
      CHECK(r.x(j) - p_.ub(j) <= t);
    }
    auto within = [&](const char* name, Eigen::Index i, Scalar v, Scalar lo, Scalar hi,
                      Scalar allowed) {
      INFO(name << " row " << i << ": " << lo << " <= " << v << " <= " << hi << " within "
                << allowed);
      CHECK(lo - v <= allowed);
      CHECK(v - hi <= allowed);
    };
    for (Eigen::Index i = 0; i < p_.num_constraints(); ++i) {
      const Scalar allowed = t * std::max(Scalar(1), p_.A.row(i).stableNorm());
      within("A", i, p_.A.row(i).dot(r.x), p_.lbA(i), p_.ubA(i), allowed);
    }
    for (Eigen::Index i = 0; i < p_.num_pairs(); ++i) {
      const Scalar lx = p_.L.row(i).dot(r.x), rx = p_.R.row(i).dot(r.x);
      const Scalar l_tol = t * std::max(Scalar(1), p_.L.row(i).stableNorm());
      const Scalar r_tol = t * std::max(Scalar(1), p_.R.row(i).stableNorm());
      within("L", i, lx, p_.lbL(i), p_.ubL(i), l_tol);
      within("R", i, rx, p_.lbR(i), p_.ubR(i), r_tol);
      INFO("pair " << i << ": L side " << lx - p_.lbL(i) << ", R side " << rx - p_.lbR(i));
      CHECK(std::fabs(std::min(lx - p_.lbL(i), rx - p_.lbR(i))) <= std::max(l_tol, r_tol));
    }
  }

  /// The step's `branches`: the test reference's own values.
  static void check_reference(const Json& checks, Reference& reference) {
    REQUIRE(checks.is_object());
    REQUIRE(!checks.empty());
    check_keys(checks, kBranchFields, "branches");
    const auto& b = reference.get();
    if (checks.contains("best_objective")) {
      const double rel =
          checks.contains("best_objective_rel") ? field_real(checks["best_objective_rel"]) : 0.0;
      CHECK(static_cast<double>(b.best_objective) ==
            Approx(field_real(checks["best_objective"])).epsilon(rel));
    }
    if (checks.contains("certified_ceiling")) {
      const double rel = checks.contains("certified_ceiling_rel")
                             ? field_real(checks["certified_ceiling_rel"])
                             : 0.0;
      CHECK(static_cast<double>(b.certified_ceiling) ==
            Approx(field_real(checks["certified_ceiling"])).epsilon(rel));
    }
    if (checks.contains("clearly_feasible"))
      CHECK(b.clearly_feasible == boolean(checks["clearly_feasible"]));
  }

  /// The checks of `if_ok` or `if_certified` (README: "Checks of an Ok answer"), applied when
  /// `applies` (Ok; Ok and certified). Their fields are checked against the schema either way.
  void check_answer(const Json& checks, bool applies, const Result& r, Reference& reference) const {
    REQUIRE(checks.is_object());
    REQUIRE(!checks.empty());
    check_keys(checks, kAnswerChecks, "answer checks");
    auto number = [&](const char* key, double fill) {
      return checks.contains(key) ? field_real(checks[key]) : fill;
    };
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> x;
    if (checks.contains("x")) {
      const Json& xs = checks["x"];
      REQUIRE(xs.is_array());
      REQUIRE(static_cast<Eigen::Index>(xs.size()) == p_.num_variables());
      for (const Json& e : xs) x.push_back(field_real(e));
    }
    const double x_tolerance = number("x_tolerance", 0.0);
    const double expected = number("objective", nan);
    const double objective_rel = number("objective_rel", 0.0);
    const double below = number("objective_below", nan);
    const double at_most = number("objective_at_most", nan);
    const std::string path = checks.contains("path") ? field_text(checks["path"]) : std::string();
    const double best_rel = number("objective_at_most_best_branch_rel", nan);
    const double equal_rel = number("objective_equals_best_branch_rel", nan);
    const double ceiling_rel = number("objective_at_most_ceiling_rel", nan);
    if (!applies) return;
    const double objective = static_cast<double>(r.objective);
    for (std::size_t j = 0; j < x.size(); ++j) {
      INFO("x(" << j << ")");
      CHECK(std::fabs(static_cast<double>(r.x(static_cast<Eigen::Index>(j))) - x[j]) <=
            x_tolerance);
    }
    if (checks.contains("objective")) CHECK(objective == Approx(expected).epsilon(objective_rel));
    if (checks.contains("objective_below")) CHECK(objective < below);
    if (checks.contains("objective_at_most")) CHECK(objective <= at_most);
    if (checks.contains("path")) CHECK(path_name(r.path) == path);
    if (checks.contains("objective_at_most_best_branch_rel")) {
      const double best = reference.best();
      INFO("best branch " << best);
      CHECK(objective <= best + best_rel * std::fabs(best));
    }
    if (checks.contains("objective_equals_best_branch_rel"))
      CHECK(objective == Approx(reference.best()).epsilon(equal_rel));
    if (checks.contains("objective_at_most_ceiling_rel")) {
      const double ceiling = reference.ceiling();
      INFO("certified ceiling " << ceiling);
      CHECK(objective <= ceiling + ceiling_rel * std::fabs(ceiling));
    }
  }

  /// The witness point is feasible and complementary within the margin d, in double: every bound,
  /// row of A, L and R within d of its bounds, and min(L_i x - lbL_i, R_i x - lbR_i) <= d.
  void check_witness(const Json& witness) const {
    REQUIRE(witness.is_object());
    check_keys(witness, "x margin", "witness");
    const Json& xs = member(witness, "x");
    const Eigen::Index n = exact_.num_variables();
    REQUIRE(xs.is_array());
    REQUIRE(static_cast<Eigen::Index>(xs.size()) == n);
    Eigen::VectorXd x(n);
    for (Eigen::Index j = 0; j < n; ++j) x(j) = field_real(xs[static_cast<std::size_t>(j)]);
    const double d = field_real(member(witness, "margin"));
    const claw::LcqpProblem<double>& p = exact_;
    for (Eigen::Index j = 0; j < n; ++j) {
      INFO("witness bound " << j);
      CHECK(x(j) - p.lb(j) >= -d);
      CHECK(p.ub(j) - x(j) >= -d);
    }
    auto rows = [&](const char* name, const auto& a, const auto& lo, const auto& hi) {
      for (Eigen::Index i = 0; i < a.rows(); ++i) {
        const double v = a.row(i).dot(x);
        INFO("witness " << name << " row " << i << ": " << v);
        CHECK(v - lo(i) >= -d);
        CHECK(hi(i) - v >= -d);
      }
    };
    rows("A", p.A, p.lbA, p.ubA);
    rows("L", p.L, p.lbL, p.ubL);
    rows("R", p.R, p.lbR, p.ubR);
    for (Eigen::Index i = 0; i < p.num_pairs(); ++i) {
      INFO("witness pair " << i);
      CHECK(std::min(p.L.row(i).dot(x) - p.lbL(i), p.R.row(i).dot(x) - p.lbR(i)) <= d);
    }
  }

  const claw::LcqpProblem<double>& exact_;  ///< the file's problem as read (double)
  const Problem p_;                         ///< the same in Scalar
};

}  // namespace

TEST_CASE("LCQP regression data: every input of tests/data/regressions/lcqp meets its properties",
          "[lcqp][regression]") {
  const std::string dir = claw_test::regressions_dir() + "/lcqp";
  const std::vector<std::string> files = claw_test::json_files(dir);
  INFO("regression inputs in " << dir);
  REQUIRE(!files.empty());
  for (const std::string& path : files) {
    DYNAMIC_SECTION(std::filesystem::path(path).filename().string()) {
      INFO("file " << path);
      Json file;
      claw_test::read_regression_file(path, kFileFields, file);
      INFO("description: " << field_text(member(file, "description")));
      const claw::LcqpProblem<double> problem = read_problem(member(file, "lcqp"));
      const std::string scalar = field_text(member(file, "scalar"));
      const Json& runs = member(file, "runs");
      if (scalar == "double") {
        FileRunner<double>(problem).run(runs);
      } else {
        REQUIRE(scalar == "float");
        FileRunner<float>(problem).run(runs);
      }
    }
  }
}
