package demo

// ValidStudentNumber reports whether s is a University of Helsinki student number: nine digits
// matching ^0[12]\d{7}$ whose last digit is the check digit over digits 2–8.
func ValidStudentNumber(s string) bool {
	if len(s) != 9 || s[0] != '0' || (s[1] != '1' && s[1] != '2') {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s[8] == studentNumberCheckDigit(s[1:8])
}

// studentNumberCheckDigit returns the check digit of the seven digits d (digits 2–8 of the
// number): weights 7,1,3,7,1,3,7, check = (10 − Σ mod 10) mod 10.
func studentNumberCheckDigit(d string) byte {
	weights := [7]int{7, 1, 3, 7, 1, 3, 7}
	sum := 0
	for i, w := range weights {
		sum += int(d[i]-'0') * w
	}
	return byte('0' + (10-sum%10)%10)
}

// studentNumbers hands out distinct valid student numbers. Number i is an affine permutation
// of the six free digits, so numbers look scattered, never repeat, and need no set to check.
type studentNumbers struct {
	space uint64 // 10^6 numbers under 01, doubled with 02 when more are needed
	mul   uint64
	add   uint64
	next  uint64
}

func newStudentNumbers(g *rng, need int) *studentNumbers {
	space := uint64(1_000_000)
	if need > 900_000 {
		space = 2_000_000
	}
	// A multiplier coprime with 2 and 5 (every prime factor of the space) makes i ↦ mul·i+add a
	// bijection on [0, space).
	mul := uint64(g.between(100_000, 999_999))
	for mul%2 == 0 || mul%5 == 0 {
		mul++
	}
	return &studentNumbers{space: space, mul: mul, add: uint64(g.intn(int(space)))}
}

// take returns the next unused number, or "" once the space is spent.
func (s *studentNumbers) take() string {
	if s.next >= s.space {
		return ""
	}
	p := (s.mul*s.next + s.add) % s.space
	s.next++
	var b [9]byte
	b[0] = '0'
	b[1] = '1' + byte(p/1_000_000)
	rest := p % 1_000_000
	for i := 7; i >= 2; i-- {
		b[i] = byte('0' + rest%10)
		rest /= 10
	}
	b[8] = studentNumberCheckDigit(string(b[1:8]))
	return string(b[:])
}
