// claw/solvers/lcqp/branch_and_bound.hpp: LcqpSolver's second path: depth-first branch and bound
// over the complementarity pairs, each node a convex QP, certified when it finishes.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstdint>

#include "claw/core/status.hpp"
#include "claw/core/types.hpp"
#include "claw/solvers/detail/min_max.hpp"
#include "claw/solvers/lcqp/branch_qps.hpp"

namespace claw {
namespace detail {

/// Branch and bound (LcqpSolver's class comment states the method). Depth-first over the pairs:
/// a node is the branch QP with some pairs fixed (Core::fix_); it is pruned when its settled
/// objective is not below the incumbent by the prune tolerance, closed when its point is
/// complementary and the polished branch meets its bound, and otherwise branched on its free pair
/// farthest from complementarity, the side closer to zero first. The incumbent is certified
/// global when every node was decided (no node cap, no QP failure). Owns its stack.
template <typename Scalar, int MaxN, int MaxC, int MaxP>
class LcqpBranchAndBound {
 public:
  using Index = Eigen::Index;
  using Core = LcqpBranchQps<Scalar, MaxN, MaxC, MaxP>;
  using Problem = typename Core::Problem;
  using Result = typename Core::Result;

  void reserve(Index m) {
    best_fix_scratch_.resize(m);
    stack_pair_.resize(m + 1);
    stack_state_.resize(m + 1);
    stack_bound_.resize(m + 1);
  }

  const Result& run(const Problem& p, Core& c) noexcept {
    c.result_.path = LcqpPath::BranchAndBound;
    Search search;
    bool descend = true;  // process the node defined by c.fix_
    for (;;) {
      if (descend) {
        if (c.result_.nodes >= c.settings_.max_nodes) {
          search.exhausted = false;
          break;
        }
        ++c.result_.nodes;
        if (expand_node(p, c, search)) continue;
      }
      descend = backtrack(c, search);
      if (!descend) break;
    }
    return finish(p, c, search);
  }

 private:
  /// The search's state: the incumbent's objective, the number of stacked branchings, and
  /// whether every node so far was decided (a node cap or a QP failure makes it false).
  struct Search {
    Scalar incumbent = infinity<Scalar>();
    Index depth = 0;
    bool have_incumbent = false;
    bool exhausted = true;
  };

  /// The value a node's bound must be below to be explored: incumbent - prune_tolerance
  /// max(1, |incumbent|).
  static Scalar cut(const Core& c, const Search& search) noexcept {
    return search.incumbent - c.prune_allowance(search.incumbent);
  }

  /// Solves the node of c.fix_ and decides it. True when it is branched (the branching pushed,
  /// its first child's fixing set in c.fix_); false when it is pruned (infeasible, or its settled
  /// objective not below cut()), closed by its polished branch, or undecided (a QP failure, which
  /// clears search.exhausted).
  bool expand_node(const Problem& p, Core& c, Search& search) noexcept {
    const auto& r = c.solve_qp(p, p.g);
    if (!c.settled(p, p.g, r)) {
      if (r.status != Status::Infeasible) search.exhausted = false;
      return false;
    }
    const Scalar node_value = r.objective;
    if (search.have_incumbent && !(node_value < cut(c, search))) return false;
    c.x_ = r.x;
    c.pair_values(p, c.x_);
    // The free pair farthest from complementarity, and its side closer to zero (judged at the
    // node's point, before polish moves c.x_).
    Index farthest = -1;
    Scalar farthest_value = -infinity<Scalar>();
    for (Index i = 0; i < c.m_; ++i) {
      if (c.fix_.coeff(i) != Core::kFree) continue;
      const Scalar v = detail::min_of(c.lx_.coeff(i), c.rx_.coeff(i));
      if (v > farthest_value) {
        farthest_value = v;
        farthest = i;
      }
    }
    if (!(farthest >= 0 && farthest_value > c.feasibility_threshold(c.x_))) {
      const Polish polish = polish_node(p, c, search, node_value);
      if (polish == Polish::Closed) return false;
      if (farthest < 0) {
        if (polish == Polish::Failed) search.exhausted = false;  // its own branch, unconfirmed
        return false;
      }
    }
    const bool l_closer = c.lx_.coeff(farthest) <= c.rx_.coeff(farthest);
    stack_pair_.coeffRef(search.depth) = static_cast<int>(farthest);
    stack_state_.coeffRef(search.depth) = 0;
    stack_bound_.coeffRef(search.depth) = node_value;
    c.fix_.coeffRef(farthest) = l_closer ? Core::kFixL : Core::kFixR;
    ++search.depth;
    return true;
  }

