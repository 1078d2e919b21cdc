// travpool/detail/column_pool_impl.hpp: the members of basic_column_pool
// that are defined out of line (reserve, compact, validate). Included by
// column_pool.hpp only.
#pragma once

#include <algorithm>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace travpool {
inline namespace TRAVPOOL_ABI_NAMESPACE {

// One bin at a time: block q of every column is committed before the bin
// is added, so a refused commit adds nothing, and a refused bin gives the
// block back (decommit) before the throw leaves. With a quiescent pool
// every listed bin has an index, so n <= max_slots() leaves enough free
// indices (taken in ascending order, one scan of the table), and
// commit_free_index fails only by a refused commit.
template <class... Options>
void basic_column_pool<Options...>::reserve(std::size_t n) {
  [[maybe_unused]] auto g = this->serialise();
  if (n > max_slots()) throw std::length_error("travpool: column_pool::reserve past max_slots()");
  std::lock_guard<std::mutex> l(this->index_mutex_);
  std::uint32_t q = 0;
  while (capacity() < n) {
    q = commit_free_index(q);
    if (q == index_.max_bins()) throw std::bad_alloc();
    try {
      this->core_.reserve(capacity() + 1);  // exactly one bin, linked last
    } catch (...) {
      this->columns_.decommit(q);
      throw;
    }
    index_.set(q, *this->core_.root()->prev_);
  }
}

// Per bin: the live chunks L_0 < L_1 < ... < L_{n-1} move to chunks
// 2 .. n+1 in ascending order (chunk 2 + k <= L_k, and a target that was
// live has moved already), then the bin is reinitialised and n chunks are
// created again, which the fresh path hands out in ascending order. The
// bin's live count, and so its place on the available list, is unchanged.
template <class... Options>
handle_remap basic_column_pool<Options...>::compact() {
  std::vector<handle_remap::move> moves;
  std::vector<std::uint32_t> live;
  for (bin* b = this->core_.first(); !b->is_root(); b = b->next_) {
    if (b->live_ == 0) continue;
    live.clear();
    const std::uint32_t last = b->last();
    for (std::uint32_t i = detail::slot_traits::first_assigned(*b); i != last;
         i = detail::slot_traits::next_assigned(*b, i))
      live.push_back(i);
    const handle base = detail::handle_base(*b);
    for (std::uint32_t k = 0; k < live.size(); ++k) {
      const std::uint32_t to = detail::first_user_chunk + k;
      if (live[k] == to) continue;
      this->columns_.relocate(base + live[k], base + to);
      moves.emplace_back(base + live[k], base + to);
    }
    algo::init(*b);
    for (std::size_t k = 0; k < live.size(); ++k) algo::create(*b);
  }
  std::sort(moves.begin(), moves.end());
  return handle_remap(std::move(moves));
}

template <class... Options>
void basic_column_pool<Options...>::validate() const {
  detail::validate_bins<ops>(this->core_, size());
  if (const char* why = index_.check(this->core_.root()))
    throw std::logic_error(std::string("travpool::validate: ") + why);
}

}  // namespace TRAVPOOL_ABI_NAMESPACE
}  // namespace travpool
