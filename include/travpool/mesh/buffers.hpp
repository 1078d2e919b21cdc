// travpool/mesh/buffers.hpp: the mesh as dense arrays and back: a vertex
// buffer (positions, optionally interleaved with vertex normals and vertex
// properties), a uint32 triangle index buffer and a handle -> dense index
// map, for GPU upload and NumPy (docs/mesh.md, "Dense buffers: GPU upload
// and NumPy"); zero-copy spans of columns without holes; from_buffers.
//
// DESIGN NOTE
// ===========
// After deletions a pool's live handles have holes, so handles are not
// array indices. Export numbers the live vertices 0, 1, ... in traversal
// order (the order of m.vertices(), vertex_numbers() and to_triangles()):
//
//   dense(v)          = number of live vertices before v in traversal order
//   vertex_map[v.idx()] = dense(v) for live v, invalid_index (0xffffffff) else
//   vertex buffer     : vertex dense(v) at bytes [dense(v) * stride, + stride)
//   index buffer      : indices[3 k .. 3 k + 2] = dense(from(h)), dense(to(h)),
//                       dense(to(next(h))), h = halfedge(f), for the k-th live
//                       face f in traversal order (a rotation of corners(f):
//                       from_triangles makes halfedge(f) go from t[0] to t[1],
//                       so export(from_buffers(x)) gives back x's indices)
//
// The vertex pass copies a dense pool run by run (maximal [first, last) of
// live handles: a memcpy where nothing converts), and a pool with holes
// through lists of handles, a bitmap word at a time (its runs are short),
// in blocks of at most 1024 vertices, one attribute after the other, so
// that an interleaved block stays in the cache while its attributes are
// written. The index pass walks the faces a bitmap word at a time and finds
// dense(v) as v.idx() when the vertices are dense, else from a rank table
// built by the vertex pass (16 bytes per 64 handles: a 64-bit live mask
// and the dense index of the word's lowest live handle;
// dense(v) = first + popcount(mask below v)).
//
// In parallel each pool is cut into parts of whole bins (partition(4 x
// threads)); a part's first dense index is the prefix sum of the live
// counts of the parts before it (known from the bins, no counting pass), so
// every element is written to the same place with the same bytes as in the
// serial copy: parallel == serial bit for bit.
//
// Invariants of the output (checked by mesh_buffers_test):
//   vertices.size() >= V * stride,  indices[i] < V,  vertex_map[v.idx()] == dense(v)
//   indices[3k .. 3k+2] name the corners of the k-th live face, counter-clockwise
//
// By handle (buffer_options::by_handle): dense(v) is replaced by v.idx()
// throughout; the vertex buffer has vertex_handle_bound(m) vertices, each
// run of live handles copied to its own place, and the holes (dead
// handles below the bound) zeroed after it, found from the live bits the
// vertex pass records (the rank table's words); vertex_map[v.idx()] ==
// v.idx(). The index pass then needs no rank lookup, with or without
// holes.
//
// Live-dense columns: when a pool's live handles are exactly [0, n) (its
// runs, in traversal order, are [0, a), [a, b), ..., [., n): one per bin
// while bins are full), a column's storage data()[0, n) is the dense array,
// already in traversal order: dense_span() hands it out with no copy, and
// export uses dense(v) = v.idx() with no map lookup.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <travpool/usage_error.hpp>

#include "algorithms.hpp"
#include "mesh.hpp"

#if TRAVPOOL_MESH_TBB
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#endif

namespace travpool::mesh {
inline namespace TRAVPOOL_ABI_NAMESPACE {

// --- component types -------------------------------------------------------

// The type of one component of an attribute, as stored in a buffer
// (native byte order; little-endian on x86-64 and ARM64).
enum class component_type : std::uint8_t { i8, u8, i16, u16, i32, u32, i64, u64, f32, f64 };

// Returns: the bytes of one component.
constexpr std::size_t size_of(component_type t) noexcept {
  switch (t) {
    case component_type::i8:
    case component_type::u8:
      return 1;
    case component_type::i16:
    case component_type::u16:
      return 2;
    case component_type::i32:
    case component_type::u32:
    case component_type::f32:
      return 4;
    case component_type::i64:
    case component_type::u64:
    case component_type::f64:
      return 8;
  }
  return 0;
}

// Returns: "i8", ..., "f64".
constexpr const char* to_string(component_type t) noexcept {
  constexpr const char* names[] = {"i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64"};
  return names[static_cast<int>(t)];
}

// Returns: the NumPy array-interface type string of one component in this
// host's byte order: "<f4", "<f8", "<u4", "|u1", ... (">" on a big-endian
// host).
inline std::string numpy_format(component_type t) {
  constexpr const char* kinds = "iuiuiuiuff";
  const std::size_t n = size_of(t);
  const char order = n == 1 ? '|' : (std::endian::native == std::endian::little ? '<' : '>');
  return std::string{order, kinds[static_cast<int>(t)], static_cast<char>('0' + n)};
}

namespace buffers_detail {
template <class T>
constexpr component_type component_of() noexcept {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>, "travpool::mesh: not a buffer component type");
  if constexpr (std::is_floating_point_v<T>) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "travpool::mesh: float or double only");
    return sizeof(T) == 4 ? component_type::f32 : component_type::f64;
  } else {
    constexpr int k = std::bit_width(sizeof(T)) - 1;  // 0, 1, 2, 3 for 1, 2, 4, 8 bytes
    return static_cast<component_type>(2 * k + (std::is_signed_v<T> ? 0 : 1));
  }
}

// What a property of T is in a buffer: arithmetic (1 component), vec3
// (3 x f64, written as `real`), std::array<arithmetic, N> (N <= 16).
template <class T>
struct attribute_traits {
  static constexpr bool supported = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;
  static constexpr std::uint32_t components = 1;
  using component = T;
};
template <>
struct attribute_traits<vec3> {
  static constexpr bool supported = true;
  static constexpr std::uint32_t components = 3;
  using component = double;
};
template <class A, std::size_t N>
struct attribute_traits<std::array<A, N>> {
  static constexpr bool supported = std::is_arithmetic_v<A> && !std::is_same_v<A, bool> && N >= 1 && N <= 16;
  static constexpr std::uint32_t components = static_cast<std::uint32_t>(N);
  using component = A;
};
}  // namespace buffers_detail

// --- layout --------------------------------------------------------------------

