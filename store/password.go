package store

import (
	"errors"
	"fmt"

	"golang.org/x/crypto/bcrypt"
)

// Accounts keep bcrypt hashes of their passwords (accounts.password_hash). The store hashes them,
// so the command line and the web sign-in share one definition of a password without either
// importing the other.

// DefaultPasswordCost is bcrypt's work factor: about a quarter of a second per check on a server
// core, slow for a guesser, unnoticeable for a person. Options.PasswordCost lowers it for tests.
const DefaultPasswordCost = 12

// MinPasswordLength is the shortest password HashPassword accepts.
const MinPasswordLength = 12

// ErrPasswordTooShort and ErrPasswordTooLong report a password HashPassword refuses.
var (
	ErrPasswordTooShort = fmt.Errorf("a password needs at least %d characters", MinPasswordLength)
	// bcrypt reads only 72 bytes; a longer password would be silently cut, so it is refused.
	ErrPasswordTooLong = errors.New("a password may have at most 72 bytes")
)

// HashPassword returns the bcrypt hash to store for password, at the store's cost.
func (s *Store) HashPassword(password string) (string, error) {
	if len([]rune(password)) < MinPasswordLength {
		return "", ErrPasswordTooShort
	}
	if len(password) > 72 {
		return "", ErrPasswordTooLong
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), s.passwordCost)
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return string(h), nil
}

// PasswordMatches reports whether password is the one hash was made from.
func PasswordMatches(hash, password string) bool {
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil
}

// SpendPasswordCheck spends the time of one password check on nothing, so a sign-in for an
// unknown or password-less account takes as long as a wrong password and the timing tells no one
// which addresses have accounts.
func (s *Store) SpendPasswordCheck(password string) {
	_ = bcrypt.CompareHashAndPassword(s.decoyHash(), []byte(password))
}
