// Tests of <travpool/mesh/buffers.hpp>: export_buffers (float and double,
// interleaved normals and properties, after deletions, spans too small,
// parallel == serial), the zero-copy dense spans and from_buffers.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <travpool/mesh.hpp>
#include "generate.hpp"

using namespace travpool::mesh;

namespace {

// A grid with bumped heights (so that every coordinate differs) and its
// vertex normals.
triangle_mesh bumpy_grid(std::uint32_t n) {
  triangle_mesh m = grid_soup(n).build();
  for (const Vertex v : m.vertices()) {
    vec3& p = m.position(v);
    p.z = 0.1 * std::sin(0.7 * p.x + 0.3) * std::cos(0.45 * p.y) + 1e-9 * p.x;
    p.x += 1.0 / 3.0;
  }
  compute_normals(m);
  return m;
}

// Deletes about `fraction` of the faces and a few vertices, scattered.
void delete_scattered(triangle_mesh& m, double fraction, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Vertex> vs(m.vertices().begin(), m.vertices().end());
  std::shuffle(vs.begin(), vs.end(), rng);
  for (std::size_t i = 0; i < vs.size() / 20; ++i)
    if (m.is_live(vs[i])) m.delete_vertex(vs[i]);
  std::vector<Face> fs(m.faces().begin(), m.faces().end());
  std::shuffle(fs.begin(), fs.end(), rng);
  const auto target = static_cast<std::size_t>(static_cast<double>(fs.size()) * fraction);
  for (std::size_t i = 0; i < target; ++i)
    if (m.is_live(fs[i])) m.delete_face(fs[i]);
}

// q rounded to float. Through volatile: GCC 12.2 at -O3 folds the
// (double)(float) of two vectorised components to nothing.
vec3 as_float(const vec3& q) {
  volatile float f[3] = {static_cast<float>(q.x), static_cast<float>(q.y), static_cast<float>(q.z)};
  return {f[0], f[1], f[2]};
}

// The triangle (from(h), to(h), to(next(h))), h = halfedge(f): the
// corners as export_buffers writes them.
std::array<Vertex, 3> export_corners(const triangle_mesh& m, Face f) {
  const Halfedge h = m.halfedge(f);
  return {m.from(h), m.to(h), m.to(m.next(h))};
}

template <class T>
T read_at(const std::vector<std::byte>& bytes, std::size_t at) {
  T t;
  std::memcpy(&t, bytes.data() + at, sizeof t);
  return t;
}

vec3 read_real3(const std::vector<std::byte>& bytes, std::size_t at, component_type t) {
  if (t == component_type::f32) {
    const auto v = read_at<std::array<float, 3>>(bytes, at);
    return {v[0], v[1], v[2]};
  }
  const auto v = read_at<std::array<double, 3>>(bytes, at);
  return {v[0], v[1], v[2]};
}

// Checks b against m: vertex i is the i-th in traversal order at its
// position (as `real`), the map and the index buffer agree, and each
// triangle of the buffers has the corners' positions of its face.
void check_buffers(const triangle_mesh& m, const mesh_buffers& b, component_type real) {
  const vertex_attribute* pos = b.layout.find("position");
  REQUIRE(pos != nullptr);
  REQUIRE(b.vertex_count() == m.vertex_count());
  REQUIRE(b.indices.size() == 3 * m.face_count());
  // Counted, then checked once (a REQUIRE per value is slow under ASan).
  std::vector<vec3> points;
  std::uint32_t i = 0;
  std::size_t bad_position = 0, bad_map = 0, bad_index = 0, bad_corner = 0;
  for (const Vertex v : m.vertices()) {
    const vec3 p = read_real3(b.vertices, std::size_t{i} * b.layout.stride + pos->offset, real);
    const vec3& q = m.position(v);
    const vec3 e = real == component_type::f32 ? as_float(q) : q;
    bad_position += !(p.x == e.x && p.y == e.y && p.z == e.z);
    if (!b.vertex_map.empty()) bad_map += b.vertex_map.at(v.idx()) != i;
    points.push_back(p);
    ++i;
  }
  CHECK(bad_position == 0);
  CHECK(bad_map == 0);
  if (!b.vertex_map.empty()) {
    std::size_t live = 0;
    for (const std::uint32_t x : b.vertex_map) live += x != Vertex::invalid_index;
    CHECK(live == m.vertex_count());
  }
  std::size_t k = 0;
  const auto numbers = vertex_numbers(m);
  for (const Face f : m.faces()) {
    const auto c = export_corners(m, f);
    for (int j = 0; j < 3; ++j) {
      const std::uint32_t x = b.indices[3 * k + j];
      bad_index += x != numbers.at(c[j]);  // the traversal-order numbering
      // The geometry: the buffer's corner is the mesh's corner.
      const vec3 d = points.at(x) - m.position(c[j]);
      bad_corner += !(norm(d) <= 1e-6 * (1 + norm(m.position(c[j]))));
    }
    ++k;
  }
  CHECK(bad_index == 0);
  CHECK(bad_corner == 0);
}

// Checks that export_buffers(m, o) with each parallel mode in this build
// gives serial's layout and bytes (serial: the serial export with o).
void check_parallel_exports(const triangle_mesh& m, buffer_options o, const mesh_buffers& serial) {
  for (const execution how : {execution::openmp, execution::tbb}) {
    if (!available(how)) continue;
    o.how = how;
    const mesh_buffers par = export_buffers(m, o);
    CHECK(par.layout == serial.layout);
    CHECK(bool(par.vertices == serial.vertices));
    CHECK(bool(par.indices == serial.indices));
    CHECK(bool(par.vertex_map == serial.vertex_map));
  }
}

}  // namespace

