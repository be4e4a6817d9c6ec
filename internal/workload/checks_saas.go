package workload

import (
	"encoding/base64"
	"fmt"
	"strings"
	"time"
)

// Expectations shared by many checks.
var (
	badInput     = Expect{Status: []int{400, 422}}
	unauthorized = Expect{Status: []int{401}}
	notFound     = Expect{Status: []int{404}}
)

func status(code int, body string) Expect { return Expect{Status: []int{code}, Body: body} }

// check builds a check; its case is the part of name before the slash.
func check(name, method, path string, header []Header, body string, e Expect) Check {
	c := Check{Name: name, Case: strings.SplitN(name, "/", 2)[0], Method: method, Path: path, Header: header, Expect: e}
	if body != "" || method == "POST" {
		c.Body = []byte(body)
		c.Header = append(append([]Header(nil), jsonHeader...), header...)
	}
	return c
}

func get(name, path string, e Expect) Check { return check(name, "GET", path, nil, "", e) }

func post(name, path, body string, e Expect) Check { return check(name, "POST", path, nil, body, e) }

// echoJSON is an echo body (and, when valid, its answer) in the contract's
// key order.
func echoJSON(name, email, age, tags string) string {
	return fmt.Sprintf(`{"name":%s,"email":%s,"age":%s,"tags":%s}`, name, email, age, tags)
}

func saasSliceChecks(secret string) []Check {
	var cs []Check
	cs = append(cs, get("health/ok", "/health", status(200, `{"status":"ok"}`)))
	cs = append(cs, echoChecks()...)
	cs = append(cs, meChecks(secret)...)
	cs = append(cs, userChecks()...)
	cs = append(cs, listChecks()...)
	cs = append(cs, orderChecks()...)
	cs = append(cs, cpuChecks()...)
	// Last: every bad request above must have left the server up.
	cs = append(cs, get("health/still-up", "/health", status(200, `{"status":"ok"}`)))
	return cs
}

func echoChecks() []Check {
	const jane, email = `"Jane Doe"`, `"jane@example.com"`
	valid := echoJSON(jane, email, "30", `["a","b"]`)
	name100 := `"` + strings.Repeat("n", 100) + `"`
	e100 := `"` + strings.Repeat("é", 100) + `"`
	tags10 := `["1","2","3","4","5","6","7","8","9","10"]`
	withName := func(n string) string { return echoJSON(n, email, "30", "[]") }
	withAge := func(a string) string { return echoJSON(jane, email, a, "[]") }
	withTags := func(t string) string { return echoJSON(jane, email, "30", t) }
	return []Check{
		post("echo/ok", "/echo", valid, status(200, valid)),
		post("echo/unknown-fields-dropped", "/echo",
			`{"name":"Jane Doe","email":"jane@example.com","age":30,"tags":["a","b"],"role":"admin","extra":{"x":[1,2]}}`,
			status(200, valid)),
		post("echo/name-1-char", "/echo", withName(`"J"`), status(200, withName(`"J"`))),
		post("echo/name-100-chars", "/echo", withName(name100), status(200, withName(name100))),
		post("echo/name-100-two-byte-chars", "/echo", withName(e100), status(200, withName(e100))),
		post("echo/name-empty", "/echo", withName(`""`), badInput),
		post("echo/name-101-chars", "/echo", withName(`"`+strings.Repeat("n", 101)+`"`), badInput),
		post("echo/name-not-string", "/echo", withName(`42`), badInput),
		post("echo/email-invalid", "/echo", echoJSON(jane, `"not-an-email"`, "30", "[]"), badInput),
		post("echo/email-no-domain", "/echo", echoJSON(jane, `"jane@"`, "30", "[]"), badInput),
		post("echo/age-0", "/echo", withAge("0"), status(200, withAge("0"))),
		post("echo/age-150", "/echo", withAge("150"), status(200, withAge("150"))),
		post("echo/age-negative", "/echo", withAge("-1"), badInput),
		post("echo/age-151", "/echo", withAge("151"), badInput),
		post("echo/age-fraction", "/echo", withAge("30.5"), badInput),
		post("echo/age-string", "/echo", withAge(`"30"`), badInput),
		post("echo/tags-empty", "/echo", withTags("[]"), status(200, withTags("[]"))),
		post("echo/tags-10", "/echo", withTags(tags10), status(200, withTags(tags10))),
		post("echo/tags-11", "/echo", withTags(`["1","2","3","4","5","6","7","8","9","10","11"]`), badInput),
		post("echo/tags-not-strings", "/echo", withTags(`[1,2]`), badInput),
		post("echo/tags-not-array", "/echo", withTags(`"a"`), badInput),
		post("echo/missing-name", "/echo", `{"email":"jane@example.com","age":30,"tags":[]}`, badInput),
		post("echo/missing-email", "/echo", `{"name":"Jane Doe","age":30,"tags":[]}`, badInput),
		post("echo/missing-age", "/echo", `{"name":"Jane Doe","email":"jane@example.com","tags":[]}`, badInput),
		post("echo/missing-tags", "/echo", `{"name":"Jane Doe","email":"jane@example.com","age":30}`, badInput),
		post("echo/malformed-json", "/echo", `{"name":"Jane Doe",`, badInput),
		post("echo/empty-body", "/echo", ``, badInput),
		post("echo/not-an-object", "/echo", `["Jane Doe"]`, badInput),
	}
}

