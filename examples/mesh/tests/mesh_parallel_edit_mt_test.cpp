// A randomized concurrent edit fuzzer for detail/parallel_edit.hpp: several
// threads split and collapse on one shared triangle_mesh through an
// edit_session (Morton chunks, per-vertex try-locks, deferred items retried
// at the end of a chunk, then a serial tail). After every round the mesh
// must be valid, its Euler characteristic unchanged, its counts those the
// operations done imply, and its geometry consistent (positions in the
// input's hull; on a planar disc the faces' signed area equals the area
// the boundary encloses). Also: column_pool::set_exclusive, the switch the
// mesh's pools use outside a parallel phase. Label threads (TSan runs it).
#include <atomic>
#include <cmath>
#include <cstdint>
#include <random>
#include <thread>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include <travpool/column_pool.hpp>
#include <travpool/mesh/algorithms.hpp>
#include <travpool/mesh/detail/parallel_edit.hpp>
#include <travpool/mesh/mesh.hpp>
#include "generate.hpp"

using namespace travpool::mesh;
using travpool::mesh::detail::edit_session;
using travpool::mesh::detail::edit_stats;
using travpool::mesh::detail::for_each_chunk;
using travpool::mesh::detail::lock_set;

namespace {

// What the operations of a round did: ops and the element counts they
// imply (a split adds 1 vertex and 1 face per face beside the edge, a
// collapse removes them).
struct tally {
  long ops = 0, vertices = 0, faces = 0;
  tally& operator+=(const tally& o) {
    ops += o.ops, vertices += o.vertices, faces += o.faces;
    return *this;
  }
};

enum class outcome { done, deferred, skipped };

int faces_beside(const triangle_mesh& m, Halfedge h) {
  return int(!m.is_boundary(h)) + int(!m.is_boundary(h.opposite()));
}

// One random operation seeded at a (a vertex owned by `chunk`): under the
// locks of the scheme, a split of a random edge at a or a collapse of a
// into a random neighbour (if the link condition allows it).
outcome edit_at(edit_session& s, std::size_t chunk, Vertex a, std::mt19937& rng, tally& t) {
  triangle_mesh& m = s.mesh();
  if (!m.is_live(a)) return outcome::skipped;  // our own collapse deleted it
  lock_set locks(s, chunk);
  if (!locks.try_lock(a)) return outcome::deferred;
  std::vector<Halfedge> outs;
  for (const Halfedge h : m.out_halfedges(a)) outs.push_back(h);  // a's ring, read under its lock
  if (outs.empty()) return outcome::skipped;
  const Halfedge h = outs[rng() % outs.size()];
  const Vertex b = m.to(h);
  if (rng() % 2 == 0) {
    if (!locks.try_lock(b)) return outcome::deferred;
    for (const Halfedge x : {h, h.opposite()})
      if (!m.is_boundary(x) && !locks.try_lock(m.to(m.next(x)))) return outcome::deferred;
    const int beside = faces_beside(m, h);
    const vec3 p = (m.position(a) + m.position(b)) * 0.5;
    const Vertex v = m.split(h.edge(), p);
    s.set_owner(v, static_cast<std::uint32_t>(chunk));
    t.vertices += 1, t.faces += beside, ++t.ops;
    return outcome::done;
  }
  if (!locks.try_lock_closed_ring(a) || !locks.try_lock_closed_ring(b)) return outcome::deferred;
  if (!m.is_collapse_ok(h)) return outcome::skipped;
  const int beside = faces_beside(m, h);
  m.collapse(h);    // deletes a, the seed: only its owner chunk gets here
  locks.forget(a);  // a's slot may be another task's new vertex by now
  t.vertices -= 1, t.faces -= beside, ++t.ops;
  return outcome::done;
}

// One round: every chunk's vertices seed one operation each.
edit_stats round(triangle_mesh& m, execution how, std::size_t chunks, std::uint32_t seed, tally& total) {
  edit_session s(m, chunks);
  std::vector<tally> tallies(chunks);
  std::vector<edit_stats> stats(chunks);
  std::vector<std::vector<Vertex>> tails(chunks);
  for_each_chunk(how, chunks, 0, [&](std::size_t k) {
    std::mt19937 rng(seed * 7919u + static_cast<std::uint32_t>(k));
    std::vector<Vertex> deferred;
    for (const Vertex a : s.chunk(k)) {
      const outcome o = edit_at(s, k, a, rng, tallies[k]);
      if (o == outcome::deferred) deferred.push_back(a);
      if (o == outcome::done) ++stats[k].parallel;
    }
    for (const Vertex a : deferred) {
      const outcome o = edit_at(s, k, a, rng, tallies[k]);
      if (o == outcome::deferred) tails[k].push_back(a);
      if (o == outcome::done) ++stats[k].retried;
    }
  });
  edit_stats sum;
  for (std::size_t k = 0; k < chunks; ++k) {
    std::mt19937 rng(seed + 1000003u * static_cast<std::uint32_t>(k));
    for (const Vertex a : tails[k]) {  // the serial tail: nobody else holds a lock
      const outcome o = edit_at(s, k, a, rng, tallies[k]);
      REQUIRE(o != outcome::deferred);
      if (o == outcome::done) ++stats[k].serial;
    }
    sum += stats[k];
    total += tallies[k];
  }
  return sum;
}

// Returns: the signed area (z) of the faces plus that of the boundary
// loops (which run clockwise around a disc): 0 for a planar disc.
double area_balance(const triangle_mesh& m) {
  auto cross_z = [](const vec3& p, const vec3& q) { return p.x * q.y - p.y * q.x; };
  double sum = 0;
  for (const Face f : m.faces()) {
    const auto c = m.corners(f);
    sum += cross_z(m.position(c[1]) - m.position(c[0]), m.position(c[2]) - m.position(c[0])) / 2;
  }
  for (const Edge e : m.edges())
    for (const Halfedge h : {e.halfedge(0), e.halfedge(1)})
      if (m.is_boundary(h)) sum += cross_z(m.position(m.from(h)), m.position(m.to(h))) / 2;
  return sum;
}

long euler(const triangle_mesh& m) { return long(m.vertex_count()) - long(m.edge_count()) + long(m.face_count()); }

void fuzz(triangle_mesh& m, execution how, int threads, int rounds, bool planar) {
  const long chi = euler(m);
  const long v0 = long(m.vertex_count()), f0 = long(m.face_count());
  tally total;
  edit_stats stats;
  for (int r = 0; r < rounds; ++r) {
    stats += round(m, how, 8 * static_cast<std::size_t>(threads), static_cast<std::uint32_t>(r + 1), total);
    m.validate();
    REQUIRE(euler(m) == chi);
    REQUIRE(long(m.vertex_count()) == v0 + total.vertices);
    REQUIRE(long(m.face_count()) == f0 + total.faces);
  }
  bool inside = true;
  for (const Vertex v : m.vertices()) {
    const vec3 p = m.position(v);
    if (planar)
      inside &= p.z == 0 && p.x >= 0 && p.y >= 0 && p.x <= 24 && p.y <= 24;
    else
      inside &= std::sqrt(dot(p, p)) <= 1 + 1e-12;
  }
  CHECK(inside);
  if (planar) CHECK(std::abs(area_balance(m)) < 1e-9);
  const std::size_t ops = stats.parallel + stats.retried + stats.serial;
  CHECK(std::size_t(total.ops) == ops);
  CHECK(stats.parallel > 0);
  INFO(to_string(how) << ", " << threads << " threads: " << ops << " ops, " << stats.retried << " retried, "
                      << stats.serial << " serial");
  WARN(to_string(how) << ": " << ops << " ops: " << stats.parallel << " parallel, " << stats.retried << " retried, "
                      << stats.serial << " serial tail");
  // Outside the session the pools are exclusive again: serial edits work.
  const Face f = *m.faces().begin();
  const auto c = m.corners(f);
  const Vertex v = m.split(f, (m.position(c[0]) + m.position(c[1]) + m.position(c[2])) * (1.0 / 3.0));
  m.collapse(m.out(v));
  m.validate();
  REQUIRE(euler(m) == chi);
}

int threads_for_test() { return std::max(2, std::min(4, static_cast<int>(std::thread::hardware_concurrency()))); }

}  // namespace