// One attribute of an interleaved vertex: components x type at byte
// `offset` of every vertex. Maps onto glVertexAttribPointer(index,
// components, GL type, normalized, stride, (void*)offset),
// VkVertexInputAttributeDescription{location, binding, format, offset} and
// one field of a NumPy structured dtype (numpy_format(type), (components,)).
struct vertex_attribute {
  std::string name;  // "position", "normal", or the property's name
  component_type type = component_type::f32;
  std::uint32_t components = 3;
  std::uint32_t offset = 0;  // bytes from the vertex's start
  std::size_t bytes() const noexcept { return components * size_of(type); }
  friend bool operator==(const vertex_attribute&, const vertex_attribute&) = default;
};

// An interleaved vertex: `stride` bytes from one vertex to the next (the
// GL/Vulkan stride, the dtype's itemsize). Each attribute's offset is a
// multiple of its component size, and stride a multiple of the largest
// (NumPy's align=True layout); bytes not covered by an attribute are 0.
struct vertex_layout {
  std::uint32_t stride = 0;
  std::vector<vertex_attribute> attributes;

  // Returns: the attribute named `name`, or nullptr.
  const vertex_attribute* find(std::string_view name) const noexcept {
    for (const vertex_attribute& a : attributes)
      if (a.name == name) return &a;
    return nullptr;
  }
  // Returns: a Python literal of the NumPy structured dtype, for
  // np.dtype(eval(...)) or to paste: {'names': [...], 'formats': [('<f4',
  // (3,)), ...], 'offsets': [...], 'itemsize': stride}.
  std::string numpy_dtype() const {
    std::string names, formats, offsets;
    for (const vertex_attribute& a : attributes) {
      if (!names.empty()) names.append(", "), formats.append(", "), offsets.append(", ");
      names.append("'").append(a.name).append("'");
      if (a.components == 1)
        formats.append("'").append(numpy_format(a.type)).append("'");
      else
        formats.append("('")
            .append(numpy_format(a.type))
            .append("', (")
            .append(std::to_string(a.components))
            .append(",))");
      offsets.append(std::to_string(a.offset));
    }
    std::string d = "{'names': [";
    d.append(names).append("], 'formats': [").append(formats).append("], 'offsets': [").append(offsets);
    d.append("], 'itemsize': ").append(std::to_string(stride)).append("}");
    return d;
  }
  friend bool operator==(const vertex_layout&, const vertex_layout&) = default;
};

// A vertex property to interleave (buffer_options::property): its name in
// the layout and its column. Valid while the property's column is.
class vertex_attribute_source {
  template <class T>
  using traits = buffers_detail::attribute_traits<T>;

 public:
  // T: arithmetic (not bool), vec3, or std::array<arithmetic, N <= 16>.
  template <class T>
  vertex_attribute_source(std::string name, vertex_property<const T> p)
      : name_(std::move(name)),
        data_(reinterpret_cast<const std::byte*>(p.column_key().data())),
        element_size_(sizeof(T)),
        type_(buffers_detail::component_of<typename traits<T>::component>()),
        components_(traits<T>::components),
        is_vec3_(std::is_same_v<T, vec3>) {
    static_assert(
        traits<T>::supported,
        "travpool::mesh: a buffer attribute is arithmetic (not bool), vec3 or std::array<arithmetic, N <= 16>");
    static_assert(sizeof(T) == traits<T>::components * sizeof(typename traits<T>::component));
  }
  const std::string& name() const noexcept { return name_; }
  component_type type() const noexcept { return type_; }  // in the column (f64 for vec3)
  std::uint32_t components() const noexcept { return components_; }
  bool is_vec3() const noexcept { return is_vec3_; }
  const std::byte* data() const noexcept { return data_; }  // the column's element 0
  std::size_t element_size() const noexcept { return element_size_; }

 private:
  std::string name_;
  const std::byte* data_;
  std::size_t element_size_;
  component_type type_;
  std::uint32_t components_;
  bool is_vec3_;
};

// What export_buffers writes, and how.
struct buffer_options {
  // Positions, vertex normals and vec3 properties are written as f32 or
  // f64; other properties keep their own type.
  component_type real = component_type::f32;
  bool positions = true;                            // attribute "position" (3 x real), first
  bool normals = false;                             // attribute "normal" (the vertex normals, 3 x real), next
  std::vector<vertex_attribute_source> properties;  // then these, in order
  bool indices = true;                              // write the index buffer
  bool vertex_map = false;                          // the owned form: fill mesh_buffers::vertex_map
  // Number the vertices by handle instead: vertex v at index v.idx() of
  // vertex_handle_bound(m) vertices, the holes' bytes zero, the index buffer
  // the handles' indices. No renumbering (no rank lookups after deletions),
  // and a vertex keeps its place in the buffer across edits.
  bool by_handle = false;
  execution how = execution::serial;

  // Effects: appends vertex property p as the attribute `name`. Returns *this.
  template <class T>
  buffer_options& property(std::string name, vertex_property<T> p) {
    properties.emplace_back(std::move(name), vertex_property<const std::remove_const_t<T>>(p));
    return *this;
  }
};

// Returns: the layout that export_buffers(m, ..., options) writes: the
// attributes in the order above, each at the next multiple of its
// component size; stride a multiple of the largest component size.
// Throws: usage_error if options.real is neither f32 nor f64, or two
// attributes have the same name, or one has an empty name.
inline vertex_layout layout_of(const buffer_options& o) {
  if (o.real != component_type::f32 && o.real != component_type::f64)
    throw usage_error(std::string("export_buffers: real must be f32 or f64, not ") + to_string(o.real));
  vertex_layout l;
  std::size_t offset = 0, align = 1;
  const auto add = [&](const std::string& name, component_type t, std::uint32_t components) {
    if (name.empty()) throw usage_error("export_buffers: an attribute has an empty name");
    if (l.find(name) != nullptr) throw usage_error("export_buffers: two attributes are named '" + name + "'");
    const std::size_t a = size_of(t);
    offset = (offset + a - 1) / a * a;
    align = (std::max)(align, a);
    l.attributes.push_back({name, t, components, static_cast<std::uint32_t>(offset)});
    offset += a * components;
  };
  if (o.positions) add("position", o.real, 3);
  if (o.normals) add("normal", o.real, 3);
  for (const vertex_attribute_source& p : o.properties) add(p.name(), p.is_vec3() ? o.real : p.type(), p.components());
  l.stride = static_cast<std::uint32_t>((offset + align - 1) / align * align);
  return l;
}

