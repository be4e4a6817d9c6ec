package workload

import (
	"context"
	"encoding/json"
	"fmt"
	htmltemplate "html/template"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	texttemplate "text/template"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/pgfix/pgtest"
)

// tfbFault is one way a TFB entry cheats or errs.
type tfbFault int

const (
	faultNone          tfbFault = iota
	faultOneIN                  // queries answered with one IN (ANY) query
	faultUnescaped              // fortunes rendered without escaping
	faultUnsorted               // fortunes in table order
	faultNotPersisted           // updates answered but not written
	faultNoServer               // no Server header
	faultNoClamp                // queries=0 answers no rows
	faultBatchedWrites          // updates written with one UPDATE … FROM (VALUES …): TFB allowed it
)

// tfbTestServer is a small TFB entry on the fixture's database with one
// fault switched on. It writes updates one by one (the reference server
// batches them), so both ways are seen.
func tfbTestServer(t *testing.T, pool *pgxpool.Pool, fault tfbFault) string {
	t.Helper()
	head := func(w http.ResponseWriter, ct string) {
		if fault != faultNoServer {
			w.Header().Set("Server", "tfb-test")
		}
		w.Header().Set("Content-Type", ct)
	}
	writeJSON := func(w http.ResponseWriter, v any) {
		b, _ := json.Marshal(v)
		head(w, "application/json")
		w.Write(b)
	}
	count := func(r *http.Request) int {
		n, err := strconv.Atoi(r.URL.Query().Get("queries"))
		switch {
		case err != nil:
			return 1
		case n < 1 && fault == faultNoClamp:
			return max(n, 0)
		case n < 1:
			return 1
		}
		return min(n, 500)
	}
	type worldRow struct {
		ID           int32 `json:"id"`
		RandomNumber int32 `json:"randomNumber"`
	}
	read := func(ctx context.Context, n int) ([]worldRow, error) {
		out := make([]worldRow, n)
		if fault == faultOneIN {
			ids := make([]int32, n)
			for i := range ids {
				ids[i] = 1 + rand.Int32N(10000)
			}
			rows, _ := pool.Query(ctx, "SELECT id, randomnumber FROM world WHERE id = ANY($1)", ids)
			got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[worldRow])
			if err != nil {
				return nil, err
			}
			byID := map[int32]worldRow{}
			for _, g := range got {
				byID[g.ID] = g
			}
			for i, id := range ids {
				out[i] = byID[id]
			}
			return out, nil
		}
		// One statement per row, sent as one batch (one round trip).
		b := &pgx.Batch{}
		for i := range out {
			b.Queue("SELECT id, randomnumber FROM world WHERE id = $1", 1+rand.Int32N(10000)).QueryRow(func(row pgx.Row) error {
				return row.Scan(&out[i].ID, &out[i].RandomNumber)
			})
		}
		return out, pool.SendBatch(ctx, b).Close()
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /json", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]string{"Message": "Hello, World!"}) // keys are case-insensitive
	})
	mux.HandleFunc("GET /plaintext", func(w http.ResponseWriter, r *http.Request) {
		head(w, "text/plain; charset=utf-8")
		io.WriteString(w, "Hello, World!")
	})
	mux.HandleFunc("GET /db", func(w http.ResponseWriter, r *http.Request) {
		ws, err := read(r.Context(), 1)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		writeJSON(w, ws[0])
	})
	mux.HandleFunc("GET /queries", func(w http.ResponseWriter, r *http.Request) {
		ws, err := read(r.Context(), count(r))
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		writeJSON(w, ws)
	})
	mux.HandleFunc("GET /updates", func(w http.ResponseWriter, r *http.Request) {
		ws, err := read(r.Context(), count(r))
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		b := &pgx.Batch{}
		ids, nums := make([]int32, len(ws)), make([]int32, len(ws))
		for i := range ws {
			ws[i].RandomNumber = 1 + rand.Int32N(10000)
			ids[i], nums[i] = ws[i].ID, ws[i].RandomNumber
			if fault != faultNotPersisted && fault != faultBatchedWrites {
				b.Queue("UPDATE world SET randomnumber = $1 WHERE id = $2", ws[i].RandomNumber, ws[i].ID)
			}
		}
		if fault == faultBatchedWrites {
			// The last number answered for a repeated id is the one kept.
			b.Queue(`UPDATE world SET randomnumber = u.n FROM (SELECT DISTINCT ON (id) id, n FROM unnest($1::int[], $2::int[]) WITH ORDINALITY AS t(id, n, o) ORDER BY id, o DESC) AS u WHERE world.id = u.id`, ids, nums)
		}
		if err := pool.SendBatch(r.Context(), b).Close(); err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		writeJSON(w, ws)
	})
	mux.HandleFunc("GET /fortunes", func(w http.ResponseWriter, r *http.Request) {
		rows, _ := pool.Query(r.Context(), "SELECT id, message FROM fortune ORDER BY id")
		fs, err := pgx.CollectRows(rows, pgx.RowToStructByPos[pgfix.Fortune])
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		fs = append(fs, pgfix.Fortune{ID: 0, Message: "Additional fortune added at request time."})
		if fault != faultUnsorted {
			slices.SortFunc(fs, func(a, b pgfix.Fortune) int { return strings.Compare(a.Message, b.Message) })
		}
		const page = "<!DOCTYPE html>\n<html><head><title>Fortunes</title></head><body>\n<table>\n<tr><th>id</th><th>message</th></tr>\n{{range .}}<tr><td>{{.ID}}</td><td>{{.Message}}</td></tr>\n{{end}}</table></body></html>"
		head(w, "text/html; charset=utf-8")
		if fault == faultUnescaped {
			texttemplate.Must(texttemplate.New("").Parse(page)).Execute(w, fs)
			return
		}
		htmltemplate.Must(htmltemplate.New("").Parse(page)).Execute(w, fs)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestTFBParity runs the tfb gate against a correct entry and against one
// broken entry per rule TFB users complained of: each is caught, and the
// finding names the rule and the request that showed it.
func TestTFBParity(t *testing.T) {
	url := pgtest.FreshFixtureDB(t, pgfix.TFBFixture())
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	w, _ := Builtin("tfb", DefaultJWTSecret)
	run := func(t *testing.T, fault tfbFault) StackResult {
		base := tfbTestServer(t, pool, fault)
		return RunChecks(context.Background(), w, base, RunOptions{Stack: "entry", DatabaseURL: url, HealthPath: "/json"})
	}

	t.Run("a correct entry passes", func(t *testing.T) {
		r := run(t, faultNone)
		logFailures(t, r)
		if !r.OK() {
			t.Fatalf("%d/%d checks passed, error %q", r.Passed(), len(r.Checks), r.Error)
		}
		// json, db, fortunes, plaintext: one check each; queries and
		// updates: the load's count and TFB's edge cases.
		if want := 4 + 2*(1+len(tfbCountEdges)); len(r.Checks) != want {
			t.Errorf("%d checks, want %d", len(r.Checks), want)
		}
		for _, c := range r.Checks {
			if c.Check == "updates/count-20" && !strings.Contains(c.Got, "writes one by one: 20 UPDATEs") {
				t.Errorf("updates/count-20 does not say the writes went one by one: %s", c.Got)
			}
		}
		if x := r.Relaxed(); len(x) != 0 {
			t.Errorf("an entry held to every rule lists relaxed rules: %+v", x)
		}
	})

	// Batched writes pass, as TFB allowed, and the rule they break is
	// named as relaxed: the report marks the stack's updates steps.
	t.Run("batched writes pass with the rule relaxed", func(t *testing.T) {
		r := run(t, faultBatchedWrites)
		logFailures(t, r)
		if !r.OK() {
			t.Fatalf("%d/%d checks passed, error %q", r.Passed(), len(r.Checks), r.Error)
		}
		x := r.Relaxed()
		if len(x) != 1 || x[0].Rule != TFBRuleOneWritePerRow || x[0].Check != "updates/count-20" || x[0].Case != TFBUpdates {
			t.Fatalf("relaxed %+v, want %s on updates/count-20 alone", x, TFBRuleOneWritePerRow)
		}
		if !strings.Contains(x[0].Detail, "20 rows written with 1 UPDATE") {
			t.Errorf("the relaxed rule does not say how the rows were written: %q", x[0].Detail)
		}
	})

	// A rule the stack's tfb: relax: names lets a broken answer pass, and
	// is named in the result; the other rules still hold.
	t.Run("a rule relaxed for the stack is named", func(t *testing.T) {
		base := tfbTestServer(t, pool, faultNoServer)
		r := RunChecks(context.Background(), w, base, RunOptions{Stack: "entry", DatabaseURL: url, HealthPath: "/json", TFBRelax: []string{"tfb.header-server"}})
		logFailures(t, r)
		if !r.OK() {
			t.Fatalf("%d/%d checks passed with tfb.header-server relaxed", r.Passed(), len(r.Checks))
		}
		rules := map[string]int{}
		for _, x := range r.Relaxed() {
			rules[x.Rule]++
		}
		if rules["tfb.header-server"] != len(r.Checks) {
			t.Errorf("relaxed %v, want tfb.header-server on each of %d checks", rules, len(r.Checks))
		}
		rep := NewReport("tfb", []StackResult{r})
		var text strings.Builder
		rep.WriteText(&text)
		if !strings.Contains(text.String(), "RELAXED entry json/ok: rule tfb.header-server") {
			t.Errorf("the parity text does not name the relaxed rule:\n%s", text.String())
		}
	})

	for _, tc := range []struct {
		name  string
		fault tfbFault
		check string // the check that must fail
		rule  string // the rule its problem must name
	}{
		{"queries answered with one IN query", faultOneIN, "queries/count-20", "tfb.queries-one-read-per-row"},
		{"fortunes unescaped", faultUnescaped, "fortunes/ok", "tfb.fortunes-escaped"},
		{"fortunes unsorted", faultUnsorted, "fortunes/ok", "tfb.fortunes-sorted"},
		{"updates not persisted", faultNotPersisted, "updates/count-20", "tfb.updates-persisted"},
		{"Server header missing", faultNoServer, "json/ok", "tfb.header-server"},
		{"queries=0 not clamped", faultNoClamp, "queries/0-clamped-to-1", "tfb.queries-count"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.fault)
			i := slices.IndexFunc(r.Checks, func(c CheckResult) bool { return c.Check == tc.check })
			if i < 0 {
				t.Fatalf("no check %s among %d", tc.check, len(r.Checks))
			}
			c := r.Checks[i]
			if !strings.Contains(c.Problem, "rule "+tc.rule+":") {
				t.Fatalf("%s: problem %q, want rule %s named", tc.check, c.Problem, tc.rule)
			}
			if c.Sent == "" || !strings.HasPrefix(c.Sent, "GET /") {
				t.Errorf("the finding does not say which request showed it: sent %q", c.Sent)
			}
			fs := r.Failures()
			if len(fs) == 0 {
				t.Fatal("no failures reported")
			}
			t.Logf("caught: %s: %s (sent %s)", c.Check, c.Problem, c.Sent)
		})
	}
}

