package saas

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/workload"
)

// fakeStore holds users 1..3 and records inserted orders.
type fakeStore struct {
	orders []NewOrder
	fail   bool
}

func (s *fakeStore) UserByID(_ context.Context, id int32) (User, error) {
	if s.fail {
		return User{}, errors.New("database down")
	}
	if id < 1 || id > 3 {
		return User{}, ErrNotFound
	}
	return User{ID: id, Name: "U", Email: "u@example.com", Age: 20, CreatedAt: "2023-11-14T22:13:20.000Z"}, nil
}

func (s *fakeStore) ListUsers(_ context.Context, offset int64, limit int32) ([]User, error) {
	users := []User{}
	for id := offset + 1; id >= 1 && id <= 3 && id-offset <= int64(limit); id++ { // id < 1: offset+1 overflowed
		u, _ := s.UserByID(context.Background(), int32(id))
		users = append(users, u)
	}
	return users, nil
}

func (s *fakeStore) InsertOrder(_ context.Context, o NewOrder) (Order, error) {
	if o.UserID > 3 {
		return Order{}, ErrUnknownUser
	}
	s.orders = append(s.orders, o)
	return Order{ID: int32(len(s.orders)), UserID: o.UserID, Amount: o.Amount, Currency: o.Currency, CreatedAt: "2026-11-29T00:00:00.000Z"}, nil
}

func do(t *testing.T, h http.Handler, method, path, header, body string) (int, string) {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if header != "" {
		req.Header.Set("Authorization", header)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); ct != ContentType {
		t.Errorf("%s %s: Content-Type %q", method, path, ct)
	}
	return resp.StatusCode, string(b)
}

func TestAppRoutes(t *testing.T) {
	store := &fakeStore{}
	h := NetHTTPHandler(New(store, StdJSON{}, testSecret))
	user1 := `{"id":1,"name":"U","email":"u@example.com","age":20,"createdAt":"2023-11-14T22:13:20.000Z"}`
	for _, tc := range []struct {
		method, path, auth, body string
		status                   int
		want                     string // exact body when not empty
	}{
		{"GET", "/health", "", "", 200, `{"status":"ok"}`},
		{"POST", "/echo", "", `{"tags":["a"],"age":150,"extra":{"x":1},"email":"j@x.io","name":"J"}`, 200, `{"name":"J","email":"j@x.io","age":150,"tags":["a"]}`},
		{"POST", "/echo", "", `{"name":"` + strings.Repeat("é", 100) + `","email":"j@x.io","age":0,"tags":[]}`, 200, `{"name":"` + strings.Repeat("é", 100) + `","email":"j@x.io","age":0,"tags":[]}`},
		{"POST", "/echo", "", `{"name":"J","email":"j@x.io","age":30.0,"tags":[]}`, 200, `{"name":"J","email":"j@x.io","age":30,"tags":[]}`},
		{"POST", "/echo", "", `{"name":"` + strings.Repeat("a", 101) + `","email":"j@x.io","age":1,"tags":[]}`, 400, ""},
		{"POST", "/echo", "", `{"name":"","email":"j@x.io","age":1,"tags":[]}`, 400, ""},
		{"POST", "/echo", "", `{"name":"J","email":"j@x.io","age":151,"tags":[]}`, 400, ""},
		{"POST", "/echo", "", `{"name":"J","email":"j@x.io","age":-1,"tags":[]}`, 400, ""},
		{"POST", "/echo", "", `{"name":"J","email":"j@x.io","age":1.5,"tags":[]}`, 400, ""},
		{"POST", "/echo", "", `{"name":"J","email":"j@x.io","age":"1","tags":[]}`, 400, ""},
		{"POST", "/echo", "", `{"name":"J","email":"j@x.io","age":1,"tags":["a",null]}`, 400, ""},
		{"POST", "/echo", "", `{"name":"J","email":"j@x.io","age":1,"tags":[1]}`, 400, ""},
		{"POST", "/echo", "", `{"name":"J","email":"j@x.io","age":1,"tags":["1","2","3","4","5","6","7","8","9","10","11"]}`, 400, ""},
		{"POST", "/echo", "", `{"name":"J","email":"j@x.io","age":1}`, 400, ""},
		{"POST", "/echo", "", `{"name":null,"email":"j@x.io","age":1,"tags":[]}`, 400, ""},
		{"POST", "/echo", "", `[]`, 400, ""},
		{"POST", "/echo", "", `{"name":`, 400, ""},
		{"POST", "/echo", "", ``, 400, ""},
		{"GET", "/me", "Bearer " + workload.SignHS256(`{"alg":"HS256"}`, `{"sub":"1"}`, testSecret), "", 200, user1},
		{"GET", "/me", "Bearer " + workload.SignHS256(`{"alg":"HS256"}`, `{"sub":"9"}`, testSecret), "", 404, `{"error":"not found"}`},
		{"GET", "/me", "", "", 401, `{"error":"unauthorized"}`},
		{"GET", "/users/1", "", "", 200, user1},
		{"GET", "/users/4", "", "", 404, `{"error":"not found"}`},
		{"GET", "/users/0", "", "", 400, ""},
		{"GET", "/users/x", "", "", 400, ""},
		{"GET", "/users?page=2&limit=2", "", "", 200, `{"page":2,"limit":2,"items":[` + strings.Replace(user1, `"id":1`, `"id":3`, 1) + `]}`},
		{"GET", "/users?page=3&limit=2", "", "", 200, `{"page":3,"limit":2,"items":[]}`},
		{"GET", "/users?page=9223372036854775807&limit=100", "", "", 200, `{"page":9223372036854775807,"limit":100,"items":[]}`},
		{"GET", "/users?limit=101", "", "", 400, ""},
		{"POST", "/orders", "", `{"userId":1,"amount":19.99,"currency":"USD","note":"x"}`, 201, `{"id":1,"userId":1,"amount":"19.99","currency":"USD","createdAt":"2026-11-29T00:00:00.000Z"}`},
		{"POST", "/orders", "", `{"userId":9,"amount":1,"currency":"USD"}`, 404, `{"error":"not found"}`},
		{"POST", "/orders", "", `{"userId":3000000000,"amount":1,"currency":"USD"}`, 404, `{"error":"not found"}`},
		{"POST", "/orders", "", `{"userId":1,"amount":"1","currency":"USD"}`, 400, ""},
		{"POST", "/orders", "", `{"userId":1,"amount":1e10,"currency":"USD"}`, 400, ""},
		{"POST", "/orders", "", `{"userId":1,"amount":-0.01,"currency":"USD"}`, 400, ""},
		{"POST", "/orders", "", `{"userId":1,"amount":1,"currency":"usd"}`, 400, ""},
		{"POST", "/orders", "", `{"userId":0,"amount":1,"currency":"USD"}`, 400, ""},
		{"POST", "/orders", "", `{"userId":1.5,"amount":1,"currency":"USD"}`, 400, ""},
		{"POST", "/orders", "", `{"amount":1,"currency":"USD"}`, 400, ""},
		{"GET", "/cpu?n=1", "", "", 200, `{"n":1,"hash":"0f0194bebe88948631df19569101d272137f459b50f5d7ac9b9efba4f2d3fcc7"}`},
		{"GET", "/cpu", "", "", 400, ""},
		{"GET", "/cpu?n=1000001", "", "", 400, ""},
	} {
		status, body := do(t, h, tc.method, tc.path, tc.auth, tc.body)
		if status != tc.status || (tc.want != "" && body != tc.want) {
			t.Errorf("%s %s %.60s: got %d %s; want %d %s", tc.method, tc.path, tc.body, status, body, tc.status, tc.want)
		}
	}
	if len(store.orders) != 1 {
		t.Errorf("store got %d orders, want 1: %+v", len(store.orders), store.orders)
	}
}

