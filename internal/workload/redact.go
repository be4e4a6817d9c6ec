package workload

import (
	"slices"
	"strings"
)

// Redacted replaces a secret in findings, messages and files.
const Redacted = "[redacted]"

// sensitiveHeaders are the headers whose values a finding never quotes,
// whatever they hold.
var sensitiveHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"}

// IsSensitiveHeader reports whether a header's value is a credential that
// findings, logs and reports never show.
func IsSensitiveHeader(name string) bool {
	return slices.ContainsFunc(sensitiveHeaders, func(h string) bool { return strings.EqualFold(h, name) })
}

// minSecretBytes is the shortest value Secrets redacts: shorter ones
// (an id such as "7") would blank out unrelated text, and are no
// credential anyway.
const minSecretBytes = 4

// minPieceBytes is the shortest piece of a secret cut by a truncation
// ("tok-be…") that is still redacted.
const minPieceBytes = 4

// Secrets are values that must not appear in what stackbench shows or
// writes: those of ${env:…} and those captured by setup steps.
type Secrets []string

// Add returns s with values added (short and duplicate ones left out).
func (s Secrets) Add(values ...string) Secrets {
	for _, v := range values {
		if len(v) >= minSecretBytes && !slices.Contains(s, v) {
			s = append(s, v)
		}
	}
	return s
}

// Redact replaces every occurrence of a secret in text with Redacted,
// and a piece of one cut by a truncation: a secret's beginning just
// before "…", or its end just after one.
func (s Secrets) Redact(text string) string {
	if len(s) == 0 || text == "" {
		return text
	}
	// Longest first, so that a secret containing another goes whole.
	sorted := slices.Clone(s)
	slices.SortFunc(sorted, func(a, b string) int { return len(b) - len(a) })
	for _, v := range sorted {
		text = strings.ReplaceAll(text, v, Redacted)
	}
	if !strings.Contains(text, "…") {
		return text
	}
	parts := strings.Split(text, "…")
	for i := range parts {
		for _, v := range sorted {
			if i < len(parts)-1 {
				parts[i] = cutPrefixPiece(parts[i], v)
			}
			if i > 0 {
				parts[i] = cutSuffixPiece(parts[i], v)
			}
		}
	}
	return strings.Join(parts, "…")
}

// cutPrefixPiece redacts the end of text when it is the beginning of v.
func cutPrefixPiece(text, v string) string {
	for n := min(len(v)-1, len(text)); n >= minPieceBytes; n-- {
		if strings.HasSuffix(text, v[:n]) {
			return text[:len(text)-n] + Redacted
		}
	}
	return text
}

// cutSuffixPiece redacts the beginning of text when it is the end of v.
func cutSuffixPiece(text, v string) string {
	for n := min(len(v)-1, len(text)); n >= minPieceBytes; n-- {
		if strings.HasPrefix(text, v[len(v)-n:]) {
			return Redacted + text[n:]
		}
	}
	return text
}

// redact applies s to every text of the finding.
func (f Finding) redact(s Secrets) Finding {
	f.Problem, f.Sent, f.Expected, f.Got, f.StderrTail = s.Redact(f.Problem), s.Redact(f.Sent), s.Redact(f.Expected), s.Redact(f.Got), s.Redact(f.StderrTail)
	return f
}
