package parse

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestRubyDefinitions(t *testing.T) {
	src := `require "json"
require_relative "util/helpers"
autoload :Parser, "shop/parser"

# Shop things.
module Shop
  # A cart.
  class Cart < Base::Record
    include Countable
    extend Finders
    attr_reader :id, :items

    LIMIT = 5

    def self.build(attrs)
      cart = Cart.new(attrs)
      cart.save
      cart
    end

    class << self
      def registry
        @registry ||= {}
      end
    end

    def initialize(id)
      @id = id
      @store = Store.new
    end

    def add(item)
      items << item
      recalc
      self.touch
      @store.put(item)
      helper = Helper.new
      helper.run
      LIMIT.times { |i| i }
    end

    private

    def recalc; end

    public

    def touch = nil
  end
end

def top_level(x)
  x * 2
end
`
	f := mustParse(t, "lib/shop/cart.rb", src, Options{})
	checkSymbols(t, f, []symWant{
		{qname: "Shop", kind: KindClass, lines: [2]int{5, 50}, parent: "-"},
		{qname: "Cart", kind: KindClass, lines: [2]int{7, 49}, parent: "Shop"},
		{qname: "Cart.id", kind: KindMethod, aliases: []string{"items"}, receiver: "Cart", parent: "Cart"},
		{qname: "Cart.LIMIT", kind: KindConst, lines: [2]int{13, 13}},
		{qname: "Cart.build", kind: KindMethod, lines: [2]int{15, 19}, receiver: "Cart"},
		{qname: "Cart.registry", kind: KindMethod, lines: [2]int{22, 24}, parent: "Cart"},
		{qname: "Cart.add", kind: KindMethod, lines: [2]int{32, 40}, exported: yes()},
		{qname: "Cart.recalc", kind: KindMethod, exported: no()},
		{qname: "Cart.touch", kind: KindMethod, exported: yes()},
		{qname: "top_level", kind: KindFunction, parent: "-", lines: [2]int{52, 54}},
	})
	if s := find(t, f, "Cart"); s.Doc != "A cart." || s.Signature != "class Cart < Base::Record" {
		t.Errorf("Cart: doc %q sig %q", s.Doc, s.Signature)
	}
	checkRefs(t, f, []refWant{
		{RefInherits, "Cart", "Record", "Base", ""},
		{RefInherits, "Cart", "Countable", "", ""},
		{RefInherits, "Cart", "Finders", "", ""},
		{RefCalls, "Cart.build", "Cart", "", ""},
		{RefCalls, "Cart.build", "save", "cart", "Cart"},
		{RefCalls, "Cart.add", "items", "self", "Cart"},
		{RefCalls, "Cart.add", "recalc", "self", "Cart"},
		{RefCalls, "Cart.add", "touch", "self", "Cart"},
		{RefCalls, "Cart.add", "put", "@store", "Store"},
		{RefCalls, "Cart.add", "run", "helper", "Helper"},
		{RefCalls, "Cart.add", "times", "LIMIT", ""},
	})
	for _, r := range f.Refs {
		if r.Name == "item" || r.Name == "i" || r.Name == "x" {
			t.Errorf("a local variable became a call: %+v", r)
		}
	}
	var imps []string
	for _, imp := range f.Imports {
		imps = append(imps, imp.Path)
	}
	if want := []string{"json", "./util/helpers", "shop/parser"}; !slices.Equal(imps, want) {
		t.Errorf("imports = %q, want %q", imps, want)
	}
}

func TestRubyDSLBlocks(t *testing.T) {
	src := `RSpec.describe Cart do
  let(:cart) { Cart.new }

  describe "#add" do
    it "adds" do
      expect(cart.add(1)).to eq(1)
      mock_app Cart do
      end
    end
  end

  def helper_in_spec; end
end

get "/carts/:id" do
  Cart.find(params[:id])
end

task default: :spec do
  sh "rspec"
end

class Runner
  def run
    within("x") do
      go
    end
  end
end
`
	f := mustParse(t, "spec/cart_spec.rb", src, Options{})
	checkSymbols(t, f, []symWant{
		{qname: "describe Cart", kind: KindFunction, lines: [2]int{1, 13}, parent: "-"},
		{qname: "let cart", aliases: []string{"cart"}, parent: "describe Cart", lines: [2]int{2, 2}},
		{qname: "describe #add", parent: "describe Cart", lines: [2]int{4, 10}},
		{qname: "it adds", parent: "describe #add", lines: [2]int{5, 9}},
		{qname: "helper_in_spec", kind: KindFunction, parent: "describe Cart"},
		{qname: "GET /carts/:id", kind: KindFunction, lines: [2]int{15, 17}},
		{qname: "task default", kind: KindFunction, lines: [2]int{19, 21}},
		{qname: "Runner.run", kind: KindMethod, lines: [2]int{24, 28}},
	})
	for _, s := range f.Symbols {
		if strings.HasPrefix(s.Name, "within") || strings.HasPrefix(s.Name, "mock_app") {
			t.Errorf("a block inside a method or an example became a definition: %q", s.Name)
		}
	}
	checkRefs(t, f, []refWant{
		{RefCalls, "it adds", "cart", "", ""},
		{RefCalls, "GET /carts/:id", "find", "Cart", "Cart"},
		{RefCalls, "Runner.run", "within", "self", "Runner"},
		{RefCalls, "Runner.run", "go", "self", "Runner"},
	})
	for _, r := range f.Refs {
		if r.Kind == RefCalls && (r.Name == "describe" || r.Name == "it" || r.Name == "let") {
			t.Errorf("a DSL block's call is a call ref: %+v", r)
		}
	}
}

func TestRubySplitOversized(t *testing.T) {
	var b strings.Builder
	b.WriteString("class Big\n  def huge\n")
	for i := range 400 {
		fmt.Fprintf(&b, "    step_%d(%d)\n", i, i)
	}
	b.WriteString("  end\nend\n")
	f := mustParse(t, "big.rb", b.String(), Options{MaxSymbolBytes: 2048})
	parts := 0
	for _, s := range f.Symbols {
		if s.Kind == KindPart && f.Symbols[s.Parent].QualifiedName == "Big.huge" {
			parts++
		}
	}
	if parts < 2 {
		t.Errorf("Big.huge split into %d parts, want several", parts)
	}
}
