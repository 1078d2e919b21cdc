// bench/standalone/range_step_designs.cpp: what one iterator step over a
// bitmap costs, by design, against a dense loop (docs/experiments.md,
// "Iterator step designs"). No pool: 20 M elements of
// 24 B in one array on transparent huge pages, and a bitmap of their live
// bits (dense, or 10 % / 50 % cleared at random); every loop sums x + y + z
// of the live elements and differs only in how it steps:
//   vector     the array, every element (the dense baseline);
//   for_each   the pool's for_each: per bitmap word, a plain loop over a
//              full word, else clear-lowest-bit over the word's bits;
//   bits       the pool's range-for cursor (layout_compact.hpp): the live
//              bits from the current one up, ANDed with the word again at
//              every step (so elements destroyed meanwhile drop out), the
//              next bit found by a bit scan;
//   one_hot    a cursor of the current bit alone: the next element is
//              p + 1 while its bit is set (one test per step), else a scan;
//   full_word  the bits cursor, plus a mode for words that were full when
//              entered, which steps by p + 1 and a one-hot test (mode held
//              in the cursor, tested at every step).
// Every cursor reads the word at every step, as an iterator must. The
// loops alternate, 11 times each, in one process; medians, ns per live
// element, and the ratio to the dense vector loop.
//   g++ -std=c++20 -O2 -DNDEBUG bench/standalone/range_step_designs.cpp -o /tmp/rsd && /tmp/rsd
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

struct element {
  std::uint64_t x, y, z;
};

constexpr std::size_t n = 20'000'000 / 64 * 64, words = n / 64;
constexpr std::uint64_t all = ~std::uint64_t{0};
element* elems;
std::uint64_t* bitmap;

// The word as an iterator reads it: from memory at every step.
std::uint64_t load(const std::uint64_t* w) { return *static_cast<const volatile std::uint64_t*>(w); }
unsigned low(std::uint64_t w) { return static_cast<unsigned>(__builtin_ctzll(w)); }

[[gnu::noinline]] std::uint64_t sum_vector() {
  std::uint64_t s = 0;
  for (const element* p = elems; p != elems + n; ++p) s += p->x + p->y + p->z;
  return s;
}

[[gnu::noinline]] std::uint64_t sum_for_each() {
  std::uint64_t s = 0;
  for (std::size_t k = 0; k < words; ++k) {
    std::uint64_t w = bitmap[k];
    const element* p = elems + k * 64;
    if (w == all) {
      for (int j = 0; j < 64; ++j) s += p[j].x + p[j].y + p[j].z;
      continue;
    }
    for (; w != 0; w &= w - 1) {
      const element* e = p + low(w);
      s += e->x + e->y + e->z;
    }
  }
  return s;
}

// Enters the first word from w on with a live bit; false at the end.
bool enter(const std::uint64_t*& w, const element*& base, std::uint64_t& bits) {
  for (; w != bitmap + words; ++w, base += 64)
    if ((bits = load(w)) != 0) return true;
  return false;
}

// The pool's step within a word: to the next bit of bits still set in *w;
// false when the word has none left.
[[gnu::always_inline]] inline bool step_bits(const std::uint64_t* w, const element* base, std::uint64_t& bits,
                                             const element*& p) {
  std::uint64_t live = bits & load(w);
  asm("" : "+r"(live));  // as layout_compact.hpp's cursor_next
  const std::uint64_t rest = live & (bits - 1);
  if (rest == 0) [[unlikely]]
    return false;
  bits = rest;
  p = base + low(rest);
  return true;
}

[[gnu::noinline]] std::uint64_t sum_bits() {
  std::uint64_t s = 0, bits;
  const std::uint64_t* w = bitmap;
  const element* base = elems;
  if (!enter(w, base, bits)) return s;
  for (const element* p = base + low(bits);;) {
    s += p->x + p->y + p->z;
    if (step_bits(w, base, bits, p)) [[likely]]
      continue;
    ++w, base += 64;
    if (!enter(w, base, bits)) return s;
    p = base + low(bits);
  }
}

