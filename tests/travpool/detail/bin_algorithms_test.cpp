// bin_algorithms on a raw bin, without a pool and without a payload type:
// a bin_base placed at the start of an aligned, poisoned buffer. Every
// reachable state of bins with 1-6 chunks is checked against a model of the
// invariants (V1)-(V5) of detail/bin.hpp, and a randomized differential run
// on larger bins makes free runs cross the compact layout's bitmap words.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/detail/bin.hpp>
#include <travpool/detail/bin_algorithms.hpp>
#include <travpool/detail/layout_compact.hpp>
#include <travpool/detail/layout_interleaved.hpp>
#include <travpool/detail/layout_traits.hpp>
#include <travpool/detail/slot_bins.hpp>

#include "../pool_types.hpp"  // small_depth

namespace {

namespace td = travpool::detail;

// A bin in heap memory filled with `poison` before init, so that the test
// can tell the chunks the algorithms never wrote (lazy initialisation, V5).
template <class Ops>
class raw_bin {
 public:
  using traits = td::layout_traits<Ops>;
  using algo = td::bin_algorithms<Ops>;
  static constexpr std::size_t alignment = 4096;

  raw_bin(std::uint32_t cap, unsigned char poison)
      : bytes_(td::round_up(traits::bin_bytes(cap), alignment)),
        mem_(static_cast<std::byte*>(std::aligned_alloc(alignment, bytes_))),
        poison_(poison) {
    if (mem_ == nullptr) throw std::bad_alloc();
    std::memset(mem_, poison, bytes_);
    b_ = ::new (mem_) td::bin_base();
    b_->chunks_ = mem_ + traits::chunks_offset(cap);
    b_->capacity_ = cap;
    algo::init(*b_);
  }
  raw_bin(const raw_bin&) = delete;
  raw_bin& operator=(const raw_bin&) = delete;
  ~raw_bin() {
    b_->~bin_base();
    std::free(mem_);
  }

  td::bin_base& bin() const noexcept { return *b_; }

  // Returns: whether no byte of chunk i was written since construction.
  bool untouched(std::uint32_t i) const noexcept {
    const std::byte* p = b_->chunks_ + std::size_t{i} * Ops::stride;
    for (std::size_t k = 0; k < Ops::stride; ++k)
      if (p[k] != std::byte{poison_}) return false;
    return true;
  }

 private:
  std::size_t bytes_;
  std::byte* mem_;
  unsigned char poison_;
  td::bin_base* b_ = nullptr;
};

// What the bin should be: the assigned chunks, the stack of released chunks
// below `fresh` (V4, top = back) and `fresh`.
struct bin_model {
  // restarts: the layout's bins restart when emptied (td::restarts_emptied_bins).
  explicit bin_model(std::uint32_t capacity, bool restart = false)
      : cap(capacity), restarts(restart), assigned(std::size_t{capacity} + 4, false) {
    assigned[0] = assigned[a1()] = true;
  }
  std::uint32_t f1() const { return cap + 2; }
  std::uint32_t a1() const { return cap + 3; }
  bool full() const { return stack.empty() && fresh == f1(); }
  std::uint32_t head() const { return stack.empty() ? fresh : stack.back(); }

  // The chunk create must return, per (V4).
  std::uint32_t create() {
    std::uint32_t i;
    if (!stack.empty()) {
      i = stack.back();
      stack.pop_back();
    } else {
      i = fresh++;
      high = std::max(high, fresh);
    }
    assigned[i] = true;
    ++live;
    return i;
  }
  void release(std::uint32_t i) {
    assigned[i] = false;
    stack.push_back(i);
    if (--live == 0 && restarts) {
      // An emptied bin restarts: its free list is 2, 3, ... again.
      stack.clear();
      fresh = td::first_user_chunk;
    }
  }
  std::vector<std::uint32_t> live_chunks() const {
    std::vector<std::uint32_t> v;
    for (std::uint32_t i = td::first_user_chunk; i <= cap + 1; ++i)
      if (assigned[i]) v.push_back(i);
    return v;
  }
  std::uint32_t succ(std::uint32_t i) const {
    for (std::uint32_t j = i + 1;; ++j)
      if (assigned[j]) return j;
  }
  std::uint32_t pred(std::uint32_t i) const {
    for (std::uint32_t j = i - 1;; --j)
      if (assigned[j]) return j;
  }

