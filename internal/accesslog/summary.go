package accesslog

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Bounds of a summary: distinct routes kept (later new routes are
// counted together), distinct query strings and ids kept per route.
const (
	MaxRoutes      = 10_000
	maxValuesKept  = 1_000
	maxNumericSize = 18 // digits: still an int64
)

// Route is the requests of one method and path shape ("/users/{n}").
type Route struct {
	Method string
	// Shape is the path with its ids as {n} (a number) or {uuid}.
	Shape string
	Count int64
	// Statuses counts the route's requests by status.
	Statuses map[int]int64
	// ids are the templated segments, in path order.
	ids []idStats
	// queries counts the query strings (without '?'), up to
	// maxValuesKept distinct ones.
	queries map[string]int64
}

// idStats is what was seen of one templated segment.
type idStats struct {
	uuid     bool
	min, max int64
	values   map[string]int64 // uuid: the values, up to maxValuesKept
}

// Summary is a log's requests grouped into routes.
type Summary struct {
	// Lines counts the non-empty lines; Skipped those that did not parse
	// (FirstSkipped is the first one's number, SkipReason why).
	Lines, Skipped int64
	FirstSkipped   int64
	SkipReason     string
	// Routes are every route, the most requested first.
	Routes []Route
	// Overflow counts the requests of routes first seen after MaxRoutes
	// distinct ones: not grouped.
	Overflow int64
}

var (
	digits = regexp.MustCompile(`^[0-9]+$`)
	uuidRe = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
)

// Summarize reads a log and groups its requests into routes.
func Summarize(r io.Reader) (*Summary, error) {
	s := &Summary{}
	byKey := map[string]*Route{}
	br := bufio.NewReaderSize(r, 64<<10)
	for n := int64(1); ; n++ {
		line, tooLong, err := readLine(br)
		if err == io.EOF && len(line) == 0 && !tooLong {
			break
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("read the access log at line %d: %w", n, err)
		}
		if len(strings.TrimSpace(string(line))) == 0 && !tooLong {
			if err == io.EOF {
				break
			}
			continue
		}
		s.Lines++
		var e Entry
		perr := errTooLong
		if !tooLong {
			e, perr = ParseLine(line)
		}
		if perr != nil {
			if s.Skipped == 0 {
				s.FirstSkipped, s.SkipReason = n, perr.Error()
			}
			s.Skipped++
		} else {
			s.add(byKey, e)
		}
		if err == io.EOF {
			break
		}
	}
	for _, rt := range byKey {
		s.Routes = append(s.Routes, *rt)
	}
	slices.SortFunc(s.Routes, func(a, b Route) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Method+" "+a.Shape, b.Method+" "+b.Shape)
	})
	return s, nil
}

var errTooLong = fmt.Errorf("longer than %d bytes", MaxLineBytes)

// readLine reads one line, at most MaxLineBytes of it; tooLong says the
// rest was dropped.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, isPrefix, err := br.ReadLine()
		if len(line)+len(chunk) > MaxLineBytes {
			tooLong = true
		} else {
			line = append(line, chunk...)
		}
		if err != nil || !isPrefix {
			if errors.Is(err, io.EOF) && (len(line) > 0 || tooLong) {
				return line, tooLong, nil
			}
			return line, tooLong, err
		}
	}
}

