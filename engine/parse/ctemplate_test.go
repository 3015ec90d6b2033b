package parse

import "testing"

// C++ templates come out as what they are (issue 37): a class template whose
// members are marked by a macro for constexpr (as a popular formatting
// library's headers do, also in `if MACRO (...)`) was one function operator=
// spanning the class; a struct template, a function template and an alias
// template beside it.
func TestCPlusPlusClassTemplates(t *testing.T) {
	src := `#include "base.h"

LIB_BEGIN_NAMESPACE

template <typename T, size_t N = 16>
class ring : public base<T> {
 public:
  LIB_CONSTEXPR20 ~ring() { drop(); }

  LIB_CONSTEXPR20 ring(ring&& other) noexcept : base<T>(grow) {
    take(other);
  }

  auto operator=(ring&& other) noexcept -> ring& {
    take(other);
    return *this;
  }

  template <typename U> void push(const U& v) {
    if LIB_CONSTEXPR20 (is_big<U>::value)
      store(copy(v));
    else
      store(v);
  }

  void clear() { this->resize(0); }
};

template <typename Char> struct fill_spec {
  Char fill;
};

template <typename T> auto max_of(T a, T b) -> T { return a > b ? a : b; }

template <typename T> using vec = std::vector<T>;

LIB_END_NAMESPACE
`
	f, syms := cSymbols(t, "memory.h", src)
	want := map[string]struct {
		kind       Kind
		start, end int
	}{
		"ring":           {KindClass, 5, 27},
		"ring.~ring":     {KindMethod, 8, 8},
		"ring.ring":      {KindMethod, 10, 12},
		"ring.operator=": {KindMethod, 14, 17},
		"ring.push":      {KindMethod, 19, 24},
		"ring.clear":     {KindMethod, 26, 26},
		"fill_spec":      {KindStruct, 29, 31},
		"max_of":         {KindFunction, 33, 33},
		"vec":            {KindType, 35, 35},
	}
	for name, w := range want {
		s, ok := syms[name]
		if !ok || s.Kind != w.kind || s.StartLine != w.start || s.EndLine != w.end {
			t.Errorf("%s = %v %d-%d (found %v), want %v %d-%d", name, s.Kind, s.StartLine, s.EndLine, ok, w.kind, w.start, w.end)
		}
	}
	for _, s := range f.Symbols {
		if (s.Kind == KindFunction || s.Kind == KindMethod) && s.EndLine-s.StartLine > 10 {
			t.Errorf("%s %s spans %d-%d", s.Kind, s.QualifiedName, s.StartLine, s.EndLine)
		}
	}
}
