// check --shape with sizes asked as intervals or `?` (issue 47): a member of each such size is propagated
// (one past the declared size, the least, the largest, then each at the step a stride or window needs), and
// what fails or regroups there is the finding; where every member runs, the sizes are not proven.
#include "model/analysis/batch_internal.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "detail/fail.hpp"
#include "model/options.hpp"
#include "model/propagate/engine.hpp"
#include "model/text/batch.hpp"

namespace reshape1::model::detail {
namespace {

/// The members tried of a dimension asked as `r` and declared as `declared`: one past the declared size
/// (where a stride's multiple stops being one), the least and the largest (twice the declared size, or 64,
/// where there is no largest), each kept inside `r`.
std::array<std::int64_t, 3> members_of(const dimension& r, const dimension& declared) {
  constexpr std::int64_t large = std::int64_t{1} << 40;  // no overflow in what follows
  const std::int64_t lo = std::clamp<std::int64_t>(r.lo(), 1, large);
  const std::int64_t base = declared.is_static() ? std::clamp<std::int64_t>(declared.lo(), lo, large) : lo;
  const std::int64_t hi = r.hi() == interval::unbounded ? std::max<std::int64_t>({2 * base, lo, 64}) : std::min(r.hi(), 2 * large);
  const auto inside = [&](std::int64_t v) { return std::clamp(v, lo, std::max(lo, hi)); };
  return {inside(base + 1 <= hi ? base + 1 : base - 1), lo, inside(hi)};
}

/// Member `m` of a dimension asked as `r` moved to a multiple of `step`: up, or down where `r` ends first.
std::int64_t at_step(std::int64_t m, std::int64_t step, const dimension& r) {
  if (step <= 1 || m % step == 0) return m;
  const auto up = (m / step + 1) * step;
  if (r.hi() == interval::unbounded || up <= r.hi()) return up;
  const auto down = m / step * step;
  return down >= std::max<std::int64_t>(r.lo(), 1) ? down : m;
}

/// try_members' trials: the members of the sizes asked as intervals or `?`, propagated, and what each shows.
class member_trials {
 public:
  member_trials(const graph& g, const propagation& declared, const std::vector<input_report>& inputs,
                const std::vector<std::vector<bool>>& ranged, std::span<const std::string> assumed,
                option_spelling spelling, const std::vector<batch_finding>& findings)
      : g_(g), declared_(declared), inputs_(inputs), ranged_(ranged), assumed_(assumed), spelling_(spelling),
        failed_before_(g.layers().size(), false), found_(g.layers().size(), 0) {
    // A layer that fails at the declared shapes is not one a member shows.
    for (const auto& x : declared.lost) failed_before_[x.layer] = true;
    // Reshapes that already have a finding.
    for (const auto& f : findings)
      if (f.within.empty() && f.layer < found_.size()) found_[f.layer] = 1;
  }

  /// The members at `step` (each rounded up to a multiple of it, or down where the range ends first): the
  /// regroupings they show go to `regroups`, and the tried shapes to `tried`; a member that fails is the
  /// finding returned.
  std::optional<batch_finding> attempt(std::int64_t step, std::vector<std::string>& tried,
                                       std::vector<batch_finding>& regroups) {
    // A symbol is one size wherever it is asked (`a=[1,?@S]`, `b=[1,?@S]`): its members are its first
    // dimension's.
    std::unordered_map<symbol, std::array<std::int64_t, 3>> by_symbol;
    auto regrouped_at = found_;
    asked_ = 0;
    for (std::size_t k = 0; k < 3; ++k) {
      std::string shapes;
      const auto given = member(k, step, by_symbol, shapes);
      if (std::find(tried.begin(), tried.end(), shapes) != tried.end()) continue;
      tried.push_back(shapes);
      const auto p = propagate_naming(g_, given, {});
      const auto it = std::find_if(p.lost.begin(), p.lost.end(),
                                   [&](const lost_information& x) { return !x.not_covered && !failed_before_[x.layer]; });
      if (it == p.lost.end()) {
        // It runs there: each Reshape must still group its dimensions as at the declared shapes.
        regroupings(p, shapes, regrouped_at, regroups);
        continue;
      }
      // A member that fails: the model does not run at every size asked.
      const auto& l = g_.layers()[it->layer];
      auto f = size_finding(l, it->layer);
      f.issue = batch_issue::fails;
      f.code = name(it->code);
      f.at = shapes;
      f.what = fmt::format("{} (a member of the sizes asked)", reshape1::detail::without_hint(it->message, it->hint));
      text::give_hint(f, text::member_fails_hint());
      return f;
    }
    return std::nullopt;
  }