// Returns: 1 + the largest live vertex handle index (0 if none): the size
// of a handle -> dense index map. O(runs).
inline std::size_t vertex_handle_bound(const triangle_mesh& m) noexcept {
  std::size_t bound = 0;
  for (const handle_run r : m.vertices().runs()) bound = std::max<std::size_t>(bound, r.last);
  return bound;
}

// Returns: whether the live handles of `elements` are exactly [0, size())
// in traversal order; then a column's data()[0, size()) are its values, in
// that order. O(bins); O(1) to the first hole.
template <class Handle>
bool is_dense(const element_range<Handle>& elements) noexcept {
  std::uint32_t next = 0;
  for (const handle_run r : elements.runs()) {
    if (r.first != next) return false;
    next = r.last;
  }
  return next == elements.size();
}

// --- zero-copy spans -----------------------------------------------------------

// Returns: if p's pool is dense (is_dense), the storage of p as a span,
// value i being that of handle i (traversal order), with no copy; else
// nullopt. A halfedge property's span has 2 x edge_count() values. Valid
// until an element of p's kind is created or deleted or p's column is
// removed (values written meanwhile show through). O(bins).
template <class Handle, class T>
std::optional<std::span<const std::remove_const_t<T>>> dense_span(const triangle_mesh& m, property<Handle, T> p) {
  using V = std::remove_const_t<T>;
  const auto elements = [&] {
    if constexpr (std::is_same_v<Handle, Vertex>)
      return m.vertices();
    else if constexpr (std::is_same_v<Handle, Face>)
      return m.faces();
    else
      return m.edges();
  }();
  if (!is_dense(elements)) return std::nullopt;
  const std::size_t n = elements.size() * (std::is_same_v<Handle, Halfedge> ? 2 : 1);
  if (n == 0) return std::span<const V>();
  return std::span<const V>(reinterpret_cast<const V*>(p.column_key().data()), n);
}

// Returns: dense_span of the positions (n x 3 doubles, 24 bytes apart).
inline std::optional<std::span<const vec3>> dense_positions(const triangle_mesh& m) {
  return dense_span(m, m.positions());
}
// Returns: as dense_positions, for the vertex normals.
inline std::optional<std::span<const vec3>> dense_normals(const triangle_mesh& m) {
  if (!is_dense(m.vertices())) return std::nullopt;
  if (m.vertex_count() == 0) return std::span<const vec3>();
  return std::span<const vec3>(&m.normal(Vertex(0)), m.vertex_count());
}

namespace buffers_detail {

// One attribute's copy: base is the column's element 0, dst the attribute
// of the first vertex written; one vertex per stride bytes.
using copy_fn = void (*)(const std::byte* base, const handle_run* runs, std::size_t n, std::byte* dst,
                         std::size_t stride, std::size_t bytes);

// Effects: element h of the column at base (N Src) to dst as N Dst; no
// alignment required.
template <class Src, class Dst, std::size_t N>
inline void convert_one(const std::byte* base, std::uint32_t h, std::byte* dst) noexcept {
  Src s[N];
  std::memcpy(s, base + std::size_t{h} * sizeof s, sizeof s);
  Dst d[N];
  for (std::size_t c = 0; c < N; ++c) d[c] = static_cast<Dst>(s[c]);
  std::memcpy(dst, d, sizeof d);
}

template <class Src, class Dst, std::size_t N>
void convert(const std::byte* base, const handle_run* runs, std::size_t n, std::byte* dst, std::size_t stride,
             std::size_t) {
  for (std::size_t r = 0; r < n; ++r) {
    const std::uint32_t first = runs[r].first, last = runs[r].last;
    if (stride == N * sizeof(Dst)) {  // packed: the whole run at once
      const std::size_t count = std::size_t{last - first} * N;
      const std::byte* src = base + std::size_t{first} * N * sizeof(Src);
      if constexpr (std::is_same_v<Src, Dst>) {
        std::memcpy(dst, src, count * sizeof(Dst));
      } else {  // one flat loop over the components: vectorised
        for (std::size_t i = 0; i < count; ++i) {
          Src x;
          std::memcpy(&x, src + i * sizeof(Src), sizeof(Src));
          const Dst y = static_cast<Dst>(x);
          std::memcpy(dst + i * sizeof(Dst), &y, sizeof(Dst));
        }
      }
      dst += count * sizeof(Dst);
      continue;
    }
    for (std::uint32_t h = first; h < last; ++h, dst += stride) convert_one<Src, Dst, N>(base, h, dst);
  }
}

// Bytes as they are: Bytes per element, or (Bytes == 0) `bytes`.
template <std::size_t Bytes>
void copy_bytes(const std::byte* base, const handle_run* runs, std::size_t n, std::byte* dst, std::size_t stride,
                std::size_t bytes) {
  const std::size_t b = Bytes != 0 ? Bytes : bytes;
  for (std::size_t r = 0; r < n; ++r) {
    const std::uint32_t first = runs[r].first, last = runs[r].last;
    if (stride == b) {
      std::memcpy(dst, base + std::size_t{first} * b, std::size_t{last - first} * b);
      dst += std::size_t{last - first} * b;
      continue;
    }
    for (std::uint32_t h = first; h < last; ++h, dst += stride) std::memcpy(dst, base + std::size_t{h} * b, b);
  }
}

// The same over a list of handles (a sparse pool: runs are short there,
// and a loop per run costs more than the copy).
using gather_fn = void (*)(const std::byte* base, const std::uint32_t* handles, std::size_t n, std::byte* dst,
                           std::size_t stride, std::size_t bytes);

template <class Src, class Dst, std::size_t N>
void gather_convert(const std::byte* base, const std::uint32_t* handles, std::size_t n, std::byte* dst,
                    std::size_t stride, std::size_t) {
  for (std::size_t i = 0; i < n; ++i, dst += stride) convert_one<Src, Dst, N>(base, handles[i], dst);
}

template <std::size_t Bytes>
void gather_bytes(const std::byte* base, const std::uint32_t* handles, std::size_t n, std::byte* dst,
                  std::size_t stride, std::size_t bytes) {
  const std::size_t b = Bytes != 0 ? Bytes : bytes;
  for (std::size_t i = 0; i < n; ++i, dst += stride) std::memcpy(dst, base + std::size_t{handles[i]} * b, b);
}

inline gather_fn bytes_gatherer(std::size_t bytes) noexcept {
  switch (bytes) {
    case 1:
      return &gather_bytes<1>;
    case 2:
      return &gather_bytes<2>;
    case 4:
      return &gather_bytes<4>;
    case 8:
      return &gather_bytes<8>;
    case 12:
      return &gather_bytes<12>;
    case 16:
      return &gather_bytes<16>;
    case 24:
      return &gather_bytes<24>;
    case 32:
      return &gather_bytes<32>;
    default:
      return &gather_bytes<0>;
  }
}

inline copy_fn bytes_copier(std::size_t bytes) noexcept {
  switch (bytes) {
    case 1:
      return &copy_bytes<1>;
    case 2:
      return &copy_bytes<2>;
    case 4:
      return &copy_bytes<4>;
    case 8:
      return &copy_bytes<8>;
    case 12:
      return &copy_bytes<12>;
    case 16:
      return &copy_bytes<16>;
    case 24:
      return &copy_bytes<24>;
    case 32:
      return &copy_bytes<32>;
    default:
      return &copy_bytes<0>;
  }
}

// The layout and one copy per attribute, resolved once.
struct plan {
  struct step {
    const std::byte* base;
    std::size_t offset;
    std::size_t bytes;  // of the column's element
    copy_fn copy;       // over runs
    gather_fn gather;   // over a list of handles
  };
  vertex_layout layout;
  std::vector<step> steps;
  bool padded = false;  // some byte of a vertex is no attribute's: zeroed
  // 4 or 8 when the one attribute is a vec3 column as packed f32 or f64
  // (stride 12 or 24; positions alone, the usual GPU vertex buffer): the
  // list path then copies in one pass (write_real3_list), else 0.
  std::size_t packed_real3 = 0;