// TestTFBFortunesNormalised accepts any correct spelling of the page
// (entities, whitespace) and names the rule of each wrong one.
func TestTFBFortunesNormalised(t *testing.T) {
	page := func(escape func(string) string, order []pgfix.Fortune) []byte {
		var b strings.Builder
		b.WriteString("<!doctype html><html><head><meta charset=\"UTF-8\"><title>Fortunes</title></head><body><table>\n  <tr><th>id</th><th>message</th></tr>\n")
		for _, f := range order {
			fmt.Fprintf(&b, "  <tr><td>%d</td><td>%s</td></tr>\n", f.ID, escape(f.Message))
		}
		b.WriteString("</table></body></html>")
		return []byte(b.String())
	}
	numeric := func(s string) string {
		r := strings.NewReplacer("<", "&#60;", ">", "&#x3e;", `"`, "&#34;", "'", "&#39;", "&", "&#38;")
		return r.Replace(s)
	}
	sorted := tfbExpectedFortunes()
	rules := func(body []byte, ct string) []string {
		var got []string
		tfbFortunes(body, ct, func(rule, format string, a ...any) { got = append(got, rule) })
		return got
	}
	if got := rules(page(numeric, sorted), "text/html"); len(got) != 0 {
		t.Errorf("numeric entities, charset in <meta>: broke %v", got)
	}
	double := func(s string) string { return htmltemplate.HTMLEscapeString(htmltemplate.HTMLEscapeString(s)) }
	if got := rules(page(double, sorted), "text/html; charset=utf-8"); !slices.Contains(got, "tfb.fortunes-rows") {
		t.Errorf("escaped twice: rules %v, want tfb.fortunes-rows", got)
	}
	noAdded := slices.DeleteFunc(slices.Clone(sorted), func(f pgfix.Fortune) bool { return f.ID == 0 })
	if got := rules(page(htmltemplate.HTMLEscapeString, noAdded), "text/html; charset=utf-8"); !slices.Contains(got, "tfb.fortunes-added") {
		t.Errorf("no added fortune: rules %v, want tfb.fortunes-added", got)
	}
	if got := rules(page(htmltemplate.HTMLEscapeString, sorted), "text/html; charset=iso-8859-1"); !slices.Contains(got, "tfb.fortunes-utf8") {
		t.Errorf("latin-1 charset: rules %v, want tfb.fortunes-utf8", got)
	}
}