// add counts one request in its route.
func (s *Summary) add(byKey map[string]*Route, e Entry) {
	path, query, _ := strings.Cut(e.Target, "?")
	segs := strings.Split(path, "/")
	shape := make([]string, len(segs))
	for i, seg := range segs {
		switch {
		case len(seg) <= maxNumericSize && digits.MatchString(seg):
			shape[i] = "{n}"
		case uuidRe.MatchString(seg):
			shape[i] = "{uuid}"
		default:
			shape[i] = seg
		}
	}
	key := e.Method + " " + strings.Join(shape, "/")
	rt := byKey[key]
	if rt == nil {
		if len(byKey) >= MaxRoutes {
			s.Overflow++
			return
		}
		rt = &Route{Method: e.Method, Shape: strings.Join(shape, "/"), Statuses: map[int]int64{}, queries: map[string]int64{}}
		for _, sh := range shape {
			if sh == "{n}" || sh == "{uuid}" {
				rt.ids = append(rt.ids, idStats{uuid: sh == "{uuid}", min: math.MaxInt64, max: math.MinInt64, values: map[string]int64{}})
			}
		}
		byKey[key] = rt
	}
	rt.Count++
	rt.Statuses[e.Status]++
	if _, ok := rt.queries[query]; ok || len(rt.queries) < maxValuesKept {
		rt.queries[query]++
	}
	k := 0
	for i, sh := range shape {
		if sh != "{n}" && sh != "{uuid}" {
			continue
		}
		id := &rt.ids[k]
		k++
		if id.uuid {
			if _, ok := id.values[segs[i]]; ok || len(id.values) < maxValuesKept {
				id.values[segs[i]]++
			}
			continue
		}
		v, _ := strconv.ParseInt(segs[i], 10, 64)
		id.min, id.max = min(id.min, v), max(id.max, v)
	}
}

// Template is the route's path as a case writes it: each numeric id a
// ${rand:MIN..MAX} over the ids seen, each uuid the most frequent one
// seen, and the most frequent query string; literal text with "${"
// escaped.
func (r Route) Template() string {
	segs := strings.Split(r.Shape, "/")
	k := 0
	for i, sh := range segs {
		switch sh {
		case "{n}":
			id := r.ids[k]
			k++
			if id.min == id.max {
				segs[i] = strconv.FormatInt(id.min, 10)
			} else {
				segs[i] = fmt.Sprintf("${rand:%d..%d}", id.min, id.max)
			}
		case "{uuid}":
			segs[i] = escape(mostFrequent(r.ids[k].values))
			k++
		default:
			segs[i] = escape(sh)
		}
	}
	out := strings.Join(segs, "/")
	if q := mostFrequent(r.queries); q != "" {
		out += "?" + escape(q)
	}
	return out
}

// Queries is the number of distinct query strings seen (up to
// maxValuesKept), the empty one included.
func (r Route) Queries() int { return len(r.queries) }

// UUIDs reports whether the route has uuid segments, which Template
// fixes at their most frequent value.
func (r Route) UUIDs() bool {
	return slices.ContainsFunc(r.ids, func(id idStats) bool { return id.uuid })
}

// Successes counts the route's 2xx and 3xx answers.
func (r Route) Successes() int64 {
	var n int64
	for s, c := range r.Statuses {
		if s < 400 {
			n += c
		}
	}
	return n
}

// Expect is the route's most frequent 2xx or 3xx status (0: none).
func (r Route) Expect() int {
	best := 0
	for s, c := range r.Statuses {
		if s < 400 && (best == 0 || c > r.Statuses[best] || c == r.Statuses[best] && s < best) {
			best = s
		}
	}
	return best
}

// StatusText lists the route's statuses, the most frequent first:
// "200 ×950, 404 ×50".
func (r Route) StatusText() string {
	codes := make([]int, 0, len(r.Statuses))
	for s := range r.Statuses {
		codes = append(codes, s)
	}
	slices.SortFunc(codes, func(a, b int) int {
		if c := cmp.Compare(r.Statuses[b], r.Statuses[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	parts := make([]string, len(codes))
	for i, s := range codes {
		parts[i] = fmt.Sprintf("%d ×%d", s, r.Statuses[s])
	}
	return strings.Join(parts, ", ")
}

// mostFrequent is the most frequent key (the smallest of a tie).
func mostFrequent(m map[string]int64) string {
	best, n := "", int64(-1)
	for k, c := range m {
		if c > n || c == n && k < best {
			best, n = k, c
		}
	}
	return best
}

// escape writes a literal for a template: "${" becomes "$${".
func escape(s string) string { return strings.ReplaceAll(s, "${", "$${") }