  plan(const triangle_mesh& m, const buffer_options& o) : layout(layout_of(o)) {
    const bool f32 = o.real == component_type::f32;
    const copy_fn real3 = f32 ? &convert<double, float, 3> : &convert<double, double, 3>;
    const gather_fn real3_gather = f32 ? &gather_convert<double, float, 3> : &gather_convert<double, double, 3>;
    std::size_t a = 0, covered = 0;
    bool all_vec = true;
    const auto next = [&](const std::byte* base, std::size_t bytes, bool vec) {
      all_vec = all_vec && vec;
      steps.push_back({base, layout.attributes[a].offset, bytes, vec ? real3 : bytes_copier(bytes),
                       vec ? real3_gather : bytes_gatherer(bytes)});
      covered += layout.attributes[a++].bytes();
    };
    if (o.positions) next(reinterpret_cast<const std::byte*>(m.positions().column_key().data()), sizeof(vec3), true);
    if (o.normals) {
      // The normals' column has no key outside the mesh: its element 0 is
      // &normal(v) - v for any live v (none: nothing is read).
      const std::byte* base = nullptr;
      if (!m.vertices().empty()) {
        const Vertex v = *m.vertices().begin();
        base = reinterpret_cast<const std::byte*>(&m.normal(v)) - std::size_t{v.idx()} * sizeof(vec3);
      }
      next(base, sizeof(vec3), true);
    }
    for (const vertex_attribute_source& p : o.properties) next(p.data(), p.element_size(), p.is_vec3());
    padded = covered < layout.stride;
    if (steps.size() == 1 && all_vec && !padded) packed_real3 = f32 ? 4 : 8;
  }
};

// The dense index of every live handle of a word of 64 handles:
// first + popcount(live & below(h)), first being the dense index of the
// word's lowest live handle (a word lies in one bin, whose handles are
// consecutive in traversal order). 16 bytes per 64 handles: the index
// pass's lookups stay in the cache where a 4-byte-per-handle map would not.
struct rank_word {
  std::uint64_t live = 0;
  std::uint32_t first = 0;
  std::uint32_t unused = 0;
};
// std::popcount is a libgcc call unless the target has POPCNT (x86-64
// without -mpopcnt): inline SWAR then, about 12 ALU operations.
inline std::uint32_t popcount64(std::uint64_t x) noexcept {
#if defined(__POPCNT__) || !(defined(__x86_64__) || defined(_M_X64))
  return static_cast<std::uint32_t>(std::popcount(x));
#else
  x = x - ((x >> 1) & 0x5555555555555555u);
  x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fu;
  return static_cast<std::uint32_t>((x * 0x0101010101010101u) >> 56);
#endif
}
inline std::uint32_t rank_of(const rank_word* rank, std::uint32_t h) noexcept {
  const rank_word& w = rank[h >> 6];
  return w.first + popcount64(w.live & ((std::uint64_t{1} << (h & 63)) - 1));
}
// x86-64 without -mpopcnt (the default target): the index pass's rank
// lookups take the POPCNT instruction where the processor has it, chosen
// once at run time (a target-attribute function; 1.4-1.8x faster than the
// SWAR count per face after deletions: docs/mesh.md, "Bandwidth").
#if !defined(__POPCNT__) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TRAVPOOL_MESH_POPCNT_DISPATCH 1
__attribute__((target("popcnt"))) inline std::uint32_t rank_of_popcnt(const rank_word* rank, std::uint32_t h) noexcept {
  const rank_word& w = rank[h >> 6];
  return w.first + static_cast<std::uint32_t>(__builtin_popcountll(w.live & ((std::uint64_t{1} << (h & 63)) - 1)));
}
// Effects: the triangles of faces[0, n) (indices) to out, as write_triangles.
__attribute__((target("popcnt"))) inline void triangles_popcnt(const triangle_mesh& m, const std::uint32_t* faces,
                                                               std::size_t n, std::uint32_t* out,
                                                               const rank_word* rank) noexcept {
  for (std::size_t i = 0; i < n; ++i, out += 3) {
    const Halfedge h = m.halfedge(Face(faces[i]));
    out[0] = rank_of_popcnt(rank, m.from(h).idx());
    out[1] = rank_of_popcnt(rank, m.to(h).idx());
    out[2] = rank_of_popcnt(rank, m.to(m.next(h)).idx());
  }
}
inline bool has_popcnt() noexcept {
  static const bool yes = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("popcnt") != 0;
  }();
  return yes;
}
#endif
// Effects: records live handle h at dense index d in rank (zeroed before;
// handles ascend within a word, so the first one recorded is its lowest).
inline void rank_add(rank_word* rank, std::uint32_t h, std::uint32_t d) noexcept {
  rank_word& w = rank[h >> 6];
  if (w.live == 0) w.first = d;
  w.live |= std::uint64_t{1} << (h & 63);
}
// Effects: records run [first, last) from dense index d in rank (zeroed before).
inline void rank_run(rank_word* rank, std::uint32_t first, std::uint32_t last, std::uint32_t d) noexcept {
  while (first < last) {
    rank_word& w = rank[first >> 6];
    const std::uint32_t lo = first & 63, n = std::min<std::uint32_t>(last - first, 64 - lo);
    if (w.live == 0) w.first = d;  // the word's lowest live handle: runs ascend within a word
    w.live |= (n == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << n) - 1)) << lo;
    first += n;
    d += n;
  }
}

