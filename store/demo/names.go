package demo

import (
	"strconv"
	"strings"
)

// People: mostly Finnish (with the Finland-Swedish minority), and the international students the
// MOOCs draw. The accents are the point: search must find "Äijälä" when typed "aijala".
var (
	// Finnish given names by the second names they go with.
	finnishFemale       = []string{"Aino", "Helmi", "Olivia", "Ella", "Sofia", "Iida", "Kaisa", "Minna", "Oona", "Riikka", "Tuuli", "Emilia", "Anni", "Sanna", "Päivi", "Jenni", "Lumi", "Siiri", "Hilla", "Vilja"}
	finnishMale         = []string{"Eino", "Väinö", "Elias", "Leo", "Onni", "Eetu", "Jyri", "Lauri", "Niklas", "Pekka", "Sampo", "Ville", "Aleksi", "Juho", "Matti", "Tero", "Ilmari", "Kyösti", "Aapo", "Eemeli"}
	finnishFemaleSecond = []string{"Maria", "Kristiina", "Aleksandra", "Elina", "Johanna", "Helena"}
	finnishMaleSecond   = []string{"Johannes", "Mikael", "Juhani", "Tapani", "Olavi", "Kalervo"}
	finnishLast         = []string{
		"Virtanen", "Korhonen", "Mäkinen", "Nieminen", "Mäkelä", "Hämäläinen", "Laine", "Heikkinen",
		"Koskinen", "Järvinen", "Lehtonen", "Lehtinen", "Saarinen", "Salminen", "Heinonen", "Niemi",
		"Heikkilä", "Kinnunen", "Salonen", "Turunen", "Salo", "Laitinen", "Tuominen", "Rantanen",
		"Karjalainen", "Jokinen", "Mattila", "Savolainen", "Lahtinen", "Ahonen", "Äijälä", "Öhman",
		"Ylönen", "Pöllänen", "Kärkkäinen", "Hyvönen", "Räsänen", "Väisänen", "Lähteenmäki", "Ääri",
	}
	swedishFirst = []string{"Axel", "Linnéa", "Elsa", "Oskar", "Ebba", "Hugo", "Alva", "Måns", "Saga", "Björn"}
	swedishLast  = []string{"Åberg", "Lindström", "Söderberg", "Holmström", "Sjöblom", "Lindqvist", "Wikström", "Öberg", "Grönroos", "Ekström"}
	intlFirst    = []string{
		"María", "José", "Lucía", "Thu", "Minh", "Jürgen", "Zoë", "Chloé", "François", "Łukasz",
		"Søren", "Ömer", "Aylin", "Wei", "Priya", "Arjun", "Fatima", "Mohammed", "Siobhán", "Seán",
		"Olga", "Dmitri", "Ana", "João", "Hiroshi", "Yuki", "Ji-woo", "Kwame", "Amara", "Tomás",
	}
	intlLast = []string{
		"Sánchez", "García", "Nguyễn", "Trần", "Müller", "Schröder", "O'Brien", "Kowalski", "Wiśniewski",
		"Dvořák", "Novák", "Ødegård", "Yılmaz", "Çelik", "Żak", "Gonçalves", "Ferreira", "Chen", "Wang",
		"Kim", "Park", "Singh", "Patel", "Ahmed", "Haddad", "Ivanova", "Petrov", "Tanaka", "Mensah", "Da Silva",
	}
	mailDomains       = []string{"gmail.com", "outlook.com", "hotmail.fi", "yahoo.com", "protonmail.com", "icloud.com", "helsinki.fi", "student.hamk.fi", "live.fi"}
	mailDomainWeights = []int{40, 14, 8, 6, 4, 5, 14, 3, 6}
)

// person is a generated name and e-mail address.
type person struct {
	first, last, email string
	swedish            bool
	international      bool
}

func (g *rng) person() person {
	var p person
	switch g.pick([]int{72, 8, 20}) {
	case 0:
		first, second := finnishFemale, finnishFemaleSecond
		if g.chance(0.5) {
			first, second = finnishMale, finnishMaleSecond
		}
		p.first = first[g.intn(len(first))]
		if g.chance(0.3) {
			p.first += " " + second[g.intn(len(second))]
		}
		p.last = finnishLast[g.intn(len(finnishLast))]
	case 1:
		p.swedish = true
		p.first = swedishFirst[g.intn(len(swedishFirst))]
		p.last = swedishLast[g.intn(len(swedishLast))]
	default:
		p.international = true
		p.first = intlFirst[g.intn(len(intlFirst))]
		p.last = intlLast[g.intn(len(intlLast))]
	}
	var b strings.Builder
	first, _, _ := strings.Cut(p.first, " ")
	switch g.intn(4) {
	case 0, 1:
		b.WriteString(mailLocal(first))
		b.WriteByte('.')
		b.WriteString(mailLocal(p.last))
	case 2:
		b.WriteString(mailLocal(first))
		b.WriteString(mailLocal(p.last))
	default:
		b.WriteString(mailLocal(first)[:1])
		b.WriteString(mailLocal(p.last))
	}
	if g.chance(0.45) {
		b.WriteString(strconv.Itoa(g.between(1, 99)))
	}
	b.WriteByte('@')
	b.WriteString(mailDomains[g.pick(mailDomainWeights)])
	p.email = b.String()
	return p
}

// mailLocal folds a name into what people type in an address: lower case ASCII, no spaces or
// apostrophes.
func mailLocal(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == ' ' || r == '\'' || r == '-':
		default:
			if f, ok := asciiFold[r]; ok {
				b.WriteString(f)
			}
		}
	}
	return b.String()
}

var asciiFold = map[rune]string{
	'ä': "a", 'å': "a", 'á': "a", 'à': "a", 'ã': "a", 'ö': "o", 'ø': "o", 'ó': "o", 'ô': "o",
	'é': "e", 'è': "e", 'ë': "e", 'ễ': "e", 'ü': "u", 'ú': "u", 'í': "i", 'ı': "i", 'ç': "c",
	'č': "c", 'ł': "l", 'ń': "n", 'ś': "s", 'š': "s", 'ž': "z", 'ż': "z", 'ř': "r", 'ğ': "g",
	'ţ': "t", 'ầ': "a", 'ạ': "a", 'đ': "d", 'ß': "ss",
}

func itoa(n int) string { return strconv.Itoa(n) }