  std::uint32_t cap;
  bool restarts;
  std::vector<bool> assigned;  // chunk index -> assigned (A0, A1 always)
  std::vector<std::uint32_t> stack;
  std::uint32_t fresh = td::first_user_chunk;
  std::uint32_t high = td::first_user_chunk;  // the highest fresh so far
  std::uint32_t live = 0;
};

// Returns: the first difference between the bin and the model, or "".
// Checks the header, every chunk's status and is_live, (V1)-(V5), the O(1)
// steps from every assigned chunk and both walks.
template <class Ops>
std::string check_bin(const raw_bin<Ops>& rb, const bin_model& m) {
  using traits = td::layout_traits<Ops>;
  using algo = td::bin_algorithms<Ops>;
  const td::bin_base& b = rb.bin();
  const std::uint32_t f1 = m.f1(), a1 = m.a1();
  auto num = [](std::uint64_t v) { return std::to_string(v); };
  auto at = [&](std::uint32_t i, const std::string& what) { return "chunk " + num(i) + ": " + what; };

  if (b.capacity_ != m.cap || b.full_mark() != f1 || b.last() != a1) return "capacity or marks changed";
  if (b.live_ != m.live) return "live_ " + num(b.live_) + ", model " + num(m.live);
  if (b.fresh_ != m.fresh) return "fresh_ " + num(b.fresh_) + ", model " + num(m.fresh);
  if (b.free_head_ != m.head()) return "free_head_ " + num(b.free_head_) + ", model " + num(m.head());
  if (b.full() != m.full()) return "full() disagrees";

  // Status of every written chunk; is_live of every index.
  for (std::uint32_t i = 0; i <= a1; ++i) {
    const bool written = i <= m.high || i >= f1;
    if (written && i <= a1 && Ops::is_free(b, i) == m.assigned[i]) return at(i, "status disagrees with the model");
    const bool user = i >= td::first_user_chunk && i <= m.cap + 1;
    if (algo::is_live(b, i) != (user && m.assigned[i])) return at(i, "is_live disagrees with the model");
  }
  if (algo::is_live(b, a1 + 1)) return "is_live past A1";

  // (V1), (V2): boundary links of every free run (only written chunks can
  // border an assigned one).
  for (std::uint32_t i = 1; i < a1; ++i) {
    if (m.assigned[i]) continue;
    // (V7): only runs whose bounds lie in different bitmap words keep links.
    if (m.assigned[i - 1] && traits::run_linked(i - 1, m.succ(i)) && Ops::link_next(b, i) != m.succ(i))
      return at(i, "(V1) next " + num(Ops::link_next(b, i)) + ", succ " + num(m.succ(i)));
    if (m.assigned[i + 1] && traits::run_linked(m.pred(i), i + 1) && traits::run_prev(b, i) != m.pred(i))
      return at(i, "(V2) prev " + num(traits::run_prev(b, i)) + ", pred " + num(m.pred(i)));
  }
  // (V3): the head's links.
  const std::uint32_t h = b.free_head_;
  if (h <= m.cap + 1 && (Ops::link_next(b, h) != m.succ(h) || traits::run_prev(b, h) != m.pred(h)))
    return at(h, "(V3) the head's links are stale");
  // (V4): released chunks in LIFO order, then fresh, fresh + 1, ...
  std::uint32_t k = h;
  for (auto it = m.stack.rbegin(); it != m.stack.rend(); ++it) {
    if (k != *it) return "(V4) free list has " + num(k) + " where the model has " + num(*it);
    k = Ops::free_next(b, k);
  }
  if (k != m.fresh) return "(V4) free list continues at " + num(k) + ", not at fresh " + num(m.fresh);
  if (m.fresh < f1) {
    if (!traits::lazy_tail && Ops::free_next(b, m.fresh) != m.fresh + 1) return at(m.fresh, "(V4) fresh chunk's next");
    // Every layout writes the fresh chunk's next link (A1) when it is
    // reached; a lazy tail writes nothing else (V6).
    if (Ops::link_next(b, m.fresh) != a1) return at(m.fresh, "(V6) fresh chunk's next link");
  }
  // (V5): chunks above fresh + 1 .. capacity + 1 were never written
  // (above the highest fresh so far, for a bin that restarted).
  for (std::uint32_t i = m.high + 1; i <= m.cap + 1; ++i)
    if (!rb.untouched(i)) return at(i, "(V5) written although above fresh");

  // Steps from every assigned chunk, pseudo chunks included.
  for (std::uint32_t i = 0; i <= a1; ++i) {
    if (!m.assigned[i]) continue;
    if (i != a1 && traits::next_assigned(b, i) != m.succ(i))
      return at(i, "next_assigned " + num(traits::next_assigned(b, i)) + ", succ " + num(m.succ(i)));
    if (i != 0 && traits::prev_assigned(b, i) != m.pred(i))
      return at(i, "prev_assigned " + num(traits::prev_assigned(b, i)) + ", pred " + num(m.pred(i)));
  }
  // Walks, forward and backward.
  const std::vector<std::uint32_t> want = m.live_chunks();
  std::vector<std::uint32_t> fwd, bwd;
  for (std::uint32_t i = traits::first_assigned(b); i != a1 && fwd.size() <= a1; i = traits::next_assigned(b, i))
    fwd.push_back(i);
  for (std::uint32_t i = traits::last_assigned(b); i != 0 && bwd.size() <= a1; i = traits::prev_assigned(b, i))
    bwd.push_back(i);
  std::reverse(bwd.begin(), bwd.end());
  if (fwd != want) return "forward walk differs from the model";
  if (bwd != want) return "backward walk differs from the model";
  return {};
}

// Every word that can influence the bin's future, plus the model.
template <class Ops>
std::string state_key(const raw_bin<Ops>& rb, const bin_model& m) {
  using traits = td::layout_traits<Ops>;
  const td::bin_base& b = rb.bin();
  std::string k;
  auto put = [&k](std::uint32_t v) { k.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(b.free_head_), put(b.fresh_), put(b.live_);
  // Chunks above fresh are never read before fresh reaches them; a lazy
  // tail's prev links are read as run_prev; fresh's next is A1 (bin.hpp (V6)).
  const std::uint32_t unread_from = traits::lazy_tail ? b.fresh_ : b.fresh_ + 1;
  for (std::uint32_t i = 0; i <= b.last(); ++i) {
    if (i >= unread_from && i < b.full_mark()) continue;
    const bool f = Ops::is_free(b, i);
    put(f);
    if (f) put(Ops::free_next(b, i)), put(Ops::link_next(b, i)), put(traits::run_prev(b, i));
  }
  for (std::uint32_t i : m.stack) put(i);
  return k;
}

constexpr std::uint32_t create_op = 0;  // else: release chunk `op`

// Effects: applies `op` to the bin and to the model; create must return
// the chunk the model predicts.
template <class Ops>
void apply(raw_bin<Ops>& rb, bin_model& m, std::uint32_t op) {
  if (op == create_op) {
    const std::uint32_t want = m.create();
    const std::uint32_t got = td::bin_algorithms<Ops>::create(rb.bin());
    REQUIRE(got == want);
  } else {
    m.release(op);
    td::bin_algorithms<Ops>::release(rb.bin(), op);
  }
}

// The model's part of a state: assigned set, release stack, fresh.
std::string model_key(const bin_model& m) {
  std::string k;
  for (std::uint32_t i = 0; i < m.assigned.size(); ++i) k.push_back(m.assigned[i] ? '1' : '0');
  k.push_back('|');
  for (std::uint32_t i : m.stack) k.append(std::to_string(i)).push_back(',');
  k.append("|" + std::to_string(m.fresh));
  return k;
}

struct bfs_result {
  std::size_t states;  // distinct bins (every word the algorithms may read)
  std::size_t edges;
};

// Breadth-first search over create/release sequences applied after
// `prefix` to a new bin of capacity `cap`, until no new state appears:
// moves(m) lists the operations allowed in model state m. Every state
// reached is checked (check_bin; `what` names the search in a failure),
// then passed to visit(m), the starting one included.
template <class Ops, class Moves, class Visit>
bfs_result search(const std::string& what, std::uint32_t cap, unsigned char poison,
                  const std::vector<std::uint32_t>& prefix, Moves moves, Visit visit) {
  auto replay = [&](raw_bin<Ops>& rb, bin_model& m, const std::vector<std::uint32_t>& seq) {
    for (std::uint32_t op : prefix) apply(rb, m, op);
    for (std::uint32_t op : seq) apply(rb, m, op);
  };
  std::unordered_set<std::string> seen;
  std::vector<std::vector<std::uint32_t>> frontier{{}};
  {
    raw_bin<Ops> rb(cap, poison);
    bin_model m(cap, td::restarts_emptied_bins<Ops>);
    replay(rb, m, {});
    const std::string err = check_bin(rb, m);
    INFO(what << ", the starting state: " << err);
    REQUIRE(err.empty());
    seen.insert(state_key(rb, m));
    visit(m);
  }
  std::size_t edges = 0;
  while (!frontier.empty()) {
    std::vector<std::vector<std::uint32_t>> next;
    for (const auto& seq : frontier) {
      std::vector<std::uint32_t> ops;
      {
        raw_bin<Ops> rb(cap, poison);
        bin_model m(cap, td::restarts_emptied_bins<Ops>);
        replay(rb, m, seq);
        ops = moves(m);
      }
      for (std::uint32_t op : ops) {
        raw_bin<Ops> rb(cap, poison);
        bin_model m(cap, td::restarts_emptied_bins<Ops>);
        replay(rb, m, seq);
        apply(rb, m, op);
        ++edges;
        const std::string err = check_bin(rb, m);
        if (!err.empty()) {
          std::ostringstream path;
          for (std::uint32_t s : seq) (s == create_op ? path << "c" : path << "r" << s) << ' ';
          (op == create_op ? path << "c" : path << "r" << op);
          FAIL(what << ", after [" << path.str() << "]: " << err);
        }
        visit(m);
        if (seen.insert(state_key(rb, m)).second) {
          next.push_back(seq);
          next.back().push_back(op);
        }
      }
    }
    frontier = std::move(next);
  }
  return {seen.size(), edges};
}

// Number of (assigned set, release stack, fresh) triples reachable in a bin
// of capacity n: for each fresh f, any subset of the f - 2 used chunks is
// free, in any order on the stack, except all of them where emptied bins
// restart (then a bin whose last element is destroyed has fresh = 2).
std::size_t model_states(std::uint32_t n, bool restarts) {
  std::size_t total = 0;
  for (std::uint32_t used = 0; used <= n; ++used) {
    // sum over k free of C(used, k) * k!, k < used once used > 0
    std::size_t arrangements = 0, falling = 1;
    for (std::uint32_t k = 0; k <= used; ++k) {
      if (k < used || used == 0 || !restarts) arrangements += falling;  // used! / (used - k)!
      falling *= used - k;
    }
    total += arrangements;
  }
  return total;
}

}  // namespace

// The last compact one is the column pool's slot layout (16-bit links).
#define BIN_TEST_LAYOUTS                                                                \
  (td::compact_layout<16, 8>), (td::compact_layout<24, 8>), (td::compact_layout<4, 4>), \
      (td::interleaved_layout<16, 8>), (td::interleaved_layout<24, 8>), (td::interleaved_layout<4, 4>), td::slot_ops

TEMPLATE_TEST_CASE("bin geometry: chunk array placement, bin size and default capacity", "[bin][geometry]",
                   BIN_TEST_LAYOUTS) {
  using traits = td::layout_traits<TestType>;
  for (std::uint32_t cap : {1u, 2u, 60u, 61u, 300u, 100000u}) {
    INFO("capacity " << cap);
    const std::size_t off = traits::chunks_offset(cap);
    CHECK(off % 64 == 0);
    CHECK(off % TestType::chunk_align == 0);
    CHECK(off >= td::bin_header_bytes + TestType::extra_bytes(cap));
    CHECK(off < td::bin_header_bytes + TestType::extra_bytes(cap) + std::max<std::size_t>(64, TestType::chunk_align));
    CHECK(traits::bin_bytes(cap) == off + (std::size_t{cap} + 4) * TestType::stride);
  }
  if constexpr (requires { TestType::link_bytes; })
    CHECK(TestType::stride >= 3 * TestType::link_bytes);  // the three links of a free chunk
  else
    CHECK(TestType::stride >= 12);
  CHECK(TestType::stride % TestType::chunk_align == 0);
  const std::uint32_t d = traits::default_capacity();
  CHECK(traits::bin_bytes(d) <= td::default_bin_span);
  CHECK(traits::bin_bytes(d + 1) > td::default_bin_span);
}

TEST_CASE("bin geometry: the strides and default capacities the design note states", "[bin][geometry]") {
  STATIC_REQUIRE(td::compact_layout<24, 8>::stride == 24);
  STATIC_REQUIRE(td::compact_layout<16, 8>::stride == 16);
  STATIC_REQUIRE(td::compact_layout<4, 4>::stride == 12);
  STATIC_REQUIRE(td::interleaved_layout<16, 8>::stride == 24);
  STATIC_REQUIRE(td::interleaved_layout<24, 8>::stride == 32);
  STATIC_REQUIRE(td::interleaved_layout<4, 4>::stride == 12);
  STATIC_REQUIRE(td::slot_ops::stride == 6);
  STATIC_REQUIRE(td::slot_ops::max_capacity == 65532);  // chunk indices up to capacity + 3 fit 16 bits
  CHECK(td::layout_traits<td::compact_layout<24, 8>>::default_capacity() == 86918);
  CHECK(td::layout_traits<td::interleaved_layout<24, 8>>::default_capacity() == 65528);
}

TEMPLATE_TEST_CASE("a new bin is empty and touches only its first and last chunks", "[bin][algorithms]",
                   BIN_TEST_LAYOUTS) {
  using traits = td::layout_traits<TestType>;
  using algo = td::bin_algorithms<TestType>;
  for (std::uint32_t cap : {1u, 2u, 3u, 64u, 300u}) {
    for (unsigned char poison : {0x5a, 0xa5}) {
      INFO("capacity " << cap << ", poison " << int{poison});
      raw_bin<TestType> rb(cap, poison);
      const td::bin_base& b = rb.bin();
      CHECK(b.free_head_ == td::first_user_chunk);
      CHECK(b.fresh_ == td::first_user_chunk);
      CHECK(b.live_ == 0);
      CHECK_FALSE(b.full());
      CHECK(traits::first_assigned(b) == b.last());
      CHECK(traits::last_assigned(b) == 0);
      for (std::uint32_t i = 3; i <= cap + 1; ++i) REQUIRE(rb.untouched(i));
      const std::string err = check_bin(rb, bin_model(cap, td::restarts_emptied_bins<TestType>));
      INFO(err);
      CHECK(err.empty());
      // peek reads the head without changing anything; commit_create of
      // what it returned is create.
      const auto before = state_key(rb, bin_model(cap, td::restarts_emptied_bins<TestType>));
      const auto p = algo::peek(b);
      CHECK(p.index == td::first_user_chunk);
      CHECK(p.free_next == td::first_user_chunk + 1);
      CHECK(p.link_next == b.last());
      CHECK(p.link_prev == 0);
      CHECK(state_key(rb, bin_model(cap, td::restarts_emptied_bins<TestType>)) == before);
      algo::commit_create(rb.bin(), p);
      bin_model m(cap, td::restarts_emptied_bins<TestType>);
      m.create();
      const std::string err2 = check_bin(rb, m);
      INFO(err2);
      CHECK(err2.empty());
    }
  }
}

TEMPLATE_TEST_CASE("every reachable state of a raw bin satisfies (V1)-(V5)", "[bin][algorithms][exhaustive]",
                   BIN_TEST_LAYOUTS) {
  for (std::uint32_t cap = 1; cap <= 6; ++cap) {
    for (unsigned char poison : {0x5a, 0xa5}) {
      INFO("capacity " << cap << ", poison " << int{poison});
      std::unordered_set<std::string> models;
      const bfs_result r = search<TestType>(
          "capacity " + std::to_string(cap), cap, poison, {},
          [](const bin_model& m) {
            std::vector<std::uint32_t> ops;
            if (!m.full()) ops.push_back(create_op);
            for (std::uint32_t i : m.live_chunks()) ops.push_back(i);
            return ops;
          },
          [&](const bin_model& m) { models.insert(model_key(m)); });
      // The search closes (the loop ends) over the bin's words and reaches
      // every model state: every (assigned set, free-list order, fresh).
      // Where every free run keeps its links, the bin's words, stale links
      // inside free runs included, are a function of the model state. With
      // (V7) the stale links of unlinked runs depend on the history, and
      // the search visits every such variant.
      const std::size_t model = model_states(cap, td::restarts_emptied_bins<TestType>);
      CHECK(models.size() == model);
      if constexpr (td::layout_traits<TestType>::run_linked(0, 1))
        CHECK(r.states == model);
      else
        CHECK(r.states >= model);
      if (poison == 0x5a)
        WARN("capacity " << cap << ": " << r.states << " distinct states (" << model << " model states), " << r.edges
                         << " transitions checked");
    }
  }
}

// A window of a bin spanning several bitmap words: a prefix of operations
// sets the rest of the bin, then every sequence of creates and releases
// that touches only the window's chunks is searched (search()). Creates
// pop only window chunks, or fresh ones while fresh < fresh_limit.
struct window {
  const char* what;
  std::uint32_t cap;
  std::vector<std::uint32_t> prefix;  // apply() operations
  std::vector<std::uint32_t> chunks;  // the chunks that may be released
  std::uint32_t fresh_limit;
};

// Operations: n creates, then releases of [first, last].
std::vector<std::uint32_t> creates_then_releases(std::uint32_t n, std::uint32_t first, std::uint32_t last) {
  std::vector<std::uint32_t> ops(n, create_op);
  for (std::uint32_t i = first; i <= last; ++i) ops.push_back(i);
  return ops;
}

TEMPLATE_TEST_CASE("every state of windows across bitmap words satisfies (V1)-(V7)", "[bin][algorithms][exhaustive]",
                   BIN_TEST_LAYOUTS) {
  // Bitmap words hold chunks 0-63, 64-127, 128-191, 192-. The windows put
  // free runs inside a word, across a boundary and across a whole word,
  // merge runs inside a word with runs that leave it, and move F0's run,
  // the tail run and its bound across word boundaries.
  const std::vector<window> windows = {
      {"a free run across word 1", 190, creates_then_releases(190, 66, 125), {63, 64, 65, 126, 127, 128}, 0},
      // Runs within word 1 that merge with, and split from, a run reaching
      // into word 2 (above) or word 0 (below): a release links the merged
      // run, and the create that splits it again leaves an unlinked one.
      {"runs in a word below a linked run", 190, creates_then_releases(190, 72, 130), {66, 67, 68, 69, 70, 71}, 0},
      {"runs in a word above a linked run",
       190,
       creates_then_releases(190, 60, 121),
       {122, 123, 124, 125, 126, 127},
       0},
      {"F0's run into word 1",
       190,
       [] {
         auto ops = creates_then_releases(190, 2, 61);
         for (std::uint32_t i = 66; i <= 125; ++i) ops.push_back(i);
         return ops;
       }(),
       {62, 63, 64, 65, 126, 127},
       0},
      // A1 (191) shares F1's word: the tail run is linked only while its
      // bound lies below chunk 128. Chunks from 122 are created fresh.
      {"the tail run in F1's word", 188, std::vector<std::uint32_t>(120, create_op), {63, 64, 126, 127, 128, 129}, 131},
      // A1 (192) lies past F1's word: the tail run is always linked. Chunks
      // from 185 are created fresh, up to a full bin.
      {"the tail run across A1's word",
       189,
       std::vector<std::uint32_t>(183, create_op),
       {127, 128, 184, 185, 186, 190},
       191},
  };
  // At small_depth (a sanitizer, or the stages after the first), every other
  // window (the GCC Release stage searches all).
  for (std::size_t k = 0; k < windows.size(); k += travpool::test::small_depth ? 2 : 1) {
    const window& w = windows[k];
    INFO(w.what);
    auto in_window = [&](std::uint32_t i) { return std::find(w.chunks.begin(), w.chunks.end(), i) != w.chunks.end(); };
    std::set<std::vector<bool>> occupancies;
    std::vector<bool> start;  // the window's occupancy after the prefix (the first visit)
    const std::size_t states =
        search<TestType>(
            w.what, w.cap, 0x5a, w.prefix,
            [&](const bin_model& m) {
              std::vector<std::uint32_t> ops;
              if (!m.stack.empty() ? in_window(m.stack.back()) : !m.full() && m.fresh < w.fresh_limit)
                ops.push_back(create_op);
              for (std::uint32_t i : w.chunks)
                if (m.assigned[i]) ops.push_back(i);
              return ops;
            },
            [&](const bin_model& m) {
              std::vector<bool> occ;
              for (std::uint32_t i : w.chunks) occ.push_back(m.assigned[i]);
              if (start.empty()) start = occ;
              occupancies.insert(occ);
            })
            .states;
    // Every subset of the window's chunks that the prefix left assigned is
    // reached (those above the prefix's fresh only in the tail windows).
    const auto assigned = static_cast<std::size_t>(std::count(start.begin(), start.end(), true));
    CHECK(occupancies.size() >= (std::size_t{1} << assigned));
    WARN(w.what << ": " << states << " distinct states, " << occupancies.size() << " occupancies of the window");
  }
}

TEMPLATE_TEST_CASE("randomized create/release on large bins matches a model", "[bin][algorithms][random]",
                   BIN_TEST_LAYOUTS) {
  for (std::uint32_t cap : {61u, 127u, 300u}) {
    INFO("capacity " << cap);
    raw_bin<TestType> rb(cap, 0x5a);
    bin_model m(cap, td::restarts_emptied_bins<TestType>);
    std::mt19937 rng(cap);
    using algo = td::bin_algorithms<TestType>;
    using traits = td::layout_traits<TestType>;
    std::size_t word_jumps = 0, long_jumps = 0, fills = 0, drains = 0, in_word = 0, next_word = 0, by_link = 0;
    // Phases: fill up, thin out to 40%, drain, refill to 70%, ...
    constexpr double targets[] = {1.0, 0.4, 0.0, 0.7};
    double target = 1.0;
    for (int step = 0; step < 9600; ++step) {
      if (step % 800 == 0) target = targets[(step / 800) % 4];
      const double density = double(m.live) / cap;
      const bool below = density < target;
      const bool create = !m.full() && (m.live == 0 || (rng() % 100) < (below ? 80u : 20u));
      if (create) {
        apply(rb, m, create_op);
      } else {
        const auto live = m.live_chunks();
        const std::uint32_t first = live[rng() % live.size()];
        // When thinning out, now and then free a block, so that free runs
        // span bitmap words.
        const std::uint32_t span = !below && rng() % 8 == 0 ? 1 + rng() % 90 : 1;
        for (std::uint32_t i : live) {
          if (i < first || i >= first + span) continue;
          // Where pred(i) and succ(i) lie before the release: in i's
          // bitmap word, in the word next to it, or further (the three
          // ways the compact layouts' neighbours() finds them: bit scans,
          // or a boundary link). The counts show that each case occurred;
          // check_bin below checks the result of every release.
          const std::uint32_t k = i >> 6, kp = m.pred(i) >> 6, ks = m.succ(i) >> 6;
          if (kp == k && ks == k)
            ++in_word;
          else if (kp + 1 < k || ks > k + 1)
            ++by_link;
          else
            ++next_word;
          apply(rb, m, i);
        }
      }
      fills += m.full();
      drains += m.live == 0;
      const std::string err = check_bin(rb, m);
      if (!err.empty()) FAIL("step " << step << ": " << err);
      const td::bin_base& b = rb.bin();
      for (std::uint32_t i = traits::first_assigned(b); i != b.last(); i = traits::next_assigned(b, i)) {
        const std::uint32_t j = traits::next_assigned(b, i);
        word_jumps += j - i > 1 && (i >> 6) != (j >> 6);
        long_jumps += j - i > 64;
      }
    }
    // The run exercised what it is for.
    CHECK(word_jumps > 0);
    if (cap > 64) CHECK(long_jumps > 0);  // a free run longer than a bitmap word
    CHECK(fills > 0);
    CHECK(drains > 0);
    // Each of the three cases occurred.
    CHECK(in_word > 0);
    CHECK(next_word > 0);
    if (cap == 300) CHECK(by_link > 0);  // five words: runs reach past the next one
    // Draining everything leaves an empty bin whose free list is the LIFO
    // of the releases, then fresh; or, where emptied bins restart, the
    // free list of a new bin: 2, 3, ...
    for (std::uint32_t i : m.live_chunks()) apply(rb, m, i);
    const std::string err = check_bin(rb, m);
    INFO(err);
    CHECK(err.empty());
    CHECK(traits::first_assigned(rb.bin()) == rb.bin().last());
    if constexpr (td::restarts_emptied_bins<TestType>) {
      CHECK(m.stack.empty());
      CHECK(algo::peek(rb.bin()).index == td::first_user_chunk);
      CHECK(algo::peek(rb.bin()).free_next == td::first_user_chunk + 1);
    } else {
      REQUIRE_FALSE(m.stack.empty());
      CHECK(algo::peek(rb.bin()).index == m.stack.back());
    }
  }
}
