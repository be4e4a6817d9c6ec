package saas

import (
	"math"
	"strconv"
)

// Paging defaults and limits of the list route.
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// ParseID parses a user id: a decimal integer (ASCII digits only, no sign)
// of at least 1 that fits in int32.
func ParseID(s string) (int32, bool) {
	v, ok := parseDigits(s, math.MaxInt32)
	if !ok || v < 1 {
		return 0, false
	}
	return int32(v), true
}

// Paging is a validated page request of the list route.
type Paging struct {
	Page  int64
	Limit int32
}

// Offset returns (Page-1)*Limit, or math.MaxInt64 when that overflows: a
// page that far is past the end either way.
func (p Paging) Offset() int64 {
	if p.Page-1 > math.MaxInt64/int64(p.Limit) {
		return math.MaxInt64
	}
	return (p.Page - 1) * int64(p.Limit)
}

// ParsePaging parses the list route's page and limit query parameters; an
// empty string means the parameter is absent and takes its default (page 1,
// limit 20). page is an integer ≥ 1, limit an integer from 1 to 100.
func ParsePaging(page, limit string) (Paging, bool) {
	p := Paging{Page: 1, Limit: DefaultLimit}
	if page != "" {
		v, ok := parseDigits(page, math.MaxInt64)
		if !ok || v < 1 {
			return Paging{}, false
		}
		p.Page = v
	}
	if limit != "" {
		v, ok := parseDigits(limit, MaxLimit)
		if !ok || v < 1 {
			return Paging{}, false
		}
		p.Limit = int32(v)
	}
	return p, true
}

// ParseRounds parses the cpu route's n: an integer from 1 to MaxCPURounds;
// an empty string (absent) is invalid.
func ParseRounds(s string) (int, bool) {
	v, ok := parseDigits(s, MaxCPURounds)
	if !ok || v < 1 {
		return 0, false
	}
	return int(v), true
}

// parseDigits parses a non-empty string of ASCII digits whose value is at
// most maxValue.
func parseDigits(s string, maxValue int64) (int64, bool) {
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v > maxValue {
		return 0, false
	}
	return v, true
}
