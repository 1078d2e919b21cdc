// travpool/detail/layouts.hpp: the layout accessors selected by a
// layout:: option tag for a payload of `Size` bytes aligned to `Align`.
#pragma once

#include <cstddef>

#include "../options.hpp"
#include "layout_compact.hpp"
#include "layout_interleaved.hpp"
#include "layout_traits.hpp"

namespace travpool::detail {

template <class Layout, std::size_t Size, std::size_t Align>
struct layout_ops;
template <std::size_t Size, std::size_t Align>
struct layout_ops<layout::interleaved, Size, Align> {
  using type = interleaved_layout<Size, Align>;
};
template <std::size_t Size, std::size_t Align>
struct layout_ops<layout::compact, Size, Align> {
  using type = compact_layout<Size, Align>;
};

// The layout accessors of `Layout` for chunks holding a T.
template <class Layout, class T>
using layout_ops_t = typename layout_ops<Layout, sizeof(T), alignof(T)>::type;

}  // namespace travpool::detail
