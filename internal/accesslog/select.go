package accesslog

import (
	"fmt"
	"regexp"
	"strings"
)

// Selection is the routes a mix is made of, with their case names, and
// what the log had that the mix leaves out, one sentence each.
type Selection struct {
	// MixName is the mix's case name (MixName, unless a route took it).
	MixName string
	Routes  []Route
	Names   []string
	LeftOut []string
	// Requests counts the log's parsed requests; Chosen those of Routes.
	Requests, Chosen int64
}

// Select picks the top routes a mix can replay: GET and HEAD routes that
// answered a 2xx or 3xx at least once, the most requested first, at most
// top of them.
func (s *Summary) Select(top int) Selection {
	var sel Selection
	var writes, failing, beyond int64
	var writeRoutes, failingRoutes, beyondRoutes int
	writeMethods := map[string]int64{}
	used := map[string]bool{MixName: true}
	sel.MixName = MixName
	for _, r := range s.Routes {
		sel.Requests += r.Count
		switch {
		case r.Method != "GET" && r.Method != "HEAD":
			writes += r.Count
			writeRoutes++
			writeMethods[r.Method] += r.Count
		case r.Successes() == 0:
			failing += r.Count
			failingRoutes++
		case len(sel.Routes) >= top:
			beyond += r.Count
			beyondRoutes++
		default:
			sel.Routes = append(sel.Routes, r)
			sel.Names = append(sel.Names, caseName(r, used))
			sel.Chosen += r.Count
		}
	}
	sel.Requests += s.Overflow
	pct := func(n int64) string { return fmt.Sprintf("%.1f %%", 100*float64(n)/float64(max(sel.Requests, 1))) }
	if writeRoutes > 0 {
		var ms []string
		for _, m := range []string{"POST", "PUT", "PATCH", "DELETE"} {
			if n := writeMethods[m]; n > 0 {
				ms = append(ms, fmt.Sprintf("%s %d", m, n))
				delete(writeMethods, m)
			}
		}
		for m, n := range writeMethods {
			ms = append(ms, fmt.Sprintf("%s %d", m, n))
		}
		sel.LeftOut = append(sel.LeftOut, fmt.Sprintf("%s of other methods than GET and HEAD (%s; %d requests, %s): a log holds no request bodies; add each as a case with its body (and inserts: true for a write) and give it a weight in the mix",
			routes(writeRoutes), strings.Join(ms, ", "), writes, pct(writes)))
	}
	if failingRoutes > 0 {
		sel.LeftOut = append(sel.LeftOut, fmt.Sprintf("%s that never answered 2xx or 3xx (%d requests, %s): a benchmark of failures measures the error path", routes(failingRoutes), failing, pct(failing)))
	}
	if beyondRoutes > 0 {
		sel.LeftOut = append(sel.LeftOut, fmt.Sprintf("%s less requested (%d requests, %s), past the top %d (--top)", routes(beyondRoutes), beyond, pct(beyond), top))
	}
	if s.Overflow > 0 {
		sel.LeftOut = append(sel.LeftOut, fmt.Sprintf("%d requests of routes first seen after %d distinct ones (not grouped)", s.Overflow, MaxRoutes))
	}
	if s.Skipped > 0 {
		sel.LeftOut = append(sel.LeftOut, fmt.Sprintf("%d of %d lines that did not parse (the first, line %d: %s)", s.Skipped, s.Lines, s.FirstSkipped, s.SkipReason))
	}
	return sel
}

// routes is "1 route" or "n routes".
func routes(n int) string {
	if n == 1 {
		return "1 route"
	}
	return fmt.Sprintf("%d routes", n)
}

// MixName is the name of the mix init writes.
const MixName = "access-log"

var nonName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// caseName names a route's case after its path ("/users/{n}" → users-n,
// "/" → root), unique among used.
func caseName(r Route, used map[string]bool) string {
	var parts []string
	if r.Method != "GET" {
		parts = append(parts, strings.ToLower(r.Method))
	}
	for _, seg := range strings.Split(r.Shape, "/") {
		switch seg {
		case "":
		case "{n}", "{uuid}":
			parts = append(parts, "id")
		default:
			if s := strings.Trim(nonName.ReplaceAllString(seg, "-"), "-._"); s != "" {
				parts = append(parts, s)
			}
		}
	}
	name := strings.Join(parts, "-")
	if name == "" {
		name = "root"
	}
	if len(name) > 48 {
		name = strings.Trim(name[:48], "-._")
	}
	base := name
	for k := 2; used[name]; k++ {
		name = fmt.Sprintf("%s-%d", base, k)
	}
	used[name] = true
	return name
}
