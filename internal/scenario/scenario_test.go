package scenario

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stackbench/stackbench/internal/workload"
)

func TestParseOffsets(t *testing.T) {
	src := "/a/${slug}?o=${rand:0..190}&t=${env:TOKEN}&l=${line:ids.txt}&i=${i}&x=$${y}"
	tp, err := Parse(src)
	at := func(ref string) int { return strings.Index(src, ref) }
	if err != nil {
		t.Fatal(err)
	}
	refs := tp.Refs()
	want := []Part{
		{Kind: Capture, Text: "slug", Offset: 3},
		{Kind: Rand, Min: 0, Max: 190, Offset: at("${rand")},
		{Kind: Env, Text: "TOKEN", Offset: at("${env")},
		{Kind: Line, Text: "ids.txt", Offset: at("${line")},
		{Kind: Index, Offset: at("${i}")},
	}
	if fmt.Sprint(refs) != fmt.Sprint(want) {
		t.Fatalf("refs %v, want %v", refs, want)
	}
	if last := tp.Parts[len(tp.Parts)-1]; last.Text != "&x=${y}" {
		t.Errorf("escaped literal %q, want &x=${y}", last.Text)
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		in     string
		offset int
		msg    string
	}{
		{"/a/${slug", 3, "not closed"},
		{"/a${}", 2, "names nothing"},
		{"x ${rand:9..1}", 2, "A ≤ B"},
		{"${rand:a..b}", 0, "not a range"},
		{"ab${what:x}", 2, "unknown kind"},
		{"${no-dash}", 0, "not a name"},
	} {
		_, err := Parse(c.in)
		var pe *Error
		if err == nil || !asError(err, &pe) || pe.Offset != c.offset || !strings.Contains(pe.Msg, c.msg) {
			t.Errorf("Parse(%q) = %v, want offset %d and %q", c.in, err, c.offset, c.msg)
		}
	}
}

func asError(err error, pe **Error) bool {
	e, ok := err.(*Error)
	*pe = e
	return ok
}