TEST_CASE("parallel edits: splits and collapses from several threads keep the mesh valid", "[mesh][threads]") {
  const int threads = threads_for_test();
  for (const execution how : {execution::serial, execution::openmp, execution::tbb}) {
    if (!available(how)) continue;
#if defined(_OPENMP)
    omp_set_num_threads(threads);
#endif
    SECTION(std::string("closed sphere, ") + to_string(how)) {
      triangle_mesh m = sphere(3);
      fuzz(m, how, threads, 12, false);
    }
    SECTION(std::string("planar grid with a boundary, ") + to_string(how)) {
      triangle_mesh m = grid_soup(24).build();
      fuzz(m, how, threads, 12, true);
    }
  }
}

TEST_CASE("parallel edits: Morton chunks cover the vertices once, owners and locks", "[mesh][threads]") {
  triangle_mesh m = grid_soup(8).build();
  {
    edit_session s(m, 5);
    REQUIRE(s.chunk_count() == 5);
    std::vector<int> seen(m.vertex_count(), 0);
    std::size_t n = 0;
    for (std::size_t k = 0; k < 5; ++k)
      for (const Vertex v : s.chunk(k)) {
        ++seen[v.idx()], ++n;
        CHECK(s.owner(v) == k);
      }
    CHECK(n == m.vertex_count());
    CHECK(std::all_of(seen.begin(), seen.end(), [](int x) { return x == 1; }));
    // A chunk is a compact patch: its bounding box is well below the grid's.
    for (std::size_t k = 0; k < 5; ++k) {
      double lo = 1e9, hi = -1e9;
      for (const Vertex v : s.chunk(k)) lo = std::min(lo, m.position(v).y), hi = std::max(hi, m.position(v).y);
      CHECK(hi - lo <= 6);
    }
    const Vertex a = *s.chunk(0).begin();
    lock_set l0(s, 0), l1(s, 1);
    CHECK(l0.try_lock(a));
    CHECK(l0.try_lock(a));  // held already
    CHECK_FALSE(l1.try_lock(a));
    CHECK_FALSE(l1.try_lock_closed_ring(a));
    l0.release_all();
    CHECK(l1.try_lock_closed_ring(a));
    CHECK(l1.size() == 1 + m.valence(a));
    CHECK_FALSE(l0.try_lock(m.to(m.out(a))));
    l1.forget(a);  // a stays locked (as if deleted): release_all leaves it
    l1.release_all();
    CHECK_FALSE(l0.try_lock(a));
    CHECK(l0.try_lock(m.to(m.out(a))));
  }
  CHECK_FALSE(m.has_property<Vertex>("tp:owner"));  // the session removed its columns
  CHECK_FALSE(m.has_property<Vertex>("tp:lock"));
  m.validate();
}

