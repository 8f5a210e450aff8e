package store

import (
	"strings"
	"unicode/utf8"
)

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
// email_search_helper, folded by search_fold into name_fold and email_fold) holds the LIKE
// pattern at param (a searchPattern) in a name or the e-mail. Their GIN trigram indexes answer a
// common name in milliseconds.
func sqlPersonSearchMatches(param string) string {
	return `(ps.name_fold LIKE ` + param + ` OR ps.email_fold LIKE ` + param + `)`
}

// sqlPersonSearchWordStart is true when a word of the student's search text (a name or the whole
// e-mail) starts with the folded word at param (a searchWordStart).
func sqlPersonSearchWordStart(param string) string {
	return `(' ' || ps.name_fold || ' ' || ps.email_fold) LIKE ` + param
}

// foldGroups are the letters a search treats as one, each group's first the one the others fold
// to: a person types "aijala" for "Äijälä" and "Äijälä" for "Aijala". Migration 0011's
// search_fold folds the stored text with the same table (TestSearchFoldAgreesWithSQL).
var foldGroups = []string{"aàáâãäåāăą", "cçćč", "dď", "eèéêëēėęě", "iìíîïīį", "lł", "nñńň", "oòóôõöøōő", "rŕř",
	"sśšş", "tť", "uùúûüūůűų", "yýÿ", "zžźż"}

// foldTo maps every letter of foldGroups to its group's plain letter.
var foldTo = func() map[rune]rune {
	out := map[rune]rune{}
	for _, g := range foldGroups {
		base, _ := utf8.DecodeRuneInString(g)
		for _, r := range g {
			out[r] = base
		}
	}
	return out
}()

// searchFold lower-cases s and folds its accented letters as search_fold does.
func searchFold(s string) string {
	return strings.Map(func(r rune) rune {
		if b, ok := foldTo[r]; ok {
			return b
		}
		return r
	}, strings.ToLower(s))
}

// searchPattern turns a typed word into the LIKE pattern sqlPersonSearchMatches compares: the
// word folded, LIKE's wildcards literal, anywhere in the text.
func searchPattern(word string) string {
	return "%" + likeEscaper.Replace(searchFold(word)) + "%"
}

// searchWordStart is the LIKE pattern sqlPersonSearchWordStart compares: the folded word at the
// start of a word.
func searchWordStart(word string) string {
	return "% " + likeEscaper.Replace(searchFold(word)) + "%"
}

// sqlLMSUserName is the name of the LMS user whose user_details are "da" (an actor: who dismissed,
// who acted in the LMS's admin UI): their name, else their e-mail; "" when neither is known.
const sqlLMSUserName = `coalesce(nullif(btrim(concat_ws(' ', da.first_name, da.last_name)), ''), da.email, '')`