func mustRequest(t *testing.T, method, path string, header []workload.Header, body string) Request {
	t.Helper()
	r, err := ParseRequest(method, path, header, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestExpandCyclesListsAndDrawsSeeded(t *testing.T) {
	r := mustRequest(t, "GET", "/articles/${slugs}?offset=${rand:0..190}",
		[]workload.Header{{Name: "Authorization", Value: "Token ${token}"}}, "")
	v := Values{Captures: map[string][]string{"slugs": {"a", "b", "c"}, "token": {"T"}}}
	got, err := r.Expand("article", v)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != RandVariants {
		t.Fatalf("%d variants, want %d (a draw sets the number above the list's 3)", len(got), RandVariants)
	}
	again, _ := r.Expand("article", v)
	other, _ := r.Expand("page", v)
	same, differs := true, false
	for k, req := range got {
		slug := []string{"a", "b", "c"}[k%3]
		if !strings.HasPrefix(req.Path, "/articles/"+slug+"?offset=") {
			t.Fatalf("variant %d path %q, want slug %s", k, req.Path, slug)
		}
		if req.Header[0].Value != "Token T" {
			t.Fatalf("variant %d header %q", k, req.Header[0].Value)
		}
		same = same && again[k].Path == req.Path
		differs = differs || other[k].Path != req.Path
	}
	if !same {
		t.Error("two expansions of one case differ: the draws are not seeded")
	}
	if !differs {
		t.Error("two cases draw the same sequence")
	}
	seen := map[string]bool{}
	for _, req := range got {
		seen[req.Path[strings.Index(req.Path, "=")+1:]] = true
	}
	if len(seen) < 150 {
		t.Errorf("only %d distinct offsets in 1000 draws of 0..190", len(seen))
	}
}

func TestExpandCountsAndBounds(t *testing.T) {
	lines := make([]string, MaxVariants+1)
	for i := range lines {
		lines[i] = fmt.Sprint(i)
	}
	fixed := mustRequest(t, "GET", "/health", nil, "")
	if got, err := fixed.Expand("h", Values{}); err != nil || len(got) != 1 || got[0].Path != "/health" {
		t.Errorf("fixed: %v %v", got, err)
	}
	r := mustRequest(t, "GET", "/u/${line:ids.txt}", nil, "")
	_, err := r.Expand("u", Values{Lines: map[string][]string{"ids.txt": lines}})
	if err == nil || !strings.Contains(err.Error(), "10001 variants; at most 10000") {
		t.Errorf("too many lines: %v", err)
	}
	got, err := r.Expand("u", Values{Lines: map[string][]string{"ids.txt": lines[:42]}})
	if err != nil || len(got) != 42 || got[41].Path != "/u/41" {
		t.Errorf("42 lines: %d variants, %v", len(got), err)
	}
	big := mustRequest(t, "POST", "/b/${line:ids.txt}", nil, strings.Repeat("x", 8<<10)+"${line:ids.txt}")
	if _, err := big.Expand("b", Values{Lines: map[string][]string{"ids.txt": lines[:MaxVariants]}}); err == nil || !strings.Contains(err.Error(), "64 MiB") {
		t.Errorf("80 MiB of bodies: %v", err)
	}
	empty := mustRequest(t, "GET", "/a/${slugs}", nil, "")
	if _, err := empty.Expand("a", Values{Captures: map[string][]string{"slugs": {}}}); err == nil || !strings.Contains(err.Error(), "empty list") {
		t.Errorf("empty list: %v", err)
	}
	if _, err := empty.Expand("a", Values{Captures: map[string][]string{"slugs": {"has space"}}}); err == nil || !strings.Contains(err.Error(), "space") {
		t.Errorf("a space in the path: %v", err)
	}
	hdr := mustRequest(t, "GET", "/", []workload.Header{{Name: "X", Value: "${env:V}"}}, "")
	if _, err := hdr.Expand("a", Values{Getenv: func(string) string { return "a\r\nInjected: 1" }}); err == nil || !strings.Contains(err.Error(), "line break") {
		t.Errorf("a line break in a header: %v", err)
	}
}

// conduit is a tiny app with a login and articles, as a setup meets it.
func conduit(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var created atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Authorization", "Token abc")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"user":{"email":"a@b","token":"abc"}}`)
	})
	mux.HandleFunc("POST /articles", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Token abc" {
			w.WriteHeader(401)
			return
		}
		var in struct{ Article struct{ Title string } }
		json.NewDecoder(r.Body).Decode(&in)
		created.Add(1)
		w.WriteHeader(201)
		fmt.Fprintf(w, `{"article":{"slug":%q}}`, strings.ReplaceAll(strings.ToLower(in.Article.Title), " ", "-"))
	})
	mux.HandleFunc("GET /tags", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"tags":["go","pg"],"none":[]}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, &created
}