TEST_CASE("column_pool::set_exclusive: one thread's creates and destroys without the bin locks", "[threads]") {
  using pool_t = travpool::concurrent_column_pool;
  pool_t p;
  auto col = p.add_column<std::uint64_t>("x", 7);
  p.set_exclusive(true);
  CHECK(p.exclusive());
  std::vector<std::uint32_t> hs;
  for (int i = 0; i < 50000; ++i) hs.push_back(p.create());
  CHECK(p.size() == 50000);
  const std::uint32_t freed = hs[123];
  p.destroy(freed);
  CHECK_FALSE(p.is_live(freed));
  const std::uint32_t again = p.create();
  // The chunk just freed comes back first (under checks::on the locks'
  // protocol is kept, whose hot bin may give another chunk).
  if constexpr (std::is_same_v<pool_t::checks_type, travpool::checks::off>) CHECK(again == freed);
  hs[123] = again;
  CHECK(col[again] == 7);
  CHECK_THROWS_AS(p.destroy(hs[0] + 1000000), travpool::usage_error);
  p.validate();
  // Back to the locks: four threads create and destroy at once.
  p.set_exclusive(false);
  CHECK_FALSE(p.exclusive());
  std::vector<std::thread> ts;
  std::atomic<std::size_t> made{0};
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&] {
      std::vector<std::uint32_t> mine;
      for (int i = 0; i < 5000; ++i) mine.push_back(p.create());
      for (std::size_t i = 0; i < mine.size(); i += 2) p.destroy(mine[i]);
      made += mine.size() / 2;
    });
  for (auto& t : ts) t.join();
  CHECK(p.size() == 50000 + made.load());
  p.validate();
  p.set_exclusive(true);
  for (const std::uint32_t h : hs) p.destroy(h);
  p.shrink_to_fit();  // drops the exclusive bin: creates after it take a live bin
  const std::uint32_t h = p.create();
  CHECK(p.is_live(h));
  p.validate();
}
