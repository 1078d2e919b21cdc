// Empty: carries the precompiled catch.hpp that the tests reuse.
