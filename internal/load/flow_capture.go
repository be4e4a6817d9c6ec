package load

import (
	"bytes"

	"github.com/tidwall/gjson"
)

// capture takes step s's captures from the kept response into the user's
// variables; false when one finds nothing (or a value the next requests
// could not carry: a control character).
func (f *flowState) capture(s *compiledStep, p *respParser) bool {
	if p.truncated {
		return false
	}
	head := p.kept[:p.headLen]
	return f.captureFrom(s, func(name string) ([]byte, bool) { return headerValue(head, name) }, p.kept[p.headLen:])
}

// captureFrom takes step s's captures from an answer's headers (header)
// and body.
func (f *flowState) captureFrom(s *compiledStep, header func(name string) ([]byte, bool), body []byte) bool {
	for _, c := range s.captures {
		var v []byte
		if c.header != "" {
			var ok bool
			if v, ok = header(c.header); !ok {
				return false
			}
		} else {
			r := gjson.GetBytes(body, c.path)
			switch {
			case !r.Exists():
				return false
			case r.IsArray():
				items := r.Array()
				if len(items) == 0 {
					return false
				}
				r = items[(f.user+f.runs)%int64(len(items))]
			}
			v = []byte(r.String())
		}
		if bytes.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return false
		}
		f.vars[c.slot] = append(f.vars[c.slot][:0], v...)
	}
	return true
}

// headerValue finds a header's value in a response head (its first line
// is the status line).
func headerValue(head []byte, name string) ([]byte, bool) {
	for rest := head; len(rest) > 0; {
		eol := bytes.IndexByte(rest, '\n')
		if eol < 0 {
			eol = len(rest)
		}
		line := bytes.TrimRight(rest[:eol], "\r")
		rest = rest[min(eol+1, len(rest)):]
		if colon := bytes.IndexByte(line, ':'); colon > 0 && equalFold(line[:colon], name) {
			return trimSpace(line[colon+1:]), true
		}
	}
	return nil, false
}
