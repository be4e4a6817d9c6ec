package saas

import (
	"testing"
	"time"
)

func TestFormatTime(t *testing.T) {
	for _, tc := range []struct {
		in   time.Time
		want string
	}{
		// user 4242 of the seed: 1,700,000,000,000 ms + 4241 s
		{time.UnixMilli(1_700_000_000_000 + 4241_000), "2023-11-14T23:24:01.000Z"},
		{time.Date(2026, 1, 2, 3, 4, 5, 678_999_000, time.FixedZone("X", 3600)), "2026-01-02T02:04:05.678Z"},
	} {
		if got := FormatTime(tc.in); got != tc.want {
			t.Errorf("FormatTime(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
