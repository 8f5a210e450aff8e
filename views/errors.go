package views

import "net/http"

// statusTitle is the catalogue key of the heading of an error page for status.
func statusTitle(status int) string {
	switch status {
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return "error.status.input"
	case http.StatusForbidden:
		return "error.status.forbidden"
	case http.StatusNotFound:
		return "error.status.notFound"
	case http.StatusConflict:
		return "error.status.conflict"
	case http.StatusTooManyRequests:
		return "error.status.tooMany"
	case http.StatusUnauthorized:
		return "error.status.signIn"
	case http.StatusMethodNotAllowed:
		return "error.status.method"
	case http.StatusRequestEntityTooLarge:
		return "error.status.tooLarge"
	case http.StatusServiceUnavailable:
		return "error.status.unavailable"
	case http.StatusInternalServerError:
		return "error.status.internal"
	}
	return "error.status.other"
}
