// travpool/mesh/circulators.hpp: the halfedge record and the circulators of
// the mesh (mesh.hpp).
//
// Around a vertex the outgoing halfedges follow each other as
//   h -> next(h ^ 1)
// and around a face as h -> next(h). A circulator reads only the {to, next}
// column (and the face column to project faces or skip the boundary gap).
#pragma once

#include <cstddef>
#include <iterator>
#include <type_traits>

#include "handles.hpp"

namespace travpool::mesh {
inline namespace TRAVPOOL_ABI_NAMESPACE {

// The hot pair of a halfedge, read by every walk.
struct halfedge_link {
  Vertex to;
  Halfedge next;
};
static_assert(sizeof(halfedge_link) == 8);

enum class circulate { out_halfedges, vertices, faces };

// Iterates the outgoing halfedges of a vertex, or the halfedges of a face
// (AroundFace), projecting each to itself, its to() vertex or its face.
template <circulate Kind, bool AroundFace = false>
class circulator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using difference_type = std::ptrdiff_t;
  using value_type = std::conditional_t<Kind == circulate::vertices, Vertex,
                                        std::conditional_t<Kind == circulate::faces, Face, Halfedge>>;
  using reference = value_type;
  using pointer = void;

  circulator() = default;
  circulator(halfedge_property<const halfedge_link> links, halfedge_property<const Face> faces, Halfedge start) noexcept
      : links_(links), faces_(faces), start_(start), h_(start) {
    skip();
  }

  value_type operator*() const noexcept {
    if constexpr (Kind == circulate::vertices)
      return links_[h_].to;
    else if constexpr (Kind == circulate::faces)
      return faces_[h_];
    else
      return h_;
  }
  circulator& operator++() noexcept {
    step();
    skip();
    return *this;
  }
  circulator operator++(int) noexcept {
    auto t = *this;
    ++*this;
    return t;
  }
  // The end circulator holds an invalid halfedge.
  friend bool operator==(const circulator& a, const circulator& b) noexcept { return a.h_ == b.h_; }

 private:
  void step() noexcept {
    h_ = links_[AroundFace ? h_ : h_.opposite()].next;
    if (h_ == start_) h_ = Halfedge();
  }
  // vertex -> faces skips the boundary halfedge.
  void skip() noexcept {
    if constexpr (Kind == circulate::faces)
      while (h_.is_valid() && !faces_[h_].is_valid()) step();
  }
  halfedge_property<const halfedge_link> links_;
  halfedge_property<const Face> faces_;
  Halfedge start_;
  Halfedge h_;
};

template <class It>
struct circulator_range {
  It first;
  It begin() const noexcept { return first; }
  It end() const noexcept { return It(); }
};

}  // namespace TRAVPOOL_ABI_NAMESPACE
}  // namespace travpool::mesh