func TestRunSetupCapturesAndRepeats(t *testing.T) {
	srv, created := conduit(t)
	steps := []Step{
		{Name: "login", Scope: ScopeProcess, Request: mustRequest(t, "POST", "/login", nil, `{}`),
			Expect: []int{200}, Capture: []CaptureSpec{{"token", "body.user.token"}, {"auth", "header.Authorization"}}},
		{Name: "articles", Scope: ScopeProcess, Repeat: 3,
			Request: mustRequest(t, "POST", "/articles", []workload.Header{{Name: "Authorization", Value: "Token ${token}"}},
				`{"article":{"title":"Bench ${i}"}}`),
			Expect: []int{201}, Capture: []CaptureSpec{{"slugs", "body.article.slug"}}},
		{Name: "tags", Scope: ScopeStack, Request: mustRequest(t, "GET", "/tags", nil, ""),
			Capture: []CaptureSpec{{"tags", "body.tags"}}},
	}
	got, err := RunSetup(context.Background(), srv.URL, steps, ScopeProcess, map[string][]string{"kept": {"x"}}, SetupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"kept": {"x"}, "token": {"abc"}, "auth": {"Token abc"}, "slugs": {"bench-1", "bench-2", "bench-3"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("captures %v, want %v", got, want)
	}
	if created.Load() != 3 {
		t.Errorf("%d articles created, want 3", created.Load())
	}
	got, err = RunSetup(context.Background(), srv.URL, steps, ScopeStack, nil, SetupOptions{})
	if err != nil || fmt.Sprint(got["tags"]) != "[go pg]" {
		t.Errorf("a body array: %v %v", got, err)
	}
}

func TestRunSetupErrorsNameStepPathAndResponse(t *testing.T) {
	srv, _ := conduit(t)
	for _, c := range []struct {
		step Step
		want string
	}{
		{Step{Name: "login", Scope: ScopeStack, Request: mustRequest(t, "POST", "/login", nil, ""),
			Capture: []CaptureSpec{{"token", "body.user.jwt"}}},
			`setup step login: token: capture body.user.jwt found nothing in the body: "{\"user\":{\"email\":\"a@b\",\"token\":\"abc\"}}"`},
		{Step{Name: "login", Scope: ScopeStack, Request: mustRequest(t, "POST", "/login", nil, ""),
			Capture: []CaptureSpec{{"c", "header.Set-Cookie"}}},
			"capture header.Set-Cookie found no header Set-Cookie in the response"},
		{Step{Name: "tags", Scope: ScopeStack, Request: mustRequest(t, "GET", "/tags", nil, ""),
			Capture: []CaptureSpec{{"none", "body.none"}}},
			"capture body.none found an empty list"},
		{Step{Name: "post", Scope: ScopeStack, Repeat: 2, Request: mustRequest(t, "POST", "/articles", nil, `{}`), Expect: []int{201}},
			"setup step post: POST /articles (i=1) answered 401, want 201: (empty body)"},
	} {
		_, err := RunSetup(context.Background(), srv.URL, []Step{c.step}, ScopeStack, nil, SetupOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v\nwant it to contain %s", err, c.want)
		}
	}
}

// A setup error quotes the response, but never a value of ${env:…} or
// one captured by an earlier step.
func TestRunSetupErrorsRedactSecrets(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/login" {
			io.WriteString(w, `{"token":"tok-0123456789"}`)
			return
		}
		w.WriteHeader(500)
		io.WriteString(w, `{"error":"bad key sk-live-PLANTED for token tok-0123456789"}`)
	}))
	defer srv.Close()
	steps := []Step{
		{Name: "login", Scope: ScopeStack, Request: mustRequest(t, "POST", "/login", []workload.Header{{Name: "X-Api-Key", Value: "${env:KEY}"}}, ""),
			Capture: []CaptureSpec{{"token", "body.token"}}},
		{Name: "use", Scope: ScopeStack, Request: mustRequest(t, "POST", "/use", nil, "")},
	}
	_, err := RunSetup(context.Background(), srv.URL, steps, ScopeStack, nil,
		SetupOptions{Getenv: func(string) string { return "sk-live-PLANTED" }})
	if err == nil || strings.Contains(err.Error(), "sk-live") || strings.Contains(err.Error(), "tok-0123") || !strings.Contains(err.Error(), "bad key [redacted] for token [redacted]") {
		t.Errorf("setup error %v; want both secrets redacted", err)
	}
}

// A setup step answered with a redirect fails, saying where it pointed;
// its body (the password) never reaches that place.
func TestRunSetupDoesNotFollowRedirects(t *testing.T) {
	var stolen atomic.Int64
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { stolen.Add(1) }))
	defer elsewhere.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/login", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	steps := []Step{{Name: "login", Scope: ScopeStack, Request: mustRequest(t, "POST", "/login", nil, `{"password":"hunter2"}`)}}
	_, err := RunSetup(context.Background(), srv.URL, steps, ScopeStack, nil, SetupOptions{})
	if stolen.Load() != 0 {
		t.Fatalf("the redirect was followed: %d requests reached the other server", stolen.Load())
	}
	if err == nil || !strings.Contains(err.Error(), "answered 307") || !strings.Contains(err.Error(), "a redirect to "+elsewhere.URL+"/login, not followed") {
		t.Errorf("setup error %v; want the 307 and where it pointed", err)
	}
}

// A ${rand} range whose count of values overflows is refused where it is
// written, instead of panicking when drawn.
func TestRandRangeTooWideIsRefused(t *testing.T) {
	for _, src := range []string{"/a?n=${rand:0..9223372036854775807}", "/a?n=${rand:-9223372036854775808..9223372036854775807}", "/a?n=${rand:-1..9223372036854775806}"} {
		_, err := Parse(src)
		var e *Error
		if !errors.As(err, &e) || e.Offset != 5 || !strings.Contains(err.Error(), "narrow it") {
			t.Errorf("Parse(%q) = %v; want a refusal at offset 5", src, err)
		}
	}
	if _, err := Parse("/a?n=${rand:-4611686018427387904..4611686018427387902}"); err != nil {
		t.Errorf("a wide range that fits: %v", err)
	}
}
