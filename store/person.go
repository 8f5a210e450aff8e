package store

import "strings"

// This file is how regdesk reads a person from the LMS: there is no student table. A student is an
// LMS user (users), their details (user_details: names and e-mail, any of which may be NULL) and
// their live verified student number (verified_student_numbers, at most one live row per user).

// studentJoin joins the LMS person of the registration "cr" as "s" (users), "sd" (user_details)
// and "sv" (the live verified number): details and number may be missing, so both are LEFT joins.
const studentJoin = `users s ON s.id = cr.user_id
  LEFT JOIN user_details sd ON sd.user_id = s.id
  LEFT JOIN verified_student_numbers sv ON sv.user_id = s.id AND sv.deleted_at IS NULL`

// sqlPersonName is a person's name from their user_details "d": first and last name, either of
// which may be missing; "" when neither is there (pages then say the name is not known).
func sqlPersonName(d string) string {
	return `coalesce(btrim(concat_ws(' ', ` + d + `.first_name, ` + d + `.last_name)), '')`
}

// studentColumns selects a student's id, name (as sqlPersonName) and e-mail from studentJoin's
// tables.
const studentColumns = `s.id::text AS student_id, coalesce(btrim(concat_ws(' ', sd.first_name, sd.last_name)), '') AS student_name,
  coalesce(sd.email, '') AS student_email`

// sqlPersonSearchMatches is true when the student's search text in regdesk's copy of the LMS's
// search columns (person_search, alias ps: name_search_helper "first last last first" and
// email_search_helper, both lower-cased) holds the pattern at param (a searchPattern) in a name or
// the e-mail. Their GIN trigram indexes serve a regular expression as they serve LIKE, and answer
// a common name in milliseconds.
func sqlPersonSearchMatches(param string) string {
	return `(ps.name_search ~ ` + param + ` OR ps.email_search ~ ` + param + `)`
}

// foldClasses are the letters a search treats as one: a person types "aijala" for "Äijälä" and
// "Äijälä" for "Aijala". The LMS's search columns keep accents, and so does regdesk's copy of them
// (person_search), so the query is widened instead.
var foldClasses = func() map[rune]string {
	groups := []string{"aàáâãäåāăą", "cçćč", "dď", "eèéêëēėęě", "iìíîïīį", "lł", "nñńň", "oòóôõöøōő", "rŕř",
		"sśšş", "tť", "uùúûüūůűų", "yýÿ", "zžźż"}
	out := map[rune]string{}
	for _, g := range groups {
		for _, r := range g {
			out[r] = "[" + g + "]"
		}
	}
	return out
}()

// searchPattern turns a typed word into the regular expression sqlPersonSearchMatches compares:
// the word lower-cased, every character literal, each letter of foldClasses standing for its
// accented and plain forms.
func searchPattern(word string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(word) {
		if class, ok := foldClasses[r]; ok {
			b.WriteString(class)
			continue
		}
		if strings.ContainsRune(`\.^$|?*+()[]{}`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// sqlLMSUserName is the name of the LMS user whose user_details are "da" (an actor: who dismissed,
// who acted in the LMS's admin UI): their name, else their e-mail; "" when neither is known.
const sqlLMSUserName = `coalesce(nullif(btrim(concat_ws(' ', da.first_name, da.last_name)), ''), da.email, '')`