TEST_CASE("export_buffers: positions as float and as double, indices as to_triangles", "[mesh][buffers]") {
  const triangle_mesh m = bumpy_grid(6);
  for (const component_type real : {component_type::f32, component_type::f64}) {
    buffer_options o;
    o.real = real;
    o.vertex_map = true;
    const mesh_buffers b = export_buffers(m, o);
    CHECK(b.layout.stride == 3 * size_of(real));
    CHECK(b.layout.attributes.size() == 1);
    check_buffers(m, b, real);
    std::vector<vec3> points;
    std::vector<std::array<std::uint32_t, 3>> triangles;
    to_triangles(m, points, triangles);
    // The same triangles, each rotated: to_triangles starts at
    // corners(f)[0] = to(halfedge(f)), export at from(halfedge(f)).
    REQUIRE(triangles.size() * 3 == b.indices.size());
    for (std::size_t k = 0; k < triangles.size(); ++k) {
      const auto& t = triangles[k];
      CHECK((std::array<std::uint32_t, 3>{t[2], t[0], t[1]}) ==
            (std::array<std::uint32_t, 3>{b.indices[3 * k], b.indices[3 * k + 1], b.indices[3 * k + 2]}));
    }
    if (real == component_type::f64)  // packed doubles: the positions' bytes
      CHECK(std::memcmp(points.data(), b.vertices.data(), b.vertices.size()) == 0);
  }
}

TEST_CASE("export_buffers: interleaved normals and properties, layout and dtype", "[mesh][buffers]") {
  triangle_mesh m = bumpy_grid(5);
  auto quality = m.add_property<Vertex, float>("quality");
  auto flag = m.add_property<Vertex, std::uint8_t>("flag");
  auto uv = m.add_property<Vertex, std::array<std::int16_t, 2>>("uv");
  auto color = m.add_property<Vertex, vec3>("color");
  auto weight = m.add_property<Vertex, double>("weight");
  std::uint32_t i = 0;
  for (const Vertex v : m.vertices()) {
    quality[v] = 0.5f * static_cast<float>(i);
    flag[v] = static_cast<std::uint8_t>(i * 7);
    uv[v] = {static_cast<std::int16_t>(i), static_cast<std::int16_t>(-static_cast<int>(i))};
    color[v] = {0.25 * i, 1.0 / (1 + i), -1.0 * i};
    weight[v] = 1.0 / 3.0 + i;
    ++i;
  }
  buffer_options o;
  o.normals = true;
  o.property("quality", quality).property("flag", flag).property("uv", uv).property("color", color);
  o.property("weight", weight);
  const mesh_buffers b = export_buffers(m, o);
  // position f32x3 @0, normal f32x3 @12, quality f32 @24, flag u8 @28,
  // uv i16x2 @30, color f32x3 @36 (vec3 follows real), weight f64 @48; stride 56.
  const std::vector<vertex_attribute> expected{
      {"position", component_type::f32, 3, 0}, {"normal", component_type::f32, 3, 12},
      {"quality", component_type::f32, 1, 24}, {"flag", component_type::u8, 1, 28},
      {"uv", component_type::i16, 2, 30},      {"color", component_type::f32, 3, 36},
      {"weight", component_type::f64, 1, 48}};
  CHECK(b.layout.attributes == expected);
  CHECK(b.layout.stride == 56);
  CHECK(b.layout.numpy_dtype() ==
        "{'names': ['position', 'normal', 'quality', 'flag', 'uv', 'color', 'weight'], 'formats': [('<f4', (3,)), "
        "('<f4', (3,)), '<f4', '|u1', ('<i2', (2,)), ('<f4', (3,)), '<f8'], 'offsets': [0, 12, 24, 28, 30, 36, 48], "
        "'itemsize': 56}");
  check_buffers(m, b, component_type::f32);
  i = 0;
  for (const Vertex v : m.vertices()) {
    const std::size_t at = std::size_t{i} * 56;
    const vec3 n = read_real3(b.vertices, at + 12, component_type::f32);
    CHECK(norm(n - m.normal(v)) < 1e-6);
    CHECK(std::abs(norm(n) - 1) < 1e-6);  // unit normals
    CHECK(read_at<float>(b.vertices, at + 24) == quality[v]);
    CHECK(read_at<std::uint8_t>(b.vertices, at + 28) == flag[v]);
    CHECK(read_at<std::uint8_t>(b.vertices, at + 29) == 0);  // padding
    CHECK((read_at<std::array<std::int16_t, 2>>(b.vertices, at + 30) == uv[v]));
    CHECK(read_at<std::uint16_t>(b.vertices, at + 34) == 0);  // padding
    const vec3 c = read_real3(b.vertices, at + 36, component_type::f32);
    CHECK(norm(c - as_float(color[v])) == 0);
    CHECK(read_at<double>(b.vertices, at + 48) == weight[v]);
    ++i;
  }
  // Bad options: a duplicate name, an empty one, an integer `real`.
  buffer_options dup;
  dup.property("position", quality);
  CHECK_THROWS_AS(export_buffers(m, dup), travpool::usage_error);
  buffer_options empty_name;
  empty_name.property("", quality);
  CHECK_THROWS_AS(export_buffers(m, empty_name), travpool::usage_error);
  buffer_options bad_real;
  bad_real.real = component_type::u32;
  CHECK_THROWS_AS(export_buffers(m, bad_real), travpool::usage_error);
}

