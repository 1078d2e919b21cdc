// examples/mesh/mesh_properties.hpp: the mesh's constructor and its typed
// properties, thin wrappers over the column pools' columns (mesh.hpp).
//
// Column names starting with "tp:" are the mesh's own (connectivity and
// geometry): a user name may not start with it, so a user can neither get
// a writable key of a connectivity column nor remove one.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include <travpool/usage_error.hpp>

#include "mesh.hpp"

namespace travpool::mesh {

inline triangle_mesh::triangle_mesh()
    : out_(vertices_.add_column<Halfedge>("tp:out")),
      position_(vertices_.add_column<vec3>("tp:position")),
      vnormal_(vertices_.add_column<vec3>("tp:normal")),
      links_(edges_.add_column<std::array<halfedge_link, 2>>("tp:links")),
      face_of_(edges_.add_column<std::array<Face, 2>>("tp:faces")),
      half_(faces_.add_column<Halfedge>("tp:halfedge")),
      fnormal_(faces_.add_column<vec3>("tp:normal")) {}

inline void triangle_mesh::check_user_name(std::string_view name) {
  if (name.starts_with("tp:"))
    throw usage_error("triangle_mesh: property name '" + std::string(name) + "' is reserved (prefix tp:)");
}

template <class Handle, class T>
property<Handle, T> triangle_mesh::add_property(element_pool& pool, std::string name, T init) {
  check_user_name(name);
  if constexpr (std::is_same_v<Handle, Halfedge>)
    return property<Handle, T>(pool.add_column<std::array<T, 2>>(std::move(name), {init, init}));
  else
    return property<Handle, T>(pool.add_column<T>(std::move(name), std::move(init)));
}

template <class E>
column<E> triangle_mesh::user_column(const element_pool& pool, std::string_view name) {
  check_user_name(name);
  return pool.get_column<std::remove_const_t<E>>(name);
}

template <class E>
column<E> triangle_mesh::user_column(element_pool& pool, std::string_view name) {
  check_user_name(name);
  return pool.get_column<E>(name);
}

template <class E>
void triangle_mesh::remove_property(element_pool& pool, column<E> key) {
  const void* id = key.id();
  if (id == out_.column_key().id() || id == position_.column_key().id() || id == vnormal_.column_key().id() ||
      id == links_.column_key().id() || id == face_of_.column_key().id() || id == half_.column_key().id() ||
      id == fnormal_.column_key().id())
    throw usage_error("triangle_mesh: remove of one of the mesh's own columns");
  pool.remove_column(key);
}

inline void triangle_mesh::remove_property(element_pool& pool, std::string_view name) {
  check_user_name(name);
  pool.remove_column(name);
}

}  // namespace travpool::mesh
