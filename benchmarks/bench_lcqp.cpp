// benchmarks/bench_lcqp.cpp: the LCQP solver and the FLIQC filter on the reference instances of
// $CLAW_REFERENCE_DIR (default tests/data/reference): every FLIQC instance file in lcqp/ grouped by
// m (the LCQP alone, problem already assembled, and the whole filter call: assembly + solve), and
// lcqp_general/instances.json (random nonconvex + MacMPEC with n <= 100, and IVOCP).
//
// Each solve is timed on its own (steady_clock); counters: median_us and p99_us over every solve of
// the group (FLIQC: feasible and infeasible together), and for the general sets the median over
// instances of each instance's median. A solver per instance is built (and sized) before timing.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "claw/filters/fliqc.hpp"
#include "claw/solvers/lcqp.hpp"
#include "support/lcqp_json.hpp"

namespace {

using Clock = std::chrono::steady_clock;

const nlohmann::json& load(const std::string& relative) {
  static std::map<std::string, nlohmann::json> cache;
  auto it = cache.find(relative);
  if (it != cache.end()) return it->second;
  nlohmann::json data;
  std::string error;
  if (!claw_test::read_json_file(claw_test::reference_dir() + "/" + relative, data, error)) {
    std::fprintf(stderr, "bench_lcqp: %s\n", error.c_str());
    std::exit(1);
  }
  return cache.emplace(relative, std::move(data)).first->second;
}

claw_test::LcqpProblemXd problem_of(const nlohmann::json& lcqp, bool regularise) {
  claw_test::LcqpProblemXd p;
  std::string error;
  if (!claw_test::read_lcqp(lcqp, regularise, p, error)) {
    std::fprintf(stderr, "bench_lcqp: %s\n", error.c_str());
    std::exit(1);
  }
  return p;
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const auto k = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(k, v.size() - 1)];
}

/// samples_us holds the solves in order, `instances` per iteration of the benchmark loop. Counters:
/// median_us and p99_us over every solve (p99_us also counts the machine's interruptions), and
/// instance_p99_us, the p99 over the instances of each instance's own median (the worst case over
/// the inputs, free of the interruptions; with 50 instances the slowest one).
void set_counters(benchmark::State& state, const std::vector<double>& samples_us,
                  std::size_t instances) {
  state.counters["median_us"] = percentile(samples_us, 0.5);
  state.counters["p99_us"] = percentile(samples_us, 0.99);
  state.counters["instances"] = static_cast<double>(instances);
  std::vector<double> medians, own;
  for (std::size_t k = 0; k < instances; ++k) {
    own.clear();
    for (std::size_t i = k; i < samples_us.size(); i += instances) own.push_back(samples_us[i]);
    medians.push_back(percentile(own, 0.5));
  }
  state.counters["instance_p99_us"] = percentile(medians, 0.99);
}

/// The LCQP alone on the FLIQC instances of `file` (relative to the reference directory) with m
/// pairs.
void BM_Lcqp_fliqc(benchmark::State& state, const std::string& file, std::size_t m) {
  std::vector<claw_test::LcqpProblemXd> problems;
  for (const auto& inst : load(file)["instances"])
    if (inst["m"].get<std::size_t>() == m) problems.push_back(problem_of(inst["lcqp"], false));
  if (problems.empty()) {
    state.SkipWithError("no instance with this m");
    return;
  }
  // Bounded solver sized for FLIQC (n = 7 + m <= 23, 7 rows, m <= 16): no heap at all.
  claw::LcqpSolver<double, 23, 7, 16> solver;
  claw::LcqpProblem<double, 23, 7, 16> bounded;
  std::vector<claw::LcqpProblem<double, 23, 7, 16>> copies;
  for (const auto& p : problems) {
    if (p.num_variables() > 23 || p.num_constraints() > 7 || p.num_pairs() > 16) {
      state.SkipWithError("an instance exceeds LcqpSolver<double, 23, 7, 16>");
      return;
    }
    bounded.resize(p.num_variables(), p.num_constraints(), p.num_pairs());
    bounded.Q = p.Q;
    bounded.g = p.g;
    bounded.A = p.A;
    bounded.lbA = p.lbA;
    bounded.ubA = p.ubA;
    bounded.lb = p.lb;
    bounded.ub = p.ub;
    bounded.L = p.L;
    bounded.R = p.R;
    bounded.lbL = p.lbL;
    bounded.ubL = p.ubL;
    bounded.lbR = p.lbR;
    bounded.ubR = p.ubR;
    copies.push_back(bounded);
  }
  std::vector<double> samples;
  samples.reserve(copies.size() * 4096);
  for (auto _ : state) {
    for (const auto& p : copies) {
      const auto t0 = Clock::now();
      const auto& r = solver.solve(p);
      benchmark::DoNotOptimize(r.x.data());
      samples.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
      if (r.status != claw::Status::Ok && r.status != claw::Status::Infeasible) {
        state.SkipWithError("unexpected status");
        return;
      }
    }
  }
  set_counters(state, samples, copies.size());
}

