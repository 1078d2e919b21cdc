// travpool/mesh/detail/property_rules.hpp: the table of property rules
// (triangle_mesh::set_rule) and how one rule computes new values.
//
// An edit describes what it wrote as targets, each with a run of weighted
// sources (element indices of the same kind, read before any write):
//
//   rule_target {idx, first, count}   sources[first, first + count)
//
// and calls every rule of that kind once with all of them. A rule computes
// every target's value first and writes them after, so a source that is
// also a target (a survivor) is read with its value from before the edit.
// The table is reached through one pointer of the mesh, null while no
// property has a rule: an edit without rules tests it and does nothing more.
#pragma once

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "../handles.hpp"

namespace travpool::mesh {
inline namespace TRAVPOOL_ABI_NAMESPACE {

namespace detail {

struct rule_source {
  std::uint32_t idx;
  double weight;
};
struct rule_target {
  std::uint32_t idx, first, count;
  bool affine = false;  // average uses the weights too (some are negative)
};

// What one edit wrote, of one kind of element: targets and their sources.
// Local edits fill fixed arrays (no allocation); bulk ones use vectors.
template <std::size_t Targets, std::size_t Sources>
struct local_rule_batch {
  rule_target targets[Targets];
  rule_source sources[Sources];
  std::uint32_t nt = 0, ns = 0;
  // Sources in the order given (the primary first).
  void add(std::uint32_t target, std::initializer_list<rule_source> src) noexcept {
    targets[nt++] = {target, ns, static_cast<std::uint32_t>(src.size())};
    for (const rule_source& s : src) sources[ns++] = s;
  }
  // Sources by decreasing weight (stable): the nearest is the primary.
  void add_sorted(std::uint32_t target, std::initializer_list<rule_source> src) noexcept {
    const std::uint32_t first = ns;
    add(target, src);
    std::stable_sort(sources + first, sources + ns,
                     [](const rule_source& a, const rule_source& b) { return a.weight > b.weight; });
  }
  std::span<const rule_target> target_span() const noexcept { return {targets, nt}; }
  std::span<const rule_source> source_span() const noexcept { return {sources, ns}; }
};

struct bulk_rule_batch {
  std::vector<rule_target> targets;
  std::vector<rule_source> sources;
  void add(std::uint32_t target, std::initializer_list<rule_source> src, bool affine = false) {
    targets.push_back(
        {target, static_cast<std::uint32_t>(sources.size()), static_cast<std::uint32_t>(src.size()), affine});
    sources.insert(sources.end(), src.begin(), src.end());
  }
  void open(std::uint32_t target) { targets.push_back({target, static_cast<std::uint32_t>(sources.size()), 0}); }
  void push(rule_source s) {
    sources.push_back(s);
    ++targets.back().count;
  }
};

// split_into_four's rules, planned before the split: targets by tag (an
// old element by handle, a new one by the old edge or the face slot it is
// made for), resolved to handles after it.
struct four_split_plan {
  enum class tag : std::uint8_t {
    old,          // idx: the element's handle
    new_vertex,   // idx: the old edge whose new vertex it is
    new_half0,    // idx: old edge e; split_of[e].halfedge(0)
    new_half1,    // ... halfedge(1)
    inner_half,   // idx: 2 * (3 face slot + k) + side of an inner edge
    new_edge,     // idx: old edge e; split_of[e]
    inner_edge,   // idx: 3 face slot + k
    corner_face,  // idx: 3 face slot + k
  };
  struct kind {
    std::vector<rule_target> targets;
    std::vector<rule_source> sources;
    std::vector<tag> tags;
    void add(tag g, std::uint32_t target, std::initializer_list<rule_source> src) {
      targets.push_back({target, static_cast<std::uint32_t>(sources.size()), static_cast<std::uint32_t>(src.size())});
      sources.insert(sources.end(), src.begin(), src.end());
      tags.push_back(g);
    }
    void push(rule_source s) {
      sources.push_back(s);
      ++targets.back().count;
    }
  };
  kind kinds[4];
};

// Types interpolate and average accept: arithmetic ones (integers are
// rounded to the nearest) and those with T + T and T * double (vec3).
template <class T>
concept interpolable = std::is_arithmetic_v<T> || requires(const T& a, double w) {
  { a* w } -> std::convertible_to<T>;
  { a + a } -> std::convertible_to<T>;
};

using rule_apply = std::function<void(std::span<const rule_target>, std::span<const rule_source>)>;

struct rule_entry {
  const void* id;  // the column's key id
  rule_apply apply;
  // Whether the column named `name` of the mesh is this one (for
  // remove_property by name).
  bool (*named)(const void* mesh, std::string_view name, const void* id);
};

// The rules of each kind of element: vertex, halfedge, edge, face.
struct rule_table {
  std::vector<rule_entry> by_kind[4];
  bool empty() const noexcept {
    return by_kind[0].empty() && by_kind[1].empty() && by_kind[2].empty() && by_kind[3].empty();
  }
};

template <class Handle>
constexpr int rule_kind() noexcept {
  if constexpr (std::is_same_v<Handle, Vertex>)
    return 0;
  else if constexpr (std::is_same_v<Handle, Halfedge>)
    return 1;
  else if constexpr (std::is_same_v<Handle, Edge>)
    return 2;
  else
    return 3;
}

// The sum of w_i * value(i) over n sources (w_i = 1 / n if equal).
template <class T, class Value>
T weighted_sum(Value&& value, const rule_source* src, std::uint32_t n, bool equal) {
  const auto w = [&](std::uint32_t i) { return equal ? 1.0 / n : src[i].weight; };
  if constexpr (std::is_arithmetic_v<T>) {
    double acc = 0;
    for (std::uint32_t i = 0; i < n; ++i) acc += w(i) * static_cast<double>(value(i));
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(std::llround(acc));
    else
      return static_cast<T>(acc);
  } else {
    T acc = value(0) * w(0);
    for (std::uint32_t i = 1; i < n; ++i) acc = acc + value(i) * w(i);
    return acc;
  }
}

// The apply function of a built-in rule on property p; `unit` normalises
// interpolated and averaged vec3 values (the mesh's normals).
template <class Handle, class T>
rule_apply make_rule(property<Handle, T> p, follow how, bool unit) {
  return [p, how, unit](std::span<const rule_target> targets, std::span<const rule_source> sources) {
    static_cast<void>(unit);  // read for vec3 only
    std::vector<T> values;
    values.reserve(targets.size());
    for (const rule_target& t : targets) {
      const rule_source* s = sources.data() + t.first;
      if (t.count == 0) {
        values.push_back(p[Handle(t.idx)]);
        continue;
      }
      bool survivor = false;
      for (std::uint32_t i = 0; i < t.count; ++i) survivor |= s[i].idx == t.idx;
      switch (how) {
        case follow::copy_from_source:
          values.push_back(p[Handle(s[0].idx)]);
          break;
        case follow::keep_survivor:
          values.push_back(p[Handle(survivor ? t.idx : s[0].idx)]);
          break;
        case follow::interpolate:
        case follow::average:
          if constexpr (interpolable<T>) {
            T v = weighted_sum<T>([&](std::uint32_t i) -> const T& { return p[Handle(s[i].idx)]; }, s, t.count,
                                  how == follow::average && !t.affine);
            if constexpr (std::is_same_v<T, vec3>)
              if (unit) v = normalized(v);
            values.push_back(std::move(v));
          }
          break;
        case follow::none:
          values.push_back(p[Handle(t.idx)]);
          break;
      }
    }
    for (std::size_t i = 0; i < targets.size(); ++i) p[Handle(targets[i].idx)] = std::move(values[i]);
  };
}

// The apply function of a user rule.
template <class Handle, class T>
rule_apply make_rule(property<Handle, T> p, follow_function<Handle, T> f) {
  return [p, f = std::move(f)](std::span<const rule_target> targets, std::span<const rule_source> sources) {
    std::vector<T> values;
    values.reserve(targets.size());
    std::vector<weighted<Handle>> ws;
    for (const rule_target& t : targets) {
      ws.clear();
      for (std::uint32_t i = 0; i < t.count; ++i) {
        const rule_source& s = sources[t.first + i];
        ws.push_back({Handle(s.idx), s.weight});
      }
      values.push_back(f(Handle(t.idx), std::span<const weighted<Handle>>(ws)));
    }
    for (std::size_t i = 0; i < targets.size(); ++i) p[Handle(targets[i].idx)] = std::move(values[i]);
  };
}

}  // namespace detail
}  // namespace TRAVPOOL_ABI_NAMESPACE
}  // namespace travpool::mesh
