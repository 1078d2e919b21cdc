// Fuzz body: bytes -> a sequence of pool operations, including misuse, on
// pools of both layouts (and the bin_locks policy, single-threaded) with
// small bin capacities. After every operation validate() must pass and the
// pool must equal a simple model. Used by the libFuzzer target
// (pool_ops_fuzz.cpp) and replayed by tests/travpool/fuzz_replay_test.cpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <vector>

#include <travpool/pool.hpp>

namespace travpool::fuzz {

struct item {
  std::uint32_t id;
  std::uint32_t check;
};

[[noreturn]] inline void fail(const char* what) {
  std::fprintf(stderr, "pool_ops_fuzz: %s\n", what);
  std::abort();
}
inline void expect(bool ok, const char* what) {
  if (!ok) fail(what);
}

class byte_reader {
 public:
  byte_reader(const std::uint8_t* d, std::size_t n) : data_(d), size_(n) {}
  bool done() const { return pos_ >= size_; }
  std::uint8_t next() { return pos_ < size_ ? data_[pos_++] : 0; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

template <class Pool>
void run_ops(byte_reader& in, std::uint32_t cap) {
  Pool pool(travpool::bin_capacity{cap});
  Pool other(travpool::bin_capacity{cap});
  item* foreign = other.create(item{0, 0});
  std::vector<item*> live;
  std::vector<const item*> dead;  // destroyed pointers, for misuse
  std::uint32_t next_id = 1;
  auto mix = [](std::uint32_t id) { return id * 2654435761u ^ 0x5bd1e995u; };

  auto check_model = [&] {
    pool.validate();
    expect(pool.size() == live.size(), "size differs from the model");
  };
  auto check_sweeps = [&] {
    std::set<const item*> model(live.begin(), live.end()), fwd, bwd;
    for (const item& e : pool) {
      expect(e.check == mix(e.id), "payload corrupted");
      fwd.insert(&e);
    }
    for (auto it = pool.rbegin(); it != pool.rend(); ++it) bwd.insert(&*it);
    expect(fwd == model && bwd == model, "sweep differs from the model");
    std::size_t visited = 0;
    pool.for_each([&](item&) { ++visited; });
    expect(visited == live.size(), "for_each count differs");
  };
  auto misuse = [&](const item* p) {
    const auto before = pool.size();
    bool threw = false;
    try {
      pool.destroy(p);
    } catch (const travpool::usage_error&) {
      threw = true;
    }
    expect(threw, "misuse was not detected");
    expect(!pool.contains(p), "contains() accepted a non-element");
    expect(pool.size() == before, "misuse changed the pool");
  };

  while (!in.done()) {
    const std::uint8_t op = in.next();
    const std::uint8_t arg = in.next();
    switch (op % 12) {
      case 0:
      case 1:
      case 2: {  // create
        const std::uint32_t id = next_id++;
        live.push_back(pool.create(item{id, mix(id)}));
        break;
      }
      case 3:
      case 4: {  // destroy a live element
        if (live.empty()) break;
        const std::size_t k = arg % live.size();
        expect(pool.contains(live[k]), "live element not contained");
        pool.destroy(live[k]);
        dead.push_back(live[k]);
        live[k] = live.back();
        live.pop_back();
        break;
      }
      case 5: {  // misuse: double destroy (unless the chunk was reused)
        if (dead.empty()) break;
        const item* p = dead[arg % dead.size()];
        if (std::find(live.begin(), live.end(), p) == live.end()) misuse(p);
        break;
      }
      case 6: {  // misuse: interior, foreign, stack, null
        item local{};
        const item* targets[] = {
            foreign, &local, nullptr,
            live.empty()
                ? nullptr
                : reinterpret_cast<const item*>(reinterpret_cast<const char*>(live[arg % live.size()]) + 1 + arg % 3)};
        misuse(targets[arg % 4]);
        break;
      }
      case 7: {  // get_iterator, then step both ways
        if (live.empty()) break;
        item* p = live[arg % live.size()];
        auto it = pool.get_iterator(p);
        expect(it != pool.end() && &*it == p, "get_iterator missed a live element");
        auto next = std::next(it);
        if (next != pool.end()) expect(&*std::prev(next) == p, "++ then -- is not the identity");
        break;
      }
      case 8:
        check_sweeps();
        break;
      case 9:
        if (arg % 4 == 0)
          pool.shrink_to_fit();
        else if (arg % 4 == 1)
          pool.reserve(pool.size() + arg % 17);
        else if (arg % 16 == 2) {
          pool.clear();
          for (item* p : live) dead.push_back(p);
          live.clear();
        }
        break;
      case 10: {  // partition coverage
        const std::size_t k = 1 + arg % 9;
        std::size_t n = 0;
        for (const auto& r : pool.partition(k))
          for (const item& e : r) {
            (void)e;
            ++n;
          }
        expect(n == live.size(), "partition coverage differs");
        break;
      }
      case 11: {  // contains on arbitrary addresses inside the pool's bins
        if (live.empty()) break;
        const char* base = reinterpret_cast<const char*>(live[arg % live.size()]);
        const item* p = reinterpret_cast<const item*>(base + (static_cast<int>(arg) - 128));
        const bool is_live = std::find(live.begin(), live.end(), p) != live.end();
        expect(pool.contains(p) == is_live, "contains() disagrees with the model");
        break;
      }
    }
    if (dead.size() > 4096) dead.erase(dead.begin(), dead.begin() + 2048);
    check_model();
  }
  check_sweeps();
  other.destroy(foreign);
}

inline int pool_ops_one_input(const std::uint8_t* data, std::size_t size) {
  byte_reader in(data, size);
  const std::uint8_t config = in.next();
  const std::uint32_t cap = 1 + (config >> 2) % 9;
  switch (config % 4) {
    case 0:
      run_ops<travpool::basic_pool<item, travpool::layout::interleaved>>(in, cap);
      break;
    case 1:
      run_ops<travpool::basic_pool<item, travpool::layout::compact>>(in, cap);
      break;
    case 2:
      run_ops<travpool::basic_pool<item, travpool::layout::interleaved, travpool::sync::bin_locks>>(in, cap);
      break;
    case 3:
      run_ops<travpool::basic_pool<item, travpool::layout::compact, travpool::sync::bin_locks>>(in, cap);
      break;
  }
  return 0;
}

}  // namespace travpool::fuzz
