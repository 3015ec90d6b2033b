package parse

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// refWant is a reference a test expects: From is the qualified name of the
// symbol it comes from ("-" for the file header).
type refWant struct {
	kind                  RefKind
	from, name, qual, typ string
}

// checkRefs asserts that every wanted reference is in f.Refs.
func checkRefs(t *testing.T, f *File, wants []refWant) {
	t.Helper()
	var have []string
	for _, r := range f.Refs {
		from := "-"
		if r.From > 0 {
			from = f.Symbols[r.From].QualifiedName
		}
		have = append(have, fmt.Sprintf("%s %s->%s q=%q t=%q", r.Kind, from, r.Name, r.Qualifier, r.QualifierType))
	}
	for _, w := range wants {
		want := fmt.Sprintf("%s %s->%s q=%q t=%q", w.kind, w.from, w.name, w.qual, w.typ)
		if !slices.Contains(have, want) {
			t.Errorf("%s: no ref %s; have:\n  %s", f.Path, want, strings.Join(have, "\n  "))
		}
	}
}

func TestPHPDefinitions(t *testing.T) {
	src := `<?php
namespace App\Billing;

use App\Models\User;
use Vendor\Lib\{Clock, Mailer as Mail};

/**
 * Charges customers.
 */
#[Service]
abstract class Charger extends Base implements Payable, \Countable
{
    use Loggable;

    private const LIMIT = 10;

    public function __construct(private Mail $mail, protected ?User $owner = null) {}

    #[Route('/charge')]
    /** Charges once. */
    public function charge(User $user, int $cents): bool
    {
        $clock = new Clock();
        $clock->tick();
        $user->notify();
        $this->mail->send();
        $this->audit();
        static::limit();
        parent::charge($user, $cents);
        User::find(1);
        return helper($cents);
    }

    abstract protected function audit(): void;
}

interface Payable { public function amount(): int; }
trait Loggable { public function log(): void {} }
enum Suit: string { case Hearts = 'H'; public function color(): string { return 'red'; } }
function helper(int $c): bool { return $c > 0; }
`
	f := mustParse(t, "src/Billing/Charger.php", src, Options{})
	if f.Package != `App\Billing` {
		t.Errorf("Package = %q", f.Package)
	}
	checkSymbols(t, f, []symWant{
		{qname: "Charger", kind: KindClass, lines: [2]int{7, 35}, parent: "-", exported: yes()},
		{qname: "Charger.__construct", kind: KindMethod, receiver: "Charger", parent: "Charger", lines: [2]int{17, 17}},
		{qname: "Charger.charge", kind: KindMethod, lines: [2]int{19, 32}, exported: yes()},
		{qname: "Charger.audit", kind: KindMethod, lines: [2]int{34, 34}, exported: no()},
		{qname: "Payable", kind: KindInterface},
		{qname: "Payable.amount", kind: KindMethod, parent: "Payable"},
		{qname: "Loggable", kind: KindClass},
		{qname: "Suit", kind: KindEnum},
		{qname: "Suit.color", kind: KindMethod, parent: "Suit"},
		{qname: "helper", kind: KindFunction, parent: "-"},
	})
	if s := find(t, f, "Charger.charge"); s.Doc != "Charges once." || s.Signature != "public function charge(User $user, int $cents): bool" {
		t.Errorf("charge: doc %q sig %q", s.Doc, s.Signature)
	}
	if s := find(t, f, "Charger"); s.Doc != "Charges customers." {
		t.Errorf("Charger doc %q", s.Doc)
	}
	checkRefs(t, f, []refWant{
		{RefInherits, "Charger", "Base", "", ""},
		{RefImplements, "Charger", "Payable", "", ""},
		{RefImplements, "Charger", "Countable", "", ""},
		{RefInherits, "Charger", "Loggable", "", ""},
		{RefCalls, "Charger.charge", "Clock", "", ""},
		{RefCalls, "Charger.charge", "tick", "$clock", "Clock.Clock"},
		{RefCalls, "Charger.charge", "notify", "$user", "User.User"},
		{RefCalls, "Charger.charge", "send", "$this->mail", "Mail.Mailer"},
		{RefCalls, "Charger.charge", "audit", "this", "Charger"},
		{RefCalls, "Charger.charge", "limit", "self", "Charger"},
		{RefCalls, "Charger.charge", "charge", "super", "Charger"},
		{RefCalls, "Charger.charge", "find", "User", "User.User"},
		{RefCalls, "Charger.charge", "helper", "", ""},
	})
	var fields []string
	for _, fl := range f.Fields {
		fields = append(fields, fl.QualifiedName+":"+fl.Type)
	}
	want := []string{"Charger.LIMIT:", "Charger.mail:Mail", "Charger.owner:?User", "Suit.Hearts:"}
	if !slices.Equal(fields, want) {
		t.Errorf("fields = %q, want %q", fields, want)
	}
	var imps []string
	for _, imp := range f.Imports {
		imps = append(imps, imp.Path+" as "+imp.Alias)
	}
	if want := []string{`App\Models\User as User`, `Vendor\Lib\Clock as Clock`, `Vendor\Lib\Mailer as Mail`}; !slices.Equal(imps, want) {
		t.Errorf("imports = %q, want %q", imps, want)
	}
}