/// The whole FLIQC filter call (Pnull, assembly, solve) on the raw inputs of the same instances,
/// cold (reset() before each call: no warm start from an unrelated instance).
void BM_FliqcFilter_fliqc(benchmark::State& state, const std::string& file, std::size_t m) {
  struct Raw {
    claw::FliqcSettings<double> settings;
    Eigen::Matrix<double, 7, 1> guide;
    Eigen::Matrix<double, 6, 7> jacobian;
    Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 16, 1> psi;
    Eigen::Matrix<double, Eigen::Dynamic, 7, Eigen::RowMajor, 16, 7> p;
  };
  std::vector<Raw> raws;
  for (const auto& inst : load(file)["instances"]) {
    if (inst["m"].get<std::size_t>() != m) continue;
    Raw raw;
    std::string error;
    if (!claw_test::read_fliqc_params(inst["params"], raw.settings, error)) {
      state.SkipWithError(error.c_str());
      return;
    }
    const auto& r = inst["raw"];
    if (m > 16 || r["qdot_guide"].size() != 7 || r["J"].size() != 6 || r["psi"].size() != m ||
        r["P"].size() != m) {
      state.SkipWithError("an instance is not of FliqcFilter<double, 7, 7, 16> (n = 7, m <= 16)");
      return;
    }
    for (int i = 0; i < 7; ++i) raw.guide(i) = r["qdot_guide"][i].get<double>();
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 7; ++j) raw.jacobian(i, j) = r["J"][i][j].get<double>();
    raw.psi.resize(static_cast<Eigen::Index>(m));
    raw.p.resize(static_cast<Eigen::Index>(m), 7);
    for (std::size_t i = 0; i < m; ++i) {
      raw.psi(static_cast<Eigen::Index>(i)) = r["psi"][i].get<double>();
      for (int j = 0; j < 7; ++j)
        raw.p(static_cast<Eigen::Index>(i), j) = r["P"][i][j].get<double>();
    }
    raws.push_back(raw);
  }
  if (raws.empty()) {
    state.SkipWithError("no instance with this m");
    return;
  }
  claw::FliqcFilter<double, 7, 7, 16> filter;
  std::vector<double> samples;
  samples.reserve(raws.size() * 4096);
  for (auto _ : state) {
    for (const auto& raw : raws) {
      if (filter.configure(raw.settings) != claw::Status::Ok) {  // also resets the warm start
        state.SkipWithError("settings refused");
        return;
      }
      const auto t0 = Clock::now();
      const auto& r = filter.filter(raw.guide, raw.jacobian, raw.psi, raw.p);
      benchmark::DoNotOptimize(r.qdot.data());
      samples.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    }
  }
  set_counters(state, samples, raws.size());
}