// TestTFBCountRule checks the queries edge cases TFB's verifier sends.
func TestTFBCountRule(t *testing.T) {
	var got []string
	add := func(rule, format string, a ...any) { got = append(got, rule+": "+fmt.Sprintf(format, a...)) }
	if _, ok := tfbWorldArray([]byte(`[{"ID":1,"RANDOMNUMBER":2}]`), 1, add); !ok || len(got) != 0 {
		t.Errorf("upper-case keys rejected: %v", got)
	}
	if _, ok := tfbWorldArray([]byte(`[{"id":1,"randomNumber":10001}]`), 1, add); ok || !strings.HasPrefix(got[len(got)-1], "tfb.world-range") {
		t.Errorf("randomNumber 10001 accepted or misnamed: %v", got)
	}
	if _, ok := tfbWorldArray([]byte(`{"id":1,"randomNumber":2}`), 1, add); ok || !strings.HasPrefix(got[len(got)-1], "tfb.world-array") {
		t.Errorf("an object where an array is due: %v", got)
	}
	if _, ok := tfbWorldArray([]byte(`[{"id":"1","randomNumber":2}]`), 1, add); ok || !strings.HasPrefix(got[len(got)-1], "tfb.world-object") {
		t.Errorf("an id as a string: %v", got)
	}
	// The row as read (randomnumber, from PostgreSQL's folded name) with
	// the new number added beside it (randomNumber): one field twice, as
	// the held-out entry polkadot answered updates (docs/results.md).
	_, ok := tfbWorldArray([]byte(`[{"id":6319,"randomnumber":3969,"randomNumber":8392}]`), 1, add)
	if want := `tfb.world-object: keys "randomNumber" and "randomnumber" are one field (keys are case-insensitive), answered twice with 8392 and 3969`; ok || !strings.HasPrefix(got[len(got)-1], want) {
		t.Errorf("one field answered twice: %v, want %q", got[len(got)-1], want)
	}
}