func TestPHPRoutesAndRequires(t *testing.T) {
	src := `<?php
require_once __DIR__ . '/../vendor/autoload.php';
require dirname(__DIR__) . '/config.php';
include 'legacy.php';
include $path;

Route::get('users', function () {
    return User::all();
})->name('users');

Route::match(['get', 'post'], '/form', fn () => view('form'));
$app->post('/hook', function ($req) { handle($req); });
$cache->get('key', function () { return 1; });
Route::put('/users/{id}', [UserController::class, 'update']);
`
	f := mustParse(t, "routes/web.php", src, Options{})
	checkSymbols(t, f, []symWant{
		{qname: "GET /users", kind: KindFunction, lines: [2]int{7, 9}},
		{qname: "GET|POST /form", kind: KindFunction, lines: [2]int{11, 11}},
		{qname: "POST /hook", kind: KindFunction, lines: [2]int{12, 12}},
	})
	for _, s := range f.Symbols {
		if strings.Contains(s.Name, "key") {
			t.Errorf("a cache callback became a route: %q", s.Name)
		}
	}
	checkRefs(t, f, []refWant{
		{RefCalls, "GET /users", "all", "User", "User"},
		{RefCalls, "POST /hook", "handle", "", ""},
		{RefCalls, "-", "get", "Route", "Route"},
	})
	var imps []string
	for _, imp := range f.Imports {
		imps = append(imps, imp.Path)
	}
	if want := []string{"__DIR__/../vendor/autoload.php", "__DIR__/../config.php", "legacy.php"}; !slices.Equal(imps, want) {
		t.Errorf("imports = %q, want %q", imps, want)
	}
}

func TestPHPSplitOversized(t *testing.T) {
	var b strings.Builder
	b.WriteString("<?php\nclass Big\n{\n    public function huge(): void\n    {\n")
	for i := range 400 {
		fmt.Fprintf(&b, "        $this->step%d(%d);\n", i, i)
	}
	b.WriteString("    }\n}\n")
	f := mustParse(t, "Big.php", b.String(), Options{MaxSymbolBytes: 2048})
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

// FuzzParseScript is FuzzParse for PHP and Ruby: Parse never panics or fails
// and its chunks are whole lines of the file.
func FuzzParseScript(f *testing.F) {
	for _, s := range []string{
		"<?php\nclass A { public function f( {}\n",
		"<?php\nRoute::get('/x', function () {\n",
		"<?php namespace A { use B\\{C, ; } ?><b><?= $x ?>",
		"class A < B\n  def f(x\n  end\n",
		"describe X do\n  it 'y' do\n",
		"module M\n  attr_accessor :a, :b\n  private def x = 1\nend\n",
		"x = <<~EOS\n  #{y}\nEOS\n",
		"A0000* ", "\u0085", "!.!", // blank names from error recovery (found by fuzzing)
	} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(1))
	}
	paths := []string{"a.php", "a.rb"}
	f.Fuzz(func(t *testing.T, src string, lang uint8) {
		p := paths[int(lang)%len(paths)]
		file, err := Parse(p, []byte(src), Options{MaxSymbolBytes: 256})
		if err != nil {
			t.Fatalf("Parse(%s): %v", p, err)
		}
		checkInvariants(t, file, []byte(src))
	})
}
