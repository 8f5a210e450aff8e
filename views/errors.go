package views

import "net/http"

func statusTitle(status int) string {
	switch status {
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return "Check your input"
	case http.StatusForbidden:
		return "Not allowed"
	case http.StatusNotFound:
		return "Not found"
	case http.StatusConflict:
		return "Changed meanwhile"
	case http.StatusTooManyRequests:
		return "Too many attempts"
	}
	if t := http.StatusText(status); t != "" {
		return t
	}
	return "Error"
}
