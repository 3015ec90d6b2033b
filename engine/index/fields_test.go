package index_test

import (
	"context"
	"testing"

	"github.com/spelunkhq/spelunk/engine/index"
	"github.com/spelunkhq/spelunk/engine/pg/pgtest"
)

var fieldsFixture = map[string]string{
	"py/bank.py": `class Account:
    rate: float = 0.1

    def __init__(self):
        self.balance = 0

    def deposit(self, n):
        self.balance += n

class Savings(Account):
    def add(self):
        self.balance = self.balance * (1 + self.rate)

def peek(a: Account):
    return a.balance
`,
	"ts/bank.ts": `export class Account {
  private balance = 0;
  constructor(public owner: string) {}
  deposit(n: number) { this.balance += n; }
  name() { return this.owner; }
}
function rename(a: Account) { a.owner = "x"; }
`,
	"go/bank/account.go": `package bank

type Account struct {
	balance int
	log     *Log
}

type Log struct{ lines []string }

type Other struct{ balance int }

type Savings struct{ Account }

func (a *Account) Deposit(n int) { a.balance += n }

func Peek(a Account) int { return a.balance }

func (s *Savings) Add() { s.balance++ }

type Store struct{ db *DB }

type DB struct{}

func (DB) Query() {}

type Cache struct{}

func (Cache) Query() {}

type Registry struct{ dbs []*DB }
`,
	"go/bank/use.go": `package bank

import "net/http"

func Reset(a *Account) { a.log.lines = nil }

func Guess(vs []Other, ws []Account) {
	for _, v := range append(vs, ws...) {
		_ = v.balance
	}
}

func Ext(r *http.Request) string { return r.Method }

func Q(s *Store) { s.db.Query() }

func H(r *http.Request) string { return r.Header.Get("x") }

func All(r *Registry) {
	for _, d := range r.dbs {
		d.Query()
	}
}
`,
}

// TestFieldAccessEdges: typed reads and writes resolve exactly to the field,
// through embedding and across files; an untyped one lists every field of
// that name; a field of an external type stays unresolved.
func TestFieldAccessEdges(t *testing.T) {
	db := pgtest.Open(t)
	repo := gitRepo(t, fieldsFixture)
	if _, err := index.New(db, hashing()).Index(context.Background(), repo, index.Options{}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		kind, path, source, name string
		want                     []callEdge
	}{
		{"writes", "go/bank/account.go", "Account.Deposit", "balance", []callEdge{{"Account.Deposit", "Account.balance", "exact", []string{}}}},
		{"reads", "go/bank/account.go", "bank.Peek", "balance", []callEdge{{"bank.Peek", "Account.balance", "exact", []string{}}}},
		{"writes", "go/bank/account.go", "Savings.Add", "balance", []callEdge{{"Savings.Add", "Account.balance", "exact", []string{}}}},
		{"reads", "go/bank/use.go", "bank.Reset", "log", []callEdge{{"bank.Reset", "Account.log", "exact", []string{}}}},
		{"writes", "go/bank/use.go", "bank.Reset", "lines", []callEdge{{"bank.Reset", "Log.lines", "exact", []string{}}}},
		{"reads", "go/bank/use.go", "bank.Guess", "balance", []callEdge{{"bank.Guess", "Account.balance", "ambiguous", []string{"Account.balance", "Other.balance"}}}},
		{"reads", "go/bank/use.go", "bank.Ext", "Method", []callEdge{{"bank.Ext", "", "unresolved", []string{}}}},
		{"writes", "py/bank.py", "Account.deposit", "balance", []callEdge{{"Account.deposit", "Account.balance", "exact", []string{}}}},
		{"writes", "py/bank.py", "Savings.add", "balance", []callEdge{{"Savings.add", "Account.balance", "inferred", []string{}}}},
		{"reads", "py/bank.py", "Savings.add", "rate", []callEdge{{"Savings.add", "Account.rate", "inferred", []string{}}}},
		{"reads", "py/bank.py", "peek", "balance", []callEdge{{"peek", "Account.balance", "exact", []string{}}}},
		{"writes", "ts/bank.ts", "Account.deposit", "balance", []callEdge{{"Account.deposit", "Account.balance", "exact", []string{}}}},
		{"reads", "ts/bank.ts", "Account.name", "owner", []callEdge{{"Account.name", "Account.owner", "exact", []string{}}}},
		{"writes", "ts/bank.ts", "rename", "owner", []callEdge{{"rename", "Account.owner", "exact", []string{}}}},
	}
	// A call through a field of a struct declared in another file resolves by
	// the field's type; through an external type's field it is external.
	cases = append(cases, []struct {
		kind, path, source, name string
		want                     []callEdge
	}{
		{"calls", "go/bank/use.go", "bank.Q", "Query", []callEdge{{"bank.Q", "DB.Query", "exact", []string{}}}},
		{"calls", "go/bank/use.go", "bank.H", "Get", []callEdge{{"bank.H", "", "unresolved", []string{}}}},
		// Ranging over a slice field of a struct declared in another file.
		{"calls", "go/bank/use.go", "bank.All", "Query", []callEdge{{"bank.All", "DB.Query", "exact", []string{}}}},
	}...)
	for _, c := range cases {
		got := edgesOf(t, db, c.kind, c.path, c.source, c.name)
		if g, w := render(got), render(c.want); g != w {
			t.Errorf("%s %s %s -> %s:\n got %s\nwant %s", c.kind, c.path, c.source, c.name, g, w)
		}
	}
	// Fields are graph nodes, not chunks: never embedded, no search text.
	var n int
	if err := db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM symbols
		WHERE kind = 'field' AND (embedding_state <> 'none' OR doc_length <> 0 OR parent_id IS NULL)`).Scan(&n); err != nil || n != 0 {
		t.Errorf("fields stored as chunks: %d (%v)", n, err)
	}
}
