// travpool/mesh.hpp: the halfedge triangle mesh on travpool column pools
// (CMake target travpool::mesh; docs/mesh.md), all of it:
//
//   travpool/mesh/mesh.hpp        triangle_mesh: handles, connectivity,
//                                 properties, circulators, editing
//   travpool/mesh/algorithms.hpp  normals, smoothing, Loop subdivision,
//                                 split_collapse, serial or parallel
//                                 (execution::openmp / execution::tbb where
//                                 the build has them: available(how))
//   travpool/mesh/bvh.hpp         triangle_bvh: closest points on triangles
//   travpool/mesh/remesh.hpp      isotropic remeshing (split, collapse, flip,
//                                 relax, project), serial or parallel sweeps
//   travpool/mesh/buffers.hpp    dense arrays for GPU upload and NumPy:
//                                 export_buffers, vertex_layout,
//                                 dense_span (zero-copy), from_buffers
//   travpool/mesh/decimate.hpp   quadric edge-collapse decimation to a
//                                 target face count (decimate)
//   travpool/mesh/io.hpp          OFF, OBJ and PLY: read_mesh, write_mesh,
//                                 errors naming the file and line
//
// Handles (Vertex, Halfedge, Edge, Face) stay valid across deletions of
// other elements: nothing is ever garbage-collected or renumbered.
#pragma once

#include "mesh/algorithms.hpp"
#include "mesh/buffers.hpp"
#include "mesh/bvh.hpp"
#include "mesh/decimate.hpp"
#include "mesh/io.hpp"
#include "mesh/mesh.hpp"
#include "mesh/remesh.hpp"
