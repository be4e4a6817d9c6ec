package journal

// The journal's record types are its own (schema_*.go): the plan, host,
// load and capacity types a run measures with are converted to them when
// a record is written (the …Of functions, convert_*.go) and back when a
// reader needs their behaviour (the Plan, Host, Load and Capacity
// methods). A field added to plan.Protocol, say, stays out of the journal
// until it is added here, where TestGoldenSchema sees it.

// ConvertPtr converts *a with f (one of the …Of functions, or a method
// that converts back); nil stays nil.
func ConvertPtr[A, B any](a *A, f func(A) B) *B {
	if a == nil {
		return nil
	}
	b := f(*a)
	return &b
}

// ConvertSlice converts each element of as with f; nil stays nil and
// empty stays empty, so the JSON ("null" or "[]") is the same.
func ConvertSlice[A, B any](as []A, f func(A) B) []B {
	if as == nil {
		return nil
	}
	bs := make([]B, len(as))
	for i, a := range as {
		bs[i] = f(a)
	}
	return bs
}

// ConvertMap converts each value of m with f; nil stays nil.
func ConvertMap[K comparable, A, B any](m map[K]A, f func(A) B) map[K]B {
	if m == nil {
		return nil
	}
	out := make(map[K]B, len(m))
	for k, a := range m {
		out[k] = f(a)
	}
	return out
}