  enum class Polish : std::uint8_t { Closed, Open, Failed };

  /// A node complementary within tolerance: its branch with every free pair fixed on its active
  /// side is polished (solved); a better polished point becomes the incumbent. Closed when the
  /// polished objective meets the node's bound within the prune tolerance; Open otherwise (the
  /// tolerance is relative to ||x||, so a free pair within it on both sides can hide a better
  /// branch on its other side: the caller branches on the farthest free pair); Failed when the
  /// branch QP could not be confirmed (nothing is proved). c.fix_ is restored.
  Polish polish_node(const Problem& p, Core& c, Search& search, Scalar node_value) noexcept {
    best_fix_scratch_ = c.fix_;
    Scalar value = node_value;
    const bool polished = c.polish(p, value);
    if (polished && (!search.have_incumbent || value < search.incumbent)) {
      search.incumbent = value;
      search.have_incumbent = true;
      c.best_x_ = c.x_;
      c.best_fix_ = c.fix_;
    }
    c.fix_ = best_fix_scratch_;
    if (!polished) return Polish::Failed;
    const Scalar allowance = c.prune_allowance(value);
    return value - node_value > allowance ? Polish::Open : Polish::Closed;
  }

  /// Pops to the deepest branching whose second child is untried and not pruned by its parent's
  /// bound, and sets that child's fixing: true. False when the stack is empty (search done).
  bool backtrack(Core& c, Search& search) noexcept {
    while (search.depth > 0) {
      const Index level = search.depth - 1;
      const Index pair = stack_pair_.coeff(level);
      if (stack_state_.coeff(level) == 0) {
        stack_state_.coeffRef(level) = 1;
        if (!(search.have_incumbent && !(stack_bound_.coeff(level) < cut(c, search)))) {
          c.fix_.coeffRef(pair) = c.fix_.coeff(pair) == Core::kFixL ? Core::kFixR : Core::kFixL;
          return true;
        }
      }
      c.fix_.coeffRef(pair) = Core::kFree;
      --search.depth;
    }
    return false;
  }

  /// The answer: Infeasible (certified) when no incumbent and every node decided, MaxIterations
  /// when no incumbent otherwise; else the incumbent's branch QP solved again (its multipliers
  /// are reported), refined when regularised, certified when every node was decided.
  const Result& finish(const Problem& p, Core& c, Search& search) noexcept {
    if (!search.have_incumbent) {
      if (search.exhausted) return c.infeasible(LcqpPath::BranchAndBound);
      return c.max_iterations();
    }
    c.fix_ = c.best_fix_;
    const auto& r = c.solve_qp(p, p.g);
    Scalar value;
    bool refined = true;
    const Scalar allowance = c.prune_allowance(search.incumbent);
    if (r.status == Status::Ok && c.acceptable(p, r.x, value) &&
        value <= search.incumbent + allowance) {
      c.best_x_ = r.x;
      search.incumbent = value;
      refined = c.refine_regularised(p, c.best_x_, search.incumbent);
    }
    c.accept(p, c.best_x_, search.incumbent, LcqpPath::BranchAndBound, search.exhausted && refined);
    c.classify(p);
    return c.result_;
  }

  static constexpr int kMaxStack = MaxP == Dynamic ? Dynamic : MaxP + 1;
  typename Core::FixVector best_fix_scratch_;
  Eigen::Matrix<int, Dynamic, 1, Eigen::ColMajor, kMaxStack, 1> stack_pair_, stack_state_;
  Vector<Scalar, Dynamic, kMaxStack> stack_bound_;
};

}  // namespace detail
}  // namespace claw