[[gnu::noinline]] std::uint64_t sum_one_hot() {
  std::uint64_t s = 0, bits;
  const std::uint64_t* w = bitmap;
  const element* base = elems;
  if (!enter(w, base, bits)) return s;
  std::uint64_t m = bits & (0 - bits);
  for (const element* p = base + low(bits);;) {
    s += p->x + p->y + p->z;
    m <<= 1;
    ++p;
    if (load(w) & m) [[likely]]
      continue;
    if (const std::uint64_t rest = load(w) & (0 - m); m != 0 && rest != 0) {
      m = rest & (0 - rest);
      p = base + low(rest);
      continue;
    }
    ++w, base += 64;
    if (!enter(w, base, bits)) return s;
    m = bits & (0 - bits);
    p = base + low(bits);
  }
}

[[gnu::noinline]] std::uint64_t sum_full_word() {
  std::uint64_t s = 0, bits;
  const std::uint64_t* w = bitmap;
  const element* base = elems;
  if (!enter(w, base, bits)) return s;
  bool dense = bits == all;  // the mode: bits is then the current bit alone
  if (dense) bits = 1;
  for (const element* p = base + low(bits);;) {
    s += p->x + p->y + p->z;
    if (dense) {
      const std::uint64_t m = bits << 1;
      ++p;
      if (load(w) & m) [[likely]] {
        bits = m;
        continue;
      }
      dense = false;
      bits = load(w) & (0 - m);  // the general cursor from p on
      if (m != 0 && bits != 0) {
        p = base + low(bits);
        continue;
      }
    } else if (step_bits(w, base, bits, p)) [[likely]] {
      continue;
    }
    ++w, base += 64;
    if (!enter(w, base, bits)) return s;
    dense = bits == all;
    if (dense) bits = 1;
    p = base + low(bits);
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main() {
  const std::size_t bytes = n * sizeof(element);
  elems = static_cast<element*>(
      std::aligned_alloc(std::size_t{2} << 20, (bytes + (2 << 20) - 1) & ~std::size_t{(2 << 20) - 1}));
  madvise(elems, bytes, MADV_HUGEPAGE);
  bitmap = static_cast<std::uint64_t*>(std::aligned_alloc(64, words * 8));
  for (std::size_t i = 0; i < n; ++i) elems[i] = {i, 2 * i, 3 * i};
  using loop = std::uint64_t (*)();
  const loop loops[] = {sum_vector, sum_for_each, sum_bits, sum_one_hot, sum_full_word};
  std::printf(
      "| erased | vector (ns per element) | for_each | bits (the pool's) | one_hot | full_word "
      "|\n|---|---|---|---|---|---|\n");
  for (const int erased_pct : {0, 10, 50}) {
    std::memset(bitmap, 0xff, words * 8);
    std::uint64_t x = 88172645463325252u;  // xorshift64: the same gaps every run
    for (std::size_t i = 0; i < n; ++i) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      if (static_cast<int>(x % 100) < erased_pct) bitmap[i / 64] &= ~(std::uint64_t{1} << (i % 64));
    }
    std::size_t live = 0;
    for (std::size_t k = 0; k < words; ++k) live += static_cast<std::size_t>(__builtin_popcountll(bitmap[k]));
    std::vector<double> t[5];
    std::uint64_t sums[5] = {};
    for (int r = 0; r < 11; ++r)
      for (int l = 0; l < 5; ++l) {
        const auto t0 = std::chrono::steady_clock::now();
        sums[l] = loops[l]();
        const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
        t[l].push_back(ns / static_cast<double>(l == 0 ? n : live));
      }
    for (int l = 2; l < 5; ++l)
      if (sums[l] != sums[1]) std::printf("loop %d: wrong sum\n", l);
    const double v = median(t[0]);
    std::printf("| %d %% | %.2f |", erased_pct, v);
    for (int l = 1; l < 5; ++l) std::printf(" %.2fx |", median(t[l]) / v);
    std::printf("\n");
  }
}
