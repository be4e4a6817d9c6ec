// Package scenario turns a custom workload's templated requests into the
// concrete requests the load sends: it parses `${…}` references (with
// their byte offsets, so the plan can point at a bad one), runs the
// workload's setup requests against a stack and keeps what they capture
// (per stack and per process), and expands a case into a bounded list of
// request variants before any window, so that the load generator only
// cycles over requests it encoded up front.
//
// References:
//
//	${name}        a value captured by a setup step; a list cycles over its values
//	${i}           the iteration (1..repeat) of a repeated setup step
//	${env:NAME}    the harness's environment variable NAME
//	${rand:A..B}   a whole number from A to B, drawn from a seeded generator
//	${line:FILE}   the lines of FILE (relative to the comparison file), cycled
//
// "$${" writes a literal "${".
package scenario

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Kind is what a reference stands for.
type Kind int

// The kinds of reference.
const (
	Literal Kind = iota // text copied as written
	Capture             // ${name}
	Index               // ${i}
	Env                 // ${env:NAME}
	Rand                // ${rand:A..B}
	Line                // ${line:FILE}
)

// Part is one piece of a template: literal text or one reference.
type Part struct {
	Kind Kind
	// Text is the literal text (Literal), the captured name (Capture), the
	// variable (Env) or the file (Line).
	Text string
	// Min and Max bound a Rand reference, both included.
	Min, Max int
	// Offset is the byte offset of the reference's "$" in the source.
	Offset int
}

// Template is a parsed string with references.
type Template struct {
	Source string
	Parts  []Part
}

// Error is a problem at a byte offset of a template's source.
type Error struct {
	Offset int
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

var (
	namePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	randPattern = regexp.MustCompile(`^(-?[0-9]+)\.\.(-?[0-9]+)$`)
)

// Parse reads the references of s. A reference that is not closed, empty,
// or of an unknown form is an *Error at its offset.
func Parse(s string) (Template, error) {
	t := Template{Source: s}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			t.Parts = append(t.Parts, Part{Kind: Literal, Text: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], "$${") {
			lit.WriteString("${")
			i += 3
			continue
		}
		if !strings.HasPrefix(s[i:], "${") {
			lit.WriteByte(s[i])
			i++
			continue
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return t, &Error{Offset: i, Msg: "\"${\" is not closed; write ${name} (or $${ for a literal ${)"}
		}
		p, err := parseRef(s[i+2:i+end], i)
		if err != nil {
			return t, err
		}
		flush()
		t.Parts = append(t.Parts, p)
		i += end + 1
	}
	flush()
	return t, nil
}

// parseRef reads the inside of one ${…} found at offset.
func parseRef(in string, offset int) (Part, error) {
	bad := func(format string, a ...any) (Part, error) {
		return Part{}, &Error{Offset: offset, Msg: fmt.Sprintf(format, a...)}
	}
	kind, arg, hasArg := strings.Cut(in, ":")
	if !hasArg {
		switch {
		case in == "i":
			return Part{Kind: Index, Offset: offset}, nil
		case namePattern.MatchString(in):
			return Part{Kind: Capture, Text: in, Offset: offset}, nil
		case in == "":
			return bad("${} names nothing; write ${name}, ${i}, ${env:NAME}, ${rand:A..B} or ${line:FILE}")
		}
		return bad("${%s} is not a name (letters, digits and _); write e.g. ${token}", in)
	}
	switch kind {
	case "env":
		if !namePattern.MatchString(arg) {
			return bad("${env:%s}: %q is not an environment variable name; write e.g. ${env:API_TOKEN}", arg, arg)
		}
		return Part{Kind: Env, Text: arg, Offset: offset}, nil
	case "rand":
		m := randPattern.FindStringSubmatch(arg)
		if m == nil {
			return bad("${rand:%s} is not a range; write ${rand:A..B} with whole numbers, e.g. ${rand:1..1000}", arg)
		}
		lo, err1 := strconv.Atoi(m[1])
		hi, err2 := strconv.Atoi(m[2])
		if err1 != nil || err2 != nil || lo > hi {
			return bad("${rand:%s}: want whole numbers A ≤ B, e.g. ${rand:1..1000}", arg)
		}
		// B-A+1 values are drawn from: that count must be an int (a
		// wrapped difference is negative).
		if d := hi - lo; d < 0 || d == math.MaxInt {
			return bad("${rand:%s}: the range holds more values than can be drawn from (at most %d); narrow it", arg, uint64(math.MaxInt))
		}
		return Part{Kind: Rand, Min: lo, Max: hi, Offset: offset}, nil
	case "line":
		if strings.TrimSpace(arg) == "" {
			return bad("${line:} names no file; write ${line:ids.txt}")
		}
		return Part{Kind: Line, Text: arg, Offset: offset}, nil
	}
	return bad("${%s}: unknown kind %q; write ${env:NAME}, ${rand:A..B} or ${line:FILE}", in, kind)
}

// Fixed reports whether t has no reference: it is its source.
func (t Template) Fixed() bool {
	for _, p := range t.Parts {
		if p.Kind != Literal {
			return false
		}
	}
	return true
}

// Refs returns the references of t, literals left out.
func (t Template) Refs() []Part {
	var out []Part
	for _, p := range t.Parts {
		if p.Kind != Literal {
			out = append(out, p)
		}
	}
	return out
}
