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
	faultNone         tfbFault = iota
	faultOneIN                 // queries answered with one IN (ANY) query
	faultUnescaped             // fortunes rendered without escaping
	faultUnsorted              // fortunes in table order
	faultNotPersisted          // updates answered but not written
	faultNoServer              // no Server header
	faultNoClamp               // queries=0 answers no rows
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
		for i := range ws {
			ws[i].RandomNumber = 1 + rand.Int32N(10000)
			if fault != faultNotPersisted {
				b.Queue("UPDATE world SET randomnumber = $1 WHERE id = $2", ws[i].RandomNumber, ws[i].ID)
			}
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
}
