package workload

import (
	"strings"
	"testing"
)

func TestSpreadCoversDistinctUsersDeterministically(t *testing.T) {
	w, _ := Builtin("saas-slice", DefaultJWTSecret)
	for _, name := range []string{"user", "me", "order", "list"} {
		c, _ := w.Case(name)
		reqs := w.Requests(c, DefaultJWTSecret, true)
		if len(reqs) != SpreadSize {
			t.Fatalf("%s: %d requests, want %d", name, len(reqs), SpreadSize)
		}
		seen := map[string]bool{}
		for _, r := range reqs {
			key := r.Path + string(r.Body)
			for _, h := range r.Header {
				key += h.Value
			}
			seen[key] = true
		}
		if len(seen) != SpreadSize {
			t.Errorf("%s: %d distinct requests of %d", name, len(seen), SpreadSize)
		}
		again := w.Requests(c, DefaultJWTSecret, true)
		if again[17].Path != reqs[17].Path || string(again[17].Body) != string(reqs[17].Body) {
			t.Errorf("%s: the sequence is not deterministic", name)
		}
	}
	for k := 0; k < spreadUsers; k++ {
		if id := spreadID(k); id < 1 || id > spreadUsers {
			t.Fatalf("spreadID(%d) = %d, outside 1..%d", k, id, spreadUsers)
		}
	}
	c, _ := w.Case("user")
	if got := w.Requests(c, DefaultJWTSecret, true)[0].Path; got != "/users/4242" {
		t.Errorf("first spread id: %s, want /users/4242 (the fixed request's user first)", got)
	}
}

func TestSpreadLeavesOtherCasesFixed(t *testing.T) {
	w, _ := Builtin("saas-slice", DefaultJWTSecret)
	for _, name := range []string{"health", "echo", "cpu"} {
		c, _ := w.Case(name)
		if reqs := w.Requests(c, DefaultJWTSecret, true); len(reqs) != 1 || reqs[0].Path != c.Path {
			t.Errorf("%s: %d requests", name, len(reqs))
		}
	}
	c, _ := w.Case("user")
	if reqs := w.Requests(c, DefaultJWTSecret, false); len(reqs) != 1 || reqs[0].Path != "/users/4242" {
		t.Errorf("fixed mode: %+v", reqs)
	}
	me, _ := w.Case("me")
	tok := w.Requests(me, "s3cret", true)[5].Header[0].Value
	if !strings.HasPrefix(tok, "Bearer ey") {
		t.Errorf("token %q", tok)
	}
}
