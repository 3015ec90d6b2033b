package parse

import "testing"

// f.call(this, x) and f.apply(this, xs) call f itself.
func TestJSCallApplyCallTheQualifier(t *testing.T) {
	src := "import transformData from './transformData.js';\n" +
		"function dispatch(config) {\n  transformData.call(config, config.transformRequest);\n  helpers.format.apply(null, []);\n}\n"
	f, err := Parse("lib/dispatch.js", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var bare, dotted bool
	for _, r := range f.Refs {
		if r.Kind != RefCalls {
			continue
		}
		if r.Name == "transformData" && r.Qualifier == "" {
			bare = true
		}
		if r.Name == "apply" && r.Qualifier == "helpers.format" {
			dotted = true // a dotted qualifier is left alone
		}
		if r.Name == "call" {
			t.Errorf("a call to .call kept: %+v", r)
		}
	}
	if !bare || !dotted {
		t.Fatalf("refs %+v: want transformData as a bare call and helpers.format.apply kept", f.Refs)
	}
}