// The vertices of `part` (an element_range or a part of its partition),
// from dense index `dense` on: attributes to out + dense * stride, dense
// indices to map[h] and rank (either may be null).
template <class Part>
void write_vertex_runs(const plan& p, const Part& part, std::size_t dense, std::byte* out, std::uint32_t* map,
                       rank_word* rank) {
  constexpr std::uint32_t block = 1024;  // vertices: a block of 48-byte vertices is 48 KiB
  constexpr std::size_t max_runs = 256;
  const std::size_t stride = p.layout.stride;
  handle_run buf[max_runs];
  std::size_t nb = 0;
  std::uint32_t count = 0;
  const auto flush = [&] {
    if (count == 0) return;
    std::byte* dst = out + dense * stride;
    if (p.padded) std::memset(dst, 0, std::size_t{count} * stride);
    for (const plan::step& s : p.steps) s.copy(s.base, buf, nb, dst + s.offset, stride, s.bytes);
    if (map != nullptr) {
      auto d = static_cast<std::uint32_t>(dense);
      for (std::size_t r = 0; r < nb; ++r)
        for (std::uint32_t h = buf[r].first; h < buf[r].last; ++h) map[h] = d++;
    }
    if (rank != nullptr) {
      auto d = static_cast<std::uint32_t>(dense);
      for (std::size_t r = 0; r < nb; ++r) {
        rank_run(rank, buf[r].first, buf[r].last, d);
        d += buf[r].last - buf[r].first;
      }
    }
    dense += count;
    nb = 0;
    count = 0;
  };
  for (handle_run r : part.runs()) {
    while (r.first < r.last) {
      const std::uint32_t take = (std::min)(r.last - r.first, block - count);
      buf[nb++] = {r.first, r.first + take};
      count += take;
      r.first += take;
      if (count == block || nb == max_runs) flush();
    }
  }
  flush();
}

// As write_vertex_list for a plan whose one attribute is a vec3 column
// written packed as Real (plan::packed_real3): one pass over the live
// handles, a bitmap word at a time, converting each in place of a list
// and a gather (1.6-1.8x faster after scattered deletions).
template <class Real, class Part>
void write_real3_list(const std::byte* base, const Part& part, std::size_t dense, std::byte* out, std::uint32_t* map,
                      rank_word* rank) {
  std::byte* dst = out + dense * (3 * sizeof(Real));
  auto d = static_cast<std::uint32_t>(dense);
  part.for_each([&](Vertex v) {
    const std::uint32_t h = v.idx();
    convert_one<double, Real, 3>(base, h, dst);
    dst += 3 * sizeof(Real);
    if (map != nullptr) map[h] = d;
    if (rank != nullptr) rank_add(rank, h, d);
    ++d;
  });
}

// As write_vertex_runs, a bitmap word at a time through a list of
// handles: for pools with holes, whose runs are short.
template <class Part>
void write_vertex_list(const plan& p, const Part& part, std::size_t dense, std::byte* out, std::uint32_t* map,
                       rank_word* rank) {
  if (p.packed_real3 == 4) return write_real3_list<float>(p.steps[0].base, part, dense, out, map, rank);
  if (p.packed_real3 == 8) return write_real3_list<double>(p.steps[0].base, part, dense, out, map, rank);
  constexpr std::size_t block = 1024;
  const std::size_t stride = p.layout.stride;
  std::uint32_t buf[block];
  std::size_t count = 0;
  const auto flush = [&] {
    if (count == 0) return;
    std::byte* dst = out + dense * stride;
    if (p.padded) std::memset(dst, 0, count * stride);
    for (const plan::step& s : p.steps) s.gather(s.base, buf, count, dst + s.offset, stride, s.bytes);
    auto d = static_cast<std::uint32_t>(dense);
    if (map != nullptr)
      for (std::size_t i = 0; i < count; ++i) map[buf[i]] = d + static_cast<std::uint32_t>(i);
    if (rank != nullptr)
      for (std::size_t i = 0; i < count; ++i, ++d) rank_add(rank, buf[i], d);
    dense += count;
    count = 0;
  };
  part.for_each([&](Vertex v) {
    buf[count++] = v.idx();
    if (count == block) flush();
  });
  flush();
}

// The vertices of `part` from dense index `dense` on (write_vertex_runs),
// over runs where the pool is dense, else over handle lists.
template <class Part>
void write_vertices(const plan& p, const Part& part, std::size_t dense, std::byte* out, std::uint32_t* map,
                    rank_word* rank, bool dense_pool) {
  if (dense_pool)
    write_vertex_runs(p, part, dense, out, map, rank);
  else
    write_vertex_list(p, part, dense, out, map, rank);
}

// By handle, one packed vec3 attribute as Real, a pool with holes: each
// live vertex h to out + h * 3 * sizeof(Real) in one pass over the live
// handles (the runs are short there), map[h] = h (map may be null) and
// its live bit in rank.
template <class Real, class Part>
void write_real3_handles(const std::byte* base, const Part& part, std::byte* out, std::uint32_t* map, rank_word* rank) {
  part.for_each([&](Vertex v) {
    const std::uint32_t h = v.idx();
    convert_one<double, Real, 3>(base, h, out + std::size_t{h} * (3 * sizeof(Real)));
    if (map != nullptr) map[h] = h;
    rank[h >> 6].live |= std::uint64_t{1} << (h & 63);
  });
}

// By handle: each run [first, last) of `part` to out + first * stride,
// map[h] = h and the run's live bits in rank (map, rank may be null; rank
// is not null exactly when the pool has holes).
template <class Part>
void write_vertex_handles(const plan& p, const Part& part, std::byte* out, std::uint32_t* map, rank_word* rank) {
  if (rank != nullptr && p.packed_real3 == 4) return write_real3_handles<float>(p.steps[0].base, part, out, map, rank);
  if (rank != nullptr && p.packed_real3 == 8) return write_real3_handles<double>(p.steps[0].base, part, out, map, rank);
  const std::size_t stride = p.layout.stride;
  for (const handle_run r : part.runs()) {
    std::byte* dst = out + std::size_t{r.first} * stride;
    if (stride != 0) {
      if (p.padded) std::memset(dst, 0, std::size_t{r.last - r.first} * stride);
      for (const plan::step& s : p.steps) s.copy(s.base, &r, 1, dst + s.offset, stride, s.bytes);
    }
    if (map != nullptr)
      for (std::uint32_t h = r.first; h < r.last; ++h) map[h] = h;
    if (rank != nullptr) rank_run(rank, r.first, r.last, 0);
  }
}

