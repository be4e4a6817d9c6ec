package cli

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/stackbench/stackbench/internal/accesslog"
	"github.com/stackbench/stackbench/internal/load"
)

// defaultTopRoutes is how many routes init --access-log keeps.
const defaultTopRoutes = 10

// accessLogCases reads an access log and returns the starter's cases as
// a YAML sequence node: a case per top route and a mix of them weighted
// by their requests; and what it left out, one line each.
func accessLogCases(path string, top int) (cases *yaml.Node, notes []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--access-log: %v", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("--access-log %s: not a regular file; name the log file", path)
	}
	sum, err := accesslog.Summarize(f)
	if err != nil {
		return nil, nil, fmt.Errorf("--access-log %s: %v", path, err)
	}
	sel := sum.Select(top)
	if len(sel.Routes) == 0 {
		msg := fmt.Sprintf("--access-log %s: no route a mix can replay (GET or HEAD answered 2xx or 3xx) in %d lines", path, sum.Lines)
		if len(sel.LeftOut) > 0 {
			msg += "; left out: " + strings.Join(sel.LeftOut, "; ")
		}
		return nil, nil, fmt.Errorf("%s", msg)
	}
	weights, scaled := mixWeights(sel.Routes)
	notes = sel.LeftOut
	if scaled {
		notes = append(notes, fmt.Sprintf("weights are the routes' requests scaled to at most %d (a mix's largest weight)", load.MaxMixWeight))
	}
	return logCasesNode(sel, weights, notes), notes, nil
}

// mixWeights are the routes' request counts, scaled down to at most
// load.MaxMixWeight when the largest is above it (scaled is then true).
func mixWeights(routes []accesslog.Route) (weights []int, scaled bool) {
	var most int64
	for _, r := range routes {
		most = max(most, r.Count)
	}
	for _, r := range routes {
		w := r.Count
		if most > load.MaxMixWeight {
			w = max(1, (r.Count*load.MaxMixWeight+most/2)/most)
			scaled = true
		}
		weights = append(weights, int(w))
	}
	return weights, scaled
}

// logCasesNode is the cases list: one case per route, each with a comment
// on what the log showed of it, then the mix, with what was left out.
func logCasesNode(sel accesslog.Selection, weights []int, notes []string) *yaml.Node {
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	of := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
	for i, r := range sel.Routes {
		c := &yaml.Node{Kind: yaml.MappingNode, HeadComment: routeComment(r, sel.Requests)}
		add(c, "name", scalar(sel.Names[i]))
		if r.Method != "GET" {
			add(c, "method", scalar(r.Method))
		}
		add(c, "path", scalar(r.Template()))
		if e := r.Expect(); e != 200 {
			add(c, "expect", &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle, Content: []*yaml.Node{intScalar(e)}})
		}
		seq.Content = append(seq.Content, c)
		add(of, sel.Names[i], intScalar(weights[i]))
	}
	mix := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
	add(mix, "name", scalar(sel.MixName))
	add(mix, "of", of)
	item := &yaml.Node{Kind: yaml.MappingNode}
	comment := fmt.Sprintf("the log's traffic: these %d routes weighted by their requests (%d of the log's %d)", len(sel.Routes), sel.Chosen, sel.Requests)
	if len(notes) > 0 {
		comment += "\nleft out:\n- " + strings.Join(notes, "\n- ")
	}
	item.HeadComment = comment
	add(item, "mix", mix)
	seq.Content = append(seq.Content, item)
	return seq
}

// routeComment says what the log showed of a route.
func routeComment(r accesslog.Route, total int64) string {
	s := fmt.Sprintf("%s %s: %d requests (%.1f %%), %s", r.Method, r.Shape, r.Count, 100*float64(r.Count)/float64(max(total, 1)), r.StatusText())
	if r.Queries() > 1 {
		s += fmt.Sprintf("; %d query strings seen, the most frequent kept", r.Queries())
	}
	if r.UUIDs() {
		s += "; uuid ids: the most frequent kept (a ${line:FILE} of ids sends them all)"
	}
	return s
}

func add(m *yaml.Node, key string, v *yaml.Node) { m.Content = append(m.Content, scalar(key), v) }

func scalar(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func intScalar(n int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(n)}
}
