package plan

import "testing"

func TestSuggest(t *testing.T) {
	known := []string{"concurrency", "warmup", "window", "boot_starts", "a", "b"}
	for word, want := range map[string]string{
		"warm_up":     "warmup",
		"Window":      "window",
		"concurency":  "concurrency",
		"bootstarts":  "boot_starts",
		"boot-starts": "boot_starts",
		"gin":         "",
		"z":           "", // one letter off a one-letter word is no typo
		"timeout":     "",
		"":            "",
	} {
		if got := Suggest(word, known); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", word, got, want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"order", "ordr", 1}, {"abc", "abc", 0}, {"gni", "gin", 1}, {"ca", "abc", 3}} {
		if got := editDistance(tc.a, tc.b); got != tc.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
	}
}
