// Test-only access to a pool's internals (cf. Abseil's RawHashSetTestOnlyAccess).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <travpool/pool.hpp>

namespace travpool::detail {

struct test_access {
  // The process-wide mutexes that fork() must not leave locked in a child.
  static std::mutex& span_cache_mutex() { return span_cache::instance().mutex_; }
  static std::mutex& claim_registry_mutex() { return claim_registry::instance().mutex_; }
  static std::mutex& section_records_mutex() { return section_records::instance().mutex_; }

  template <class Pool>
  using ops = typename Pool::ops;

  // Stands in for another thread inside add_bin of a tracked pool without
  // bin_locks (checks::on, checks::hardened), or leaves it.
  template <class Pool>
  static void set_adding_bin(Pool& p, bool on) {
    p.core_.growing_.on.store(on);
  }

  // Stands in for another thread creating or destroying in bin b of a
  // tracked pool (checks::on, checks::hardened: bin.hpp's modification
  // count is odd while it does), or ends that: each call toggles.
  static void toggle_changing(const bin_base* b) {
    const_cast<bin_base*>(b)->mods_.fetch_add(1, std::memory_order_relaxed);
  }

  // The bin an iterator is in (its pool's root at end).
  template <class It>
  static const bin_base* bin_of(const It& it) {
    return it.bin_;
  }

  // Bins in list order.
  template <class Pool>
  static std::vector<const bin_base*> bins(const Pool& p) {
    std::vector<const bin_base*> v;
    for (const bin_base* b = p.core_.first(); !b->is_root(); b = b->next_) v.push_back(b);
    return v;
  }

  // (position of the bin in the list, chunk index) of a live element.
  template <class Pool>
  static std::pair<std::size_t, std::uint32_t> position(const Pool& p, const void* e) {
    const auto [bin, index] = p.find_live(static_cast<const typename Pool::value_type*>(e));
    if (bin == nullptr) return {SIZE_MAX, 0};
    std::size_t n = 0;
    for (const bin_base* b = p.core_.first(); b != bin; b = b->next_) ++n;
    return {n, index};
  }

  // Every word that can influence the pool's future behaviour, with bins
  // named by list position: two pools with equal keys behave identically.
  template <class Pool>
  static std::string state_key(const Pool& p) {
    using O = ops<Pool>;
    std::string k;
    auto put = [&k](std::uint64_t v) { k.append(reinterpret_cast<const char*>(&v), sizeof v); };
    const auto bs = bins(p);
    auto pos = [&bs](const bin_base* b) -> std::uint64_t {
      for (std::size_t i = 0; i < bs.size(); ++i)
        if (bs[i] == b) return i;
      return ~std::uint64_t{0};
    };
    for (const bin_base* b : bs) {
      put(0xB1B1);
      put(b->free_head_);
      put(b->fresh_);
      put(b->live_);
      put(b->in_avail_);
      const std::uint32_t a1 = b->last();
      // Chunks above fresh are never read before fresh reaches them; a lazy
      // tail's prev links are read as run_prev; fresh's next is A1 (bin.hpp (V6)).
      using traits = layout_traits<O>;
      const std::uint32_t unread_from = traits::lazy_tail ? b->fresh_ : b->fresh_ + 1;
      for (std::uint32_t i = 0; i <= a1; ++i) {
        if (i >= unread_from && i < b->full_mark()) continue;
        const bool f = O::is_free(*b, i);
        put(f);
        if (f) {
          put(O::free_next(*b, i));
          put(O::link_next(*b, i));
          put(traits::run_prev(*b, i));
        }
      }
    }
    put(0xA7A7);
    if constexpr (requires { p.core_.avail_head(); })
      for (const bin_base* b = p.core_.avail_head(); b != nullptr; b = b->avail_next_) put(pos(b));
    return k;
  }
};

}  // namespace travpool::detail