// By handle: zeroes the bytes of every handle below `bound` that is not
// live in rank's words [first, last).
inline void zero_holes(const rank_word* rank, std::size_t first, std::size_t last, std::size_t bound, std::byte* out,
                       std::size_t stride) noexcept {
  for (std::size_t i = first; i < last; ++i) {
    std::uint64_t dead = ~rank[i].live;
    const std::size_t base = 64 * i;
    if (bound - base < 64) dead &= (std::uint64_t{1} << (bound - base)) - 1;
    while (dead != 0) {
      const auto b = static_cast<std::size_t>(std::countr_zero(dead));
      const auto n = static_cast<std::size_t>(std::countr_one(dead >> b));  // a run of dead handles
      std::memset(out + (base + b) * stride, 0, n * stride);
      dead = n + b >= 64 ? 0 : dead & ~(((std::uint64_t{1} << n) - 1) << b);
    }
  }
}

// The triangles of the faces of `part` (an element_range or a part of its
// partition), from dense face `dense` on: the dense indices of (from(h),
// to(h), to(next(h))), h = halfedge(f) (rank null: the vertices are dense,
// index = handle). A bitmap word at a time (for_each): after scattered
// deletions runs are short, and a loop over runs paid per run. With
// TRAVPOOL_MESH_POPCNT_DISPATCH and a processor with POPCNT, the ranked
// form collects 256 faces at a time and numbers them in triangles_popcnt.
template <class Part>
void write_triangles(const triangle_mesh& m, const Part& part, std::size_t dense, std::uint32_t* out,
                     const rank_word* rank) {
  std::uint32_t* o = out + 3 * dense;
  if (rank == nullptr) {
    part.for_each([&](Face f) {
      const Halfedge h = m.halfedge(f);
      o[0] = m.from(h).idx();
      o[1] = m.to(h).idx();
      o[2] = m.to(m.next(h)).idx();
      o += 3;
    });
  } else {
#ifdef TRAVPOOL_MESH_POPCNT_DISPATCH
    if (has_popcnt()) {  // a bitmap word's faces into a buffer, then the POPCNT loop over it
      constexpr std::size_t block = 256;
      std::uint32_t buf[block];
      std::size_t n = 0;
      part.for_each([&](Face f) {
        buf[n++] = f.idx();
        if (n == block) {
          triangles_popcnt(m, buf, n, o, rank);
          o += 3 * n;
          n = 0;
        }
      });
      triangles_popcnt(m, buf, n, o, rank);
      return;
    }
#endif
    part.for_each([&](Face f) {
      const Halfedge h = m.halfedge(f);
      o[0] = rank_of(rank, m.from(h).idx());
      o[1] = rank_of(rank, m.to(h).idx());
      o[2] = rank_of(rank, m.to(m.next(h)).idx());
      o += 3;
    });
  }
}

}  // namespace buffers_detail

// The owned form's result.
struct mesh_buffers {
  vertex_layout layout;
  std::vector<std::byte> vertices;        // vertex_count() x layout.stride bytes
  std::vector<std::uint32_t> indices;     // 3 per face (options.indices)
  std::vector<std::uint32_t> vertex_map;  // by handle index: dense index, or
                                          // Vertex::invalid_index (options.vertex_map)
  std::size_t vertex_count() const noexcept { return layout.stride == 0 ? 0 : vertices.size() / layout.stride; }
};

// The sizes the spans of export_buffers need (buffer_sizes_of).
struct buffer_sizes {
  vertex_layout layout;
  std::size_t vertex_bytes = 0;  // vertex_count() (by_handle: vertex_handle_bound) x layout.stride
  std::size_t index_count = 0;   // 3 x face_count(), 0 without options.indices
  std::size_t map_size = 0;      // vertex_handle_bound(m)
};

inline namespace TRAVPOOL_MESH_BACKEND {

namespace export_detail {
// Effects: run(i) for every i in [0, count), each once, in parallel with
// how (openmp: dynamic schedule, one index at a time; tbb: grain 1).
// Requires: how is openmp or tbb.
template <class Run>
void for_indices([[maybe_unused]] std::size_t count, execution how, [[maybe_unused]] const Run& run) {
  if (how == execution::openmp) {
#if defined(_OPENMP)
    const auto n = static_cast<std::ptrdiff_t>(count);
#pragma omp parallel for schedule(dynamic, 1)
    for (std::ptrdiff_t i = 0; i < n; ++i) run(static_cast<std::size_t>(i));
#endif
  } else {
#if TRAVPOOL_MESH_TBB
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, count, 1), [&](const tbb::blocked_range<std::size_t>& r) {
      for (std::size_t i = r.begin(); i != r.end(); ++i) run(i);
    });
#endif
  }
}

// Effects: part(range, first dense index) over the parts of `elements`:
// once over all of it (serial, one thread or one bin), else over
// partition(4 x threads) in parallel, each part's first dense index the
// live count of the parts before it.
template <class Handle, class Part>
void for_parts(const element_range<Handle>& elements, execution how, const Part& part) {
  const std::size_t threads = default_threads(how);
  if (how == execution::serial || threads <= 1 || elements.bin_count() <= 1) {
    part(elements, std::size_t{0});
    return;
  }
  const auto parts = elements.partition(4 * threads);
  std::vector<std::size_t> first(parts.size() + 1, 0);
  for (std::size_t i = 0; i < parts.size(); ++i) first[i + 1] = first[i] + parts[i].size();
  for_indices(parts.size(), how, [&](std::size_t i) { part(parts[i], first[i]); });
}

// Effects: f(first, last) over [0, n) cut into 4 x threads pieces, in
// parallel as for_parts (serial: once).
template <class F>
void for_pieces(std::size_t n, execution how, const F& f) {
  const std::size_t threads = default_threads(how);
  if (how == execution::serial || threads <= 1 || n < 64) {
    f(std::size_t{0}, n);
    return;
  }
  const std::size_t pieces = 4 * threads;
  for_indices(pieces, how, [&](std::size_t i) { f(n * i / pieces, n * (i + 1) / pieces); });
}