// The index pass's rank lookup counts bits with the SWAR popcount64 where
// the target has no POPCNT, and with the instruction where the processor
// has it (chosen at run time on x86-64): the test host takes one of them,
// so the SWAR count is checked here against std::popcount directly.
TEST_CASE("export_buffers: the rank lookup's SWAR bit count equals std::popcount", "[mesh][buffers]") {
  std::mt19937_64 rng(7);
  std::vector<std::uint64_t> words{
      0, 1, ~std::uint64_t{0}, std::uint64_t{1} << 63, 0x5555555555555555u, 0xaaaaaaaaaaaaaaaau, 0x00ff00ff00ff00ffu};
  for (int i = 0; i < 10000; ++i) words.push_back(rng() & rng());
  bool same = true;
  for (const std::uint64_t w : words)
    same = same && travpool::mesh::buffers_detail::popcount64(w) == static_cast<std::uint32_t>(std::popcount(w));
  CHECK(same);
}

TEST_CASE("export_buffers after deletions: dense renumbering, map and indices agree", "[mesh][buffers]") {
  triangle_mesh m = bumpy_grid(30);
  const std::size_t faces_before = m.face_count();
  delete_scattered(m, 0.3, 11);
  m.validate();
  REQUIRE(m.face_count() < faces_before * 3 / 4);
  REQUIRE_FALSE(is_dense(m.vertices()));
  REQUIRE_FALSE(is_dense(m.faces()));
  CHECK_FALSE(dense_positions(m).has_value());
  buffer_options o;
  o.normals = true;
  o.vertex_map = true;
  const mesh_buffers b = export_buffers(m, o);
  CHECK(b.vertex_map.size() == vertex_handle_bound(m));
  check_buffers(m, b, component_type::f32);
  // Without the map requested, the indices are the same.
  o.vertex_map = false;
  const mesh_buffers c = export_buffers(m, o);
  CHECK(c.vertex_map.empty());
  CHECK(c.indices == b.indices);
  CHECK(c.vertices == b.vertices);
}