func TestAppStoreFailureIs500(t *testing.T) {
	h := NetHTTPHandler(New(&fakeStore{fail: true}, StdJSON{}, testSecret))
	if status, body := do(t, h, "GET", "/users/1", "", ""); status != 500 || body != `{"error":"internal error"}` {
		t.Errorf("got %d %s, want 500", status, body)
	}
}

func TestMicroRoutes(t *testing.T) {
	h := NetHTTPMicroHandler(NewMicro(StdJSON{}))
	for _, tc := range []struct {
		method, path, body string
		status             int
		want               string
	}{
		{"GET", "/users/42", "", 200, `{"id":"42","name":"Ada","email":"ada@example.com","roles":["admin","dev"]}`},
		{"GET", "/users/a%22b", "", 200, `{"id":"a\"b","name":"Ada","email":"ada@example.com","roles":["admin","dev"]}`},
		{"POST", "/users", `{ "name": "Ada", "n": [1, 2.50] }`, 201, `{"created":{"name":"Ada","n":[1,2.50]}}`},
		{"POST", "/users", `{"name":`, 400, ""},
		{"POST", "/users", ``, 400, ""},
		{"POST", "/users", " \n", 400, ""},
		{"POST", "/users", `{} {}`, 400, ""},
		{"POST", "/users", ` {"s":"<x>&"} `, 201, `{"created":{"s":"<x>&"}}`},
		{"POST", "/users", `null`, 201, `{"created":null}`},
		{"GET", "/health", "", 200, `{"status":"ok"}`},
	} {
		status, body := do(t, h, tc.method, tc.path, "", tc.body)
		if status != tc.status || (tc.want != "" && body != tc.want) {
			t.Errorf("%s %s %s: got %d %s; want %d %s", tc.method, tc.path, tc.body, status, body, tc.status, tc.want)
		}
	}
}
