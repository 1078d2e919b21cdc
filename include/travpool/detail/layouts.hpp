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

// layout_ops_t<Layout, T>, as a class that only needs T to be complete
// where one of its members is used: naming layout_ops_for<Layout, T> (as
// basic_pool's storage and iterators do) does not instantiate it, so
// basic_pool<T> is a complete type while T is still incomplete.
template <class Layout, class T>
struct layout_ops_for : layout_ops_t<Layout, T> {};

}  // namespace travpool::detail