// TestTFBPerStackPaths checks a stack that serves the test types at its
// own URLs (TFBOptions.Paths, a stack's paths:): at them it passes, and at
// tfb's own paths it would not have been found.
func TestTFBPerStackPaths(t *testing.T) {
	mux := http.NewServeMux()
	hello := func(ct, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Server", "t")
			w.Header().Set("Content-Type", ct)
			io.WriteString(w, body)
		}
	}
	mux.HandleFunc("GET /v2/json", hello("application/json", `{"message":"Hello, World!"}`))
	mux.HandleFunc("GET /text", hello("text/plain", "Hello, World!"))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	o := TFBOptions{Cases: []string{TFBJSON, TFBPlaintext}}
	plain, err := TFB(o)
	if err != nil {
		t.Fatal(err)
	}
	own, err := plain.WithTFBPaths(map[string]string{TFBJSON: "/v2/json", TFBPlaintext: "/text"})
	if err != nil {
		t.Fatal(err)
	}
	if own.Health != "/text" {
		t.Errorf("health %q, want the stack's own plaintext URL", own.Health)
	}
	if r := RunChecks(context.Background(), own, srv.URL, RunOptions{Stack: "own"}); !r.OK() {
		logFailures(t, r)
		t.Errorf("at its own paths: %d/%d passed", r.Passed(), len(r.Checks))
	}
	if r := RunChecks(context.Background(), plain, srv.URL, RunOptions{Stack: "plain", HealthPath: "/text"}); r.OK() {
		t.Error("at tfb's paths the stack passed; the paths were not the ones sent")
	}
	if _, err := plain.WithTFBPaths(map[string]string{"jsn": "/x"}); err == nil || !strings.Contains(err.Error(), "not a tfb case") {
		t.Errorf("an unknown case in paths: %v", err)
	}
}
