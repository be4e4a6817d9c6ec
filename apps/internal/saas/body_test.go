package saas

import (
	"math"
	"testing"
)

func TestAmountText(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
		ok   bool
	}{
		{19.99, "19.99", true},
		{0, "0.00", true},
		{math.Copysign(0, -1), "0.00", true},
		{7, "7.00", true},
		{12.5, "12.50", true},
		{1.005, "1.01", true}, // String(1.005) is "1.005"; PostgreSQL rounds half up
		{1.004, "1.00", true},
		{0.995, "1.00", true},
		{99.999, "100.00", true},
		{1e-7, "0.00", true},
		{9999999999.99, "9999999999.99", true},
		{9999999999.994, "9999999999.99", true},
		{9999999999.995, "", false}, // rounds to 10^10, which numeric(12,2) cannot hold
		{1e10, "", false},
		{-0.01, "", false},
		{math.Inf(1), "", false},
		{math.NaN(), "", false},
	} {
		got, ok := AmountText(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("AmountText(%v) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestValidEmail(t *testing.T) {
	valid := []string{"jane@example.com", "a.b+c@sub.example.co.uk", "x@a-b.io", "user4242@example.com"}
	invalid := []string{"", "not-an-email", "jane@", "@example.com", "jane@example", "jane doe@example.com",
		"jane@@example.com", "jane@example..com", "jane@-example.com", "jane@example.com ", "jané@example.com"}
	for _, s := range valid {
		if !ValidEmail(s) {
			t.Errorf("ValidEmail(%q) = false, want true", s)
		}
	}
	for _, s := range invalid {
		if ValidEmail(s) {
			t.Errorf("ValidEmail(%q) = true, want false", s)
		}
	}
}
