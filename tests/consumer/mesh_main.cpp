// Builds against the installed travpool::mesh four ways: with neither TBB
// nor OpenMP (consumer_mesh), with travpool::mesh_tbb (consumer_mesh_tbb),
// with travpool::openmp (consumer_mesh_openmp), with both
// (consumer_mesh_parallel). Checks a mesh edit with handles held across a
// deletion, normals in every mode this build has (equal to the serial
// ones), that a missing mode is refused, and an OFF round trip whose
// reader names the line of an error.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <travpool/mesh.hpp>

#include "grid.hpp"

namespace mesh = travpool::mesh;

namespace {
int failures = 0;
void check(bool ok, const char* what) {
  if (!ok) {
    std::printf("FAILED: %s\n", what);
    ++failures;
  }
}
}  // namespace

int main(int argc, char** argv) {
  // Files are named after the program: its four builds may run at once (ctest -j).
  const std::string self = argc > 0 ? std::filesystem::path(argv[0]).filename().string() : "consumer_mesh";
  // An open 8 x 8 grid in the plane z = 0, two triangles per square.
  const std::uint32_t n = 8;
  mesh::triangle_mesh m = grid_soup(n).build();
  check(m.face_count() == 2 * n * n && m.vertex_count() == (n + 1) * (n + 1), "grid counts");

  // Hold the handles of the last row's vertices, delete the first half of the faces.
  std::vector<mesh::Vertex> held;
  std::vector<mesh::vec3> where;
  for (mesh::Vertex v : m.vertices())
    if (m.position(v).y == n) held.push_back(v), where.push_back(m.position(v));
  std::vector<mesh::Face> faces(m.faces().begin(), m.faces().end());
  for (std::size_t k = 0; k < faces.size() / 2; ++k) m.delete_face(faces[k]);
  m.validate();
  bool unmoved = held.size() == n + 1;
  for (std::size_t k = 0; k < held.size(); ++k)
    unmoved = unmoved && m.is_live(held[k]) && m.position(held[k]) == where[k];
  check(unmoved, "held handles live and unmoved after the deletion");

  // Normals: +z everywhere, in every mode this build has; a missing mode throws.
  auto weight = m.add_property<mesh::Vertex, double>("weight", 1.0);
  mesh::compute_normals(m, mesh::execution::serial);
  std::vector<mesh::vec3> serial;
  for (mesh::Vertex v : m.vertices()) serial.push_back(m.normal(v));
  bool up = !serial.empty();
  for (const mesh::vec3& v : serial) up = up && std::abs(v.z - 1.0) < 1e-12;
  check(up, "serial normals are +z");
  for (mesh::execution how : {mesh::execution::openmp, mesh::execution::tbb}) {
    if (mesh::available(how)) {
      mesh::compute_normals(m, how);
      std::size_t k = 0;
      bool same = true;
      for (mesh::Vertex v : m.vertices()) same = same && m.normal(v) == serial[k++];
      check(same, "parallel normals equal the serial ones");
    } else {
      bool refused = false;
      try {
        mesh::compute_normals(m, how);
      } catch (const travpool::usage_error&) {
        refused = true;
      }
      check(refused, "a mode this build lacks is refused");
    }
  }
  check(weight[held.front()] == 1.0, "a user property");

  // OFF round trip, and an error naming the line.
  const std::string path = self + ".off", bad = self + "_bad.off";
  mesh::write_mesh(m, path);
  const mesh::triangle_mesh again = mesh::read_mesh(path);
  check(again.face_count() == m.face_count() && again.vertex_count() == m.vertex_count(), "OFF round trip");
  std::ofstream(bad) << "OFF\n3 1 0\n0 0 0\n1 x 0\n0 1 0\n3 0 1 2\n";
  std::string message;
  try {
    mesh::read_mesh(bad);
  } catch (const std::exception& e) {
    message = e.what();
  }
  check(message.find(bad + ":4") != std::string::npos, "a read error names the file and line");
  std::remove(path.c_str());
  std::remove(bad.c_str());

  std::printf("consumer mesh: %zu faces after the deletion; openmp %s, tbb %s; %s\n", m.face_count(),
              mesh::available(mesh::execution::openmp) ? "yes" : "no",
              mesh::available(mesh::execution::tbb) ? "yes" : "no", failures == 0 ? "ok" : "FAILED");
  return failures == 0 ? 0 : 1;
}
