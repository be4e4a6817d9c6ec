package workload

import (
	"bytes"
	"mime"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/stackbench/stackbench/internal/pgfix"
	"golang.org/x/net/html"
)

// tfbAddedFortune is the fortune a correct page adds at request time.
const tfbAddedFortune = "Additional fortune added at request time."

// tfbExpectedFortunes are the rows a correct page lists, in order: the
// table's and the added one, sorted by message.
func tfbExpectedFortunes() []pgfix.Fortune {
	out := append(slices.Clone(pgfix.TFBFortunes), pgfix.Fortune{ID: 0, Message: tfbAddedFortune})
	slices.SortFunc(out, func(a, b pgfix.Fortune) int { return strings.Compare(a.Message, b.Message) })
	return out
}

// tfbFortuneTags are the elements a fortunes page is made of; any other
// start tag is markup that came out of a message unescaped.
var tfbFortuneTags = []string{"html", "head", "title", "meta", "body", "table", "thead", "tbody", "tr", "th", "td"}

// fortunePage is a fortunes page as parsed: text unescaped, whitespace
// between elements dropped (TFB compares normalised HTML, not bytes).
type fortunePage struct {
	doctype bool
	title   string
	charset string // a <meta charset> or http-equiv one, lower case
	rows    [][]string
	foreign []string // start tags outside tfbFortuneTags
}

func parseFortunePage(body []byte) fortunePage {
	var p fortunePage
	z := html.NewTokenizer(bytes.NewReader(body))
	var cell *strings.Builder
	inTitle := false
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		tok := z.Token()
		switch tt {
		case html.DoctypeToken:
			p.doctype = strings.EqualFold(strings.TrimSpace(tok.Data), "html")
		case html.StartTagToken, html.SelfClosingTagToken:
			switch tok.Data {
			case "tr":
				p.rows = append(p.rows, nil)
			case "td", "th":
				cell = &strings.Builder{}
			case "title":
				inTitle = true
			case "meta":
				p.charset = metaCharset(tok, p.charset)
			}
			if !slices.Contains(tfbFortuneTags, tok.Data) {
				p.foreign = append(p.foreign, "<"+tok.Data+">")
			}
		case html.EndTagToken:
			switch tok.Data {
			case "td", "th":
				if cell != nil && len(p.rows) > 0 {
					p.rows[len(p.rows)-1] = append(p.rows[len(p.rows)-1], strings.TrimSpace(cell.String()))
				}
				cell = nil
			case "title":
				inTitle = false
			}
		case html.TextToken:
			switch {
			case cell != nil:
				cell.WriteString(tok.Data)
			case inTitle:
				p.title += strings.TrimSpace(tok.Data)
			}
		}
	}
	return p
}

func metaCharset(tok html.Token, prev string) string {
	for _, a := range tok.Attr {
		switch strings.ToLower(a.Key) {
		case "charset":
			return strings.ToLower(a.Val)
		case "content":
			if _, params, err := mime.ParseMediaType(a.Val); err == nil && params["charset"] != "" {
				return strings.ToLower(params["charset"])
			}
		}
	}
	return prev
}

// tfbFortunes checks a fortunes page: a document titled Fortunes in
// UTF-8, a header row, and the 13 fortunes escaped and sorted.
func tfbFortunes(body []byte, contentType string, add func(rule, format string, a ...any)) {
	p := parseFortunePage(body)
	_, params, _ := mime.ParseMediaType(contentType)
	charset := strings.ToLower(params["charset"])
	if charset == "" {
		charset = p.charset
	}
	if !utf8.Valid(body) || charset != "utf-8" {
		add("tfb.fortunes-utf8", "charset %q (Content-Type or <meta>) and valid UTF-8: %v; want utf-8", charset, utf8.Valid(body))
	}
	if !p.doctype || p.title != "Fortunes" {
		add("tfb.fortunes-document", "doctype html: %v, title %q; want <!DOCTYPE html> and <title>Fortunes</title>", p.doctype, p.title)
	}
	if len(p.foreign) > 0 {
		add("tfb.fortunes-escaped", "markup from a message reached the page unescaped: %s (escape <, >, & and quotes in every message)", strings.Join(p.foreign, " "))
		return
	}
	want := tfbExpectedFortunes()
	if len(p.rows) == 0 || !slices.Equal(p.rows[0], []string{"id", "message"}) {
		add("tfb.fortunes-rows", "the first table row is %q, want the header id, message", firstRow(p.rows))
		return
	}
	got := p.rows[1:]
	byID := map[string]string{}
	for _, row := range got {
		if len(row) != 2 {
			add("tfb.fortunes-rows", "row %q has %d cells, want id and message", row, len(row))
			return
		}
		byID[row[0]] = row[1]
	}
	if msg, ok := byID["0"]; !ok || msg != tfbAddedFortune {
		add("tfb.fortunes-added", "no row 0 %q (the fortune a stack adds at request time)", tfbAddedFortune)
	}
	for _, f := range want {
		id := strconv.Itoa(f.ID)
		if f.ID == 0 {
			continue
		}
		if msg, ok := byID[id]; !ok {
			add("tfb.fortunes-rows", "fortune %s is missing", id)
			return
		} else if msg != f.Message {
			add("tfb.fortunes-rows", "fortune %s reads %q, want %q (escaped once, not twice)", id, truncate(msg, 90), f.Message)
			return
		}
	}
	if len(got) != len(want) {
		add("tfb.fortunes-rows", "%d fortunes, want %d", len(got), len(want))
		return
	}
	for i, f := range want {
		if got[i][0] != strconv.Itoa(f.ID) {
			add("tfb.fortunes-sorted", "row %d is fortune %s, want fortune %d: sort by message, the added one included", i+1, got[i][0], f.ID)
			return
		}
	}
}

func firstRow(rows [][]string) []string {
	if len(rows) == 0 {
		return nil
	}
	return rows[0]
}
