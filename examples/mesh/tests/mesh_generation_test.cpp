// Generation-checked handles (triangle_mesh::enable_generations,
// versioned<H>, is_current, resolve; column_pool::add_generation_column):
// a stale handle whose slot was reused by a newer element passes the plain
// is_live() check but not the generation check, by construction.
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/column_pool.hpp>
#include <travpool/mesh/mesh.hpp>
#include "generate.hpp"

using namespace travpool::mesh;

TEST_CASE("a stale vertex handle whose slot was reused is caught by its generation", "[mesh]") {
  triangle_mesh m = grid_soup(4).build();
  m.enable_generations();
  m.enable_generations();  // once: the second call does nothing
  REQUIRE(m.has_generations());
  const Face f = *m.faces().begin();
  const auto c = m.corners(f);
  const vec3 centre = (m.position(c[0]) + m.position(c[1]) + m.position(c[2])) * (1.0 / 3.0);
  const Vertex v = m.split(f, centre);
  const versioned<Vertex> vh = m.versioned_handle(v);
  const versioned<Halfedge> hh = m.versioned_handle(m.out(v));
  const versioned<Face> fh = m.versioned_handle(m.face(m.out(v)));
  CHECK(m.is_current(vh));
  CHECK(m.resolve(vh) == v);
  m.collapse(m.out(v));  // deletes v, two of its edges and two faces
  CHECK_FALSE(m.is_live(v));
  CHECK_FALSE(m.is_current(vh));
  CHECK_THROWS_AS(m.resolve(vh), travpool::usage_error);
  // The same slots again (the pools reuse the last freed slot first).
  const Vertex w = m.split(f, centre + vec3{0.01, 0, 0});
  REQUIRE(w == v);                // by construction: slot reused
  CHECK(m.is_live(vh.handle));    // the plain check accepts the stale handle ...
  CHECK_FALSE(m.is_current(vh));  // ... the generation check does not
  CHECK_THROWS_AS(m.resolve(vh), travpool::usage_error);
  CHECK(m.position(vh.handle).x != centre.x);  // it would read the new vertex's position
  if (m.is_live(hh.handle)) CHECK_FALSE(m.is_current(hh));
  if (m.is_live(fh.handle)) CHECK_FALSE(m.is_current(fh));
  const versioned<Vertex> wh = m.versioned_handle(w);
  CHECK(wh.generation == vh.generation + 1);
  CHECK(m.resolve(wh) == w);
  m.validate();
  // Handles never deleted stay current through other edits.
  const Vertex corner = c[0];
  const versioned<Vertex> ch = m.versioned_handle(corner);
  m.collapse(m.out(w));
  CHECK(m.is_current(ch));
  CHECK(m.resolve(ch) == corner);
  // Moves keep them; clear() ends every life.
  triangle_mesh moved = std::move(m);
  CHECK(moved.is_current(ch));
  moved.clear();
  CHECK_FALSE(moved.is_current(ch));
}

TEST_CASE("generations off: versioned_handle refuses, is_current is false", "[mesh]") {
  triangle_mesh m = grid_soup(2).build();
  const Vertex v = *m.vertices().begin();
  CHECK_FALSE(m.has_generations());
  CHECK_THROWS_AS(m.versioned_handle(v), travpool::usage_error);
  CHECK_FALSE(m.is_current(versioned<Vertex>{v, 0}));
  CHECK_THROWS_AS(m.resolve(versioned<Vertex>{v, 0}), travpool::usage_error);
  CHECK_FALSE(m.has_property<Vertex>("tp:generation"));
}

TEST_CASE("column_pool::add_generation_column counts each slot's destroys", "[mesh]") {
  travpool::column_pool p;
  const std::uint32_t a = p.create();
  const auto gen = p.add_generation_column("gen");  // existing handles start at 0
  CHECK(gen[a] == 0);
  CHECK_THROWS_AS(p.get_column<std::uint32_t>("gen"), travpool::usage_error);  // no writable key
  p.destroy(a);
  const std::uint32_t b = p.create();
  REQUIRE(b == a);  // the slot is reused
  CHECK(gen[b] == 1);
  std::vector<std::uint32_t> hs;
  for (int i = 0; i < 10000; ++i) hs.push_back(p.create());
  for (const std::uint32_t h : hs) CHECK(gen[h] == 0);
  for (const std::uint32_t h : hs) p.destroy(h);
  for (int i = 0; i < 10000; ++i) {
    const std::uint32_t h = p.create();
    CHECK(gen[h] == 1);
  }
  p.validate();
  p.remove_column(gen);
  CHECK(p.column_count() == 0);
}
