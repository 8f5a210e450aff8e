//go:build race

package web_test

// raceDetector reports whether the tests run under the race detector, which makes CPU-bound work
// such as bcrypt many times slower than in service.
const raceDetector = true
