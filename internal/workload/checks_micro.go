package workload

func microChecks() []Check {
	user := func(id string) string {
		return `{"id":"` + id + `","name":"Ada","email":"ada@example.com","roles":["admin","dev"]}`
	}
	created := func(body string) Expect { return status(201, `{"created":`+body+`}`) }
	const ada = `{"name":"Ada","email":"ada@example.com"}`
	nested := `{"z":1,"a":[1,2.5,{"b":null}],"t":true,"s":"x"}`
	return []Check{
		get("get/ok", "/users/42", status(200, user("42"))),
		get("get/id-1", "/users/1", status(200, user("1"))),
		get("get/id-not-numeric", "/users/abc", status(200, user("abc"))),
		get("get/id-long", "/users/123456789012345678901234567890", status(200, user("123456789012345678901234567890"))),
		post("post/ok", "/users", ada, created(ada)),
		post("post/key-order-kept", "/users", nested, created(nested)),
		post("post/empty-object", "/users", `{}`, created(`{}`)),
		post("post/malformed-json", "/users", `{"name":`, Expect{Status: []int{400, 422}}),
	}
}