// Returns: the vertices export_buffers writes: vertex_count(), or `bound`
// (vertex_handle_bound(m), O(runs): computed once per export) by handle.
inline std::size_t exported_vertices(const triangle_mesh& m, const buffer_options& o, std::size_t bound) noexcept {
  return o.by_handle ? bound : m.vertex_count();
}
// Returns: vertex_handle_bound(m) where the export needs it (by handle, or
// a vertex map), else 0.
inline std::size_t needed_bound(const triangle_mesh& m, const buffer_options& o, bool map) noexcept {
  return o.by_handle || map ? vertex_handle_bound(m) : 0;
}

inline void check_available(execution how) {
  if (!available(how))
    throw usage_error(std::string("export_buffers: execution::") + to_string(how) +
                      " is not in this build (see available(); <travpool/mesh/algorithms.hpp>)");
}

// Requires: the spans checked; bound = vertex_handle_bound(m) if
// o.by_handle. Writes everything.
inline void run_export(const triangle_mesh& m, const buffers_detail::plan& p, const buffer_options& o,
                       std::byte* vertices, std::uint32_t* indices, std::span<std::uint32_t> map, std::size_t bound) {
  std::uint32_t* to = map.empty() ? nullptr : map.data();
  if (to != nullptr) std::fill(map.begin(), map.end(), Vertex::invalid_index);  // the holes
  if (o.by_handle) {
    // The holes are found from the live bits the vertex pass records.
    const std::size_t stride = p.layout.stride;
    std::vector<buffers_detail::rank_word> live;
    if (stride != 0 && !is_dense(m.vertices())) live.resize((bound + 63) / 64);
    buffers_detail::rank_word* lw = live.empty() ? nullptr : live.data();
    if (stride != 0 || to != nullptr)
      for_parts(m.vertices(), o.how, [&](const auto& part, std::size_t) {
        buffers_detail::write_vertex_handles(p, part, vertices, to, lw);
      });
    if (lw != nullptr)
      for_pieces(live.size(), o.how, [&](std::size_t first, std::size_t last) {
        buffers_detail::zero_holes(lw, first, last, bound, vertices, stride);
      });
    if (o.indices)
      for_parts(m.faces(), o.how, [&](const auto& runs, std::size_t d) {
        buffers_detail::write_triangles(m, runs, d, indices, nullptr);
      });
    return;
  }
  // The index pass numbers vertices by rank (dense: by handle).
  const bool dense = is_dense(m.vertices());
  std::vector<buffers_detail::rank_word> rank;
  if (o.indices && m.face_count() > 0 && !dense) rank.resize((m.handle_bound<Vertex>() + 63) / 64);  // O(1)
  buffers_detail::rank_word* r = rank.empty() ? nullptr : rank.data();
  if (p.layout.stride != 0 || to != nullptr || r != nullptr)
    for_parts(m.vertices(), o.how, [&](const auto& part, std::size_t d) {
      buffers_detail::write_vertices(p, part, d, vertices, to, r, dense);
    });
  if (o.indices)
    for_parts(m.faces(), o.how,
              [&](const auto& runs, std::size_t d) { buffers_detail::write_triangles(m, runs, d, indices, r); });
}
}  // namespace export_detail

// Returns: the sizes the spans of export_buffers(m, ..., options) need.
// Throws: as layout_of.
inline buffer_sizes buffer_sizes_of(const triangle_mesh& m, const buffer_options& o) {
  buffer_sizes s{layout_of(o)};
  s.map_size = vertex_handle_bound(m);
  s.vertex_bytes = export_detail::exported_vertices(m, o, s.map_size) * s.layout.stride;
  s.index_count = o.indices ? 3 * m.face_count() : 0;
  return s;
}

// Effects: writes the live vertices, in traversal order (design note), to
// vertices[0, vertex_count() x stride) as layout_of(options); if
// options.indices, the triangles of the live faces, in traversal order, to
// indices[0, 3 x face_count()); if vertex_map is not empty, the dense index
// of every live vertex v to vertex_map[v.idx()] and invalid_index to every
// other entry. With options.by_handle, vertex v at index v.idx() of
// vertex_handle_bound(m) vertices (dead handles' bytes zero) and handle
// indices in the index buffer and the map (design note). Serially, or in
// parallel with options.how (the same bytes).
// Returns: the layout. Throws: usage_error (before anything is written) if
// a span is too small (vertex_map: below vertex_handle_bound(m)), the
// options are bad (layout_of) or options.how is not available(). No
// alignment is required of the spans. Complexity: O(V + F + bins).
// Thread-safety: reads the mesh; it must not change meanwhile.
inline vertex_layout export_buffers(const triangle_mesh& m, std::span<std::byte> vertices,
                                    std::span<std::uint32_t> indices, std::span<std::uint32_t> vertex_map,
                                    const buffer_options& o = {}) {
  const buffers_detail::plan p(m, o);
  export_detail::check_available(o.how);
  const std::size_t bound = export_detail::needed_bound(m, o, !vertex_map.empty());
  const std::size_t nv = export_detail::exported_vertices(m, o, bound), vbytes = nv * p.layout.stride;
  if (vertices.size() < vbytes)
    throw usage_error("export_buffers: the vertex span has " + std::to_string(vertices.size()) + " bytes; " +
                      std::to_string(nv) + " vertices x stride " + std::to_string(p.layout.stride) + " need " +
                      std::to_string(vbytes));
  if (o.indices && indices.size() < 3 * m.face_count())
    throw usage_error("export_buffers: the index span has " + std::to_string(indices.size()) + " entries; " +
                      std::to_string(m.face_count()) + " triangles need " + std::to_string(3 * m.face_count()));
  if (!vertex_map.empty()) {
    if (vertex_map.size() < bound)
      throw usage_error("export_buffers: the vertex map span has " + std::to_string(vertex_map.size()) +
                        " entries; the vertex handles need " + std::to_string(bound) + " (vertex_handle_bound)");
  }
  export_detail::run_export(m, p, o, vertices.data(), indices.data(), vertex_map, bound);
  return p.layout;
}

