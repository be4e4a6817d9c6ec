package scenario

import (
	"slices"
	"testing"

	"github.com/stackbench/stackbench/internal/workload"
)

func TestSecretCaptures(t *testing.T) {
	req := func(h ...workload.Header) Request {
		r, err := ParseRequest("GET", "/x", h, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	s := &Scenario{
		Steps: []Step{{Name: "login", Request: req(), Capture: []CaptureSpec{
			{"jwt", "body.user.jwt"}, {"pw", "body.user.password"}, {"auth", "header.Authorization"},
			{"sid", "body.sid"}, {"slug", "body.article.slug"}, {"id", "body.article.id"}, {"x", "header.X-Request-Id"}, {"author", "body.article.author.username"}, {"keyword", "body.keyword"},
		}}},
		Cases: map[string]Request{"me": req(workload.Header{Name: "Cookie", Value: "sid=${sid}"}, workload.Header{Name: "X-Slug", Value: "${slug}"})},
		Env:   map[string]string{"KEY": "sk-live-1234"},
	}
	got := s.SecretCaptures()
	for _, name := range []string{"jwt", "pw", "auth", "sid"} {
		if !got[name] {
			t.Errorf("%s is not a secret capture", name)
		}
	}
	for _, name := range []string{"slug", "id", "x", "author", "keyword"} {
		if got[name] {
			t.Errorf("%s is a secret capture; it is data", name)
		}
	}
	secrets := s.Secrets(map[string][]string{"jwt": {"eyJhbGciOi"}, "slug": {"how-to-train"}, "sid": {"s3ss10n"}})
	if !slices.Contains(secrets, "eyJhbGciOi") || !slices.Contains(secrets, "s3ss10n") || !slices.Contains(secrets, "sk-live-1234") || slices.Contains(secrets, "how-to-train") {
		t.Errorf("secrets %q", secrets)
	}
}