func meChecks(secret string) []Check {
	enc := base64.RawURLEncoding
	now := time.Now().Unix()
	hs256 := func(claims string) string { return SignHS256(`{"alg":"HS256"}`, claims, secret) }
	harness := HarnessToken(secret)
	user4242 := seededUserJSON(4242)
	// me is a GET /me with the Authorization header set to authorization.
	me := func(name, authorization string, e Expect) Check {
		return check(name, "GET", "/me", []Header{{Name: "Authorization", Value: authorization}}, "", e)
	}
	return []Check{
		me("me/ok", "Bearer "+harness, status(200, user4242)),
		me("me/exp-in-future", "Bearer "+hs256(fmt.Sprintf(`{"sub":"4242","exp":%d}`, now+3600)), status(200, user4242)),
		me("me/nbf-in-past", "Bearer "+hs256(fmt.Sprintf(`{"sub":"4242","nbf":%d}`, now-3600)), status(200, user4242)),
		get("me/no-header", "/me", unauthorized),
		me("me/scheme-lowercase", "bearer "+harness, unauthorized),
		me("me/scheme-other", "Token "+harness, unauthorized),
		me("me/scheme-two-spaces", "Bearer  "+harness, unauthorized),
		me("me/token-only", harness, unauthorized),
		me("me/malformed", "Bearer not-a-jwt", unauthorized),
		me("me/malformed-segments", "Bearer abc.def.ghi", unauthorized),
		me("me/bad-signature", "Bearer "+SignHS256(`{"alg":"HS256"}`, `{"sub":"4242","iat":0}`, secret+"-wrong"), unauthorized),
		me("me/alg-none", "Bearer "+enc.EncodeToString([]byte(`{"alg":"none"}`))+"."+enc.EncodeToString([]byte(`{"sub":"4242","iat":0}`))+".", unauthorized),
		me("me/alg-hs512", "Bearer "+signHS512(`{"alg":"HS512"}`, `{"sub":"4242","iat":0}`, secret), unauthorized),
		me("me/expired", "Bearer "+hs256(fmt.Sprintf(`{"sub":"4242","exp":%d}`, now-3600)), unauthorized),
		me("me/not-yet-valid", "Bearer "+hs256(fmt.Sprintf(`{"sub":"4242","nbf":%d}`, now+3600)), unauthorized),
		me("me/sub-not-numeric", "Bearer "+hs256(`{"sub":"abc","iat":0}`), unauthorized),
		me("me/sub-zero", "Bearer "+hs256(`{"sub":"0","iat":0}`), unauthorized),
		me("me/sub-negative", "Bearer "+hs256(`{"sub":"-4242","iat":0}`), unauthorized),
		me("me/sub-missing", "Bearer "+hs256(`{"iat":0}`), unauthorized),
		me("me/sub-beyond-int32", "Bearer "+hs256(`{"sub":"2147483648","iat":0}`), Expect{Status: []int{401, 404}}),
		me("me/unknown-user", "Bearer "+hs256(`{"sub":"50001","iat":0}`), notFound),
	}
}

func userChecks() []Check {
	return []Check{
		get("user/ok", "/users/4242", status(200, seededUserJSON(4242))),
		get("user/first", "/users/1", status(200, seededUserJSON(1))),
		get("user/last", "/users/50000", status(200, seededUserJSON(50000))),
		get("user/unknown", "/users/50001", notFound),
		get("user/int32-max-unknown", "/users/2147483647", notFound),
		get("user/id-zero", "/users/0", badInput),
		get("user/id-negative", "/users/-1", badInput),
		get("user/id-beyond-int32", "/users/2147483648", badInput),
		get("user/id-not-numeric", "/users/abc", badInput),
		get("user/id-fraction", "/users/1.5", badInput),
	}
}

