package saas

import (
	"math"
	"testing"
)

func TestParseID(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int32
		ok   bool
	}{
		{"1", 1, true},
		{"4242", 4242, true},
		{"2147483647", math.MaxInt32, true},
		{"0042", 42, true},
		{"0", 0, false},
		{"-1", 0, false},
		{"+1", 0, false},
		{"2147483648", 0, false},
		{"99999999999999999999999", 0, false},
		{"1.5", 0, false},
		{"1e3", 0, false},
		{"abc", 0, false},
		{" 1", 0, false},
		{"", 0, false},
	} {
		got, ok := ParseID(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseID(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParsePaging(t *testing.T) {
	for _, tc := range []struct {
		page, limit string
		want        Paging
		ok          bool
	}{
		{"", "", Paging{1, 20}, true},
		{"7", "20", Paging{7, 20}, true},
		{"2", "", Paging{2, 20}, true},
		{"", "5", Paging{1, 5}, true},
		{"1", "1", Paging{1, 1}, true},
		{"1", "100", Paging{1, 100}, true},
		{"9223372036854775807", "100", Paging{math.MaxInt64, 100}, true},
		{"1", "0", Paging{}, false},
		{"1", "101", Paging{}, false},
		{"0", "20", Paging{}, false},
		{"-1", "20", Paging{}, false},
		{"x", "20", Paging{}, false},
		{"1", "ten", Paging{}, false},
		{"9223372036854775808", "20", Paging{}, false},
	} {
		got, ok := ParsePaging(tc.page, tc.limit)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParsePaging(%q, %q) = %+v, %v; want %+v, %v", tc.page, tc.limit, got, ok, tc.want, tc.ok)
		}
	}
}

func TestPagingOffset(t *testing.T) {
	for _, tc := range []struct {
		p    Paging
		want int64
	}{
		{Paging{1, 20}, 0},
		{Paging{7, 20}, 120},
		{Paging{math.MaxInt64, 100}, math.MaxInt64},
		{Paging{math.MaxInt64 / 100, 100}, (math.MaxInt64/100 - 1) * 100},
	} {
		if got := tc.p.Offset(); got != tc.want {
			t.Errorf("%+v.Offset() = %d, want %d", tc.p, got, tc.want)
		}
	}
}

func TestParseRounds(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"1", 1, true},
		{"15000", 15000, true},
		{"1000000", 1000000, true},
		{"1000001", 0, false},
		{"0", 0, false},
		{"-1", 0, false},
		{"1.5", 0, false},
		{"", 0, false},
		{"n", 0, false},
	} {
		got, ok := ParseRounds(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseRounds(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