  /// Where the model runs only at some sizes (a stride-32 network, a window of 7), the hint of `failure`
  /// names the step it runs at: the least divisor of every declared size asked so at whose multiples each
  /// member runs. The answer stays no: a size asked fails. What the members at the step show is returned:
  /// the Reshapes that regroup there.
  std::vector<batch_finding> name_step(batch_finding& failure) {
    std::int64_t common = 0;
    for (std::size_t i = 0; i < inputs_.size() && i < ranged_.size(); ++i)
      for (std::size_t d = 0; d < ranged_[i].size(); ++d)
        if (ranged_[i][d] && inputs_[i].declared.rank_known() && d < inputs_[i].declared.size() &&
            inputs_[i].declared[d].is_static() && inputs_[i].declared[d].lo() > 1)
          common = std::gcd(common, inputs_[i].declared[d].lo());
    std::vector<batch_finding> at_step_regroups;
    bool layer_step = false;
    // (At most 16 steps tried, each up to three propagations: the strides of a network are few and small.
    // Where no size asked is declared as a value, as in a model fix wrote, the usual strides and windows.)
    std::vector<std::int64_t> steps;
    if (common == 0) steps = {2, 3, 4, 5, 6, 7, 8, 12, 14, 16, 28, 32, 56, 64};
    for (std::int64_t step = 2; step <= common && step <= 4096 && steps.size() < 16; ++step)
      if (common % step == 0) steps.push_back(step);
    for (const auto step : steps) {
      std::vector<std::string> at_step_tried;
      if (const auto later = attempt(step, at_step_tried, at_step_regroups)) {
        at_step_regroups.clear();
        // The layer itself runs at this step, another after it fails: said (as `layer_step`) to a caller
        // that rewrites the layer, whose rewrite then does what it can (fix).
        if (!layer_step && later->layer != failure.layer) {
          failure.args.emplace_back("layer_step", step);
          layer_step = true;
        }
        continue;
      }
      text::give_hint(failure, text::runs_at_step_hint(step, at_step_tried));
      // (`step` says so to a caller that asks for those sizes only: fix, whose rewrites make such a model.)
      failure.args.emplace_back("step", step);
      break;
    }
    return at_step_regroups;
  }

  /// How many dimensions the last attempt asked as intervals or `?`.
  [[nodiscard]] std::size_t asked() const { return asked_; }

 private:
  /// The shapes of member `k` at `step`, and (`shapes`) those of the inputs with a size asked so, as text.
  std::vector<input_shape> member(std::size_t k, std::int64_t step,
                                  std::unordered_map<symbol, std::array<std::int64_t, 3>>& by_symbol, std::string& shapes) {
    std::vector<input_shape> given;
    for (std::size_t i = 0; i < inputs_.size(); ++i) {
      const auto& in = inputs_[i];
      if (!in.requested.rank_known() || i >= ranged_.size()) {
        given.push_back({in.layer, in.requested});
        continue;
      }
      std::vector<dimension> dims(in.requested.begin(), in.requested.end());
      bool any = false;
      for (std::size_t d = 0; d < dims.size() && d < ranged_[i].size(); ++d) {
        if (!ranged_[i][d]) continue;
        const auto& declared_dim = in.declared.rank_known() && d < in.declared.size() ? in.declared[d] : dimension();
        auto members = members_of(in.requested[d], declared_dim);
        for (auto& m : members) m = at_step(m, step, in.requested[d]);
        if (const auto s = in.requested[d].symbol()) members = by_symbol.try_emplace(s, members).first->second;
        dims[d] = dimension(members[k]);
        any = true;
        asked_ += k == 0;
      }
      given.push_back({in.layer, partial_shape(dims)});
      if (any) shapes += fmt::format("{}{}={}", shapes.empty() ? "" : " ", in.name, to_string(given.back().shape));
    }
    return given;
  }

  /// The Reshapes that group their dimensions otherwise at `p` (the shapes `shapes`) than at the declared
  /// shapes, each once (`regrouped_at`).
  void regroupings(const propagation& p, const std::string& shapes, std::vector<char>& regrouped_at,
                   std::vector<batch_finding>& regroups) const {
    for (const auto index : g_.order()) {
      if (regrouped_at[index]) continue;
      if (auto reason = regrouped(g_, declared_, p, index, assumed_)) {
        regrouped_at[index] = 1;
        auto f = size_finding(g_.layers()[index], index);
        f.at = shapes;
        set_reason(f, *reason);
        text::give_hint(f, text::regroup_hint(spelling_));
        regroups.push_back(std::move(f));
      }
    }
  }

  const graph& g_;
  const propagation& declared_;
  const std::vector<input_report>& inputs_;
  const std::vector<std::vector<bool>>& ranged_;
  std::span<const std::string> assumed_;
  option_spelling spelling_;
  std::vector<bool> failed_before_;
  std::vector<char> found_;
  std::size_t asked_ = 0;
};

}  // namespace

void try_members(const graph& g, const propagation& declared, const std::vector<input_report>& inputs,
                 const std::vector<std::vector<bool>>& ranged, std::span<const std::string> assumed,
                 option_spelling spelling, std::vector<batch_finding>& findings) {
  member_trials trials(g, declared, inputs, ranged, assumed, spelling, findings);
  std::vector<std::string> tried;
  std::vector<batch_finding> regroups;
  if (auto failure = trials.attempt(1, tried, regroups)) {
    auto at_step_regroups = trials.name_step(*failure);
    findings.push_back(std::move(*failure));
    // What the members at the step show is shown too: a Reshape that regroups there.
    for (auto& f : at_step_regroups) findings.push_back(std::move(f));
    return;
  }
  for (auto& f : regroups) findings.push_back(std::move(f));
  // Every member tried runs; the others are not proven.
  for (std::size_t i = 0; i < inputs.size() && i < ranged.size(); ++i)
    for (std::size_t d = 0; d < ranged[i].size(); ++d) {
      if (!ranged[i][d]) continue;
      const auto& in = inputs[i];
      auto f = size_finding(g.layers()[in.layer], in.layer);
      set_reason(f, because(why::sizes_not_proven, d).quoting(to_string(in.requested[d])));
      if (trials.asked() > 1) f.what += fmt::format(" ({} more dimensions asked so)", trials.asked() - 1);
      text::give_hint(f, text::sizes_not_proven_hint(tried));
      findings.push_back(std::move(f));
      return;  // one finding says it for the request
    }
}

}  // namespace reshape1::model::detail