// Returns: the buffers of export_buffers above in vectors of their sizes
// (vertex_map: vertex_handle_bound(m) entries if options.vertex_map, else
// empty). Throws: as above; std::bad_alloc.
inline mesh_buffers export_buffers(const triangle_mesh& m, const buffer_options& o = {}) {
  const buffers_detail::plan p(m, o);
  export_detail::check_available(o.how);
  mesh_buffers b;
  b.layout = p.layout;
  const std::size_t bound = export_detail::needed_bound(m, o, o.vertex_map);
  b.vertices.resize(export_detail::exported_vertices(m, o, bound) * p.layout.stride);
  if (o.indices) b.indices.resize(3 * m.face_count());
  if (o.vertex_map) b.vertex_map.resize(bound);
  export_detail::run_export(m, p, o, b.vertices.data(), b.indices.data(), b.vertex_map, bound);
  return b;
}

}  // namespace TRAVPOOL_MESH_BACKEND

// --- import --------------------------------------------------------------------

namespace buffers_detail {
inline vec3 read_vec3(const std::byte* p, component_type t) noexcept {
  if (t == component_type::f32) {
    float v[3];
    std::memcpy(v, p, sizeof v);
    return {v[0], v[1], v[2]};
  }
  double v[3];
  std::memcpy(v, p, sizeof v);
  return {v[0], v[1], v[2]};
}
inline void check_real3(const vertex_attribute& a, std::size_t stride) {
  if ((a.type != component_type::f32 && a.type != component_type::f64) || a.components != 3)
    throw usage_error("from_buffers: attribute '" + a.name + "' must be 3 x f32 or 3 x f64, not " +
                      std::to_string(a.components) + " x " + to_string(a.type));
  if (a.offset + a.bytes() > stride)
    throw usage_error("from_buffers: attribute '" + a.name + "' (offset " + std::to_string(a.offset) + ", " +
                      std::to_string(a.bytes()) + " bytes) does not fit in stride " + std::to_string(stride));
}
}  // namespace buffers_detail

// Returns: the mesh of the buffers as export_buffers writes them: vertex i
// at the attribute "position" of vertex i (bytes [i x stride, + stride) of
// `vertices`), with normal(vertex i) from the attribute "normal" if the
// layout has one (other attributes are not read), and triangle k =
// (indices[3k], indices[3k+1], indices[3k+2]); vertex i is the i-th in
// traversal order, and a dense mesh (is_dense) results.
// Throws: usage_error if the layout has no "position", a position or
// normal is not 3 x f32/f64 or does not fit in the stride, the stride is 0
// or does not divide vertices.size(), indices.size() is not a multiple of
// 3, or a position is not finite (naming the vertex); topology_error as
// from_triangles (an index out of range, a degenerate or non-manifold
// triangle), its what() naming the triangle ("from_buffers: triangle k: ...").
inline triangle_mesh from_buffers(std::span<const std::byte> vertices, const vertex_layout& layout,
                                  std::span<const std::uint32_t> indices) {
  if (layout.stride == 0) throw usage_error("from_buffers: the layout's stride is 0");
  if (vertices.size() % layout.stride != 0)
    throw usage_error("from_buffers: " + std::to_string(vertices.size()) +
                      " vertex bytes are not a multiple of stride " + std::to_string(layout.stride));
  if (indices.size() % 3 != 0)
    throw usage_error("from_buffers: " + std::to_string(indices.size()) + " indices are not a multiple of 3");
  const vertex_attribute* pos = layout.find("position");
  if (pos == nullptr) throw usage_error("from_buffers: the layout has no attribute 'position'");
  buffers_detail::check_real3(*pos, layout.stride);
  const vertex_attribute* nrm = layout.find("normal");
  if (nrm != nullptr) buffers_detail::check_real3(*nrm, layout.stride);
  const std::size_t nv = vertices.size() / layout.stride, nf = indices.size() / 3;
  if (nv >= Vertex::invalid_index) throw usage_error("from_buffers: too many vertices");
  std::vector<vec3> points(nv);
  for (std::size_t i = 0; i < nv; ++i) {
    points[i] = buffers_detail::read_vec3(vertices.data() + i * layout.stride + pos->offset, pos->type);
    if (!std::isfinite(points[i].x) || !std::isfinite(points[i].y) || !std::isfinite(points[i].z))
      throw usage_error("from_buffers: the position of vertex " + std::to_string(i) + " is not finite");
  }
  std::vector<std::array<std::uint32_t, 3>> triangles(nf);
  for (std::size_t k = 0; k < nf; ++k) {
    for (std::size_t c = 0; c < 3; ++c) {
      const std::uint32_t x = indices[3 * k + c];
      if (x >= nv)
        throw topology_error(k, "from_buffers: triangle " + std::to_string(k) + ": vertex index " + std::to_string(x) +
                                    " (indices[" + std::to_string(3 * k + c) + "]) out of range (" +
                                    std::to_string(nv) + " vertices)");
      triangles[k][c] = x;
    }
  }
  triangle_mesh m = [&] {
    try {
      return triangle_mesh::from_triangles(points, triangles);
    } catch (const topology_error& e) {
      throw topology_error(e.face_index(),
                           "from_buffers: triangle " + std::to_string(e.face_index()) + ": " + e.what());
    }
  }();
  if (nrm != nullptr) {
    std::size_t i = 0;  // a fresh mesh: vertex i is the i-th in traversal order
    for (const Vertex v : m.vertices())
      m.normal(v) = buffers_detail::read_vec3(vertices.data() + i++ * layout.stride + nrm->offset, nrm->type);
  }
  return m;
}

// Returns: from_buffers of packed positions: xyz holds x, y, z of vertex
// 0, then of vertex 1, ... (Real: float or double). Throws: as above
// (usage_error if xyz.size() is not a multiple of 3).
template <class Real>
triangle_mesh from_buffers(std::span<const Real> xyz, std::span<const std::uint32_t> indices) {
  static_assert(std::is_same_v<Real, float> || std::is_same_v<Real, double>, "from_buffers: float or double");
  if (xyz.size() % 3 != 0)
    throw usage_error("from_buffers: " + std::to_string(xyz.size()) + " coordinates are not a multiple of 3");
  constexpr component_type t = buffers_detail::component_of<Real>();
  const vertex_layout l{3 * sizeof(Real), {{"position", t, 3, 0}}};
  return from_buffers(std::as_bytes(xyz), l, indices);
}
template <class Real>
triangle_mesh from_buffers(const std::vector<Real>& xyz, const std::vector<std::uint32_t>& indices) {
  return from_buffers(std::span<const Real>(xyz), std::span<const std::uint32_t>(indices));
}

}  // namespace TRAVPOOL_ABI_NAMESPACE
}  // namespace travpool::mesh

#undef TRAVPOOL_MESH_POPCNT_DISPATCH
