package plan

import (
	"bytes"
	"errors"
	"io"
	"regexp"

	"go.yaml.in/yaml/v3"
)

// docMarker is a line that ends a YAML document ("...") or starts one
// ("---").
var docMarker = regexp.MustCompile(`^(?:---|\.\.\.)(?:[ \t]|$)`)

// secondDocument finds what follows the first YAML document of data: the
// line of the marker that ended it, and ok. A comparison file is one
// document; yaml.Unmarshal reads the first and drops the rest without a
// word, so a "..." or "---" line slipped into the file (by a document init
// imported, say) would hide everything after it. An empty document after
// the first (a trailing "---") is none.
func secondDocument(data []byte) (line int, ok bool) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var first, next yaml.Node
	if dec.Decode(&first) != nil || len(first.Content) == 0 {
		return 0, false
	}
	for {
		err := dec.Decode(&next)
		if errors.Is(err, io.EOF) {
			return 0, false
		}
		if err == nil && (len(next.Content) == 0 || next.Content[0].Kind == yaml.ScalarNode && next.Content[0].Tag == "!!null") {
			continue
		}
		// A document with content, or text past the first that is not
		// even YAML: either way Unmarshal would ignore it.
		return markerAfter(data, first.Content[0].Line), true
	}
}

// markerAfter is the first document marker of data below line from (both
// 1-based), 0 when there is none.
func markerAfter(data []byte, from int) int {
	for i, l := range bytes.Split(data, []byte("\n")) {
		if i+1 > from && docMarker.Match(l) {
			return i + 1
		}
	}
	return 0
}
