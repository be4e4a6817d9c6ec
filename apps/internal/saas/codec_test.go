package saas

import "testing"

func TestStdJSONMarshal(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"user key order", User{ID: 4242, Name: "User 4242", Email: "user4242@example.com", Age: 30, CreatedAt: "2023-11-14T23:24:01.000Z"},
			`{"id":4242,"name":"User 4242","email":"user4242@example.com","age":30,"createdAt":"2023-11-14T23:24:01.000Z"}`},
		{"order key order", Order{ID: 200001, UserID: 4242, Amount: "19.99", Currency: "USD", CreatedAt: "2026-01-02T03:04:05.678Z"},
			`{"id":200001,"userId":4242,"amount":"19.99","currency":"USD","createdAt":"2026-01-02T03:04:05.678Z"}`},
		{"no HTML escaping", EchoBody{Name: "<b>&</b>", Email: "a@b.co", Age: 1, Tags: []string{}},
			`{"name":"<b>&</b>","email":"a@b.co","age":1,"tags":[]}`},
		{"empty page", userPage{Page: 9, Limit: 20, Items: []User{}}, `{"page":9,"limit":20,"items":[]}`},
	} {
		got, err := StdJSON{}.Marshal(tc.v)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: Marshal = %s, %v; want %s", tc.name, got, err, tc.want)
		}
	}
}
