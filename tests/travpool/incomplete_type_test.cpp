// pool<T> and concurrent_pool<T> are complete types while T is still
// incomplete, as in a graph that holds a pool of nodes that point back to
// it (CGAL's Compact_container is used this way; CGAL checks
// sizeof(Compact_container<Incomplete>)). T must be complete only where a
// member function is used (issue 17).
#include <cstdint>

#include <catch2/catch.hpp>

#include <travpool/pool.hpp>

namespace {

struct node;
struct graph {
  travpool::pool<node> nodes;
};
// sizeof while node is incomplete, as CGAL does.
static_assert(sizeof(travpool::pool<node>) > 0);

struct vertex;
struct mesh {
  travpool::concurrent_pool<vertex> vertices;
  travpool::basic_pool<vertex, travpool::layout::interleaved, travpool::stats::counters> marked;
};
static_assert(sizeof(travpool::concurrent_pool<vertex>) > 0);

struct node {
  graph* g;
  int v;
};

struct vertex {
  mesh* m;
  vertex* next;
  double x, y, z;
};

}  // namespace

TEST_CASE("a pool of an incomplete type: a graph holding a pool of its nodes", "[incomplete]") {
  graph g;
  node* a = g.nodes.create(node{&g, 1});
  node* b = g.nodes.create(node{&g, 2});
  REQUIRE(g.nodes.size() == 2);
  REQUIRE(g.nodes.contains(a));
  int sum = 0;
  for (const node& n : g.nodes) {
    sum += n.v;
    REQUIRE(n.g == &g);
  }
  REQUIRE(sum == 3);
  g.nodes.destroy(a);
  REQUIRE_FALSE(g.nodes.contains(a));
  REQUIRE(g.nodes.size() == 1);
  REQUIRE(&*g.nodes.begin() == b);
  REQUIRE(decltype(g.nodes)::chunk_stride >= sizeof(node));
  g.nodes.validate();
  // graph's implicit copy constructor copies the pool (a deep copy).
  const graph copy = g;
  REQUIRE(copy.nodes.size() == 1);
  REQUIRE(copy.nodes.begin()->v == 2);
  REQUIRE(&*copy.nodes.begin() != b);
}

TEST_CASE("concurrent and interleaved pools of an incomplete type", "[incomplete]") {
  mesh m;
  vertex* v = m.vertices.create(vertex{&m, nullptr, 1, 2, 3});
  vertex* w = m.vertices.create(vertex{&m, v, 4, 5, 6});
  REQUIRE(w->next == v);
  REQUIRE(m.vertices.size() == 2);
  m.vertices.destroy(v);
  REQUIRE(m.vertices.size() == 1);
  vertex* u = m.marked.create(vertex{&m, w, 0, 0, 0});
  REQUIRE(m.marked.stats().creates == 1);
  m.marked.destroy(u);
  m.vertices.validate();
  m.marked.validate();
}
