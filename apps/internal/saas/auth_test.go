package saas

import (
	"crypto/hmac"
	"crypto/sha512"
	"encoding/base64"
	"fmt"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/workload"
)

const testSecret = "test-secret"

func TestAuthenticator(t *testing.T) {
	a := NewAuthenticator(testSecret)
	hs256 := func(claims string) string {
		return workload.SignHS256(`{"alg":"HS256","typ":"JWT"}`, claims, testSecret)
	}
	enc := base64.RawURLEncoding
	now := time.Now().Unix()
	hs512 := func() string {
		signing := enc.EncodeToString([]byte(`{"alg":"HS512"}`)) + "." + enc.EncodeToString([]byte(`{"sub":"4242"}`))
		mac := hmac.New(sha512.New, []byte(testSecret))
		mac.Write([]byte(signing))
		return signing + "." + enc.EncodeToString(mac.Sum(nil))
	}()
	for _, tc := range []struct {
		name   string
		header string
		want   int32
		ok     bool
	}{
		{"harness token", "Bearer " + workload.HarnessToken(testSecret), 4242, true},
		{"future exp", "Bearer " + hs256(fmt.Sprintf(`{"sub":"7","exp":%d}`, now+3600)), 7, true},
		{"past nbf", "Bearer " + hs256(fmt.Sprintf(`{"sub":"7","nbf":%d}`, now-3600)), 7, true},
		{"largest id", "Bearer " + hs256(`{"sub":"2147483647"}`), 2147483647, true},
		{"no header", "", 0, false},
		{"lowercase scheme", "bearer " + workload.HarnessToken(testSecret), 0, false},
		{"other scheme", "Token " + workload.HarnessToken(testSecret), 0, false},
		{"two spaces", "Bearer  " + workload.HarnessToken(testSecret), 0, false},
		{"scheme only", "Bearer ", 0, false},
		{"malformed", "Bearer not-a-jwt", 0, false},
		{"malformed three parts", "Bearer a.b.c", 0, false},
		{"wrong secret", "Bearer " + workload.SignHS256(`{"alg":"HS256"}`, `{"sub":"4242"}`, "other"), 0, false},
		{"alg none", "Bearer " + enc.EncodeToString([]byte(`{"alg":"none"}`)) + "." + enc.EncodeToString([]byte(`{"sub":"4242"}`)) + ".", 0, false},
		{"alg HS512", "Bearer " + hs512, 0, false},
		{"expired", "Bearer " + hs256(fmt.Sprintf(`{"sub":"4242","exp":%d}`, now-60)), 0, false},
		{"not yet valid", "Bearer " + hs256(fmt.Sprintf(`{"sub":"4242","nbf":%d}`, now+3600)), 0, false},
		{"sub not numeric", "Bearer " + hs256(`{"sub":"abc"}`), 0, false},
		{"sub zero", "Bearer " + hs256(`{"sub":"0"}`), 0, false},
		{"sub negative", "Bearer " + hs256(`{"sub":"-4"}`), 0, false},
		{"sub too large", "Bearer " + hs256(`{"sub":"2147483648"}`), 0, false},
		{"sub a number", "Bearer " + hs256(`{"sub":4242}`), 0, false},
		{"sub missing", "Bearer " + hs256(`{"iat":0}`), 0, false},
		{"exp not a number", "Bearer " + hs256(`{"sub":"4242","exp":"soon"}`), 0, false},
	} {
		got, ok := a.UserID(tc.header)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: UserID = %d, %v; want %d, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
