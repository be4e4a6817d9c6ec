// Package saas is the domain code every Go reference server of the SaaS-slice
// workload shares: input parsing and validation, the JWT check, the cpu
// chain, the database queries (behind Store) and the JSON encoding (behind
// Codec). A server is a thin adapter that maps its framework's request onto
// App's methods and writes back the Response, so that two reference servers
// differ only in the layer a benchmark step compares (router, driver, JSON
// library, build).
//
// The contract is ../shared/docs/saas-slice.md; docs/workloads.md is the
// user's copy. Choices the contract leaves open, made here once for every Go
// reference server:
//
//   - every bad input (malformed JSON, a failed validation, a bad id or paging
//     parameter) is 400 with {"error":"<what is wrong>"};
//   - an order for a userId with no user is 404 {"error":"not found"};
//   - a query parameter that is empty counts as absent (default paging, and a
//     missing n for cpu);
//   - string lengths count Unicode code points;
//   - JSON is written without HTML escaping, as JavaScript's JSON.stringify
//     does, so bodies compare byte for byte with servers in other languages.
package saas
