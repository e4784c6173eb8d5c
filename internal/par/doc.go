// Package par runs the iterations of a loop on several goroutines.
//
// Its one job is [For]: call f(i) for every i in [0, n), each exactly once,
// on at most a given number of goroutines, and return when all calls have
// returned. It knows nothing of what f computes and imports only the
// standard library.
//
// # Determinism
//
// For promises nothing about which goroutine runs which index, nor in which
// order. A caller that needs bit-identical results for any number of
// threads therefore splits its work into fixed pieces whose boundaries
// depend only on the problem size, lets f(i) write the result of piece i
// into slot i of a slice it owns, and combines the slots in index order
// after For returns (see the package example). For returning happens after
// every call of f, so the caller may read the slots without further
// synchronization.
//
// # Cost
//
// For starts its goroutines at each call and waits for them with a
// [sync.WaitGroup]: a few microseconds and a few small allocations per
// call, which is negligible for loops that run for a millisecond or more.
// Callers with less work per call should run it serially (threads = 1).
package par