// A vertex buffer of one vec3 attribute, packed, takes a one-pass copy
// after deletions (plan::packed_real3); with the map and the rank table
// (indices) filled in the same pass, serially and in parallel, renumbered
// and by handle.
TEST_CASE("export_buffers after deletions: positions alone, f32 and f64, with map and indices, by handle",
          "[mesh][buffers]") {
  triangle_mesh m = bumpy_grid(200);  // 40,401 vertices: two pool bins
  delete_scattered(m, 0.3, 17);
  REQUIRE_FALSE(is_dense(m.vertices()));
  auto shifted = m.add_property<Vertex, vec3>("shifted");
  for (const Vertex v : m.vertices()) shifted[v] = m.position(v) + vec3{1, 2, 3};
  for (const component_type real : {component_type::f32, component_type::f64}) {
    for (const bool map : {false, true}) {
      buffer_options o;
      o.real = real;
      o.vertex_map = map;
      const mesh_buffers b = export_buffers(m, o);
      CHECK(b.layout.stride == (real == component_type::f32 ? 12u : 24u));
      check_buffers(m, b, real);
      check_parallel_exports(m, o, b);
    }
    // By handle: vertex v at v.idx(), the dead handles' bytes zero.
    for (const bool map : {false, true}) {
      buffer_options o;
      o.real = real;
      o.vertex_map = map;
      o.by_handle = true;
      const mesh_buffers b = export_buffers(m, o);
      REQUIRE(b.vertex_count() == vertex_handle_bound(m));
      std::size_t bad_live = 0, bad_hole = 0, bad_map = 0;
      for (std::uint32_t h = 0; h < b.vertex_count(); ++h) {
        const vec3 x = read_real3(b.vertices, std::size_t{h} * b.layout.stride, real);
        if (m.is_live(Vertex(h))) {
          const vec3& q = m.position(Vertex(h));
          const vec3 e = real == component_type::f32 ? as_float(q) : q;
          bad_live += !(x.x == e.x && x.y == e.y && x.z == e.z);
          if (map) bad_map += b.vertex_map[h] != h;
        } else {
          bad_hole += !(x.x == 0 && x.y == 0 && x.z == 0);
          if (map) bad_map += b.vertex_map[h] != Vertex::invalid_index;
        }
      }
      CHECK(bad_live == 0);
      CHECK(bad_hole == 0);
      CHECK(bad_map == 0);
      // Into spans filled with 0xab: the holes are zeroed, not left as they were.
      std::vector<std::byte> span_vertices(b.vertices.size(), std::byte{0xab});
      std::vector<std::uint32_t> span_indices(b.indices.size(), 0xabababab);
      export_buffers(m, span_vertices, span_indices, {}, o);
      CHECK(bool(span_vertices == b.vertices));
      CHECK(bool(span_indices == b.indices));
      check_parallel_exports(m, o, b);
    }
    // A vec3 property alone, no positions: the same one-pass copy.
    buffer_options o;
    o.real = real;
    o.positions = false;
    o.indices = false;
    o.property("shifted", shifted);
    const mesh_buffers b = export_buffers(m, o);
    REQUIRE(b.vertex_count() == m.vertex_count());
    std::size_t i = 0, bad = 0;
    for (const Vertex v : m.vertices()) {
      const vec3 x = read_real3(b.vertices, i++ * b.layout.stride, real);
      const vec3 e = real == component_type::f32 ? as_float(shifted[v]) : shifted[v];
      bad += !(x.x == e.x && x.y == e.y && x.z == e.z);
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("from_buffers(export_buffers) after deletions: the same triangles", "[mesh][buffers]") {
  // Deleting the stars of the grid points (4i + 1, 4j + 1) leaves disjoint
  // holes, so the mesh stays manifold (scattered face deletions may leave a
  // vertex on two boundary loops, which the mesh holds but from_triangles
  // refuses) and both pools have holes.
  triangle_mesh m = bumpy_grid(21);
  for (std::uint32_t j = 1; j < 21; j += 4)
    for (std::uint32_t i = 1; i < 21; i += 4) m.delete_vertex(Vertex(j * 22 + i));
  m.validate();
  REQUIRE_FALSE(is_dense(m.vertices()));
  REQUIRE_FALSE(is_dense(m.faces()));
  buffer_options o;
  o.normals = true;
  o.real = component_type::f64;
  const mesh_buffers b = export_buffers(m, o);
  check_buffers(m, b, component_type::f64);
  const triangle_mesh r =
      from_buffers(std::span<const std::byte>(b.vertices), b.layout, std::span<const std::uint32_t>(b.indices));
  r.validate();
  CHECK(is_dense(r.vertices()));
  CHECK(is_dense(r.faces()));
  CHECK(r.vertex_count() == m.vertex_count());
  CHECK(r.face_count() == m.face_count());
  CHECK(r.edge_count() == m.edge_count());
  auto fm = m.faces().begin();
  for (const Face f : r.faces()) {
    const auto a = export_corners(r, f), e = export_corners(m, *fm++);
    for (int j = 0; j < 3; ++j) {
      CHECK(r.position(a[j]) == m.position(e[j]));
      CHECK(r.normal(a[j]) == m.normal(e[j]));
    }
  }
  // Exported again: the same bytes.
  const mesh_buffers again = export_buffers(r, o);
  CHECK(again.vertices == b.vertices);
  CHECK(again.indices == b.indices);
}

TEST_CASE("export_buffers into spans: sizes checked, nothing written when too small", "[mesh][buffers]") {
  triangle_mesh m = bumpy_grid(7);
  delete_scattered(m, 0.2, 5);
  buffer_options o;
  o.normals = true;
  const buffer_sizes s = buffer_sizes_of(m, o);
  CHECK(s.vertex_bytes == m.vertex_count() * 24);
  CHECK(s.index_count == 3 * m.face_count());
  CHECK(s.map_size == vertex_handle_bound(m));
  constexpr auto fill = std::byte{0xab};
  std::vector<std::byte> v(s.vertex_bytes, fill);
  std::vector<std::uint32_t> ix(s.index_count, 0xabababab), map(s.map_size, 0xabababab);
  const auto untouched = [&] {
    return std::all_of(v.begin(), v.end(), [&](std::byte x) { return x == fill; }) &&
           std::all_of(ix.begin(), ix.end(), [](std::uint32_t x) { return x == 0xabababab; }) &&
           std::all_of(map.begin(), map.end(), [](std::uint32_t x) { return x == 0xabababab; });
  };
  const std::span<std::byte> vs(v);
  const std::span<std::uint32_t> is(ix), ms(map);
  CHECK_THROWS_AS(export_buffers(m, vs.first(v.size() - 1), is, ms, o), travpool::usage_error);
  CHECK_THROWS_AS(export_buffers(m, vs, is.first(ix.size() - 1), ms, o), travpool::usage_error);
  CHECK_THROWS_AS(export_buffers(m, vs, is, ms.first(map.size() - 1), o), travpool::usage_error);
  CHECK_THROWS_WITH(export_buffers(m, vs, is.first(2), ms, o),
                    Catch::Contains("index span has 2 entries") && Catch::Contains(std::to_string(3 * m.face_count())));
  CHECK(untouched());
  // Exactly the sizes: the owned form's bytes.
  const vertex_layout l = export_buffers(m, vs, is, ms, o);
  o.vertex_map = true;
  const mesh_buffers b = export_buffers(m, o);
  CHECK(l == b.layout);
  CHECK(v == b.vertices);
  CHECK(ix == b.indices);
  CHECK(map == b.vertex_map);
  // A larger map span: entries past the bound are invalid; no map: allowed.
  std::vector<std::uint32_t> big(s.map_size + 5, 0);
  export_buffers(m, vs, is, big, o);
  CHECK(std::equal(map.begin(), map.end(), big.begin()));
  CHECK(std::all_of(big.begin() + s.map_size, big.end(), [](std::uint32_t x) { return x == Vertex::invalid_index; }));
  std::fill(ix.begin(), ix.end(), 0);
  export_buffers(m, vs, is, {}, o);
  CHECK(ix == b.indices);
  // Without indices, the index span is not needed.
  o.indices = false;
  CHECK_NOTHROW(export_buffers(m, vs, {}, {}, o));
}

TEST_CASE("export_buffers in parallel equals serial bit for bit", "[mesh][buffers]") {
  // 40,401 vertices and 80,000 faces: two and three pool bins.
  triangle_mesh dense = bumpy_grid(200);
  triangle_mesh sparse = bumpy_grid(200);
  delete_scattered(sparse, 0.3, 3);
  auto q = sparse.add_property<Vertex, std::uint16_t>("q");
  for (const Vertex v : sparse.vertices()) q[v] = static_cast<std::uint16_t>(v.idx() * 31);
  for (const triangle_mesh* m : {&dense, &sparse}) {
    buffer_options o;
    o.normals = true;
    o.vertex_map = true;
    if (m == &sparse) o.property("q", q);
    const mesh_buffers serial = export_buffers(*m, o);
    check_buffers(*m, serial, component_type::f32);
    check_parallel_exports(*m, o, serial);
  }
}

TEST_CASE("export_buffers by handle: vertex v at v.idx(), holes zero, stable across edits", "[mesh][buffers]") {
  // 40,401 vertices: two pool bins, and holes after the deletions.
  triangle_mesh m = bumpy_grid(200);
  delete_scattered(m, 0.3, 7);
  auto q = m.add_property<Vertex, std::uint16_t>("q");
  for (const Vertex v : m.vertices()) q[v] = static_cast<std::uint16_t>(v.idx() * 31 + 1);
  for (const Vertex v : m.vertices()) m.normal(v) = {1.0 + v.idx(), 2.0, -3.0 * v.idx()};
  REQUIRE_FALSE(is_dense(m.vertices()));
  const std::size_t bound = vertex_handle_bound(m);
  for (const component_type real : {component_type::f32, component_type::f64}) {
    buffer_options o;
    o.real = real;
    o.normals = true;
    o.vertex_map = true;
    o.by_handle = true;
    o.property("q", q);
    const mesh_buffers b = export_buffers(m, o);
    const vertex_layout& l = b.layout;
    REQUIRE(l.stride != 0);
    REQUIRE(b.vertex_count() == bound);
    CHECK(buffer_sizes_of(m, o).vertex_bytes == bound * l.stride);
    const vertex_attribute &pos = *l.find("position"), &nrm = *l.find("normal"), &qa = *l.find("q");
    auto read3 = [&](std::size_t i, const vertex_attribute& a) {
      const std::byte* at = b.vertices.data() + i * l.stride + a.offset;
      if (real == component_type::f32) {
        float f[3];
        std::memcpy(f, at, sizeof f);
        return vec3{f[0], f[1], f[2]};
      }
      double d[3];
      std::memcpy(d, at, sizeof d);
      return vec3{d[0], d[1], d[2]};
    };
    std::size_t live = 0, holes = 0;
    for (std::uint32_t h = 0; h < bound; ++h) {
      const Vertex v(h);
      if (m.is_live(v)) {
        ++live;
        // As written: f64 exactly, f32 as the value rounded to float.
        auto as_written = [&](double x) {
          return real == component_type::f32 ? static_cast<double>(static_cast<float>(x)) : x;
        };
        const vec3 p = m.position(v), n = m.normal(v), x = read3(h, pos), y = read3(h, nrm);
        CHECK(x.x == as_written(p.x));
        CHECK(x.y == as_written(p.y));
        CHECK(x.z == as_written(p.z));
        CHECK(y.x == as_written(n.x));
        CHECK(y.z == as_written(n.z));
        std::uint16_t qv;
        std::memcpy(&qv, b.vertices.data() + std::size_t{h} * l.stride + qa.offset, sizeof qv);
        CHECK(qv == q[v]);
        CHECK(b.vertex_map[h] == h);
      } else {
        ++holes;
        const std::byte* at = b.vertices.data() + std::size_t{h} * l.stride;
        CHECK(std::all_of(at, at + l.stride, [](std::byte c) { return c == std::byte{0}; }));
        CHECK(b.vertex_map[h] == Vertex::invalid_index);
      }
    }
    CHECK(live == m.vertex_count());
    CHECK(holes > 0);
    // The index buffer: the corners' handles, in the order of the dense
    // export (the same triangles renumbered).
    buffer_options d = o;
    d.by_handle = false;
    const mesh_buffers dense = export_buffers(m, d);
    REQUIRE(b.indices.size() == dense.indices.size());
    REQUIRE(b.indices.size() == 3 * m.face_count());
    for (std::size_t i = 0; i < b.indices.size(); ++i) {
      REQUIRE(b.indices[i] < bound);
      CHECK(dense.vertex_map[b.indices[i]] == dense.indices[i]);
    }
    // Into spans that hold other bytes (0xab), serially and in parallel:
    // every byte is written, the holes and the padding as zeros, so the
    // bytes equal the owned form's (whose vectors start zeroed).
    for (const execution how : {execution::serial, execution::openmp, execution::tbb}) {
      if (!available(how)) continue;
      o.how = how;
      const buffer_sizes sz = buffer_sizes_of(m, o);
      std::vector<std::byte> vb(sz.vertex_bytes, std::byte{0xab});
      std::vector<std::uint32_t> ib(sz.index_count, 0xabababab), map(sz.map_size, 0xabababab);
      export_buffers(m, vb, ib, map, o);
      // Compared as bools: on failure Catch would print megabytes.
      const bool same_vertices = vb == b.vertices, same_indices = ib == b.indices, same_map = map == b.vertex_map;
      CHECK(same_vertices);
      CHECK(same_indices);
      CHECK(same_map);
      const mesh_buffers par = export_buffers(m, o);
      const bool par_vertices = par.vertices == b.vertices, par_indices = par.indices == b.indices,
                 par_map = par.vertex_map == b.vertex_map;
      CHECK(par_vertices);
      CHECK(par_indices);
      CHECK(par_map);
    }
  }
  // Spans: the vertex span must hold the bound, not the live count.
  buffer_options o;
  o.by_handle = true;
  const buffer_sizes sz = buffer_sizes_of(m, o);
  std::vector<std::byte> short_vertices(m.vertex_count() * sz.layout.stride);
  std::vector<std::uint32_t> idx(sz.index_count);
  CHECK_THROWS_AS(export_buffers(m, short_vertices, idx, {}, o), travpool::usage_error);
  // Stable places: after splitting a face, every old vertex is where it
  // was, and the new one at its own handle.
  const mesh_buffers before = export_buffers(m, o);
  const Face f = *m.faces().begin();
  const Vertex nv = m.split(f);
  const mesh_buffers after = export_buffers(m, o);
  const std::size_t stride = after.layout.stride;
  for (const Vertex v : m.vertices()) {
    if (v == nv) continue;
    REQUIRE(std::size_t{v.idx()} < before.vertex_count());
    CHECK(std::memcmp(before.vertices.data() + v.idx() * stride, after.vertices.data() + v.idx() * stride, stride) ==
          0);
  }
  float p[3];
  std::memcpy(p, after.vertices.data() + std::size_t{nv.idx()} * stride, sizeof p);
  CHECK(p[0] == static_cast<float>(m.position(nv).x));
  // A dense mesh by handle is the dense export.
  const triangle_mesh g = bumpy_grid(20);
  buffer_options plain;
  const mesh_buffers x = export_buffers(g, o), y = export_buffers(g, plain);
  CHECK(x.vertices == y.vertices);
  CHECK(x.indices == y.indices);
}

TEST_CASE("dense_span: zero-copy views of columns without holes", "[mesh][buffers]") {
  // Two vertex bins (32,768 + 8,053 vertices): dense across the bin boundary.
  triangle_mesh m = bumpy_grid(200);
  auto w = m.add_property<Vertex, float>("w");
  for (const Vertex v : m.vertices()) w[v] = static_cast<float>(v.idx()) * 0.5f;
  auto fp = m.add_property<Face, std::uint32_t>("fp", 7u);
  REQUIRE(m.vertices().bin_count() == 2);
  REQUIRE(is_dense(m.vertices()));
  const auto pos = dense_positions(m);
  REQUIRE(pos.has_value());
  CHECK(pos->size() == m.vertex_count());
  CHECK(pos->data() == &m.position(Vertex(0)));  // no copy: the column itself
  std::size_t i = 0, bad = 0;
  for (const Vertex v : m.vertices()) {
    bad += v.idx() != i;  // traversal order is handle order
    bad += !((*pos)[i++] == m.position(v));
  }
  CHECK(bad == 0);
  const auto nrm = dense_normals(m);
  REQUIRE(nrm.has_value());
  CHECK(nrm->data() == &m.normal(Vertex(0)));
  CHECK((*nrm)[40000] == m.normal(Vertex(40000)));
  const auto ws = dense_span(m, w);
  REQUIRE(ws.has_value());
  CHECK(ws->data() == &w[Vertex(0)]);
  CHECK((*ws)[33000] == 16500.0f);
  const auto fs = dense_span(m, fp);
  REQUIRE(fs.has_value());
  CHECK(fs->size() == m.face_count());
  CHECK(std::all_of(fs->begin(), fs->end(), [](std::uint32_t x) { return x == 7; }));
  // The exported f64 positions are the span's bytes.
  buffer_options o;
  o.real = component_type::f64;
  o.indices = false;
  const mesh_buffers b = export_buffers(m, o);
  CHECK(std::memcmp(b.vertices.data(), pos->data(), b.vertices.size()) == 0);
  // reserve and shrink_to_fit keep it dense (no handle changes) ...
  m.reserve(100000, 200000, 200000);
  CHECK(dense_positions(m).has_value());
  m.shrink_to_fit();
  CHECK(dense_positions(m).has_value());
  // ... a new vertex too (it takes the next handle) ...
  const Vertex a = m.add_vertex({1, 2, 3});
  CHECK(a.idx() == m.vertex_count() - 1);
  REQUIRE(dense_positions(m).has_value());
  CHECK(dense_positions(m)->back() == vec3{1, 2, 3});
  // ... a deletion does not, until its hole is taken again (LIFO reuse).
  const Vertex hole = Vertex(100);
  m.delete_vertex(hole);
  m.validate();
  CHECK_FALSE(dense_positions(m).has_value());
  CHECK_FALSE(dense_span(m, w).has_value());
  CHECK_FALSE(dense_span(m, fp).has_value());  // its faces went too
  CHECK(dense_span(m, m.add_property<Edge, int>("e")).has_value() == is_dense(m.edges()));
  const Vertex back = m.add_vertex({4, 5, 6});
  CHECK(back == hole);
  CHECK(dense_positions(m).has_value());
  // Loop subdivision of a dense mesh only creates: every pool stays dense.
  const triangle_mesh s = sphere(3);
  CHECK(is_dense(s.vertices()));
  CHECK(is_dense(s.edges()));
  CHECK(is_dense(s.faces()));
  // Empty meshes: an empty span.
  const triangle_mesh empty;
  REQUIRE(dense_positions(empty).has_value());
  CHECK(dense_positions(empty)->empty());
}

TEST_CASE("from_buffers: round trips and errors naming the triangle", "[mesh][buffers]") {
  const triangle_mesh m = bumpy_grid(4);
  buffer_options f64;
  f64.real = component_type::f64;
  const mesh_buffers b = export_buffers(m, f64);
  std::vector<double> xyz(b.vertex_count() * 3);
  std::memcpy(xyz.data(), b.vertices.data(), b.vertices.size());
  std::vector<float> xyzf(xyz.begin(), xyz.end());
  const triangle_mesh r = from_buffers(xyz, b.indices);
  r.validate();
  std::size_t i = 0;
  auto it = m.vertices().begin();
  for (const Vertex v : r.vertices()) {
    CHECK(r.position(v) == m.position(*it++));
    ++i;
  }
  CHECK(i == m.vertex_count());
  CHECK(export_buffers(r, f64).indices == b.indices);
  const triangle_mesh rf = from_buffers(xyzf, b.indices);
  rf.validate();
  CHECK(rf.face_count() == m.face_count());

  std::vector<std::uint32_t> ix = b.indices;
  ix[3 * 5 + 1] = 1000;  // triangle 5
  try {
    (void)from_buffers(xyz, ix);
    FAIL("no throw");
  } catch (const topology_error& e) {
    CHECK(e.face_index() == 5);
    CHECK_THAT(e.what(), Catch::Contains("triangle 5") && Catch::Contains("vertex index 1000") &&
                             Catch::Contains("indices[16]") && Catch::Contains("out of range (25 vertices)"));
  }
  ix = b.indices;
  ix[3 * 2 + 2] = ix[3 * 2];  // degenerate triangle 2
  CHECK_THROWS_WITH(from_buffers(xyz, ix), Catch::Contains("triangle 2") && Catch::Contains("degenerate"));
  ix = b.indices;
  ix.insert(ix.end(), {ix[0], ix[1], 24});  // a third triangle on edge (ix[0], ix[1])
  CHECK_THROWS_WITH(from_buffers(xyz, ix),
                    Catch::Contains("from_buffers: triangle") && Catch::Contains("non-manifold"));
  ix = b.indices;
  ix.pop_back();
  CHECK_THROWS_AS(from_buffers(xyz, ix), travpool::usage_error);
  std::vector<double> short_xyz(xyz.begin(), xyz.end() - 1);
  CHECK_THROWS_AS(from_buffers(short_xyz, b.indices), travpool::usage_error);
  std::vector<double> nan_xyz = xyz;
  nan_xyz[3 * 4 + 1] = std::nan("");
  CHECK_THROWS_WITH(from_buffers(nan_xyz, b.indices), Catch::Contains("vertex 4 is not finite"));
  const std::span<const std::byte> bytes(b.vertices);
  const std::span<const std::uint32_t> idx(b.indices);
  CHECK_THROWS_AS(from_buffers(bytes.first(bytes.size() - 4), b.layout, idx), travpool::usage_error);
  CHECK_THROWS_AS(from_buffers(bytes, vertex_layout{24, {{"pos", component_type::f64, 3, 0}}}, idx),
                  travpool::usage_error);
  CHECK_THROWS_AS(from_buffers(bytes, vertex_layout{24, {{"position", component_type::f64, 3, 8}}}, idx),
                  travpool::usage_error);
  CHECK_THROWS_AS(from_buffers(bytes, vertex_layout{24, {{"position", component_type::i32, 3, 0}}}, idx),
                  travpool::usage_error);
  CHECK_THROWS_AS(from_buffers(bytes, vertex_layout{0, {{"position", component_type::f64, 3, 0}}}, idx),
                  travpool::usage_error);
  // A strided float layout: positions at offset 4 of 20-byte vertices.
  std::vector<std::byte> strided(b.vertex_count() * 20, std::byte{0});
  for (std::size_t k = 0; k < b.vertex_count(); ++k) std::memcpy(strided.data() + k * 20 + 4, xyzf.data() + 3 * k, 12);
  const triangle_mesh rs = from_buffers(std::span<const std::byte>(strided),
                                        vertex_layout{20, {{"position", component_type::f32, 3, 4}}}, idx);
  rs.validate();
  auto jt = rf.vertices().begin();
  for (const Vertex v : rs.vertices()) CHECK(rs.position(v) == rf.position(*jt++));
}
