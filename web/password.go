package web

import (
	"errors"
	"fmt"
	"sync"

	"golang.org/x/crypto/bcrypt"
)

// passwordCost is bcrypt's work factor: about a quarter of a second per check on a server core,
// slow for a guesser, unnoticeable for a person. Tests lower it (export_test.go).
var passwordCost = 12

// MinPasswordLength is the shortest password HashPassword accepts.
const MinPasswordLength = 12

// ErrPasswordTooShort and ErrPasswordTooLong report a password HashPassword refuses.
var (
	ErrPasswordTooShort = fmt.Errorf("a password needs at least %d characters", MinPasswordLength)
	// bcrypt reads only 72 bytes; a longer password would be silently cut, so it is refused.
	ErrPasswordTooLong = errors.New("a password may have at most 72 bytes")
)

// HashPassword returns the bcrypt hash to store for password.
func HashPassword(password string) (string, error) {
	if len([]rune(password)) < MinPasswordLength {
		return "", ErrPasswordTooShort
	}
	if len(password) > 72 {
		return "", ErrPasswordTooLong
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), passwordCost)
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return string(h), nil
}

// PasswordMatches reports whether password is the one hash was made from.
func PasswordMatches(hash, password string) bool {
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil
}

var (
	decoyOnce sync.Once
	decoyHash []byte
)

// checkDecoy spends the time of one password check on nothing, so a sign-in for an unknown or
// password-less account takes as long as a wrong password and the timing tells no one which
// addresses have accounts.
func checkDecoy(password string) {
	decoyOnce.Do(func() {
		decoyHash, _ = bcrypt.GenerateFromPassword([]byte("regdesk decoy password"), passwordCost)
	})
	_ = bcrypt.CompareHashAndPassword(decoyHash, []byte(password))
}