func listChecks() []Check {
	return []Check{
		get("list/ok", "/users?page=7&limit=20", status(200, userPageJSON(7, 20))),
		get("list/default-paging", "/users", status(200, userPageJSON(1, 20))),
		get("list/default-limit", "/users?page=2", status(200, userPageJSON(2, 20))),
		get("list/default-page", "/users?limit=5", status(200, userPageJSON(1, 5))),
		get("list/limit-1", "/users?page=3&limit=1", status(200, userPageJSON(3, 1))),
		get("list/limit-100", "/users?page=1&limit=100", status(200, userPageJSON(1, 100))),
		get("list/last-page-partial", "/users?page=1667&limit=30", status(200, userPageJSON(1667, 30))),
		get("list/past-the-end", "/users?page=2501&limit=20", status(200, `{"page":2501,"limit":20,"items":[]}`)),
		get("list/far-past-the-end", "/users?page=1000000&limit=100", status(200, `{"page":1000000,"limit":100,"items":[]}`)),
		get("list/limit-0", "/users?page=1&limit=0", badInput),
		get("list/limit-101", "/users?page=1&limit=101", badInput),
		get("list/limit-not-numeric", "/users?page=1&limit=ten", badInput),
		get("list/page-0", "/users?page=0&limit=20", badInput),
		get("list/page-negative", "/users?page=-1&limit=20", badInput),
		get("list/page-not-numeric", "/users?page=two&limit=20", badInput),
	}
}

func orderChecks() []Check {
	order := func(userID int, amount, currency string) Expect {
		return Expect{Status: []int{201}, Order: &OrderExpect{UserID: userID, Amount: amount, Currency: currency}}
	}
	return []Check{
		post("order/ok", "/orders", `{"userId":4242,"amount":19.99,"currency":"USD"}`, order(4242, "19.99", "USD")),
		post("order/amount-0-eur", "/orders", `{"userId":1,"amount":0,"currency":"EUR"}`, order(1, "0.00", "EUR")),
		post("order/amount-padded-gbp", "/orders", `{"userId":50000,"amount":12.5,"currency":"GBP"}`, order(50000, "12.50", "GBP")),
		post("order/amount-max", "/orders", `{"userId":4242,"amount":9999999999.99,"currency":"USD"}`, order(4242, "9999999999.99", "USD")),
		post("order/unknown-fields-dropped", "/orders", `{"userId":4242,"amount":5,"currency":"USD","note":"gift","id":1}`, order(4242, "5.00", "USD")),
		post("order/amount-negative", "/orders", `{"userId":4242,"amount":-0.01,"currency":"USD"}`, badInput),
		post("order/amount-1e10", "/orders", `{"userId":4242,"amount":10000000000,"currency":"USD"}`, badInput),
		post("order/amount-string", "/orders", `{"userId":4242,"amount":"19.99","currency":"USD"}`, badInput),
		post("order/currency-unknown", "/orders", `{"userId":4242,"amount":19.99,"currency":"JPY"}`, badInput),
		post("order/currency-lowercase", "/orders", `{"userId":4242,"amount":19.99,"currency":"usd"}`, badInput),
		post("order/userid-zero", "/orders", `{"userId":0,"amount":19.99,"currency":"USD"}`, badInput),
		post("order/userid-fraction", "/orders", `{"userId":42.5,"amount":19.99,"currency":"USD"}`, badInput),
		post("order/userid-string", "/orders", `{"userId":"4242","amount":19.99,"currency":"USD"}`, badInput),
		post("order/missing-userid", "/orders", `{"amount":19.99,"currency":"USD"}`, badInput),
		post("order/missing-amount", "/orders", `{"userId":4242,"currency":"USD"}`, badInput),
		post("order/missing-currency", "/orders", `{"userId":4242,"amount":19.99}`, badInput),
		post("order/unknown-user", "/orders", `{"userId":50001,"amount":19.99,"currency":"USD"}`, Expect{Status: []int{404, 422}}),
		post("order/malformed-json", "/orders", `{"userId":4242,`, badInput),
	}
}

func cpuChecks() []Check {
	return []Check{
		get("cpu/n-1", "/cpu?n=1", status(200, cpuJSON(1))),
		get("cpu/ok", "/cpu?n=15000", status(200, cpuJSON(15000))),
		get("cpu/n-max", "/cpu?n=1000000", status(200, cpuJSON(1000000))),
		get("cpu/n-0", "/cpu?n=0", badInput),
		get("cpu/n-beyond-max", "/cpu?n=1000001", badInput),
		get("cpu/n-negative", "/cpu?n=-5", badInput),
		get("cpu/n-fraction", "/cpu?n=1.5", badInput),
		get("cpu/n-not-numeric", "/cpu?n=many", badInput),
		get("cpu/n-missing", "/cpu", badInput),
	}
}
