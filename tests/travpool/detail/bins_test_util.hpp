// Shared by the acquisition-layer tests: bins without a payload type.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <travpool/detail/bin_storage.hpp>
#include <travpool/detail/layout_compact.hpp>
#include <travpool/detail/layout_interleaved.hpp>
#include <travpool/detail/stats_hooks.hpp>
#include <travpool/detail/validate.hpp>

namespace travpool::test {

namespace td = travpool::detail;
// A chunk as (bin, chunk index).
using chunk = std::pair<td::bin_base*, std::uint32_t>;
template <class Bins>
using algo_of = td::bin_algorithms<typename Bins::ops>;

// Returns: the bins of `s` in list order.
template <class Bins>
std::vector<td::bin_base*> listed(const Bins& s) {
  std::vector<td::bin_base*> v;
  for (td::bin_base* b = s.first(); !b->is_root(); b = b->next_) v.push_back(b);
  return v;
}

}  // namespace travpool::test
