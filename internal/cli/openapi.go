package cli

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/stackbench/stackbench/internal/plan"
)

// openAPICases reads an OpenAPI 3 document and returns a starter case per
// GET operation: path and required query parameters filled from the
// document's examples, and where it has none a ${TODO_name} placeholder
// (which `stackbench plan` reports at its line and column until it is
// given a value).
func openAPICases(ctx context.Context, path string) ([]plan.StarterCase, error) {
	loader := openapi3.NewLoader()
	loader.Context = ctx
	doc, err := loader.LoadFromFile(path)
	if err != nil {
		return nil, fmt.Errorf("read OpenAPI document %s: %w", path, err)
	}
	if err := doc.Validate(ctx); err != nil {
		return nil, fmt.Errorf("OpenAPI document %s is not valid: %w", path, err)
	}
	var out []plan.StarterCase
	seen, next := map[string]bool{}, map[string]int{}
	for _, p := range slices.Sorted(func(yield func(string) bool) {
		for k := range doc.Paths.Map() {
			if !yield(k) {
				return
			}
		}
	}) {
		item := doc.Paths.Value(p)
		op := item.Get
		if op == nil {
			continue
		}
		c := plan.StarterCase{Name: uniqueName(seen, next, caseName(op.OperationID, p)), Ignore: true}
		params := append(openapi3.Parameters{}, item.Parameters...)
		params = append(params, op.Parameters...)
		var todo []string
		filled := escapeControls(p)
		query := map[string]string{} // a name's value, escaped; the operation's over the path's
		for _, ref := range params {
			prm := ref.Value
			if prm == nil {
				continue
			}
			// The document's values are percent-encoded for where they go,
			// a placeholder is left as it is for the plan to report.
			v, ok := example(prm)
			pathValue, queryValue := url.PathEscape(v), url.QueryEscape(v)
			if !ok {
				if prm.In == openapi3.ParameterInPath || prm.Required {
					todo = append(todo, prm.Name)
					v = "${TODO_" + placeholderName(prm.Name) + "}"
					pathValue, queryValue = v, v
				} else {
					continue
				}
			}
			switch prm.In {
			case openapi3.ParameterInPath:
				filled = strings.ReplaceAll(filled, "{"+prm.Name+"}", pathValue)
			case openapi3.ParameterInQuery:
				if prm.Required || ok {
					query[url.QueryEscape(prm.Name)] = queryValue
				}
			}
		}
		for i, name := range slices.Sorted(maps.Keys(query)) {
			filled += string("?&"[min(i, 1)]) + name + "=" + query[name]
		}
		c.Path = filled
		var secured string
		c.Header, secured = securityHeader(doc, op)
		if len(todo) > 0 {
			c.Comment = fmt.Sprintf("TODO: the document gives no example for %s; write a value, ${rand:A..B}, or a list captured by a setup step", strings.Join(todo, ", "))
		}
		if secured != "" {
			c.Comment = strings.TrimPrefix(c.Comment+"\n    # "+secured, "\n    # ")
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("OpenAPI document %s has no GET operation; write the cases by hand (docs/config.md)", path)
	}
	return out, nil
}

// example is a parameter's example value, from the parameter or its schema.
func example(p *openapi3.Parameter) (string, bool) {
	if p.Example != nil {
		return fmt.Sprint(p.Example), true
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range p.Examples {
			if !yield(k) {
				return
			}
		}
	}) {
		if e := p.Examples[name]; e != nil && e.Value != nil && e.Value.Value != nil {
			return fmt.Sprint(e.Value.Value), true
		}
	}
	if p.Schema != nil && p.Schema.Value != nil {
		if p.Schema.Value.Example != nil {
			return fmt.Sprint(p.Schema.Value.Example), true
		}
		if p.Schema.Value.Default != nil {
			return fmt.Sprint(p.Schema.Value.Default), true
		}
	}
	return "", false
}

// escapeControls percent-encodes the control characters of a path from
// the document, which no request line may hold.
func escapeControls(p string) string {
	var b strings.Builder
	for _, r := range p {
		if unicode.IsControl(r) {
			b.WriteString(url.PathEscape(string(r)))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

var nonName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// caseName is a case name from an operation id or, without one, its path.
func caseName(operationID, path string) string {
	s := operationID
	if s == "" {
		s = strings.NewReplacer("{", "", "}", "").Replace(path)
	}
	s = strings.Trim(nonName.ReplaceAllString(s, "-"), "-._")
	if s == "" {
		return "root"
	}
	return s
}

var nonIdent = regexp.MustCompile(`[^A-Za-z0-9_]+`)

func placeholderName(s string) string { return nonIdent.ReplaceAllString(s, "_") }

// uniqueName returns base, or base-2, base-3 and so on when taken, and
// marks it taken; next remembers each base's next number, so that many
// colliding names cost one step each (not a growing "-2-2-2…").
func uniqueName(seen map[string]bool, next map[string]int, base string) string {
	name := base
	for n := max(next[base], 2); seen[name]; n++ {
		name = base + "-" + strconv.Itoa(n)
		next[base] = n + 1
	}
	seen[name] = true
	return name
}