/// General LCQPs: `which` = 0: random_nonconvex + MacMPEC (both MacMPEC families) with n <= 100;
/// 1: IVOCP. Counter median_us: median over instances of each instance's median solve time; not_ok:
/// the instances answered other than Ok.
void general(benchmark::State& state, int which) {
  std::vector<claw_test::LcqpProblemXd> problems;
  for (const auto& inst : load("lcqp_general/instances.json")["instances"]) {
    const std::string family = inst["family"].get<std::string>();
    const bool pick = which == 0
                          ? (family == "random_nonconvex" || family.rfind("macmpec", 0) == 0) &&
                                inst["n"].get<int>() <= 100
                          : family == "ivocp_lcqptest";
    if (pick) problems.push_back(problem_of(inst["lcqp"], true));
  }
  std::vector<claw::LcqpSolver<double>> solvers(problems.size());
  double not_ok = 0.0;  // instances whose answer is not Ok (counter not_ok: what the times cover)
  for (std::size_t i = 0; i < problems.size(); ++i)  // also sizes the storage
    if (solvers[i].solve(problems[i]).status != claw::Status::Ok) not_ok += 1.0;
  std::vector<std::vector<double>> per_instance(problems.size());
  for (auto _ : state) {
    for (std::size_t i = 0; i < problems.size(); ++i) {
      const auto t0 = Clock::now();
      const auto& r = solvers[i].solve(problems[i]);
      benchmark::DoNotOptimize(r.x.data());
      per_instance[i].push_back(
          std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    }
  }
  std::vector<double> medians;
  for (const auto& v : per_instance) medians.push_back(percentile(v, 0.5));
  state.counters["median_us"] = percentile(medians, 0.5);
  state.counters["max_us"] = percentile(medians, 1.0);
  state.counters["instances"] = static_cast<double>(problems.size());
  state.counters["not_ok"] = not_ok;
}

/// The timing's own noise: a chain of `state.range(0)` dependent multiply-adds (the same cycles
/// every time) timed like one solve above; its p99 / median is what the machine's interruptions
/// add to a computation of that length. Counters median_us, p99_us.
void BM_TimingNoise(benchmark::State& state) {
  const auto steps = state.range(0);
  std::vector<double> samples;
  samples.reserve(1 << 16);
  double x = 1.0;
  for (auto _ : state) {
    for (int k = 0; k < 50; ++k) {
      const auto t0 = Clock::now();
      for (std::int64_t i = 0; i < steps; ++i) x = x * 1.0000001 + 1e-9;
      benchmark::DoNotOptimize(x);
      samples.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    }
  }
  state.counters["median_us"] = percentile(samples, 0.5);
  state.counters["p99_us"] = percentile(samples, 0.99);
}

void BM_Lcqp_general_random_macmpec_n100(benchmark::State& state) { general(state, 0); }
void BM_Lcqp_general_ivocp(benchmark::State& state) { general(state, 1); }

/// Whether `data` has the FLIQC instance schema (lcqp/README.md): an `instances` array whose
/// entries carry m, params, raw and lcqp.
bool fliqc_schema(const nlohmann::json& data) {
  if (!data.is_object() || !data.contains("instances") || !data["instances"].is_array() ||
      data["instances"].empty())
    return false;
  for (const auto& inst : data["instances"])
    if (!inst.contains("m") || !inst.contains("params") || !inst.contains("raw") ||
        !inst.contains("lcqp"))
      return false;
  return true;
}

/// Registers BM_Lcqp_fliqc/<file>/<m> and BM_FliqcFilter_fliqc/<file>/<m> for every FLIQC instance
/// file in the reference directory's lcqp/ (in name order) and every m it holds (ascending): all
/// the LCQP benchmarks first, then the filter's, each file's in turn.
bool register_fliqc_benchmarks() {
  const std::filesystem::path dir = std::filesystem::path(claw_test::reference_dir()) / "lcqp";
  std::error_code error;
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error))
    if (entry.path().extension() == ".json") names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  std::vector<std::pair<std::string, std::size_t>> groups;  // (file, m)
  for (const auto& name : names) {
    const nlohmann::json& data = load("lcqp/" + name);
    if (!fliqc_schema(data)) continue;
    std::set<std::size_t> sizes;
    for (const auto& inst : data["instances"]) sizes.insert(inst["m"].get<std::size_t>());
    for (const std::size_t m : sizes) groups.emplace_back(name, m);
  }
  if (groups.empty())
    std::fprintf(stderr, "bench_lcqp: no FLIQC instance file in %s\n", dir.c_str());
  using Group = void (*)(benchmark::State&, const std::string&, std::size_t);
  for (const auto& [prefix, run] :
       {std::pair<const char*, Group>{"BM_Lcqp_fliqc/", BM_Lcqp_fliqc},
        std::pair<const char*, Group>{"BM_FliqcFilter_fliqc/", BM_FliqcFilter_fliqc}})
    for (const auto& [name, m] : groups) {
      const std::string stem = std::filesystem::path(name).stem().string();
      benchmark::RegisterBenchmark((prefix + stem + "/" + std::to_string(m)).c_str(),
                                   [run = run, file = "lcqp/" + name,
                                    m = m](benchmark::State& state) { run(state, file, m); })
          ->Unit(benchmark::kMicrosecond);
    }
  return true;
}

}  // namespace

// Registration order is run order: the FLIQC groups, then the timing noise and the general sets.
namespace {
const bool kFliqcBenchmarksRegistered = register_fliqc_benchmarks();
}  // namespace

BENCHMARK(BM_TimingNoise)->Arg(1000)->Arg(2500)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Lcqp_general_random_macmpec_n100)->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK(BM_Lcqp_general_ivocp)->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(1);
